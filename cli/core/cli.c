// cli/core/cli.c: what the sub-commands of `ddplab` share: the exit-code table
// that every help text prints (the codes themselves are in cli.h).
#include "core/cli.h"

void cli_print_exit_codes(FILE *out) {
    fprintf(out,
            "  0  success\n"
            "  1  a check failed (wrong results, a calibration that could not be fitted, a\n"
            "     run that does not fit --device-memory, a plan that does not fit, or two\n"
            "     checkpoints that differ)\n"
            "  2  bad input (unknown command, option or value; an input file that is\n"
            "     missing, a directory or cannot be read)\n"
            "  3  a diagnosed distributed failure (protocol mismatch, watchdog timeout)\n"
            "  4  internal error, out of memory, or the backend is unavailable\n"
            "  130, 143  stopped by Ctrl-C (SIGINT), by SIGTERM\n");
}
