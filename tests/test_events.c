// tests/test_events.c: hand-built trace events (see test_events.h).
#include "test_events.h"

#include <string.h>

SimEvent tevent_blank(int rank, double t0, double t1) {
    SimEvent e;
    memset(&e, 0, sizeof(e));
    e.rank = rank;
    e.sim_start = t0;
    e.sim_end = t1;
    e.wall_start = t0 * 1000;
    e.wall_end = t1 * 1000;
    e.step = e.nsteps = e.chunk = e.src = e.dst = -1;
    e.kind = SIM_EV_COMPUTE;
    e.name = "op";
    return e;
}
