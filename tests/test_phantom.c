// tests/test_phantom.c: phantom mode against numeric mode (DESIGN.md
// section 4). The same configuration run on the cpu backend once with real
// tensors and once in a phantom world must give the same trace, event for
// event (kind, name, label, sizes, ranks, stream, steps, simulated start and
// end bit for bit; only the wall times differ) and the same memory ledger
// on every rank, while the phantom run allocates no storage at all. Then:
// the collectives with NULL buffers, the sym backend (rank 0 alone standing
// for every rank) against the cpu backend's phantom rank 0, and what
// refuses phantom or represent mode.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cpu_backend.h"
#include "cpu_sym.h"
#include "engine/comm.h"
#include "model/optim_flags.h"
#include "strategy/ddp.h"
#include "strategy/dp.h"
#include "strategy/fsdp.h"
#include "strategy/layer_owner.h"
#include "train/train.h"

#define MAX_RANKS 8

// ----------------------------------------------------------------------------
// comparing traces and ledgers

static const char *str(const char *s) {
    return s ? s : "(null)";
}

static int same_str(const char *a, const char *b) {
    return (a == NULL && b == NULL) || (a && b && strcmp(a, b) == 0);
}

static int same_double(double a, double b) {
    return memcmp(&a, &b, sizeof a) == 0; // bit for bit
}

// Every field but the wall times.
static int same_event(const SimEvent *a, const SimEvent *b) {
    return a->kind == b->kind && same_str(a->name, b->name) && same_str(a->label, b->label) &&
           a->rank == b->rank && a->stream == b->stream && a->bytes == b->bytes &&
           a->count == b->count && a->seq == b->seq && a->coll == b->coll &&
           a->algo == b->algo && a->dtype == b->dtype && a->redop == b->redop &&
           a->mem_cat == b->mem_cat && a->mem_space == b->mem_space && a->step == b->step &&
           a->nsteps == b->nsteps && a->chunk == b->chunk && a->src == b->src &&
           a->dst == b->dst && same_double(a->sim_start, b->sim_start) &&
           same_double(a->sim_end, b->sim_end);
}

static void print_event(const char *who, size_t i, const SimEvent *e) {
    fprintf(stderr, "  %s #%zu: %s %s/%s rank %d stream %d bytes %llu count %llu seq %llu "
            "step %d/%d chunk %d %d->%d sim [%.17g, %.17g]\n", who, i,
            sim_event_kind_name((SimEventKind)e->kind), str(e->name), str(e->label), e->rank,
            e->stream, (unsigned long long)e->bytes, (unsigned long long)e->count,
            (unsigned long long)e->seq, e->step, e->nsteps, e->chunk, e->src, e->dst,
            e->sim_start, e->sim_end);
}

// Rank 0 of a against rank 0 of b: the same events apart from their
// simulated times, which may differ by at most tol times the event's end in
// a (tol 0: equal); *worst gets the largest such ratio. quiet: no message.
static int similar_trace(const char *what, const SimTrace *a, const SimTrace *b, double tol,
                         int quiet, double *worst) {
    size_t na = sim_trace_rank_count(a, 0), nb = sim_trace_rank_count(b, 0);
    const SimEvent *ea = sim_trace_rank_events(a, 0), *eb = sim_trace_rank_events(b, 0);
    *worst = 0;
    if (na != nb) {
        if (!quiet)
            fprintf(stderr, "%s: %zu events against %zu\n", what, na, nb);
        return 0;
    }
    for (size_t i = 0; i < na; i++) {
        SimEvent x = eb[i];
        double ds = fabs(x.sim_start - ea[i].sim_start), de = fabs(x.sim_end - ea[i].sim_end);
        double d = ds > de ? ds : de, scale = ea[i].sim_end > 0 ? ea[i].sim_end : 1;
        if (d / scale > *worst)
            *worst = d / scale;
        x.sim_start = ea[i].sim_start;
        x.sim_end = ea[i].sim_end;
        if (!same_event(&ea[i], &x) || d > tol * scale) {
            if (!quiet) {
                fprintf(stderr, "%s: event %zu differs\n", what, i);
                print_event("first ", i, &ea[i]);
                print_event("second", i, &eb[i]);
            }
            return 0;
        }
    }
    return 1;
}

// Rank ra of trace a against rank rb of trace b.
static int same_rank_trace(const char *what, const SimTrace *a, int ra, const SimTrace *b,
                           int rb) {
    size_t na = sim_trace_rank_count(a, ra), nb = sim_trace_rank_count(b, rb);
    const SimEvent *ea = sim_trace_rank_events(a, ra), *eb = sim_trace_rank_events(b, rb);
    size_t n = na < nb ? na : nb;
    for (size_t i = 0; i < n; i++) {
        if (same_event(&ea[i], &eb[i]))
            continue;
        fprintf(stderr, "%s: rank %d: event %zu differs\n", what, ra, i);
        print_event("first ", i, &ea[i]);
        print_event("second", i, &eb[i]);
        return 0;
    }
    if (na != nb) {
        fprintf(stderr, "%s: rank %d: %zu events against %zu\n", what, ra, na, nb);
        if (n < na)
            print_event("first ", n, &ea[n]);
        if (n < nb)
            print_event("second", n, &eb[n]);
        return 0;
    }
    return 1;
}

// Bytes by category, current and at the peak, and (times = 1) the peak's
// simulated time.
static int same_ledger_bytes(const char *what, int rank, const SimMemLedger *a,
                             const SimMemLedger *b, int times) {
    int same = (!times || same_double(a->peak_sim, b->peak_sim)) && a->oom == b->oom;
    for (int s = 0; s < SIM_MEM_SPACE_COUNT; s++) {
        same = same && a->peak[s] == b->peak[s] && a->total[s] == b->total[s];
        for (int c = 0; c < SIM_MEM_CAT_COUNT; c++)
            same = same && a->at_peak[s][c] == b->at_peak[s][c] && a->cur[s][c] == b->cur[s][c];
    }
    if (!same)
        fprintf(stderr, "%s: rank %d: ledgers differ (device peak %lld at %.17g against %lld "
                "at %.17g)\n", what, rank, (long long)a->peak[SIM_MEM_DEVICE], a->peak_sim,
                (long long)b->peak[SIM_MEM_DEVICE], b->peak_sim);
    return same;
}

static int same_ledger(const char *what, int rank, const SimMemLedger *a, const SimMemLedger *b) {
    return same_ledger_bytes(what, rank, a, b, 1);
}

// ----------------------------------------------------------------------------
// training runs

typedef struct {
    const char *name;
    int gpt;                  // 0: the small MLP, 1: the tiny GPT
    const char *strategy;     // "single", "ddp", "fsdp", "dp", "layer-owner"
    SimFsdpSharding sharding; // fsdp
    int R, nodes;
    int accum;
    int eval_every;           // 0: none
    int bf16;                 // fsdp: MixedPrecision param_dtype bf16; others: --amp bf16
} Case;

typedef struct {
    SimDataset mlp_data, gpt_data;
    SimModelSpec mlp, gpt;
} Data;

// The world, its trainers and the options they point to.
typedef struct {
    SimWorld w;
    SimTrainConfig cfg;
    SimDdpOptions ddp;
    SimFsdpOptions fsdp;
    SimDpOptions dp;
    SimTrainer tr[MAX_RANKS];
    int64_t alloc_peak[MAX_RANKS]; // bytes each rank really held (SimRank.mem_peak)
    float loss;                    // rank 0's last loss
} Run;

static SimStatus rank_main(SimRank *r, void *arg) {
    Run *run = arg;
    SimStatus st = sim_train_run(r, run->tr);
    sim_train_free(&run->tr[r->rank], r);
    run->alloc_peak[r->rank] = (int64_t)r->mem_peak;
    return st;
}

static void on_step(void *arg, int rank, const SimStepStats *s) {
    if (rank == 0)
        ((Run *)arg)->loss = s->loss;
}

static void make_config(Run *run, const Case *k, const Data *d) {
    SimTrainConfig *c = &run->cfg;
    char err[256];
    sim_train_config_default(c);
    c->model = k->gpt ? d->gpt : d->mlp;
    c->data.set = k->gpt ? &d->gpt_data : &d->mlp_data;
    c->data.batch = 4;
    c->loop.accum = k->accum;
    c->loop.steps = 3;
    c->seed = 5;
    c->hooks.on_step = on_step;
    c->hooks.on_step_arg = run;
    (void)sim_optim_flags_set(&c->opt, "optimizer", "adamw", err, sizeof err);
    (void)sim_optim_flags_set(&c->opt, "lr", "0.01", err, sizeof err);
    (void)sim_optim_flags_set(&c->opt, "clip-grad-norm", "1.0", err, sizeof err);
    if (k->bf16 && strcmp(k->strategy, "fsdp") != 0)
        (void)sim_optim_flags_set(&c->opt, "amp", "bf16", err, sizeof err);
    (void)sim_optim_flags_validate(&c->opt, err, sizeof err);
    c->eval.every = k->eval_every;
    sim_ddp_options_default(&run->ddp);
    sim_fsdp_options_default(&run->fsdp);
    sim_dp_options_default(&run->dp);
    if (strcmp(k->strategy, "ddp") == 0) {
        run->ddp.buckets.bucket_cap_mb = 0.004; // several buckets, and a rebuild
        c->strategy = &sim_ddp_strategy;
        c->strategy_cfg = &run->ddp;
        c->loop.loss_log = SIM_LOSS_AVG;
    } else if (strcmp(k->strategy, "fsdp") == 0) {
        run->fsdp.sharding = k->sharding;
        if (k->bf16)
            run->fsdp.param_dtype = SIM_BF16;
        c->strategy = &sim_fsdp_strategy;
        c->strategy_cfg = &run->fsdp;
        c->loop.loss_log = SIM_LOSS_AVG;
    } else if (strcmp(k->strategy, "dp") == 0) {
        c->strategy = &sim_dp_strategy;
        c->strategy_cfg = &run->dp;
    } else if (strcmp(k->strategy, "layer-owner") == 0) {
        c->strategy = &sim_layer_owner_strategy;
    }
}

// Runs case k on `ops` (phantom / represent as given); the world stays up
// for the caller to read (free it with done()).
static SimStatus run_case(Run *run, const Case *k, const Data *d, const SimBackendOps *ops,
                          int phantom, int represent) {
    memset(run, 0, sizeof *run);
    make_config(run, k, d);
    SimWorldConfig wc;
    sim_world_config_default(&wc);
    wc.nranks = k->R;
    wc.nodes = k->nodes > 0 ? k->nodes : 1;
    wc.watchdog_s = 30;
    wc.trace = 1;
    wc.trace_max_per_rank = 0;
    wc.phantom = phantom;
    wc.represent = represent;
    SimStatus st = sim_world_init(&run->w, &wc, ops);
    if (st != SIM_OK) {
        fprintf(stderr, "%s: %s\n", k->name, sim_world_error(&run->w));
        return st;
    }
    for (int r = 0; r < k->R; r++)
        run->tr[r].cfg = &run->cfg;
    st = sim_world_run(&run->w, rank_main, run);
    if (st != SIM_OK)
        fprintf(stderr, "%s (%s%s): %s\n", k->name, phantom ? "phantom" : "numeric",
                represent ? ", represent" : "", sim_world_error(&run->w));
    return st;
}

static void done(Run *run) {
    sim_world_free(&run->w);
}

static const Case cases[] = {
    {"mlp single", 0, "single", 0, 1, 1, 2, 2, 0},
    {"gpt single", 1, "single", 0, 1, 1, 1, 0, 1},
    {"mlp ddp", 0, "ddp", 0, 4, 1, 2, 2, 0},
    {"gpt ddp", 1, "ddp", 0, 4, 2, 1, 0, 1},
    {"mlp fsdp full_shard", 0, "fsdp", SIM_FSDP_FULL_SHARD, 4, 1, 1, 2, 0},
    {"gpt fsdp full_shard", 1, "fsdp", SIM_FSDP_FULL_SHARD, 4, 1, 2, 0, 1},
    {"mlp fsdp shard_grad_op", 0, "fsdp", SIM_FSDP_SHARD_GRAD_OP, 4, 1, 2, 0, 1},
    {"gpt fsdp shard_grad_op", 1, "fsdp", SIM_FSDP_SHARD_GRAD_OP, 4, 1, 1, 0, 0},
    {"mlp zero1", 0, "fsdp", SIM_FSDP_ZERO1, 4, 1, 1, 0, 0},
    {"gpt zero1", 1, "fsdp", SIM_FSDP_ZERO1, 4, 1, 1, 0, 1},
    {"mlp hybrid 2x2", 0, "fsdp", SIM_FSDP_HYBRID_SHARD, 4, 2, 1, 0, 0},
    {"gpt hybrid 2x2", 1, "fsdp", SIM_FSDP_HYBRID_SHARD, 4, 2, 2, 0, 1},
    {"mlp dp", 0, "dp", 0, 3, 1, 1, 0, 0},
    {"mlp layer-owner", 0, "layer-owner", 0, 3, 1, 1, 0, 0},
};
#define NCASES (sizeof cases / sizeof cases[0])

static Data data;

static int load_data(void) {
    char err[512], text[128];
    SimSynthSpec sp;
    CHECK_EQ_INT(sim_dataset_synth_parse("blobs:n=96,features=16,classes=4", &sp, err,
                                         sizeof err), SIM_OK);
    CHECK_EQ_INT(sim_dataset_synth(&data.mlp_data, &sp, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(sim_model_parse("mlp:16,24,24,4", &data.mlp, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(sim_dataset_synth_parse("arith:lines=200,digits=2,ctx=8", &sp, err,
                                         sizeof err), SIM_OK);
    CHECK_EQ_INT(sim_dataset_synth(&data.gpt_data, &sp, err, sizeof err), SIM_OK);
    snprintf(text, sizeof text, "gpt:layers=2,embd=16,heads=2,ctx=8,vocab=%d",
             data.gpt_data.vocab);
    CHECK_EQ_INT(sim_model_parse(text, &data.gpt, err, sizeof err), SIM_OK);
    return 0;
}

// One case: numeric and phantom on the cpu backend, compared.
static int numeric_against_phantom(const Case *k) {
    Run *num = calloc(1, sizeof *num), *ph = calloc(1, sizeof *ph);
    CHECK(num && ph);
    int ok = run_case(num, k, &data, &cpu_backend_ops, 0, 0) == SIM_OK &&
             run_case(ph, k, &data, &cpu_backend_ops, 1, 0) == SIM_OK;
    for (int r = 0; ok && r < k->R; r++) {
        ok = same_rank_trace(k->name, num->w.trace, r, ph->w.trace, r) &&
             same_ledger(k->name, r, &num->w.ranks[r].mem, &ph->w.ranks[r].mem);
        // the numeric run held storage; the phantom one none at all
        ok = ok && num->alloc_peak[r] > 0 && ph->alloc_peak[r] == 0;
        ok = ok && sim_trace_rank_count(ph->w.trace, r) > 50;
    }
    ok = ok && num->loss > 0.0f && ph->loss == 0.0f; // losses: computed / not computed
    if (!ok)
        fprintf(stderr, "%s: numeric loss %g, phantom loss %g, allocated %lld / %lld\n",
                k->name, num->loss, ph->loss, (long long)num->alloc_peak[0],
                (long long)ph->alloc_peak[0]);
    done(num);
    done(ph);
    free(num);
    free(ph);
    return ok ? 0 : 1;
}

static int test_numeric_against_phantom(void) {
    for (size_t i = 0; i < NCASES; i++) {
        CHECK(numeric_against_phantom(&cases[i]) == 0);
        printf("  %-24s identical traces and ledgers\n", cases[i].name);
    }
    return 0;
}

// The sym backend: rank 0 alone, standing for every rank, gives rank 0's
// trace and ledger of the phantom run with every rank: exactly where every
// rank does the same work. Under FSDP a rank's shard may cut the parameters
// at other places than rank 0's, so it runs a few more or fewer optimizer
// and clipping kernels (one per run of parameters in its slice) and reaches
// the step's first collective a few kernel launches earlier or later; the
// cpu backend starts that collective at the latest arrival, sym at rank 0's.
// Those runs must still have the same events and bytes, with times within
// 5% on these tiny models (a few microseconds of launches in a step of
// well under a millisecond; far less on a large model).
static int sym_against_cpu(const Case *k, double *worst) {
    Run *all = calloc(1, sizeof *all), *one = calloc(1, sizeof *one);
    CHECK(all && one);
    int ok = run_case(all, k, &data, &cpu_backend_ops, 1, 0) == SIM_OK &&
             run_case(one, k, &data, &cpu_sym_backend_ops, 1, 1) == SIM_OK;
    const SimMemLedger *la = &all->w.ranks[0].mem, *lb = &one->w.ranks[0].mem;
    int exact = ok && similar_trace(k->name, all->w.trace, one->w.trace, 0.0, 1, worst) &&
                same_ledger_bytes(k->name, 0, la, lb, 1);
    if (ok && !exact)
        ok = strcmp(k->strategy, "fsdp") == 0 &&
             similar_trace(k->name, all->w.trace, one->w.trace, 0.05, 0, worst) &&
             same_ledger_bytes(k->name, 0, la, lb, 0);
    for (int r = 1; ok && r < k->R; r++) // nobody else ran
        ok = sim_trace_rank_count(one->w.trace, r) == 0 && one->w.ranks[r].mem.peak[0] == 0;
    size_t n = 0;
    SimEvent *merged = ok ? sim_trace_merge(one->w.trace, &n) : NULL;
    ok = ok && merged && n == sim_trace_rank_count(one->w.trace, 0);
    free(merged);
    done(all);
    done(one);
    free(all);
    free(one);
    return ok ? 0 : 1;
}

static int test_sym_against_cpu(void) {
    for (size_t i = 0; i < NCASES; i++) {
        const Case *k = &cases[i];
        if (strcmp(k->strategy, "dp") == 0 || strcmp(k->strategy, "layer-owner") == 0)
            continue; // asymmetric: they refuse represent mode (below)
        double worst = 0;
        CHECK(sym_against_cpu(k, &worst) == 0);
        if (worst == 0)
            printf("  %-24s sym rank 0 = cpu rank 0, bit for bit\n", k->name);
        else
            printf("  %-24s sym rank 0 = cpu rank 0 but for times (at most %.2g%% apart)\n",
                   k->name, 100 * worst);
    }
    return 0;
}

// ----------------------------------------------------------------------------
// collectives with NULL buffers

typedef struct {
    int phantom;
    float *buf[MAX_RANKS][2]; // numeric: send and recv of each rank
} CollArg;

static SimStatus coll_rank(SimRank *r, void *arg) {
    CollArg *a = arg;
    int R = r->world->cfg.nranks, me = r->rank;
    size_t n = 40; // not a multiple of R: unequal chunks
    void *s = a->phantom ? NULL : a->buf[me][0], *v = a->phantom ? NULL : a->buf[me][1];
    static const SimAlgo algos[] = {SIM_ALGO_RING, SIM_ALGO_TREE, SIM_ALGO_NAIVE,
                                    SIM_ALGO_DIRECT, SIM_ALGO_DBTREE};
    for (size_t i = 0; i < 5; i++) {
        SimAlgo al = algos[i];
        SIM_CHECK(sim_all_reduce(r, s, v, n, SIM_FP32, SIM_AVG, al));
        SIM_CHECK(sim_broadcast(r, s, v, n, SIM_FP32, 1, al));
        SIM_CHECK(sim_reduce(r, s, v, n, SIM_FP32, SIM_SUM, 2, al));
        if (al != SIM_ALGO_TREE) {
            SIM_CHECK(sim_reduce_scatter(r, s, v, n / (size_t)R, SIM_FP32, SIM_SUM, al));
            SIM_CHECK(sim_all_gather(r, s, v, n / (size_t)R, SIM_FP32, al));
        }
    }
    SIM_CHECK(sim_gather(r, s, v, n / (size_t)R, SIM_FP32, 0));
    SIM_CHECK(sim_scatter(r, s, v, n / (size_t)R, SIM_FP32, 3));
    if (me % 2 == 0)
        SIM_CHECK(sim_send(r, s, n, SIM_FP32, me + 1));
    else
        SIM_CHECK(sim_recv(r, v, n, SIM_FP32, me - 1));
    return sim_barrier(r);
}

static int run_colls(SimWorld *w, int phantom, CollArg *a) {
    SimWorldConfig wc;
    sim_world_config_default(&wc);
    wc.nranks = 4;
    wc.nodes = 2;
    wc.watchdog_s = 30;
    wc.trace_max_per_rank = 0;
    wc.phantom = phantom;
    a->phantom = phantom;
    CHECK_EQ_INT(sim_world_init(w, &wc, &cpu_backend_ops), SIM_OK);
    SimStatus st = sim_world_run(w, coll_rank, a);
    if (st != SIM_OK)
        fprintf(stderr, "%s\n", sim_world_error(w));
    CHECK_EQ_INT(st, SIM_OK);
    return 0;
}

static int test_null_buffers(void) {
    CollArg a;
    memset(&a, 0, sizeof a);
    for (int r = 0; r < 4; r++)
        for (int b = 0; b < 2; b++) {
            a.buf[r][b] = calloc(4 * 40, sizeof(float));
            CHECK(a.buf[r][b] != NULL);
            for (int i = 0; i < 4 * 40; i++)
                a.buf[r][b][i] = (float)(r + i);
        }
    SimWorld num, ph;
    int rc = run_colls(&num, 0, &a) || run_colls(&ph, 1, &a);
    for (int r = 0; rc == 0 && r < 4; r++) {
        rc |= !same_rank_trace("collectives", num.trace, r, ph.trace, r);
        rc |= sim_trace_rank_count(ph.trace, r) < 100; // steps and transfers are there
    }
    sim_world_free(&num);
    sim_world_free(&ph);
    for (int r = 0; r < 4; r++)
        for (int b = 0; b < 2; b++)
            free(a.buf[r][b]);
    return rc;
}

// ----------------------------------------------------------------------------
// what refuses

static int expect_world_init(const SimBackendOps *ops, int phantom, int represent,
                             const char *why) {
    SimWorldConfig wc;
    sim_world_config_default(&wc);
    wc.nranks = 4;
    wc.phantom = phantom;
    wc.represent = represent;
    SimWorld w;
    CHECK_EQ_INT(sim_world_init(&w, &wc, ops), SIM_EINVAL);
    CHECK_STR_CONTAINS(sim_world_error(&w), why);
    sim_world_free(&w);
    return 0;
}

static int expect_represent_refused(const char *strategy, const char *why) {
    Case k = {"refused", 0, strategy, 0, 4, 1, 1, 0, 0};
    Run *run = calloc(1, sizeof *run);
    CHECK(run != NULL);
    SimStatus st = run_case(run, &k, &data, &cpu_sym_backend_ops, 1, 1);
    int ok = st == SIM_EINVAL && strstr(run->tr[0].error, why) != NULL;
    if (!ok)
        fprintf(stderr, "%s: status %d, error \"%s\"\n", strategy, (int)st, run->tr[0].error);
    done(run);
    free(run);
    return ok ? 0 : 1;
}

static int test_refusals(void) {
    // the sym backend computes nothing and runs one rank
    CHECK(expect_world_init(&cpu_sym_backend_ops, 0, 0, "needs phantom = 1 and represent = 1") ==
          0);
    CHECK(expect_world_init(&cpu_sym_backend_ops, 1, 0, "represent = 0") == 0);
    // represent needs a phantom world, and a backend that runs one rank
    CHECK(expect_world_init(&cpu_sym_backend_ops, 0, 1, "only in a phantom world") == 0);
    CHECK(expect_world_init(&cpu_backend_ops, 1, 1, "the sym backend") == 0);
    // asymmetric strategies
    CHECK(expect_represent_refused("dp", "DataParallel cannot run with one rank standing") == 0);
    CHECK(expect_represent_refused("layer-owner", "owns different layers") == 0);
    CHECK(strcmp(cpu_sym_backend_ops.name, "sym") == 0);
    CHECK(cpu_sym_backend_ops.math == NULL);
    return 0;
}

int main(void) {
    int failures = 0;
    if (load_data() != 0)
        return 1;
    RUN(test_null_buffers);
    RUN(test_numeric_against_phantom);
    RUN(test_sym_against_cpu);
    RUN(test_refusals);
    sim_dataset_free(&data.mlp_data);
    sim_dataset_free(&data.gpt_data);
    return failures ? 1 : 0;
}
