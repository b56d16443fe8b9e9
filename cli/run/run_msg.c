// cli/run/run_msg.c: the one-line messages of `ddplab run` (run.h): every
// part of the command reports a bad value or a failure through these two, so
// the wording is the same everywhere.
#include "run/run.h"

#include <stdarg.h>
#include <stdio.h>

#include "core/opts.h" // defines: cli_opt_shown, cli_opt_vline

void run_error(const char *fmt, ...) {
    char msg[1200];
    va_list ap;
    va_start(ap, fmt);
    cli_opt_vline(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "ddplab run: %s\n", msg);
}

RunParse run_opt_fail(const char *opt, const char *val, const char *what,
                      const char *allowed) {
    char vbuf[72];
    run_error("--%s: '%s' %s; allowed: %s", opt, cli_opt_shown(val, vbuf, sizeof vbuf), what,
              allowed);
    return RUN_PARSE_ERROR;
}
