// sim/cost/cost.c: the alpha-beta cost model of sim/cost/cost.h, evaluated on the
// schedules of sim/coll/schedule.h.
//
// The model, per schedule step: every rank r sums the bytes it receives and
// the bytes it sends over each link class (intra-node, inter-node); its time
// is alpha(r) + max(in_time, out_time), where in_time (out_time) adds
// bytes/bw over the classes and alpha(r) is what the step's latency mode
// (sim_cost_step_alpha, cost.h "Latency") says: the largest latency among
// the classes r moves bytes on, the intra-node one, or none. The step costs
// the maximum over ranks (ranks move in lock-step). A transfer of zero bytes
// moves nothing and costs nothing, so a collective of count 0 is free, as
// NCCL returns at once for it.
//
// The general evaluation asks the schedule for every rank's transfers, which
// is O(R) calls per step. Ring, direct and both tree schedules are evaluated from
// their documented structure instead, giving bit-identical results: every
// path feeds the same integer byte totals to the same sim_cost_rank_time() and takes
// the maximum over the same set of values. With whole nodes (R a multiple of
// the node size P, as every world has):
//   ring    a step costs O(1) once the per-residue pattern counts are known
//           (O(R) integer work, only for an all_reduce whose count R does not
//           divide, on several nodes); the whole collective is O(R), or
//           O(log R) when every step costs the same (one link class);
//   direct  O(1) per step: ranks differ only by their chunk (two sizes) and
//           their node's total (two sizes);
//   tree    O(min(P, pairs)) per step, O(log R) steps;
//   dbtree  O(kinds of tree place) per step (cost_dbtree.c);
//   chain   (ring broadcast and reduce) O(1) per step for the whole
//           collective, O(R) in all (sim_cost_step alone: the general path).
// A last node smaller than P (a SimCost made by hand) takes the earlier
// per-node and per-rank paths. Naive stays on the general path: O(R) per
// step, one or two steps. The tests compare
// every path with a rank-by-rank reference on many shapes.
//
// A collective's time is the sum of its steps, added in step order; where
// every step costs the same, sum_repeat() reproduces that sum bit for bit
// without visiting each step.
#include "cost/cost.h"
#include "cost/cost_internal.h" // defines: SimRankLoad, sim_cost_dbtree

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { INTRA = 0, INTER = 1 }; // link classes

// The double a loop `t = 0; repeat n times: t += w` ends with, for a step
// time w >= 0, in O(log n) instead of O(n). Within one binade [B/2, B) the
// representable numbers are the multiples of u = B * 2^-53, so each addition
// adds w rounded onto that grid: the same amount every time once t itself
// was rounded onto it (a tie rounds to the even multiple, after which t
// stays even), for as long as the exact sum stays below B - u/2. The loop
// takes the steps near a binade's edges one at a time and jumps over the
// rest. Other w (negative, infinite, NaN: never a step time) take the plain
// loop.
static double sum_repeat(double w, uint64_t n) {
    double t = 0.0;
    if (w == 0.0)
        return 0.0;
    if (!(w > 0.0 && w < HUGE_VAL)) {
        for (uint64_t i = 0; i < n; i++)
            t += w;
        return t;
    }
    const uint64_t top = (1ULL << 53) - 1; // the last grid point below B, in units of u
    while (n > 0) {
        t += w;
        n--;
        int e;
        (void)frexp(t, &e); // t in [2^(e-1), 2^e)
        double B = ldexp(1.0, e);
        double t2 = t + w;
        if (n == 0 || t2 >= B)
            continue; // the next step (if any) leaves the binade: taken plainly
        t = t2; // rounded onto the grid of this binade
        n--;
        double t3 = t + w;
        if (n == 0 || t3 >= B)
            continue;
        double u = ldexp(1.0, e - 53);
        uint64_t at = (uint64_t)(t / u), d = (uint64_t)((t3 - t) / u);
        if (d == 0)
            return t; // w rounds away: t no longer moves
        uint64_t k = (top - at) / d; // steps whose result stays at most B - u
        if (k > n)
            k = n;
        t = ldexp((double)(at + k * d), e - 53);
        n -= k;
    }
    return t;
}

typedef SimRankLoad RankLoad;

void sim_cost_init(SimCost *c, const SimSysProfile *sys, int nranks, int ranks_per_node) {
    memset(c, 0, sizeof(*c));
    c->sys = *sys;
    c->nranks = nranks;
    c->ranks_per_node = ranks_per_node >= 1 ? ranks_per_node : (nranks >= 1 ? nranks : 1);
}

static int node_of(const SimCost *c, int rank) { return rank / c->ranks_per_node; }

int sim_cost_link_class(const SimCost *c, int src, int dst) {
    return node_of(c, src) == node_of(c, dst) ? INTRA : INTER;
}

static const SimLinkProfile *class_link(const SimCost *c, int cls) {
    return cls == INTRA ? &c->sys.intra : &c->sys.inter;
}

const SimLinkProfile *sim_cost_link(const SimCost *c, int src, int dst) {
    return class_link(c, sim_cost_link_class(c, src, dst));
}

double sim_cost_rank_time_rails(const SimCost *c, const RankLoad *l, SimAlphaMode m,
                                int rails) {
    double alpha = 0.0, tin = 0.0, tout = 0.0;
    int used = 0;
    for (int k = 0; k < 2; k++) {
        const SimLinkProfile *lk = class_link(c, k);
        if (l->in[k] == 0 && l->out[k] == 0)
            continue;
        used = 1;
        if (lk->alpha_s > alpha)
            alpha = lk->alpha_s;
        double bw = k == INTER && rails > 1 ? lk->bw_Bps * rails : lk->bw_Bps;
        if (l->in[k] != 0)
            tin += (double)l->in[k] / bw;
        if (l->out[k] != 0)
            tout += (double)l->out[k] / bw;
    }
    return used ? sim_cost_alpha(c, alpha, m) + (tin > tout ? tin : tout) : 0.0;
}

double sim_cost_rank_time_mode(const SimCost *c, const RankLoad *l, SimAlphaMode m) {
    return sim_cost_rank_time_rails(c, l, m, 1);
}

int sim_cost_ring_rails(const SimCost *c) {
    int P = c->ranks_per_node, nics = c->sys.nics_per_node;
    if (P < 2 || c->nranks <= P || nics < 2)
        return 1;
    return nics < P ? nics : P;
}

double sim_cost_alpha(const SimCost *c, double link_alpha, SimAlphaMode m) {
    return m == SIM_ALPHA_FULL ? link_alpha : m == SIM_ALPHA_INTRA ? c->sys.intra.alpha_s : 0.0;
}

double sim_cost_rank_time(const SimCost *c, const RankLoad *l) {
    return sim_cost_rank_time_mode(c, l, SIM_ALPHA_FULL);
}

static int is_ring_family(const SimSched *s);

int sim_cost_sched_rails(const SimCost *c, const SimSched *s) {
    int rails = sim_cost_ring_rails(c);
    if (is_ring_family(s) && s->algo == SIM_ALGO_RING)
        return rails;
    if (s->algo == SIM_ALGO_DBTREE) // two trees cross each node at once
        return rails / 2 > 1 ? rails / 2 : 1;
    return 1;
}

static int is_ring_family(const SimSched *s) {
    return s->kind == SIM_COLL_ALL_REDUCE || s->kind == SIM_COLL_REDUCE_SCATTER ||
           s->kind == SIM_COLL_ALL_GATHER;
}

// The ring's rule (cost.h, "Latency"): node crossings every P steps.
static SimAlphaMode ring_alpha(int R, int P, int step) {
    return P >= R || P <= 1 || step % P == 0 ? SIM_ALPHA_FULL : SIM_ALPHA_INTRA;
}

// The chain's (ring broadcast and reduce, from position 0 = rank first):
// at step t < R-1 the first chunk crosses from position t to t+1.
static SimAlphaMode chain_alpha(int R, int P, int first, int step) {
    if (step >= R - 1)
        return SIM_ALPHA_NONE;
    return P < R && (first + step + 1) % P == 0 ? SIM_ALPHA_FULL : SIM_ALPHA_INTRA;
}

static int is_chain(const SimSched *s) {
    return (s->kind == SIM_COLL_BROADCAST || s->kind == SIM_COLL_REDUCE) &&
           s->algo == SIM_ALGO_RING;
}

static int chain_first(const SimSched *s) {
    return s->kind == SIM_COLL_REDUCE ? (s->root + 1) % s->nranks : s->root;
}

SimAlphaMode sim_cost_step_alpha(const SimCost *c, const SimSched *s, int step) {
    int R = s->nranks, P = c->ranks_per_node;
    if (is_ring_family(s) && s->algo == SIM_ALGO_RING)
        return ring_alpha(R, P, step);
    if (s->algo == SIM_ALGO_DBTREE)
        return step < 2 * sim_dbtree_height(R) ? SIM_ALPHA_FULL : SIM_ALPHA_NONE;
    if (is_chain(s))
        return chain_alpha(R, P, chain_first(s), step);
    return SIM_ALPHA_FULL;
}

// ----------------------------------------------------------------------------
// general evaluation through the schedule's transfer lists

// Adds the bytes of r's transfers at `step` (incoming or outgoing) to load.
// Uses a stack array, and the heap only for ranks with many transfers.
static void add_transfers(const SimCost *c, const SimSched *s, int r, int step, int incoming,
                          size_t elem_size, RankLoad *load) {
    enum { LOCAL = 32 };
    SimXfer local[LOCAL];
    SimXfer *x = local;
    int n = incoming ? sim_sched_incoming(s, r, step, local, LOCAL)
                     : sim_sched_outgoing(s, r, step, local, LOCAL);
    if (n > LOCAL) {
        x = malloc((size_t)n * sizeof(*x));
        if (x == NULL) { // cannot list them all: price the ones we have
            x = local;
            n = LOCAL;
        } else {
            n = incoming ? sim_sched_incoming(s, r, step, x, n) : sim_sched_outgoing(s, r, step, x, n);
        }
    }
    for (int i = 0; i < n; i++) {
        if (x[i].src == x[i].dst)
            continue; // a local copy is not a message
        uint64_t bytes = (uint64_t)x[i].count * elem_size;
        int cls = sim_cost_link_class(c, x[i].src, x[i].dst);
        if (incoming)
            load->in[cls] += bytes;
        else
            load->out[cls] += bytes;
    }
    if (x != local)
        free(x);
}

static double step_general(const SimCost *c, const SimSched *s, int step, size_t elem_size) {
    double worst = 0.0;
    SimAlphaMode m = sim_cost_step_alpha(c, s, step);
    int rails = sim_cost_sched_rails(c, s);
    for (int r = 0; r < s->nranks; r++) {
        RankLoad load = {{0, 0}, {0, 0}};
        add_transfers(c, s, r, step, 1, elem_size, &load);
        add_transfers(c, s, r, step, 0, elem_size, &load);
        double t = sim_cost_rank_time_rails(c, &load, m, rails);
        if (t > worst)
            worst = t;
    }
    return worst;
}

// ----------------------------------------------------------------------------
// ring (schedule.h: at each step rank q sends chunk j to q+1 and receives chunk
// j-1 from q-1, with j = q-1-s in reduce-scatter and j = q-s in all-gather)
//
// A rank's time then depends only on its two link classes (cin, cout) and on
// whether chunks j-1 and j are large (a, b): 16 possible values, computed
// once. A step costs the largest value whose (cin, cout, a, b) occurs.

typedef struct {
    int R, P;
    uint64_t q0, m;           // chunks hold q0 or q0+1 elements; m are large
    int cls[2][2];            // link classes (cin, cout) that occur
    int nclasses;
    uint64_t cnt[2][2];       // how many j have pattern (large(j-1), large(j))
    double time[2][2][2][2][2]; // [mode: FULL, INTRA][cin][cout][a][b]
    const uint8_t *pat;       // optional [R]: 2 * large(j-1) + large(j)
} RingModel;

// For all_reduce, chunk i is balanced part i of count over R, which holds
// q0+1 elements exactly when floor((i+1)m/R) > floor(im/R), m = count mod R.
// For reduce_scatter and all_gather every chunk is a block of count.
static int ring_large(const RingModel *k, int i) {
    uint64_t R = (uint64_t)k->R, u = (uint64_t)i;
    return ((u + 1) * k->m) / R > (u * k->m) / R;
}

static int ring_pattern(const RingModel *k, int j) {
    if (k->pat != NULL)
        return k->pat[j];
    return 2 * ring_large(k, j == 0 ? k->R - 1 : j - 1) + ring_large(k, j);
}

// Which (in, out) link classes occur among the ranks of a ring over nodes of
// P consecutive ranks (the last node may be smaller).
static void ring_classes(RingModel *k) {
    int R = k->R, P = k->P;
    memset(k->cls, 0, sizeof(k->cls));
    if (R <= P) {
        k->cls[INTRA][INTRA] = 1;
    } else {
        int nodes = (R + P - 1) / P, sizes[2] = {P, R - (nodes - 1) * P};
        for (int i = 0; i < 2; i++) {
            if (sizes[i] == 1) {
                k->cls[INTER][INTER] = 1;
            } else {
                k->cls[INTER][INTRA] = k->cls[INTRA][INTER] = 1;
                if (sizes[i] >= 3)
                    k->cls[INTRA][INTRA] = 1;
            }
        }
    }
    k->nclasses = k->cls[0][0] + k->cls[0][1] + k->cls[1][0] + k->cls[1][1];
}

static void ring_model_init(RingModel *k, const SimCost *c, const SimSched *s, size_t es) {
    memset(k, 0, sizeof(*k));
    k->R = s->nranks;
    k->P = c->ranks_per_node;
    k->q0 = s->count;
    if (s->kind == SIM_COLL_ALL_REDUCE) {
        k->q0 = s->count / (uint64_t)k->R;
        k->m = s->count % (uint64_t)k->R;
    }
    ring_classes(k);
    int rails = sim_cost_ring_rails(c);
    // The large chunks are spread evenly, so two are adjacent only when more
    // than half are large, 2m - R times; the other counts follow.
    uint64_t R = (uint64_t)k->R, m = k->m, c11 = 2 * m > R ? 2 * m - R : 0;
    k->cnt[0][0] = R - 2 * m + c11;
    k->cnt[0][1] = k->cnt[1][0] = m - c11;
    k->cnt[1][1] = c11;
    for (int i = 0; i < 32; i++) {
        int m = i >> 4, cin = (i >> 3) & 1, cout = (i >> 2) & 1, a = (i >> 1) & 1, b = i & 1;
        RankLoad l = {{0, 0}, {0, 0}};
        l.in[cin] = (k->q0 + (uint64_t)a) * es;
        l.out[cout] = (k->q0 + (uint64_t)b) * es;
        k->time[m][cin][cout][a][b] = sim_cost_rank_time_rails(c, &l, (SimAlphaMode)m, rails);
    }
}

// 0 (FULL) or 1 (INTRA): the row of k->time step pays.
static int ring_mode(const RingModel *k, int step) {
    return ring_alpha(k->R, k->P, step) == SIM_ALPHA_FULL ? 0 : 1;
}

// The largest of the 16 rank times over the (cin, cout, pattern) that
// occur, as ring_step_time decides it.
static double ring_worst(const RingModel *k, int m, int seen[2][2][4]) {
    double worst = 0.0;
    for (int i = 0; i < 16; i++) {
        int cin = i >> 3, cout = (i >> 2) & 1, p = i & 3;
        if (seen[cin][cout][p] && k->time[m][cin][cout][p >> 1][p & 1] > worst)
            worst = k->time[m][cin][cout][p >> 1][p & 1];
    }
    return worst;
}

// At `step` rank q sends chunk (q + ko) mod R; returns ko in [0, R).
static int ring_offset(const SimSched *s, int step, int R) {
    int ph = sim_sched_phase(s, step);
    int st = ph == 0 ? step : step - s->phase_steps[0];
    int rs = s->kind == SIM_COLL_REDUCE_SCATTER || (s->kind == SIM_COLL_ALL_REDUCE && ph == 0);
    return ((rs ? -1 - st : -st) % R + R) % R;
}

static double ring_step_time(const RingModel *k, const SimSched *s, int step) {
    int R = k->R, P = k->P;
    int ko = ring_offset(s, step, R); // rank q sends chunk q + ko
    int md = ring_mode(k, step);
    double worst = 0.0;
    if (k->m == 0 || k->nclasses == 1) {
        // All chunks are equal, or one class holds every rank and so sees
        // every pattern: who holds what does not matter.
        for (int i = 0; i < 16; i++) {
            int cin = i >> 3, cout = (i >> 2) & 1, a = (i >> 1) & 1, b = i & 1;
            if (k->cls[cin][cout] && k->cnt[a][b] > 0 && k->time[md][cin][cout][a][b] > worst)
                worst = k->time[md][cin][cout][a][b];
        }
        return worst;
    }
    // Several classes and unequal chunks: visit the first and last rank of
    // every node (the only ones with an inter-node link) and deduce which
    // patterns the interior ranks (intra both ways) see from the totals.
    uint64_t left[4] = {k->cnt[0][0], k->cnt[0][1], k->cnt[1][0], k->cnt[1][1]};
    int seen[2][2][4];
    memset(seen, 0, sizeof(seen));
    for (int start = 0; start < R; start += P) {
        int size = R - start < P ? R - start : P;
        int j = start + ko < R ? start + ko : start + ko - R; // first rank's chunk
        int p = ring_pattern(k, j);
        left[p]--;
        seen[INTER][size == 1 ? INTER : INTRA][p] = 1;
        if (size > 1) {
            j = j + size - 1 < R ? j + size - 1 : j + size - 1 - R; // last rank's
            p = ring_pattern(k, j);
            left[p]--;
            seen[INTRA][INTER][p] = 1;
        }
    }
    for (int p = 0; p < 4; p++)
        seen[INTRA][INTRA][p] = left[p] > 0;
    return ring_worst(k, md, seen);
}

// ring_step_time's case of several classes and unequal chunks, on whole
// nodes (P divides R, R > P): the nodes' first ranks hold the chunks j with
// j = ko (mod P), their last ranks those with j = ko + P - 1 (mod P), and
// the interior ranks the rest. So a step's time depends on ko mod P only:
// cnt[c][p] counts the chunks j = c (mod P) of pattern p.
static double ring_residue_time(const RingModel *k, const uint64_t (*cnt)[4], int c0, int md) {
    int P = k->P, c1 = (c0 + P - 1) % P;
    const uint64_t total[4] = {k->cnt[0][0], k->cnt[0][1], k->cnt[1][0], k->cnt[1][1]};
    int seen[2][2][4];
    memset(seen, 0, sizeof(seen));
    for (int p = 0; p < 4; p++) {
        seen[INTER][INTRA][p] = cnt[c0][p] > 0; // P >= 2 here (one class otherwise)
        seen[INTRA][INTER][p] = cnt[c1][p] > 0;
        seen[INTRA][INTRA][p] = total[p] != cnt[c0][p] + cnt[c1][p];
    }
    return ring_worst(k, md, seen);
}

// The whole ring collective on whole nodes with unequal chunks: the 2P
// distinct step times (P residues, two latency modes) once, then the steps'
// sum in order. -1 when out of memory (the caller then prices step by step).
static double ring_coll_residues(const RingModel *k, const SimSched *s) {
    int P = k->P;
    uint64_t (*cnt)[4] = calloc((size_t)P, sizeof(*cnt));
    double (*val)[2] = malloc((size_t)P * sizeof(*val));
    if (cnt == NULL || val == NULL) {
        free(cnt);
        free(val);
        return -1.0;
    }
    for (int j = 0; j < k->R; j++)
        cnt[j % P][ring_pattern(k, j)]++;
    for (int c = 0; c < P; c++)
        for (int md = 0; md < 2; md++)
            val[c][md] = ring_residue_time(k, (const uint64_t(*)[4])cnt, c, md);
    double total = 0.0;
    for (int t = 0; t < s->nsteps; t++)
        total += val[ring_offset(s, t, k->R) % P][ring_mode(k, t)];
    free(cnt);
    free(val);
    return total;
}

// The pattern of every chunk index, so that pricing a whole collective does
// not recompute it on every step. NULL when not needed or out of memory.
static uint8_t *ring_patterns(const RingModel *k) {
    if (k->m == 0 || k->nclasses == 1)
        return NULL;
    uint8_t *pat = malloc((size_t)k->R);
    for (int j = 0; pat != NULL && j < k->R; j++)
        pat[j] = (uint8_t)ring_pattern(k, j);
    return pat;
}

// ----------------------------------------------------------------------------
// direct (every rank exchanges one chunk with every peer in one step)

// The time of a rank of a node of b ranks holding node_total elements, whose
// own chunk has cq elements, in a direct step of `total` elements (R ranks).
static double direct_rank_time(const SimCost *c, int R, int b, uint64_t cq, uint64_t node,
                               uint64_t total, int gather, size_t es) {
    uint64_t mine[2] = {cq * (uint64_t)(b - 1) * es, cq * (uint64_t)(R - b) * es};
    uint64_t theirs[2] = {(node - cq) * es, (total - node) * es};
    RankLoad l;
    for (int k = 0; k < 2; k++) {
        l.in[k] = gather ? theirs[k] : mine[k];
        l.out[k] = gather ? mine[k] : theirs[k];
    }
    return sim_cost_rank_time(c, &l);
}

// Whole nodes of b ranks (b divides R; N = R / b nodes): the per-rank loop of
// step_direct reduced to the loads that occur. Blocks: every rank alike.
// All_reduce's balanced parts: with count = Q R + m, chunk i has Q + 1
// elements exactly when floor((i+1)m/R) > floor(im/R), and node n holds
// floor((n+1)m/N) - floor(nm/N) of those large chunks: floor(m/N) or that
// plus one (both occur when N does not divide m). A node with s large chunks
// has a rank of each size that it holds (large: s > 0; small: s < b).
static double step_direct_nodes(const SimCost *c, const SimSched *s, int b, int gather,
                                size_t es) {
    int R = s->nranks, N = R / b;
    if (s->kind != SIM_COLL_ALL_REDUCE)
        return direct_rank_time(c, R, b, s->count, (uint64_t)b * s->count,
                                (uint64_t)R * s->count, gather, es);
    uint64_t q = s->count / (uint64_t)R, m = s->count % (uint64_t)R;
    uint64_t lo = m / (uint64_t)N, hi = lo + (m % (uint64_t)N != 0);
    double worst = 0.0;
    for (uint64_t large = lo; large <= hi; large++) {
        uint64_t node = (uint64_t)b * q + large;
        for (int big = 0; big < 2; big++) {
            if (big ? large == 0 : large == (uint64_t)b)
                continue; // no rank of this size on such a node
            double t = direct_rank_time(c, R, b, q + (uint64_t)big, node, s->count, gather, es);
            if (t > worst)
                worst = t;
        }
    }
    return worst;
}

static double step_direct(const SimCost *c, const SimSched *s, int step, size_t es) {
    int R = s->nranks, P = c->ranks_per_node;
    int blocks = s->kind != SIM_COLL_ALL_REDUCE;
    // reduce-scatter type: q receives chunk q from each peer and sends chunk
    // j to each peer j; all-gather type: the reverse.
    int gather = s->kind == SIM_COLL_ALL_GATHER ||
                 (s->kind == SIM_COLL_ALL_REDUCE && sim_sched_phase(s, step) == 1);
    if (P >= R)
        return step_direct_nodes(c, s, R, gather, es);
    if (R % P == 0)
        return step_direct_nodes(c, s, P, gather, es);
    uint64_t total = blocks ? (uint64_t)R * s->count : s->count;
    double worst = 0.0;
    for (int q = 0; q < R; q++) {
        int a = (q / P) * P, b = R - a < P ? R - a : P; // q's node: ranks [a, a+b)
        uint64_t cq, node;
        if (blocks) {
            cq = s->count;
            node = (uint64_t)b * s->count;
        } else {
            cq = sim_part_size(s->count, R, q);
            node = sim_part_begin(s->count, R, a + b) - sim_part_begin(s->count, R, a);
        }
        uint64_t mine[2] = {cq * (uint64_t)(b - 1) * es, cq * (uint64_t)(R - b) * es};
        uint64_t theirs[2] = {(node - cq) * es, (total - node) * es};
        RankLoad l;
        for (int k = 0; k < 2; k++) {
            l.in[k] = gather ? theirs[k] : mine[k];
            l.out[k] = gather ? mine[k] : theirs[k];
        }
        double t = sim_cost_rank_time(c, &l);
        if (t > worst)
            worst = t;
    }
    return worst;
}

// ----------------------------------------------------------------------------
// the pipelined chain (ring broadcast and reduce; schedule.h)
//
// At step t position p = (q - first) mod R receives chunk t - p + 1 from
// position p - 1 and sends chunk t - p to p + 1, where those exist (R
// chunks: balanced parts of count, q or q + 1 elements). The positions that
// do both form a window whose out-chunks j = t - p are a range; both ends of
// that range only move up, by at most one a step. On whole nodes a
// position's links depend only on (first + p) mod P: its incoming link
// comes from another node when that is 0, its outgoing one leads to another
// when it is P - 1, which for an out-chunk j means j = first + t and
// j = first + t + 1 (mod P). So, with the window's chunk pattern (large(j+1),
// large(j)) counted per j mod P, a step takes O(1): the window's classes and
// patterns, and the at most four positions at its ends (the root, the last
// position, the pipeline's front and tail) priced one by one. The whole
// collective is O(R).

typedef struct {
    const SimCost *c;
    size_t es;
    int R, P, first;  // P >= R: one node
    uint64_t q, m;    // chunks hold q or q + 1 elements; m of them q + 1
} ChainModel;

static int chain_large(const ChainModel *k, int i) {
    uint64_t R = (uint64_t)k->R, u = (uint64_t)i;
    return ((u + 1) * k->m) / R > (u * k->m) / R;
}

// 1 when the link from position p - 1 to position p crosses nodes.
static int chain_inter(const ChainModel *k, int p) {
    return k->P < k->R && (k->first + p) % k->P == 0;
}

// What position p moves at step t, priced with the step's latency mode m.
static double chain_position(const ChainModel *k, int p, int t, SimAlphaMode m) {
    RankLoad l = {{0, 0}, {0, 0}};
    int R = k->R, in = t - p + 1, out = t - p;
    if (p >= 1 && in >= 0 && in < R)
        l.in[chain_inter(k, p)] += (k->q + (uint64_t)chain_large(k, in)) * k->es;
    if (p <= R - 2 && out >= 0 && out < R)
        l.out[chain_inter(k, p + 1)] += (k->q + (uint64_t)chain_large(k, out)) * k->es;
    return sim_cost_rank_time_mode(k->c, &l, m);
}

// The whole chain on whole nodes (or one node); -1 when out of memory.
static double chain_coll(const SimCost *c, const SimSched *s, size_t es) {
    ChainModel k;
    k.c = c;
    k.es = es;
    k.R = s->nranks;
    k.P = c->ranks_per_node;
    k.first = chain_first(s);
    k.q = s->count / (uint64_t)k.R;
    k.m = s->count % (uint64_t)k.R;
    int R = k.R, P = k.P < R ? k.P : 1; // residues are kept only on several nodes
    double both[3][2][2][4];            // [latency mode][in class][out class][pattern]
    for (int i = 0; i < 48; i++) {
        int md = i >> 4, cin = (i >> 3) & 1, cout = (i >> 2) & 1, a = (i >> 1) & 1, b = i & 1;
        RankLoad l = {{0, 0}, {0, 0}};
        l.in[cin] = (k.q + (uint64_t)a) * es;
        l.out[cout] = (k.q + (uint64_t)b) * es;
        both[md][cin][cout][2 * a + b] = sim_cost_rank_time_mode(c, &l, (SimAlphaMode)md);
    }
    uint64_t (*cnt)[4] = calloc((size_t)P, sizeof(*cnt));
    if (cnt == NULL)
        return -1.0;
    uint64_t tot[4] = {0, 0, 0, 0};
    int lo = 0, hi = -1; // the window's out-chunks [lo, hi]
    double total = 0.0;
    for (int t = 0; t < s->nsteps; t++) {
        int nlo = t - R + 2 > 0 ? t - R + 2 : 0, nhi = t - 1 < R - 2 ? t - 1 : R - 2;
        for (; hi < nhi; hi++) { // j = hi + 1 joins
            int j = hi + 1, pat = 2 * chain_large(&k, j + 1) + chain_large(&k, j);
            cnt[j % P][pat]++;
            tot[pat]++;
        }
        for (; lo < nlo; lo++) { // j = lo leaves
            int pat = 2 * chain_large(&k, lo + 1) + chain_large(&k, lo);
            cnt[lo % P][pat]--;
            tot[pat]--;
        }
        double worst = 0.0;
        SimAlphaMode md = chain_alpha(R, k.P, k.first, t);
        double(*b)[2][4] = both[md];
        int r0 = (k.first + t) % P, r1 = (k.first + t + 1) % P;
        for (int pat = 0; pat < 4 && lo <= hi; pat++) {
            double v[3] = {0, 0, 0};
            if (k.P >= R) { // one node
                v[0] = tot[pat] ? b[INTRA][INTRA][pat] : 0;
            } else if (P == 1) { // a rank per node
                v[0] = tot[pat] ? b[INTER][INTER][pat] : 0;
            } else {
                v[0] = cnt[r0][pat] ? b[INTER][INTRA][pat] : 0;
                v[1] = cnt[r1][pat] ? b[INTRA][INTER][pat] : 0;
                v[2] = tot[pat] != cnt[r0][pat] + cnt[r1][pat] ? b[INTRA][INTRA][pat] : 0;
            }
            for (int i = 0; i < 3; i++)
                worst = v[i] > worst ? v[i] : worst;
        }
        int ends[4] = {0, t + 1, R - 1, t - R + 1};
        for (int i = 0; i < 4; i++) {
            if (ends[i] < 0 || ends[i] >= R)
                continue;
            double v = chain_position(&k, ends[i], t, md);
            worst = v > worst ? v : worst;
        }
        total += worst;
    }
    free(cnt);
    return total;
}

// ----------------------------------------------------------------------------
// tree (schedule.h: a binomial tree on ranks relative to the root)
//
// At level k (h = 2^k) the pairs are (v, v + h) for v = 2hj, j = 0, 1, ...
// with v + h < R, one whole-buffer transfer each (up: v + h sends to v;
// down: v to v + h), and no rank is in two pairs. A step therefore costs the
// time of one whole-buffer transfer on each link class some pair uses.
// Their world ranks are a = (root + v) mod R and a + h, which passes R (and
// wraps to a + h - R) for at most one pair: the one with root + v in
// [R - h, R). Every other pair shares a node (of P ranks, P dividing R)
// exactly when a mod P + h < P, and a mod P = (root + 2hj) mod P repeats
// after P / gcd(2h, P) pairs.

static int tree_level(const SimSched *s, int step) {
    int L = s->phase_steps[0];
    if (s->kind == SIM_COLL_ALL_REDUCE)
        return step < L ? step : L - 1 - (step - L);
    return s->kind == SIM_COLL_BROADCAST ? L - 1 - step : step;
}

static long gcd_long(long a, long b) {
    while (b != 0) {
        long t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static double step_tree(const SimCost *c, const SimSched *s, int step, size_t es) {
    long R = s->nranks, P = c->ranks_per_node, h = 1L << tree_level(s, step);
    long root = s->root, pairs = (R - h + 2 * h - 1) / (2 * h);
    uint64_t bytes = (uint64_t)s->count * es;
    int used[2] = {0, 0};
    if (P >= R) {
        used[INTRA] = 1;
    } else {
        // the wrapping pair, if any: the first j with root + 2hj >= R - h
        long from = R - h - root, jw = from > 0 ? (from + 2 * h - 1) / (2 * h) : 0;
        if (jw >= pairs || root + 2 * h * jw >= R)
            jw = -1;
        if (jw >= 0) {
            long a = root + 2 * h * jw;
            used[a / P == (a + h - R) / P ? INTRA : INTER] = 1;
        }
        long period = P / gcd_long(2 * h, P), n = pairs < 2 * period ? pairs : 2 * period;
        for (long j = 0; j < n && !(used[INTRA] && used[INTER]); j++)
            if (j != jw)
                used[(root + 2 * h * j) % P + h < P ? INTRA : INTER] = 1;
    }
    double worst = 0.0;
    for (int k = 0; k < 2; k++) {
        RankLoad l = {{0, 0}, {0, 0}};
        l.in[k] = bytes;
        double t = used[k] ? sim_cost_rank_time(c, &l) : 0.0;
        if (t > worst)
            worst = t;
    }
    return worst;
}

// ----------------------------------------------------------------------------
// public entry points

double sim_cost_step(const SimCost *c, const SimSched *s, int step, size_t elem_size) {
    if (step < 0 || step >= s->nsteps || s->nranks < 2)
        return 0.0;
    if (is_ring_family(s) && s->algo == SIM_ALGO_RING) {
        RingModel k;
        ring_model_init(&k, c, s, elem_size);
        return ring_step_time(&k, s, step);
    }
    if (is_ring_family(s) && s->algo == SIM_ALGO_DIRECT)
        return step_direct(c, s, step, elem_size);
    if (s->algo == SIM_ALGO_DBTREE)
        return sim_cost_dbtree(c, s, elem_size, step, step + 1);
    int P = c->ranks_per_node;
    if (s->algo == SIM_ALGO_TREE && (P >= s->nranks || s->nranks % P == 0))
        return step_tree(c, s, step, elem_size);
    return step_general(c, s, step, elem_size);
}

// Dissemination barrier: in round k every rank signals rank r + 2^k, so
// ceil(log2 R) rounds, each costing the largest latency of the links used.
static double barrier_cost(const SimCost *c, int R) {
    double total = 0.0;
    for (int d = 1; d < R; d *= 2) {
        int used[2] = {0, 0};
        for (int r = 0; r < R && !(used[0] && used[1]); r++)
            used[sim_cost_link_class(c, r, (r + d) % R)] = 1;
        double a = 0.0;
        for (int k = 0; k < 2; k++)
            if (used[k] && class_link(c, k)->alpha_s > a)
                a = class_link(c, k)->alpha_s;
        total += a;
        if (d > R / 2)
            break; // the next doubling would pass R (and could overflow)
    }
    return total;
}

double sim_cost_coll(const SimCost *c, const SimSched *s, size_t elem_size) {
    if (s->kind == SIM_COLL_BARRIER)
        return barrier_cost(c, s->nranks);
    double total = 0.0;
    if (is_ring_family(s) && s->algo == SIM_ALGO_RING && s->nranks > 1) {
        RingModel k;
        ring_model_init(&k, c, s, elem_size);
        if (k.nclasses == 1) // one class: every step costs the same
            return sum_repeat(ring_step_time(&k, s, 0), (uint64_t)s->nsteps);
        if (k.m == 0) { // equal chunks: two step times, by latency mode
            double v[2] = {ring_step_time(&k, s, 0), ring_step_time(&k, s, 1)};
            for (int t = 0; t < s->nsteps; t++)
                total += v[ring_mode(&k, t)];
            return total;
        }
        if (k.R % k.P == 0) {
            double t = ring_coll_residues(&k, s);
            if (t >= 0.0)
                return t;
        }
        uint8_t *pat = ring_patterns(&k);
        k.pat = pat;
        for (int t = 0; t < s->nsteps; t++)
            total += ring_step_time(&k, s, t);
        free(pat);
        return total;
    }
    if (s->algo == SIM_ALGO_DBTREE)
        return s->nranks > 1 ? sim_cost_dbtree(c, s, elem_size, 0, s->nsteps) : 0.0;
    int P = c->ranks_per_node;
    if ((s->kind == SIM_COLL_BROADCAST || s->kind == SIM_COLL_REDUCE) &&
        s->algo == SIM_ALGO_RING && s->nranks > 1 && (P >= s->nranks || s->nranks % P == 0)) {
        double t = chain_coll(c, s, elem_size);
        if (t >= 0.0)
            return t;
    }
    for (int t = 0; t < s->nsteps; t++)
        total += sim_cost_step(c, s, t, elem_size);
    return total;
}

SimAlgo sim_cost_resolve_algo(const SimCost *c, SimCollKind k, SimAlgo a, int nranks,
                              size_t count, size_t elem_size) {
    if (a != SIM_ALGO_NCCL || k != SIM_COLL_ALL_REDUCE || nranks < 2)
        return sim_coll_resolve_algo(k, a);
    SimSched ring, tree;
    if (sim_sched_init(&ring, k, SIM_ALGO_RING, nranks, count, 0) != 0 ||
        sim_sched_init(&tree, k, SIM_ALGO_DBTREE, nranks, count, 0) != 0)
        return SIM_ALGO_RING;
    return sim_cost_coll(c, &tree, elem_size) < sim_cost_coll(c, &ring, elem_size)
               ? SIM_ALGO_DBTREE
               : SIM_ALGO_RING;
}

double sim_cost_p2p(const SimCost *c, int src, int dst, size_t bytes) {
    if (src == dst || bytes == 0)
        return 0.0;
    const SimLinkProfile *l = sim_cost_link(c, src, dst);
    return l->alpha_s + (double)bytes / l->bw_Bps;
}

SimStatus sim_cost_fit_line(const double *x, const double *y, int n, double *slope,
                            double *icpt) {
    if (x == NULL || y == NULL || n < 2)
        return SIM_EINVAL;
    double mx = 0.0, my = 0.0;
    for (int i = 0; i < n; i++) {
        if (!isfinite(x[i]) || !isfinite(y[i]))
            return SIM_EINVAL;
        mx += x[i];
        my += y[i];
    }
    mx /= n;
    my /= n;
    double sxx = 0.0, sxy = 0.0;
    for (int i = 0; i < n; i++) {
        sxx += (x[i] - mx) * (x[i] - mx);
        sxy += (x[i] - mx) * (y[i] - my);
    }
    if (!(sxx > 0.0))
        return SIM_EINVAL;
    *slope = sxy / sxx;
    *icpt = my - *slope * mx;
    return SIM_OK;
}

// Least squares line secs = a + b * bytes, then alpha = a / steps and
// bw = steps / (R * b), steps = 2(R-1). A negative intercept (noise on a
// fast machine) is clamped to zero latency.
SimStatus sim_cost_fit_ring(const double *bytes, const double *secs, int n, int nranks,
                            SimLinkProfile *out) {
    if (out == NULL || nranks < 2)
        return SIM_EINVAL;
    double slope, icpt;
    if (sim_cost_fit_line(bytes, secs, n, &slope, &icpt) != SIM_OK) // fewer than two sizes
        return SIM_EINVAL;
    if (!(slope > 0.0) || !isfinite(slope))
        return SIM_EINVAL;
    double steps = 2.0 * (nranks - 1);
    memset(out, 0, sizeof(*out));
    snprintf(out->name, sizeof(out->name), "fitted");
    out->alpha_s = icpt > 0.0 ? icpt / steps : 0.0;
    out->bw_Bps = steps / (nranks * slope);
    snprintf(out->source, sizeof(out->source),
             "least-squares fit of %d ring all_reduce timings on %d ranks", n, nranks);
    return SIM_OK;
}
