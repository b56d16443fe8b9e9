// viz/ticks.h: an axis' ticks and their labels, for the charts (chart.h)
// and anything else that draws an axis. Pure arithmetic, no drawing.
#ifndef DDPLAB_VIZ_TICKS_H
#define DDPLAB_VIZ_TICKS_H

#include <stddef.h>

#include "base/status.h" // defines: SimStatus

enum { VIZ_TICKS_MAX = 24 };

// The ticks of one axis. The axis spans [lo, hi]: the data's range widened to
// round values (and, for a single value, around it). Linear: v[i] = multiples
// of step, step one of 1, 2, 5 times a power of ten. Log: base 2 or 10 and
// every `stride`-th power of it (stride >= 1), or for a range of three
// decades or less the 1-2-5 values of each decade (base 10, stride 0), or,
// less than one decade, linear ticks on the log axis (base 0).
typedef struct {
    double lo, hi;
    int log;      // 0 linear axis, 1 log axis
    int base;     // log axis: 2 or 10, 0 when the ticks are linear values
    int stride;   // log axis with base: powers between ticks
    double step;  // linear ticks (log == 0, or log with base 0): spacing
    int n;
    double v[VIZ_TICKS_MAX];
} VizTicks;

// Linear ticks for data in [lo, hi] (lo <= hi, both finite), at most
// max_ticks of them (2..VIZ_TICKS_MAX) and at least 2; a range that holds
// zero inside gets 3 at the least (-s, 0, s). SIM_EINVAL otherwise.
SimStatus viz_ticks_linear(double lo, double hi, int max_ticks, VizTicks *t);
// Log ticks for data in [lo, hi] (0 < lo <= hi, both finite), base 2 or 10
// (0: 2 when lo >= 1 and the powers of two fit in 2 * max_ticks, else 10),
// at most max_ticks (2..VIZ_TICKS_MAX). SIM_EINVAL otherwise.
SimStatus viz_ticks_log(double lo, double hi, int base, int max_ticks, VizTicks *t);
// The label of tick value v of t: "0.5", "250", "1.5e6", "2e-5". On a base-2
// axis: whole numbers ("16384") unless the axis reaches 2^20, where powers
// from 1024 up take a binary suffix ("1K", "256K", "1G"); fractions as
// decimals down to 1/8, then "2^-4".
void viz_tick_label(const VizTicks *t, double v, char *buf, size_t len);

#endif
