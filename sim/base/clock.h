// sim/base/clock.h: the wall clock that measured times are read from. Every
// layer stamps wall times (trace events, backends' step reports, the input
// pipeline), so it lives at the bottom.
#ifndef DDPLAB_SIM_CLOCK_H
#define DDPLAB_SIM_CLOCK_H

// Seconds since an arbitrary fixed point (CLOCK_MONOTONIC).
double sim_wall_now(void);

#endif
