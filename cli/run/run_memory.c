// cli/run/run_memory.c: what `ddplab run` says about memory, from the ranks'
// memory ledgers (sim/engine/memory.h) once the ranks have finished: the table of
// every rank's device peak by category after a run, and, when a rank ran
// out of --device-memory, what it held when the allocation was refused and
// what would fit instead.
//
// The closed forms (sim/cost/memory_formula.h) are printed with the numbers of
// this run's model: its parameters, its largest module (the unit FSDP
// gathers whole), and the activations at this --batch, read from a phantom
// copy of the model (shapes only, no storage) built on a world of one rank,
// since the failed run may have stopped before it held them all. What would
// fit is decided by measurement (run_memory_need.c): the formulas leave out
// transients (reduce-scatter outputs, a second copy of sharded parameters)
// that can turn "fits" into an out-of-memory error.
#include "run/run.h"

#include <stdio.h>
#include <string.h>

#include "core/backends.h"       // defines: cli_backend_find
#include "cost/memory_formula.h" // defines: SimMemfQuery, sim_memf_fit

// ----------------------------------------------------------------------------
// the table after a run

// 1 if ranks a and b peaked at the same bytes in every category of space s.
static int same_peak(const SimMemLedger *a, const SimMemLedger *b, SimMemSpace s) {
    return a->peak[s] == b->peak[s] &&
           memcmp(a->at_peak[s], b->at_peak[s], sizeof a->at_peak[s]) == 0;
}

#define GROUPS_PER_BLOCK 5 // columns of ranks that fit 79 characters

// Categories down, ranks across (ranks that peaked alike share a column,
// "1-3"), in blocks of GROUPS_PER_BLOCK columns: the table fits a terminal
// whatever the categories and ranks.
static void peak_table(const SimWorld *w, SimMemSpace s) {
    int R = w->cfg.nranks, used[SIM_MEM_CAT_COUNT] = {0};
    for (int r = 0; r < R; r++)
        for (int c = 0; c < SIM_MEM_CAT_COUNT; c++)
            used[c] |= c != SIM_MEM_BACKING && w->ranks[r].mem.at_peak[s][c] != 0;
    char h[32], name[32];
    for (int first = 0; first < R;) {
        int lo[GROUPS_PER_BLOCK], hi[GROUPS_PER_BLOCK], ng = 0;
        for (int r = first; r < R && ng < GROUPS_PER_BLOCK; ng++) {
            int last = r;
            while (last + 1 < R && same_peak(&w->ranks[r].mem, &w->ranks[last + 1].mem, s))
                last++;
            lo[ng] = r;
            hi[ng] = last;
            r = last + 1;
        }
        printf("  %-22s", "rank");
        for (int g = 0; g < ng; g++) {
            if (hi[g] > lo[g])
                snprintf(name, sizeof name, "%d-%d", lo[g], hi[g]);
            else
                snprintf(name, sizeof name, "%d", lo[g]);
            printf(" %10s", name);
        }
        printf("\n");
        for (int k = 1; k <= SIM_MEM_CAT_COUNT; k++) {
            int c = k % SIM_MEM_CAT_COUNT; // "other" last
            if (!used[c])
                continue;
            printf("  %-22s", sim_mem_cat_name((SimMemCat)c));
            for (int g = 0; g < ng; g++)
                printf(" %10s", sim_mem_human(w->ranks[lo[g]].mem.at_peak[s][c], h, sizeof h));
            printf("\n");
        }
        printf("  %-22s", "peak");
        for (int g = 0; g < ng; g++)
            printf(" %10s", sim_mem_human(w->ranks[lo[g]].mem.peak[s], h, sizeof h));
        printf("\n");
        const SimMemLedger *l0 = &w->ranks[lo[0]].mem;
        if (s == SIM_MEM_DEVICE && l0->capacity > 0) {
            printf("  %-22s", "of the capacity");
            for (int g = 0; g < ng; g++)
                printf(" %9.1f%%", 100.0 * (double)w->ranks[lo[g]].mem.peak[s] /
                                       (double)w->ranks[lo[g]].mem.capacity);
            printf("\n");
        }
        first = hi[ng - 1] + 1;
    }
}

void run_memory_table(const RunOptions *o, const SimWorld *w) {
    int host = 0;
    char cap[32];
    for (int r = 0; r < w->cfg.nranks; r++)
        host |= w->ranks[r].mem.peak[SIM_MEM_HOST] > 0;
    printf("memory: each rank's device peak by category (the memory ledger)\n");
    if (o->device_memory)
        printf("  capacity: --device-memory %.24s = %s per rank\n", o->device_memory_text,
               sim_mem_human((int64_t)o->device_memory, cap, sizeof cap));
    peak_table(w, SIM_MEM_DEVICE);
    if (host) {
        printf("memory: each rank's host peak by category (CPU offload)\n");
        peak_table(w, SIM_MEM_HOST);
    }
    fflush(stdout);
}

// ----------------------------------------------------------------------------
// the out-of-memory report

typedef struct {
    const SimTrainConfig *c;
    double psi, largest, act, other;
    char error[2048];
} Probe;

// The model's sizes, from a phantom copy of it (nothing is allocated).
static SimStatus probe_rank(SimRank *r, void *arg) {
    Probe *p = arg;
    SimModel *m = NULL;
    SimStatus st = sim_model_create(r, &p->c->model, p->c->data.batch, 1, &m);
    if (st != SIM_OK) {
        snprintf(p->error, sizeof p->error, "%s", r->error);
        return st;
    }
    p->psi = (double)m->param_count;
    for (int k = 1; k < m->nmodules; k++) {
        const SimModuleInfo *mod = &m->modules[k];
        double n = 0;
        for (int i = mod->first_param; i < mod->first_param + mod->nparams; i++)
            n += (double)m->params[i].numel;
        if (n > p->largest)
            p->largest = n;
    }
    if (p->largest <= 0) // no children: the whole model is the one unit
        p->largest = p->psi;
    p->act = (double)r->mem.cur[SIM_MEM_DEVICE][SIM_MEM_ACT];
    p->other = (double)r->mem.cur[SIM_MEM_DEVICE][SIM_MEM_OTHER];
    sim_model_destroy(r, m);
    return SIM_OK;
}

static int probe_model(const RunOptions *o, Probe *p) {
    SimWorldConfig wc;
    sim_world_config_default(&wc);
    wc.nranks = 1;
    wc.profile = o->sys;
    wc.trace = 0;
    SimWorld w;
    SimStatus st = sim_world_init(&w, &wc, cli_backend_find(o->backend));
    if (st == SIM_OK)
        st = sim_world_run(&w, probe_rank, p);
    sim_world_free(&w);
    return st == SIM_OK;
}

// The plan this run used.
static SimMemfPlan current_plan(const RunOptions *o) {
    if (run_fsdp_is_strategy(o->strategy)) {
        if (o->fsdp.sharding == SIM_FSDP_ZERO1)
            return SIM_MEMF_PLAN_ZERO1;
        if (o->fsdp.sharding == SIM_FSDP_SHARD_GRAD_OP ||
            o->fsdp.sharding == SIM_FSDP_HYBRID_ZERO2)
            return SIM_MEMF_PLAN_ZERO2;
        if (o->fsdp.sharding == SIM_FSDP_NO_SHARD)
            return SIM_MEMF_PLAN_DDP;
        return o->fsdp.cpu_offload ? SIM_MEMF_PLAN_OFFLOAD : SIM_MEMF_PLAN_FULL_SHARD;
    }
    if (strcmp(o->strategy, "ddp") == 0 && !o->ddp.gradient_as_bucket_view)
        return SIM_MEMF_PLAN_DDP;
    return SIM_MEMF_PLAN_DDP_VIEW; // replicas without bucket copies (single, dp, ...)
}

// DataParallel splits its --batch over the devices; the other strategies'
// --batch is each rank's, so they are compared at this run's share of it.
static int is_dp(const RunOptions *o) {
    return strcmp(o->strategy, "dp") == 0;
}

static int rank_batch(const RunOptions *o) {
    return is_dp(o) ? (o->batch + o->nranks - 1) / o->nranks : o->batch;
}

static const char *plan_option(SimMemfPlan p) {
    static const char *const opts[SIM_MEMF_PLAN_COUNT] = {
        "--strategy ddp",
        "--strategy ddp --gradient-as-bucket-view",
        "--strategy zero1",
        "--strategy zero2",
        "--strategy fsdp",
        "--strategy fsdp --cpu-offload",
    };
    return p < SIM_MEMF_PLAN_COUNT ? opts[p] : "";
}

static SimMemfBytes run_bytes(const RunOptions *o) {
    const SimOptimOptions *op = &o->opt.optim;
    return sim_memf_fp32(op->kind != SIM_OPTIM_SGD ? SIM_MEMF_ADAM
                         : op->momentum != 0      ? SIM_MEMF_SGD_MOMENTUM
                                                  : SIM_MEMF_SGD);
}

// One configuration's need per rank: measured by phantom steps
// (run_memory_need.c), else the closed form's estimate.
typedef struct {
    double device, host;
    int measured;
} Need;

static Need need_of(const RunOptions *o, const Probe *p, SimMemfPlan plan, double formula,
                    double formula_host, int nranks, int batch, int accum) {
    Need n = {formula, formula_host, 0};
    double d = 0, h = 0;
    if (run_memory_need(o, p->c, plan, nranks, batch, accum, &d, &h)) {
        n.device = d;
        n.host = plan == SIM_MEMF_PLAN_OFFLOAD ? h : 0;
        n.measured = 1;
    }
    return n;
}

static int need_fits(const RunOptions *o, const Need *n) {
    return o->device_memory == 0 || n->device <= (double)o->device_memory;
}

// "--strategy zero1 needs 1.24 MiB", with the host memory of an offload.
static size_t put_need(char *line, size_t n, size_t cap, int any, const char *what,
                       const Need *need) {
    char a[32], b[32];
    if (n >= cap)
        return n;
    n += (size_t)snprintf(line + n, cap - n, "%s %s needs %s", any ? ";" : "", what,
                          sim_mem_human((int64_t)need->device, a, sizeof a));
    if (need->host > 0 && n < cap)
        n += (size_t)snprintf(line + n, cap - n, " and %s of host memory",
                              sim_mem_human((int64_t)need->host, b, sizeof b));
    return n;
}

// The closed forms' table, each row with its measured need beside it.
static void print_table(const RunOptions *o, const SimMemfQuery *q, const SimMemfFit *fit,
                        const Need *need, SimMemfPlan now, const Need *dp) {
    char a[32], b[32], h[32], c[32], m[32], split[96] = "";
    if (dp != NULL)
        snprintf(split, sizeof split, " (DataParallel's --batch %d split over %d devices)",
                 o->batch, o->nranks);
    fprintf(stderr,
            "ddplab run: per rank on %d rank%s by the closed forms: %.0f parameters at %.0f "
            "bytes each (parameters, gradients, optimizer state), the largest module %.0f "
            "parameters, activations %s and other %s at --batch %d%s; beside each, what two "
            "phantom steps of this run under it hold at their peak:\n",
            o->nranks, o->nranks == 1 ? "" : "s", q->psi, sim_memf_total(q->bytes),
            q->largest_unit, sim_mem_human((int64_t)q->act_bytes, a, sizeof a),
            sim_mem_human((int64_t)q->other_bytes, b, sizeof b), q->batch, split);
    if (dp != NULL) // no closed form: device 0 gathers, reduces and steps for all
        fprintf(stderr, "  %-30s %52s measured %s%s  <- this run\n", "DataParallel (device 0)",
                "", sim_mem_human((int64_t)dp->device, m, sizeof m),
                need_fits(o, dp) ? "  fits" : "  does not fit");
    for (int k = 0; k < SIM_MEMF_PLAN_COUNT; k++) {
        const SimMemfFit *f = &fit[k];
        fprintf(stderr, "  %-30s states %10s + transient %10s -> %10s", sim_memf_plan_name(f->plan),
                sim_mem_human((int64_t)f->states, a, sizeof a),
                sim_mem_human((int64_t)f->transient, b, sizeof b),
                sim_mem_human((int64_t)f->device, c, sizeof c));
        if (f->host > 0)
            fprintf(stderr, " (+ %s host)", sim_mem_human((int64_t)f->host, h, sizeof h));
        if (need[k].measured)
            fprintf(stderr, ", measured %s", sim_mem_human((int64_t)need[k].device, m, sizeof m));
        fprintf(stderr, "%s%s\n", need_fits(o, &need[k]) ? "  fits" : "  does not fit",
                (SimMemfPlan)k == now ? "  <- this run" : "");
    }
}

// FULL_SHARD on more ranks: from the closed form's smallest count, doubled
// until a measurement fits (a few tries). Returns the ranks, or 0.
static int more_ranks(const RunOptions *o, const Probe *p, const SimMemfQuery *q, Need *out) {
    int n = sim_memf_min_ranks(q, SIM_MEMF_PLAN_FULL_SHARD, 65536);
    for (int tries = 0; n > 0 && n <= 65536 && tries < 4; tries++, n *= 2) {
        SimMemfFit f = sim_memf_fit_plan(q, SIM_MEMF_PLAN_FULL_SHARD, n);
        *out = need_of(o, p, SIM_MEMF_PLAN_FULL_SHARD, f.device, f.host, n, q->batch, o->accum);
        if (need_fits(o, out))
            return n;
    }
    return 0;
}

// A smaller micro-batch with the accumulation that keeps the samples per
// optimizer step (spread evenly over the micro-steps): from the closed
// form's largest, smaller until a measurement fits. Writes the batch and
// accumulation; returns 1 when one fits.
static int smaller_batch(const RunOptions *o, const Probe *p, const SimMemfQuery *q,
                         SimMemfPlan now, long *batch, long *accum, Need *out) {
    long per_step = (long)q->batch * o->accum;
    long mb = sim_memf_max_batch(q, now);
    for (int tries = 0; mb >= 1 && tries < 12; tries++) {
        *accum = (per_step + mb - 1) / mb;
        *batch = (per_step + *accum - 1) / *accum;
        SimMemfQuery s = *q;
        s.act_bytes = q->act_bytes * (double)*batch / q->batch;
        SimMemfFit f = sim_memf_fit_plan(&s, now, q->nranks);
        *out = need_of(o, p, now, f.device, f.host, o->nranks, (int)*batch, (int)*accum);
        if (need_fits(o, out))
            return 1;
        mb = *batch - (*batch / 4 > 1 ? *batch / 4 : 1);
    }
    return 0;
}

// DataParallel with its --batch spread over more micro-steps (2, 4, ...
// times as many), until one is measured to fit. Returns 1 then.
static int smaller_batch_dp(const RunOptions *o, const Probe *p, long *batch, long *accum,
                            Need *out) {
    long per_step = (long)o->batch * o->accum;
    for (long k = (long)o->accum * 2; k <= per_step && k <= 64L * o->accum; k *= 2) {
        *accum = k;
        *batch = (per_step + k - 1) / k;
        double d = 0;
        if (*batch < o->nranks || !run_memory_need_dp(o, p->c, (int)*batch, (int)k, &d))
            return 0;
        *out = (Need){d, 0, 1};
        if (need_fits(o, out))
            return 1;
    }
    return 0;
}

// The table of plans, then one line of what would fit: every configuration
// it names was measured to fit (or, where it could not be measured, the
// closed form says so).
static void suggest(const RunOptions *o, const Probe *p) {
    SimMemfQuery q;
    memset(&q, 0, sizeof q);
    q.psi = p->psi;
    q.largest_unit = p->largest;
    q.nranks = o->nranks;
    q.capacity = (double)o->device_memory;
    q.bytes = run_bytes(o);
    q.batch = rank_batch(o);
    q.act_bytes = p->act * (double)q.batch / (p->c->data.batch > 0 ? p->c->data.batch : 1);
    q.other_bytes = p->other;
    q.bucket_bytes = 4 * p->psi; // DDP's buckets hold a copy of every fp32 gradient
    SimMemfFit fit[SIM_MEMF_PLAN_COUNT];
    sim_memf_fit(&q, fit);
    Need need[SIM_MEMF_PLAN_COUNT];
    for (int k = 0; k < SIM_MEMF_PLAN_COUNT; k++)
        need[k] = need_of(o, p, (SimMemfPlan)k, fit[k].device, fit[k].host, o->nranks, q.batch,
                          o->accum);
    // DataParallel has no row of its own among the closed forms: measured
    Need dp = {0, 0, 0};
    int dp_run = is_dp(o) && run_memory_need_dp(o, p->c, o->batch, o->accum, &dp.device);
    dp.measured = dp_run;
    SimMemfPlan now = dp_run ? SIM_MEMF_PLAN_COUNT : current_plan(o);
    const Need *cur = dp_run ? &dp : &need[now];
    print_table(o, &q, fit, need, now, dp_run ? &dp : NULL);
    // What would fit, cheapest in communication first.
    char line[1400], h[32], a[32];
    size_t n = (size_t)snprintf(line, sizeof line, "would fit in %s per rank:",
                                sim_mem_human((int64_t)q.capacity, h, sizeof h));
    int any = 0;
    for (int k = 0; k < SIM_MEMF_PLAN_COUNT; k++) {
        if (!need_fits(o, &need[k]) || (SimMemfPlan)k == now || need[k].device >= cur->device)
            continue;
        char what[96];
        if (is_dp(o)) // the same samples per step, each rank's share of them
            snprintf(what, sizeof what, "%s --batch %d", plan_option((SimMemfPlan)k), q.batch);
        else
            snprintf(what, sizeof what, "%s", plan_option((SimMemfPlan)k));
        n = put_need(line, n, sizeof line, any, what, &need[k]);
        any = 1;
    }
    Need more_need;
    int more = need_fits(o, &need[SIM_MEMF_PLAN_FULL_SHARD]) ? 0 : more_ranks(o, p, &q, &more_need);
    if (more > 0) {
        char what[96];
        if (is_dp(o))
            snprintf(what, sizeof what, "--strategy fsdp -n %d --batch %d", more, q.batch);
        else
            snprintf(what, sizeof what, "--strategy fsdp -n %d", more);
        n = put_need(line, n, sizeof line, any, what, &more_need);
        any = 1;
    }
    long batch = 0, accum = 0;
    Need small;
    if (is_dp(o) ? smaller_batch_dp(o, p, &batch, &accum, &small)
                 : smaller_batch(o, p, &q, now, &batch, &accum, &small)) {
        char what[96];
        snprintf(what, sizeof what, "--batch %ld --accum %ld (%ld samples per step)", batch,
                 accum, batch * accum);
        n = put_need(line, n, sizeof line, any, what, &small);
        any = 1;
    }
    if (any) {
        fprintf(stderr, "ddplab run: %s\n", line);
        return;
    }
    fprintf(stderr,
            "ddplab run: nothing here fits in %s per rank: even FULL_SHARD with CPU offload "
            "needs %s on the device, for the largest module gathered whole with its gradient "
            "(%.0f parameters: FSDP computes a unit whole, so more ranks do not help) and the "
            "activations; wrap finer, shrink the largest layer or the batch, or use a device "
            "with more memory\n",
            sim_mem_human((int64_t)q.capacity, h, sizeof h),
            sim_mem_human((int64_t)need[SIM_MEMF_PLAN_OFFLOAD].device, a, sizeof a),
            q.largest_unit);
}

int run_memory_oom(const RunOptions *o, const SimTrainConfig *c, const SimWorld *w) {
    const SimRank *r = NULL;
    for (int i = 0; i < w->cfg.nranks && r == NULL; i++)
        if (w->ranks[i].mem.oom)
            r = &w->ranks[i];
    if (r == NULL)
        return 0;
    const SimMemLedger *l = &r->mem;
    // The ledger at the refusal, itemised as sim_mem_format prints it.
    SimMemLedger at = *l;
    memcpy(at.cur[SIM_MEM_DEVICE], l->oom_cur, sizeof l->oom_cur);
    at.total[SIM_MEM_DEVICE] = 0;
    for (int k = 0; k < SIM_MEM_CAT_COUNT; k++)
        if (k != SIM_MEM_BACKING)
            at.total[SIM_MEM_DEVICE] += l->oom_cur[k];
    char items[1024], a[32], b[32];
    fprintf(stderr,
            "ddplab run: rank %d ran out of device memory (--device-memory %s = %s): it held "
            "this when %s for %s (%s) was refused:\n%s",
            r->rank, o->device_memory_text ? o->device_memory_text : "?",
            sim_mem_human((int64_t)l->capacity, a, sizeof a),
            sim_mem_human(l->oom_bytes, b, sizeof b), sim_mem_cat_name((SimMemCat)l->oom_cat),
            l->oom_what, sim_mem_format(&at, SIM_MEM_DEVICE, 0, items, sizeof items));
    Probe p;
    memset(&p, 0, sizeof p);
    p.c = c;
    if (probe_model(o, &p))
        suggest(o, &p);
    fflush(stderr);
    return 1;
}
