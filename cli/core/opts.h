// cli/core/opts.h: pieces the sub-commands' option parsers share (`ddplab run`
// and `ddplab bench`): how a rejected value is shown in a message, how a
// message is kept on one line, and the checks an output file name must pass
// before any work starts. Each command
// keeps its own option table and its own messages' prefix.
#ifndef DDPLAB_CLI_OPTS_H
#define DDPLAB_CLI_OPTS_H

#include <stdarg.h>
#include <stddef.h>

// Copies val into buf[len] for a message: printable characters only (others
// become '?'), at most 60 of them, then "..." when val was longer. len must
// be at least 5; returns buf.
const char *cli_opt_shown(const char *val, char *buf, size_t len);

// vsnprintf into buf[len], then every '\n' becomes a space: a message
// built from help text or a system error still prints as one line.
void cli_opt_vline(char *buf, size_t len, const char *fmt, va_list ap);

// Whether path can be created or overwritten: not empty, not a directory, in
// an existing directory this process may write. Returns 0 when it can;
// otherwise 1, with *what saying what is wrong ("is a directory") and
// *allowed what would do ("a file name"), both static strings.
int cli_opt_output_problem(const char *path, const char **what, const char **allowed);

#endif
