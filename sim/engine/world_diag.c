// sim/engine/world_diag.c: a failed run's diagnosis: the backend's text, and the
// one trace event that carries it to the views (sim/trace/trace.h,
// SIM_EV_DIAGNOSIS_LABEL).
#include "engine/world.h"

#include <stddef.h>

const char *sim_world_diagnosis(const SimWorld *w) {
    if (w == NULL || w->ops == NULL || w->ctx == NULL || w->ops->last_error == NULL)
        return "";
    const char *d = w->ops->last_error(w->ctx);
    return d ? d : "";
}

void sim_world_trace_diagnosis(SimWorld *w, int rank, const char *text) {
    if (w == NULL || w->trace == NULL || w->ranks == NULL || text == NULL || text[0] == '\0' ||
        rank < 0 || rank >= w->cfg.nranks)
        return;
    SimRank *r = &w->ranks[rank];
    const char *name = sim_trace_intern(w->trace, text);
    if (name == NULL)
        return; // out of memory: the run's error still says it all
    SimEvent ev;
    sim_rank_event(&ev, r, SIM_EV_FAULT, SIM_STREAM_COMM, name, SIM_EV_DIAGNOSIS_LABEL,
                   sim_rank_now(r));
    sim_rank_trace(r, &ev);
}
