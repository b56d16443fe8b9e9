// sim/base/clock.c: the wall clock (sim/base/clock.h).
#include "base/clock.h"

#include <time.h>

double sim_wall_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
