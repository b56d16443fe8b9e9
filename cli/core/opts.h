// cli/core/opts.h: pieces the sub-commands' option parsers share (`ddplab run`,
// `plan` and `bench`): how a rejected value is shown in a message, how a
// message is kept on one line, the checks an output file name must pass
// before any work starts, and the values of the options several commands
// take (a device memory, a bucket size, a watchdog), so that they take them
// in the same words. Each command keeps its own option table (core/optable.h).
#ifndef DDPLAB_CLI_OPTS_H
#define DDPLAB_CLI_OPTS_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "core/optable.h" // defines: CliOptCtx, CliOptRow, CliOptValue

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

// --device-memory SIZE|DEVICE: a size ("80GB", "80GiB", "512MiB", "1.5e9")
// or a device's memory ("h100"), above 0, into *bytes. 0, or -1 after the
// table's message for the row.
int cli_opt_device_memory(const CliOptCtx *cx, const CliOptRow *row, const char *text,
                          uint64_t *bytes);
// --bucket-cap-mb's range (a REAL row): MiB above 0, at most 1 TiB. 0, or -1
// after the message.
int cli_opt_bucket_mib(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v);
// --watchdog's range (a REAL row whose what and allowed say it): seconds
// above 0, at most a day. An apply (CliOptApply).
int cli_opt_watchdog(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v,
                     void *dest);
// --backend NAME (-B): a backend of this build, or one a build with it would
// have (the command's checks then say how to get it). An apply (CliOptApply).
int cli_opt_backend(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v,
                    void *dest);
// The rows' words and messages of those options.
#define CLI_OPT_BUCKET_MIB_ALLOWED "a size in MiB above 0, e.g. 25 or 0.5"
#define CLI_OPT_WATCHDOG_WHAT "a positive number of seconds"
#define CLI_OPT_WATCHDOG_ALLOWED "0.01 to 86400"

#endif
