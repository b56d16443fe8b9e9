// sim/base/errbuf.c: formats a failure's one-line message into the caller's
// buffer (see errbuf.h).
#include "base/errbuf.h"

#include <stdarg.h>
#include <stdio.h>

SimStatus sim_errbuf_fail(char *err, size_t errlen, SimStatus st, const char *fmt, ...) {
    if (err != NULL && errlen > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return st;
}
