// cli/cli.h: what every sub-command of the `ddplab` program shares: the exit
// codes (documented in `ddplab --help`) and the entry points of the
// sub-commands that main.c dispatches to.
#ifndef DDPLAB_CLI_H
#define DDPLAB_CLI_H

#include <stdio.h>

// Exit codes. Scripts and tests rely on them, so they never change meaning.
enum {
    CLI_EXIT_OK = 0,       // success
    CLI_EXIT_CHECK = 1,    // a check failed: wrong results, a calibration fit, or a
                           // run that does not fit --device-memory
    CLI_EXIT_USAGE = 2,    // bad input: an unknown command, option or value
    CLI_EXIT_DIST = 3,     // a diagnosed distributed failure (protocol, watchdog)
    CLI_EXIT_INTERNAL = 4, // internal error, out of memory, backend unavailable
};

// Prints the exit-code table, indented, for the help texts.
void cli_print_exit_codes(FILE *out);

// `ddplab bench ...`: argv[0] is "bench". Returns an exit code.
int bench_main(int argc, char **argv);
// Prints the full help of `ddplab bench`.
void bench_help(FILE *out);

// `ddplab run ...`: argv[0] is "run". Returns an exit code.
int run_main(int argc, char **argv);
// Prints the full help of `ddplab run`.
void run_help(FILE *out);

// `ddplab plan ...`: argv[0] is "plan". Returns an exit code (1 when the
// configuration does not fit).
int plan_main(int argc, char **argv);
void plan_help(FILE *out);

// `ddplab replay TRACE ...`: argv[0] is "replay". Returns an exit code.
int replay_main(int argc, char **argv);
void replay_help(FILE *out);

// `ddplab lesson [NAME|FILE] ...` (and `ddplab` alone: argv = {"lesson"}):
// the lessons' menu, or one lesson played. Returns an exit code.
int lesson_main(int argc, char **argv);
void lesson_help(FILE *out);

// `ddplab interview ...`: argv[0] is "interview". Returns an exit code.
int interview_main(int argc, char **argv);
void interview_help(FILE *out);

// `ddplab merge-traces OUT IN...`: argv[0] is "merge-traces" (merge_traces.c).
int merge_traces_main(int argc, char **argv);
void merge_traces_help(FILE *out);

#endif
