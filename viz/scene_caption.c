// viz/scene_caption.c: one sentence per event, saying what it means:
//   "reduce-scatter step 2 of 3: each rank adds the chunk it received ..."
//   "rank 3: bucket #1 launched: all_reduce of 4.00 MiB while backward goes on"
//   "unit 2 (blocks.1) gathered on rank 0: all 4 shards present for its forward"
// A caption reads the model's index (plans, units, collectives, markers,
// lanes), never the running state, so it is the caption of the event
// alone. A bucket's launch looks ahead in its rank's compute lane, to say
// whether backward goes on beside the all_reduce or nothing is left to
// hide it behind.
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/dtype.h"
#include "coll/coll.h"
#include "engine/memory.h"
#include "scene_internal.h"

static void fmt_bytes(uint64_t b, char *buf, size_t len) {
    sim_mem_human((int64_t)b, buf, len);
}

static void fmt_time(double s, char *buf, size_t len) {
    double a = fabs(s);
    if (a >= 1.0)
        snprintf(buf, len, "%.3g s", s);
    else if (a >= 1e-3)
        snprintf(buf, len, "%.3g ms", s * 1e3);
    else if (a >= 1e-6 || a == 0)
        snprintf(buf, len, "%.3g us", s * 1e6);
    else
        snprintf(buf, len, "%.3g ns", s * 1e9);
}

static void fmt_flops(uint64_t f, char *buf, size_t len) {
    static const char *const pre[] = {"", "k", "M", "G", "T", "P", "E"};
    double v = (double)f;
    int k = 0;
    while (v >= 1000 && k < 6)
        v /= 1000, k++;
    snprintf(buf, len, "%.3g %sFLOP", v, pre[k]);
}

static int streq(const char *a, const char *b) {
    return a != NULL && b != NULL && strcmp(a, b) == 0;
}

static void put(char *buf, size_t len, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap);
    va_end(ap);
}

static const char *coll_name(int coll) {
    return coll >= 0 && coll < SIM_COLL_COUNT ? sim_coll_name((SimCollKind)coll) : "collective";
}

static const char *algo_name(int algo) {
    return algo >= 0 && algo < SIM_ALGO_COUNT ? sim_algo_name((SimAlgo)algo) : "?";
}

static const char *redop_name(int op) {
    return op >= 0 && op <= SIM_PROD ? sim_redop_name((SimRedOp)op) : "sum";
}

// The phase rank r is in at event i: its markers, else its latest op.
static VizPhase phase_at(const VizModel *m, int r, size_t i) {
    int known;
    VizPhase ph = viz_marker_phase(m, r, i, &known);
    if (known || r < 0 || r >= m->nranks)
        return ph;
    const VizLane *l = viz_lane(m, r, VIZ_LANE_COMPUTE);
    size_t k = viz_lane_last(l, i);
    return k == (size_t)-1 ? VIZ_PHASE_IDLE : viz_op_phase(m->t->ev[l->ev.v[k]].name);
}

// What a whole collective leaves behind.
static const char *coll_effect(int coll, int redop, int root, char *buf, size_t len) {
    const char *op = redop_name(redop);
    switch (coll) {
    case SIM_COLL_ALL_REDUCE:
        put(buf, len, "every rank ends with the %s of all ranks' buffers", op);
        break;
    case SIM_COLL_REDUCE_SCATTER:
        put(buf, len, "each rank ends with the %s of its own part over all ranks", op);
        break;
    case SIM_COLL_ALL_GATHER: put(buf, len, "every rank ends with every rank's part"); break;
    case SIM_COLL_BROADCAST:
        if (root >= 0)
            put(buf, len, "rank %d's buffer is copied to every rank", root);
        else
            put(buf, len, "the root's buffer is copied to every rank");
        break;
    case SIM_COLL_REDUCE:
        if (root >= 0)
            put(buf, len, "the %s of all ranks' buffers arrives at rank %d", op, root);
        else
            put(buf, len, "the %s of all ranks' buffers arrives at the root", op);
        break;
    case SIM_COLL_GATHER: put(buf, len, "the root collects every rank's buffer"); break;
    case SIM_COLL_SCATTER: put(buf, len, "the root hands each rank its part"); break;
    case SIM_COLL_BARRIER: put(buf, len, "nobody leaves until every rank has arrived"); break;
    default: put(buf, len, "ranks exchange data"); break;
    }
    return buf;
}

static const char *unit_label(const VizModel *m, int u, char *buf, size_t len) {
    const char *name = u >= 0 && u < m->nunits ? m->units[u].name : NULL;
    // a Sequential's modules are named by their index: say so
    int digits = name != NULL && name[0] != '\0' && strspn(name, "0123456789") == strlen(name);
    if (name)
        put(buf, len, "unit %d (%s%s)", u, digits ? "module " : "", name);
    else
        put(buf, len, "unit %d", u);
    return buf;
}

// What backs a world collective: a DDP bucket or an FSDP unit.
static const char *coll_purpose(const VizModel *m, const VizCollRec *c, char *buf, size_t len) {
    char u[96];
    buf[0] = '\0';
    if (c && c->bucket >= 0)
        put(buf, len, " for bucket #%d", c->bucket);
    else if (c && c->unit >= 0)
        put(buf, len, " for %s", unit_label(m, c->unit, u, sizeof u));
    return buf;
}

static void cap_coll(const VizModel *m, const SimEvent *e, char *buf, size_t len) {
    char b[32], d[32], eff[128], why[128];
    fmt_bytes(e->bytes, b, sizeof b);
    fmt_time(e->sim_end - e->sim_start, d, sizeof d);
    if (e->coll == SIM_COLL_SEND)
        put(buf, len, "rank %d sends %s to rank %d (%s)", e->rank, b, e->dst, d);
    else if (e->coll == SIM_COLL_RECV)
        put(buf, len, "rank %d receives %s from rank %d (%s)", e->rank, b, e->src, d);
    else if (!viz_is_world_coll(e))
        put(buf, len, "rank %d: %s of %s over %s, a ring of sends and receives (%s)", e->rank,
            coll_name(e->coll), b, e->label ? e->label : "a group", d);
    else if (e->coll == SIM_COLL_BARRIER)
        put(buf, len, "rank %d reaches barrier #%llu: nobody leaves until every rank has "
                      "arrived (%s)", e->rank, (unsigned long long)e->seq, d);
    else {
        const VizCollRec *c = viz_coll_rec(m, e->seq);
        int ns = e->nsteps > 0 ? e->nsteps : 0;
        put(buf, len, "rank %d: %s #%llu%s of %s (%s, %d step%s, %s): %s", e->rank,
            coll_name(e->coll), (unsigned long long)e->seq, coll_purpose(m, c, why, sizeof why),
            b, algo_name(e->algo), ns, ns == 1 ? "" : "s", d,
            coll_effect(e->coll, e->redop, c ? c->root : -1, eff, sizeof eff));
    }
}

// What happens in one step of a phase, by the phase's label and algorithm.
static const char *step_effect(const char *label, int algo, int coll) {
    int ring = algo == SIM_ALGO_RING, tree = algo == SIM_ALGO_TREE;
    int direct = algo == SIM_ALGO_DIRECT;
    if (streq(label, "reduce-scatter"))
        return direct ? "each rank adds every other rank's copy of the chunk it owns"
               : ring ? "each rank adds the chunk it received to its own copy and passes "
                        "the sum on next step"
                      : "each rank adds the chunk it received";
    if (streq(label, "all-gather"))
        return ring ? "each rank copies the finished chunk it received and passes it on "
                      "next step"
                    : "each rank copies the finished chunks it received";
    if (streq(label, "reduce"))
        return tree    ? "partial sums move one level up the tree toward the root"
               : ring  ? "partial sums move one rank along the chain toward the root"
                       : "every rank's buffer is added up at the root";
    if (streq(label, "broadcast"))
        return tree    ? "the result moves one level down the tree"
               : ring  ? "chunks move one rank along the chain"
                       : "the root sends its buffer to every rank";
    if (streq(label, "reduce+broadcast"))
        return "in each of the two trees, chunks of partial sums move one level up "
               "while finished chunks move one level back down";
    if (streq(label, "gather"))
        return "every rank's part arrives at the root";
    if (streq(label, "scatter"))
        return "the root sends each rank its part";
    (void)coll;
    return "ranks exchange chunks";
}

static void cap_step(const VizModel *m, const SimEvent *e, char *buf, size_t len) {
    int k, n;
    const VizCollRec *c = viz_coll_rec(m, e->seq);
    if (viz_step_in_phase(m, e, &k, &n) != 0)
        k = e->step, n = e->nsteps;
    char why[128];
    put(buf, len, "%s step %d of %d: %s (%s #%llu%s, %s, on rank %d)",
        e->label ? e->label : "step", k + 1, n, step_effect(e->label, e->algo, e->coll),
        coll_name(e->coll), (unsigned long long)e->seq, coll_purpose(m, c, why, sizeof why),
        algo_name(e->algo), e->rank);
}

static void cap_xfer(const SimEvent *e, char *buf, size_t len) {
    char b[32], ch[32];
    fmt_bytes(e->bytes, b, sizeof b);
    if (e->chunk >= 0)
        put(ch, sizeof ch, "chunk %d", e->chunk);
    else
        put(ch, sizeof ch, "the whole buffer");
    int reduce = streq(e->label, "reduce");
    put(buf, len, "rank %d -> rank %d: %s (%s) of %s #%llu, %s rank %d's %s (step %lld)", e->src,
        e->dst, ch, b, coll_name(e->coll), (unsigned long long)e->seq,
        reduce ? "added to" : "copied into", e->dst, reduce ? "own copy" : "buffer",
        (long long)e->step + 1); // a loaded trace's step may be 2^31-1
}

static const char *phase_word(VizPhase p) {
    switch (p) {
    case VIZ_PHASE_FORWARD: return "forward";
    case VIZ_PHASE_BACKWARD: return "backward";
    case VIZ_PHASE_OPTIMIZER: return "optimizer";
    case VIZ_PHASE_EVAL: return "eval";
    default: return NULL;
    }
}

// The input pipeline's events and a parameter server worker's wait (sim/data/data_stage.h,
// sim/strategy/async_ps.h): 1 if e is one of them and buf holds its caption.
static int cap_waits(const SimEvent *e, const char *d, char *buf, size_t len) {
    const char *n = e->name ? e->name : "";
    if (streq(n, "data.wait"))
        put(buf, len, "rank %d: waits %s for batch %d: the loader has not finished it, the "
                      "device stands idle", e->rank, d, e->step);
    else if (streq(n, "data.load") && e->chunk >= 0)
        put(buf, len, "rank %d: loader worker %d builds batch %d (%d samples) in %s", e->rank,
            e->chunk, e->step, (int)e->count, d);
    else if (streq(n, "data.load"))
        put(buf, len, "rank %d: the training loop itself loads batch %d (%d samples, no "
                      "workers) in %s", e->rank, e->step, (int)e->count, d);
    else if (streq(n, "data.h2d"))
        put(buf, len, "rank %d: batch %d copied to the device (%s memory) in %s", e->rank,
            e->step, e->stream == SIM_STREAM_HOST ? "pinned" : "pageable", d);
    else if (streq(n, "ps.wait"))
        put(buf, len, "rank %d: waits %s: it is more updates ahead of the slowest worker "
                      "than --max-staleness allows", e->rank, d);
    else
        return 0;
    return 1;
}

static void cap_compute(const VizModel *m, const SimEvent *e, size_t i, char *buf, size_t len) {
    char d[32], f[32], b[32];
    fmt_time(e->sim_end - e->sim_start, d, sizeof d);
    if (cap_waits(e, d, buf, len))
        return;
    if (e->stream == SIM_STREAM_HOST) {
        fmt_bytes(e->bytes, b, sizeof b);
        put(buf, len, "rank %d: host copy %s of %s between device and CPU memory (offload, %s)",
            e->rank, e->name ? e->name : "?", b, d);
        return;
    }
    const char *ph = phase_word(phase_at(m, e->rank, i));
    if (e->count > 0) {
        fmt_flops(e->count, f, sizeof f);
        put(buf, len, "rank %d: %s%s%s%s, %s in %s", e->rank, e->name ? e->name : "op",
            ph ? " (" : "", ph ? ph : "", ph ? ")" : "", f, d);
    } else {
        put(buf, len, "rank %d: %s%s%s%s for %s", e->rank, e->name ? e->name : "op",
            ph ? " (" : "", ph ? ph : "", ph ? ")" : "", d);
    }
}

static void cap_marker(const SimEvent *e, char *buf, size_t len) {
    const char *n = e->name ? e->name : "", *l = e->label;
    if (streq(n, "iteration")) {
        if (streq(l, "end"))
            put(buf, len, "rank %d: iteration %d ends, loss %.4g", e->rank, e->step, e->value);
        else
            put(buf, len, "rank %d: iteration %d begins", e->rank, e->step);
    } else if (streq(n, "phase")) {
        if (streq(l, "forward"))
            put(buf, len, "rank %d: forward pass of iteration %d: activations are computed "
                          "layer by layer", e->rank, e->step);
        else if (streq(l, "backward"))
            put(buf, len, "rank %d: backward pass of iteration %d: gradients flow from the "
                          "loss back to the first layer", e->rank, e->step);
        else if (streq(l, "optimizer"))
            put(buf, len, "rank %d: optimizer step of iteration %d: every parameter is "
                          "updated with its gradient", e->rank, e->step);
        else if (streq(l, "eval"))
            put(buf, len, "rank %d: evaluation: forward passes only, no gradients", e->rank);
        else
            put(buf, len, "rank %d: phase %s", e->rank, l ? l : "?");
    } else if (streq(n, "elastic")) {
        if (streq(l, "restart") || streq(l, "resume") || streq(l, "rendezvous"))
            put(buf, len, "rank %d: elastic %s: world of %d ranks, training from step %d",
                e->rank, l, (int)e->value, e->step);
        else
            put(buf, len, "rank %d: elastic: a node %s%s at step %d", e->rank,
                streq(l, "leave") ? "leaves" : streq(l, "join") ? "asks to join" : "",
                (streq(l, "leave") || streq(l, "join")) ? "" : (l ? l : "?"), e->step);
    } else if (streq(n, "ps")) {
        if (streq(l, "apply"))
            put(buf, len, "rank %d (server): applies push %d, staleness %g (updates since its "
                          "worker pulled)", e->rank, e->step, e->value);
        else if (streq(l, "pull"))
            put(buf, len, "rank %d (worker): pulls the parameters from the servers", e->rank);
        else
            put(buf, len, "rank %d (worker): pushes its gradient to the servers", e->rank);
    } else if (streq(n, "dp.replicate")) {
        put(buf, len, "rank %d: DataParallel: device 0 copies the model to every device", e->rank);
    } else if (streq(n, "dp.scatter")) {
        put(buf, len, "rank %d: DataParallel: device 0 splits the batch and sends each device "
                      "its slice", e->rank);
    } else if (streq(n, "dp.gather")) {
        put(buf, len, "rank %d: DataParallel: device 0 gathers every device's outputs to "
                      "compute the loss", e->rank);
    } else if (streq(n, "dp.scatter_grad")) {
        put(buf, len, "rank %d: DataParallel: device 0 sends each device the gradient of its "
                      "outputs", e->rank);
    } else if (streq(n, "dp.reduce")) {
        put(buf, len, "rank %d: DataParallel: every device's gradients are summed on device 0",
            e->rank);
    } else {
        put(buf, len, "rank %d: marker %s%s%s", e->rank, n, l ? ": " : "", l ? l : "");
    }
}

static void cap_memory(const SimEvent *e, char *buf, size_t len) {
    char b[32], t[32], what[96];
    if (streq(e->label, "peak-reset")) {
        fmt_bytes(e->count, t, sizeof t);
        put(buf, len, "rank %d restarts its memory peak at %s: set-up that the modelled run "
                      "never holds is over", e->rank, t);
        return;
    }
    fmt_bytes(e->bytes, b, sizeof b);
    fmt_bytes(e->count, t, sizeof t);
    int freeing = streq(e->label ? e->label : e->name, "free");
    int cat = e->mem_cat >= 0 && e->mem_cat < SIM_MEM_CAT_COUNT ? e->mem_cat : SIM_MEM_OTHER;
    int generic = e->name == NULL || streq(e->name, "alloc") || streq(e->name, "free");
    put(what, sizeof what, "%s%s%s%s", sim_mem_cat_name((SimMemCat)cat), generic ? "" : " (",
        generic ? "" : e->name, generic ? "" : ")");
    const char *space = e->mem_space == SIM_MEM_HOST ? "host memory" : "the device";
    if (cat == SIM_MEM_BACKING)
        put(buf, len, "rank %d %s %s of numeric-mode backing store (not counted: the modelled "
                      "run would not hold it)", e->rank, freeing ? "frees" : "allocates", b);
    else
        put(buf, len, "rank %d %s %s of %s: %s holds %s", e->rank,
            freeing ? "frees" : "allocates", b, what, space, t);
}

// The plan in force at event i (the latest that began at or before it).
static const VizPlan *plan_at(const VizModel *m, size_t i) {
    const VizPlan *p = NULL;
    for (int k = 0; k < m->nplans && m->plans[k].begin <= i; k++)
        p = &m->plans[k];
    return p;
}

// How a bucket's all_reduce, launched by rank r at event i, meets r's
// compute. The trace is read from the launch on: the caption must say
// whether backward really goes on beside it, not only that the rank is in
// its backward phase (after the last gradient it is still "backward" while
// it waits and copies the averaged gradients back).
typedef enum {
    LAUNCH_UNKNOWN = 0, // no later compute indexed (a live run's tail)
    LAUNCH_OVERLAPS,    // compute runs on r while the all_reduce is in flight
    LAUNCH_BLOCKS,      // none does, but backward has more gradients after it
    LAUNCH_LAST,        // backward has computed its last gradient on r
} LaunchOverlap;

enum { LAUNCH_SCAN_MAX = 4096 }; // compute ops looked at after a launch

static int is_wait_op(const char *name) {
    return streq(name, "data.wait") || streq(name, "ps.wait");
}

static LaunchOverlap launch_overlap(const VizModel *m, const SimEvent *e, size_t i) {
    if (e->rank < 0 || e->rank >= m->nranks)
        return LAUNCH_UNKNOWN;
    const VizLane *l = viz_lane(m, e->rank, VIZ_LANE_COMPUTE);
    const VizCollRec *c = viz_coll_rec(m, e->seq);
    double now = e->sim_start;
    double end = e->sim_end > now ? e->sim_end : c && c->t1 > now ? c->t1 : now;
    size_t k = viz_lane_last(l, i);
    size_t from = k == (size_t)-1 ? 0 : k;
    int seen = 0;
    for (size_t j = from; j < l->ev.n && j < from + LAUNCH_SCAN_MAX; j++) {
        const SimEvent *op = &m->t->ev[l->ev.v[j]];
        if (is_wait_op(op->name) || (j == k && op->sim_end <= now))
            continue; // a wait is no compute; the op before the launch is over
        if (op->sim_start < end)
            return LAUNCH_OVERLAPS;
        seen = 1;
        VizPhase ph = viz_op_phase(op->name);
        if (ph == VIZ_PHASE_BACKWARD)
            return LAUNCH_BLOCKS;
        if (ph == VIZ_PHASE_FORWARD || ph == VIZ_PHASE_OPTIMIZER)
            break; // the backward pass is over
    }
    return seen ? LAUNCH_LAST : LAUNCH_UNKNOWN;
}

static void cap_bucket(const VizModel *m, const SimEvent *e, size_t i, char *buf, size_t len) {
    char b[32];
    fmt_bytes(e->bytes, b, sizeof b);
    const char *l = e->label;
    if (streq(l, "plan-begin")) {
        int rebuilt = 0;
        for (int k = 0; k < m->nplans; k++)
            if (m->plans[k].begin < i && !m->plans[k].synthetic)
                rebuilt = 1;
        put(buf, len, "rank %d: bucket plan: %llu parameters in %d bucket%s, %s", e->rank,
            (unsigned long long)e->count, e->nsteps, e->nsteps == 1 ? "" : "s",
            rebuilt ? "rebuilt in the order the gradients arrived"
                    : "first guess, before any gradient has arrived");
        return;
    }
    if (streq(l, "plan")) {
        put(buf, len, "rank %d: bucket #%d takes %s (%s)", e->rank, e->step,
            e->name ? e->name : "a parameter", b);
        return;
    }
    if (streq(l, "ready")) {
        const VizPlan *p = plan_at(m, i);
        const char *name = NULL;
        for (int k = 0; p && k < p->filled; k++)
            if (p->params[k].index == e->chunk)
                name = p->params[k].name;
        char pn[64];
        if (name == NULL)
            put(pn, sizeof pn, "parameter %d", e->chunk);
        put(buf, len, "rank %d: the gradient of %s is ready and copied into bucket #%d",
            e->rank, name ? name : pn, e->step);
        return;
    }
    if (streq(l, "launch")) {
        static const char *const how[] = {
            [LAUNCH_UNKNOWN] = "",
            [LAUNCH_OVERLAPS] = " while backward goes on",
            [LAUNCH_BLOCKS] = "; backward resumes only when it ends (exposed)",
            [LAUNCH_LAST] = " after backward's last gradient: nothing left to hide it behind",
        };
        put(buf, len, "rank %d: bucket #%d launched: all_reduce of %s%s", e->rank, e->step, b,
            how[launch_overlap(m, e, i)]);
        return;
    }
    if (streq(l, "done")) {
        put(buf, len, "rank %d: bucket #%d done: its all_reduce finished, its gradients now "
                      "agree on every rank", e->rank, e->step);
        return;
    }
    put(buf, len, "rank %d: bucket #%d: %s", e->rank, e->step, l ? l : "?");
}

static int shard_group(const VizModel *m) {
    return m->shard_group > 0 ? m->shard_group : m->shard_chunks > 0 ? m->shard_chunks : m->nranks;
}

static void cap_shard(const VizModel *m, const SimEvent *e, size_t i, char *buf, size_t len) {
    char u[96], b[32], sb[32];
    unit_label(m, e->step, u, sizeof u);
    int g = e->src > 0 && streq(e->label, "plan") ? e->src : shard_group(m);
    fmt_bytes(e->bytes, b, sizeof b);
    fmt_bytes(g > 0 ? e->bytes / (uint64_t)g : e->bytes, sb, sizeof sb);
    const char *ph = phase_word(phase_at(m, e->rank, i));
    const char *l = e->label;
    if (streq(l, "gather"))
        put(buf, len, "%s: rank %d issues its all-gather%s%s: every rank sends its %s shard, "
                      "each receives the whole %s", u, e->rank, ph ? " for the " : "",
            ph ? ph : "", sb, b);
    else if (streq(l, "gathered"))
        put(buf, len, "%s gathered on rank %d: all %d shards present for its %s", u, e->rank, g,
            ph ? ph : "computation");
    else if (streq(l, "free"))
        put(buf, len, "%s freed on rank %d: only its own shard stays (%s of %s)", u, e->rank, sb,
            b);
    else if (streq(l, "reduce"))
        put(buf, len, "%s on rank %d: its gradient is reduce-scattered: each rank keeps the sum "
                      "of its own shard", u, e->rank);
    else if (streq(l, "reduced"))
        put(buf, len, "%s on rank %d: gradient shard updated with the sum over %d ranks", u,
            e->rank, g);
    else if (streq(l, "plan"))
        put(buf, len, "rank %d: FSDP %s: %llu parameters (%s), split in %d shards", e->rank, u,
            (unsigned long long)e->count, b, g);
    else if (streq(l, "plan-param"))
        put(buf, len, "rank %d: FSDP2 %s, parameter %s: %llu rows on dim 0, %d per rank (%s "
                      "padded)", e->rank, u, e->name ? e->name : "?",
            (unsigned long long)e->count, e->src, b);
    else
        put(buf, len, "%s on rank %d: %s", u, e->rank, l ? l : "?");
}

void viz_caption(const VizModel *m, size_t i, char *buf, size_t len) {
    if (buf == NULL || len == 0)
        return;
    buf[0] = '\0';
    if (m == NULL || i >= m->n)
        return;
    const SimEvent *e = &m->t->ev[i];
    switch (e->kind) {
    case SIM_EV_COLL: cap_coll(m, e, buf, len); break;
    case SIM_EV_COLL_STEP: cap_step(m, e, buf, len); break;
    case SIM_EV_XFER: cap_xfer(e, buf, len); break;
    case SIM_EV_COMPUTE: cap_compute(m, e, i, buf, len); break;
    case SIM_EV_MARKER: cap_marker(e, buf, len); break;
    case SIM_EV_FAULT:
        // the engine's message already ends with the status (the label)
        if (streq(e->label, SIM_EV_DIAGNOSIS_LABEL))
            put(buf, len, "rank %d diagnosed the failure (what every rank was doing, below):",
                e->rank);
        else if (streq(e->label, "injected")) // --fault SPEC: the name says what it does
            put(buf, len, "rank %d: injected %s%s", e->rank,
                e->name && strncmp(e->name, "fault ", 6) == 0 ? "" : "fault ",
                e->name ? e->name : "?");
        else if (e->name && e->label && strstr(e->name, e->label))
            put(buf, len, "rank %d: fault: %s", e->rank, e->name);
        else
            put(buf, len, "rank %d: fault: %s%s%s", e->rank, e->name ? e->name : "?",
                e->label ? ": " : "", e->label ? e->label : "");
        break;
    case SIM_EV_MEMORY: cap_memory(e, buf, len); break;
    case SIM_EV_BUCKET: cap_bucket(m, e, i, buf, len); break;
    case SIM_EV_SHARD: cap_shard(m, e, i, buf, len); break;
    default: put(buf, len, "rank %d: event of kind %d", e->rank, e->kind); break;
    }
}

static int is_diagnosis(const SimEvent *e) {
    return e->kind == SIM_EV_FAULT && streq(e->label, SIM_EV_DIAGNOSIS_LABEL) && e->name;
}

const char *viz_detail(const VizModel *m, size_t i) {
    if (m == NULL || i >= m->n || m->t->ev[i].kind != SIM_EV_FAULT)
        return NULL;
    if (is_diagnosis(&m->t->ev[i]))
        return m->t->ev[i].name;
    const VizIdxList *f = &m->jump[VIZ_JUMP_FAULT];
    if (f->n == 0 || f->v[0] != i)
        return NULL;
    for (size_t k = 1; k < f->n; k++) // a run has one diagnosis, after its first fault
        if (is_diagnosis(&m->t->ev[f->v[k]]))
            return m->t->ev[f->v[k]].name;
    return NULL;
}
