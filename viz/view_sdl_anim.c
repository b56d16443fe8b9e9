// viz/view_sdl_anim.c: time between events.
//
// Many events share one instant of simulated time (a ring step starts on
// every rank at once, with a transfer event each), so the cursor stepping
// through events at a steady rate would leave the picture still for a while
// and then jump. Instead, while the cursor moves through the events [a, b)
// of one instant t_a, the picture moves from t_a towards t_b, the next
// instant: u = (cursor - a) / (b - a). The painter (paint.h) takes the
// scenes at t_a and t_b and u: bars tween between the two, and the chunks
// of a collective step move by the clock t_a + u (t_b - t_a).
#include "view_sdl_internal.h"

#include <math.h>

// Two times count as one instant within this much (cost-model sums over
// ranks may differ in the last bits).
static double same_instant_tol(double t) {
    return 1e-12 + 1e-9 * fabs(t);
}

VizSdlInstant viz_sdl_instant(const VizModel *m, size_t available, double pos) {
    VizSdlInstant in = {0, 0, 0, 0, 0, 0};
    const VizTrace *t = viz_model_trace(m);
    size_t n = viz_model_count(m);
    n = n < available ? n : available;
    n = n < t->n ? n : t->n;
    if (n == 0)
        return in;
    if (!(pos >= 0))
        pos = 0;
    size_t i = (size_t)pos;
    if (i >= n) {
        i = n - 1;
        pos = (double)i;
    }
    const SimEvent *ev = t->ev;
    double ti = ev[i].sim_start, tol = same_instant_tol(ti);
    // a: the first event of the instant (events are in sim_start order).
    size_t lo = 0, hi = i;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ev[mid].sim_start < ti - tol)
            lo = mid + 1;
        else
            hi = mid;
    }
    in.a = lo;
    // b: the first event of a later instant.
    lo = i + 1;
    hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ev[mid].sim_start <= ti + tol)
            lo = mid + 1;
        else
            hi = mid;
    }
    in.b = lo;
    in.t_a = ti;
    in.t_b = ti;
    if (in.b < n) {
        in.next_ok = 1;
        in.t_b = ev[in.b].sim_start;
        in.u = (pos - (double)in.a) / (double)(in.b - in.a);
        in.u = in.u < 0 ? 0 : in.u > 1 ? 1 : in.u;
    }
    return in;
}
