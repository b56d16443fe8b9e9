// sim/base/errbuf.h: the one way sim/ reports a failure in words. Fallible
// functions that take a caller's buffer (char *err, size_t errlen) write a
// single line there and return a status; this helper does both in one call.
#ifndef DDPLAB_SIM_ERRBUF_H
#define DDPLAB_SIM_ERRBUF_H

#include <stddef.h>

#include "base/status.h"

// Formats one line into err[errlen] (truncated to fit; nothing is written
// when err is NULL or errlen is 0) and returns st, so a caller can write
// `return sim_errbuf_fail(err, errlen, SIM_EINVAL, "...", ...);`.
SimStatus sim_errbuf_fail(char *err, size_t errlen, SimStatus st, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
