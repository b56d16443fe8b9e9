// cli/report/replay.h: the command line of `ddplab replay TRACE` (replay.c), as a
// parser of its own so that it can be checked without opening a trace.
#ifndef DDPLAB_CLI_REPLAY_H
#define DDPLAB_CLI_REPLAY_H

#include <stdio.h>

#include "core/viz_cli.h" // defines: CliViz

typedef struct {
    const char *path; // the trace, as given (points into argv)
    int info;         // --info
    CliViz viz;       // the view options, checked (cli_viz_check)
} ReplayOptions;

// Parses argv[1..argc) (argv[0] is "replay") and checks the view options;
// the default view (ncurses on a terminal, text otherwise) is filled in.
// Returns 0 to go on, -1 for --help (nothing printed), or CLI_EXIT_USAGE
// after printing one line on stderr. Reads no trace.
int replay_opts_parse(int argc, char **argv, ReplayOptions *o);

// `ddplab replay TRACE ...`: argv[0] is "replay". Returns an exit code.
int replay_main(int argc, char **argv);
void replay_help(FILE *out);

#endif
