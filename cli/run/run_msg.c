// cli/run/run_msg.c: the messages of `ddplab run` (run.h): every part of the
// command reports a bad value or a failure through run_error and
// run_opt_fail, on one line, in the option tables' wording (core/optable.h),
// the same as plan's and bench's; a run's failure as the engine wrote it
// goes through run_error_text, which keeps the line breaks of a PyTorch text
// reproduced word for word (and of ddplab's diagnosis after it).
#include "run/run.h"

#include <stdarg.h>
#include <stdio.h>

#include "core/optable.h" // defines: cli_optab_verror, cli_optab_fail

void run_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    cli_optab_verror("ddplab run", fmt, ap);
    va_end(ap);
}

void run_error_text(const char *msg) {
    fprintf(stderr, "ddplab run: %s\n", msg);
}

RunParse run_opt_fail(const char *opt, const char *val, const char *what,
                      const char *allowed) {
    CliOptCtx cx = {.prog = "ddplab run"};
    cli_optab_fail(&cx, opt, val, what, allowed);
    return RUN_PARSE_ERROR;
}
