// sim/trace/trace_merge.c: events recorded elsewhere put back into a trace (see
// trace_merge.h).
#include "trace/trace_merge.h"

#include "trace/trace_internal.h" // defines: struct SimTrace (the dropped counts)

SimStatus sim_trace_absorb(SimTrace *t, const SimEvent *ev, size_t n) {
    if (t == NULL || (ev == NULL && n > 0))
        return SIM_EINVAL;
    for (size_t i = 0; i < n; i++)
        if (ev[i].rank < 0 || ev[i].rank >= t->nranks)
            return SIM_EINVAL;
    for (size_t i = 0; i < n; i++) {
        SimEvent e = ev[i];
        e.name = sim_trace_intern(t, ev[i].name);
        e.label = sim_trace_intern(t, ev[i].label);
        if ((ev[i].name && e.name == NULL) || (ev[i].label && e.label == NULL))
            return SIM_ENOMEM;
        SIM_CHECK(sim_trace_append(t, &e));
    }
    return SIM_OK;
}

void sim_trace_add_dropped(SimTrace *t, int rank, size_t n) {
    if (t != NULL && rank >= 0 && rank < t->nranks)
        t->ranks[rank].dropped += n;
}
