// tests/test_chart_trace.c: the hand-made traces of test_chart_trace.h.
//
// Rank r, in simulated milliseconds: params 1 MiB and optimizer state
// 2 MiB at 0; then in iteration i (0..2) from 1 + 2i: activations A at +0.1,
// gradients 1 MiB at +0.5, activations freed at +0.6, gradients at +0.9. A
// is 1 MiB, or (1 + r) MiB with differ. Rank 0 logs the loss 2 / (i + 1) at
// each iteration's end.
#include "test_chart_trace.h"

#include <stdio.h>
#include <string.h>

#include "engine/memory.h" // defines: SIM_MEM_*

typedef struct {
    VizTrace *t;
    int rank;
    double total; // the rank's bytes now, as the ledger's "count" carries it
} Ledger;

static int mem(Ledger *l, double ms, int cat, double bytes, int freeing) {
    l->total += freeing ? -bytes : bytes;
    SimEvent e;
    memset(&e, 0, sizeof e);
    e.kind = SIM_EV_MEMORY;
    e.rank = l->rank;
    e.sim_start = e.sim_end = ms * 1e-3;
    e.name = freeing ? "free" : "alloc";
    e.label = e.name;
    e.bytes = (uint64_t)bytes;
    e.count = (uint64_t)l->total;
    e.mem_cat = (int16_t)cat;
    e.mem_space = SIM_MEM_DEVICE;
    e.step = e.nsteps = e.chunk = e.src = e.dst = -1;
    return viz_trace_add(l->t, &e, NULL) == SIM_OK ? 0 : -1;
}

static int marker(VizTrace *t, double ms, const char *label, int step, double loss) {
    SimEvent e;
    memset(&e, 0, sizeof e);
    e.kind = SIM_EV_MARKER;
    e.sim_start = e.sim_end = ms * 1e-3;
    e.name = "iteration";
    e.label = label;
    e.step = step;
    e.value = loss;
    e.nsteps = e.chunk = e.src = e.dst = -1;
    return viz_trace_add(t, &e, NULL) == SIM_OK ? 0 : -1;
}

int tct_long_trace(VizTrace *t, int n) {
    SimTraceInfo info;
    memset(&info, 0, sizeof info);
    info.nodes = 1;
    if (viz_trace_init(t, 1, &info, "test") != SIM_OK)
        return -1;
    Ledger l = {t, 0, 0};
    int bad = mem(&l, 0, SIM_MEM_PARAM, TCT_MIB, 0);
    for (int i = 0; i < n && !bad; i++) {
        double act = (i == n / 2 ? 10 : 1) * TCT_MIB;
        bad |= mem(&l, 1e-3 * (2 * i + 1), SIM_MEM_ACT, act, 0);
        bad |= mem(&l, 1e-3 * (2 * i + 2), SIM_MEM_ACT, act, 1);
    }
    if (bad) {
        viz_trace_free(t);
        return -1;
    }
    return 0;
}

int tct_memory_trace(VizTrace *t, int nranks, int differ, uint64_t capacity) {
    SimTraceInfo info;
    memset(&info, 0, sizeof info);
    snprintf(info.strategy, sizeof info.strategy, "%s", differ ? "layer-owner" : "ddp");
    info.device_capacity = capacity;
    info.nodes = 1;
    if (viz_trace_init(t, nranks, &info, "test") != SIM_OK)
        return -1;
    int bad = 0;
    for (int r = 0; r < nranks; r++) {
        Ledger l = {t, r, 0};
        double act = (differ ? 1 + r : 1) * TCT_MIB;
        bad |= mem(&l, 0, SIM_MEM_PARAM, TCT_MIB, 0);
        bad |= mem(&l, 0, SIM_MEM_OPTIM, 2 * TCT_MIB, 0);
        for (int i = 0; i < 3; i++) {
            double t0 = 1 + 2 * i;
            if (r == 0)
                bad |= marker(t, t0, "begin", i, 0);
            bad |= mem(&l, t0 + 0.1, SIM_MEM_ACT, act, 0);
            bad |= mem(&l, t0 + 0.5, SIM_MEM_GRAD, TCT_MIB, 0);
            bad |= mem(&l, t0 + 0.6, SIM_MEM_ACT, act, 1);
            bad |= mem(&l, t0 + 0.9, SIM_MEM_GRAD, TCT_MIB, 1);
            if (r == 0)
                bad |= marker(t, t0 + 1, "end", i, 2.0 / (i + 1));
        }
    }
    if (bad) {
        viz_trace_free(t);
        return -1;
    }
    return 0;
}
