// cli/core/cli.h: what every sub-command of the `ddplab` program shares: the exit
// codes (documented in `ddplab --help`). Each command's entry point is in the
// header of its own folder (run/run.h, lesson/lesson_cmd.h, ...).
#ifndef DDPLAB_CLI_H
#define DDPLAB_CLI_H

#include <stdio.h>

// Exit codes. Scripts and tests rely on them, so they never change meaning.
enum {
    CLI_EXIT_OK = 0,       // success
    CLI_EXIT_CHECK = 1,    // a check failed: wrong results, a calibration fit, or a
                           // run that does not fit --device-memory
    CLI_EXIT_USAGE = 2,    // bad input: an unknown command, option or value, or an
                           // input file that is missing, a directory or unreadable
    CLI_EXIT_DIST = 3,     // a diagnosed distributed failure (protocol, watchdog)
    CLI_EXIT_INTERNAL = 4, // internal error, out of memory, backend unavailable
};

// Prints the exit-code table, indented, for the help texts.
void cli_print_exit_codes(FILE *out);

#endif
