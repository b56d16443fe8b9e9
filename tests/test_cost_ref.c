// tests/test_cost_ref.c: the rank-by-rank reference of the cost model (see
// test_cost_ref.h).
#include "test_cost_ref.h"

#include <stdint.h>
#include <stdio.h>

// The latency a step pays (sim/cost/cost.h, "Latency"), worked out here on its
// own: 0 the largest latency of the links a rank uses, 1 the intra-node
// one, 2 none.
static int ref_alpha_mode(const SimCost *c, const SimSched *s, int step) {
    int R = s->nranks, P = c->ranks_per_node;
    int ring = s->kind == SIM_COLL_ALL_REDUCE || s->kind == SIM_COLL_REDUCE_SCATTER ||
               s->kind == SIM_COLL_ALL_GATHER;
    if (s->algo == SIM_ALGO_RING && ring)
        return P >= R || P == 1 || step % P == 0 ? 0 : 1;
    if (s->algo == SIM_ALGO_DBTREE) {
        int H = 0;
        while ((2 << H) <= R)
            H++; // floor(log2 R)
        return step < 2 * H ? 0 : 2;
    }
    if (s->algo == SIM_ALGO_RING &&
        (s->kind == SIM_COLL_BROADCAST || s->kind == SIM_COLL_REDUCE)) {
        int first = s->kind == SIM_COLL_REDUCE ? (s->root + 1) % R : s->root;
        if (step >= R - 1)
            return 2;
        return P < R && (first + step + 1) % P == 0 ? 0 : 1;
    }
    return 0;
}

double tcost_ref_step(const SimCost *c, const SimSched *s, int step, size_t es) {
    static SimXfer x[TCOST_REF_MAX_XFERS];
    double worst = 0.0;
    int mode = ref_alpha_mode(c, s, step);
    for (int r = 0; r < s->nranks; r++) {
        // bytes in and out of rank r over [0] the intra-node and [1] the
        // inter-node link
        uint64_t in[2] = {0, 0}, out[2] = {0, 0};
        int n = sim_sched_incoming(s, r, step, x, TCOST_REF_MAX_XFERS);
        if (n > TCOST_REF_MAX_XFERS)
            return -1.0;
        for (int i = 0; i < n; i++)
            in[sim_cost_link(c, x[i].src, x[i].dst) == &c->sys.inter] += x[i].count * es;
        n = sim_sched_outgoing(s, r, step, x, TCOST_REF_MAX_XFERS);
        if (n > TCOST_REF_MAX_XFERS)
            return -1.0;
        for (int i = 0; i < n; i++)
            out[sim_cost_link(c, x[i].src, x[i].dst) == &c->sys.inter] += x[i].count * es;
        const SimLinkProfile *lk[2] = {&c->sys.intra, &c->sys.inter};
        double alpha = 0, tin = 0, tout = 0;
        int used = 0;
        for (int k = 0; k < 2; k++) {
            if (in[k] == 0 && out[k] == 0)
                continue;
            used = 1;
            if (lk[k]->alpha_s > alpha)
                alpha = lk[k]->alpha_s;
            if (in[k])
                tin += (double)in[k] / lk[k]->bw_Bps;
            if (out[k])
                tout += (double)out[k] / lk[k]->bw_Bps;
        }
        if (mode == 1)
            alpha = c->sys.intra.alpha_s;
        else if (mode == 2)
            alpha = 0.0;
        double t = used ? alpha + (tin > tout ? tin : tout) : 0.0;
        if (t > worst)
            worst = t;
    }
    return worst;
}

long tcost_ref_compare(const SimCost *c, const SimSched *s, size_t es) {
    double sum = 0.0;
    for (int t = 0; t < s->nsteps; t++) {
        double want = tcost_ref_step(c, s, t, es);
        double got = sim_cost_step(c, s, t, es);
        if (got != want) {
            fprintf(stderr, "step %d: %.17g != %.17g (the reference)\n", t, got, want);
            return -1;
        }
        sum += want;
    }
    double got = sim_cost_coll(c, s, es);
    if (got != sum) {
        fprintf(stderr, "whole %.17g != sum of steps %.17g\n", got, sum);
        return -1;
    }
    return s->nsteps;
}
