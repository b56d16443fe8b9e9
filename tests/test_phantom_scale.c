// tests/test_phantom_scale.c: phantom mode at the scale `ddplab plan` needs.
//
// 1. The cost model's closed forms (sim/cost/cost.c: ring, direct, tree and the
//    pipelined chain on whole nodes, the repeated sum of equal steps) give
//    the rank-by-rank
//    reference's times bit for bit, step by step and summed, at up to 256
//    ranks; the repeated sum is checked against the plain loop on step
//    times chosen to round (ties included) at up to 16384 ranks; and one
//    collective at 16384 ranks is priced in well under a millisecond.
// 2. One training step of a model shaped like Llama-2 70B (80 blocks,
//    width 8192, 64 heads, 4096 tokens, vocabulary 32000; as a MiniGPT)
//    under FSDP FULL_SHARD on the sym backend: 1024 ranks (128 nodes x 8)
//    in under 1 GB of memory, and 16384 ranks with exactly the events of
//    1024 (one rank's work, whatever the world size: the count stands for
//    the time, which load would change); printed with how the wall time
//    grows with ranks and with layers (bench/ measures speed).
// DDPLAB_TEST_QUICK=1 (sanitizer builds) shrinks the model to 8 blocks and
// the reference sweep to 64 ranks; the memory bound holds only for
// unsanitized builds (DDPLAB_SANITIZED=1 lifts it).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "check.h"
#include "cost/cost.h"
#include "cpu_sym.h"
#include "model/optim_flags.h"
#include "strategy/fsdp.h"
#include "test_cost_ref.h"
#include "test_env.h"
#include "train/train.h"

// ----------------------------------------------------------------------------
// the cost model against the rank-by-rank reference

static SimSysProfile links(double a_in, double bw_in, double a_out, double bw_out) {
    SimSysProfile p;
    memset(&p, 0, sizeof p);
    snprintf(p.name, sizeof p.name, "test");
    p.intra.alpha_s = a_in;
    p.intra.bw_Bps = bw_in;
    p.inter.alpha_s = a_out;
    p.inter.bw_Bps = bw_out;
    p.ranks_per_node = 8;
    return p;
}

// Ring, direct and tree on whole nodes, every collective they serve, counts
// that divide and that do not, two element sizes, two link profiles (one
// where latency and bandwidth disagree on which link is slower).
static int test_closed_forms(void) {
    SimSysProfile profiles[2] = {links(1e-6, 3e11, 5e-6, 2.4e10),
                                 links(8e-6, 3e11, 1e-6, 2.5e11)};
    int Rs[] = {2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256};
    int nR = tenv_quick() ? 11 : (int)(sizeof Rs / sizeof Rs[0]);
    SimCollKind kinds[] = {SIM_COLL_ALL_REDUCE, SIM_COLL_REDUCE_SCATTER, SIM_COLL_ALL_GATHER,
                           SIM_COLL_BROADCAST, SIM_COLL_REDUCE};
    SimAlgo algos[] = {SIM_ALGO_RING, SIM_ALGO_DIRECT, SIM_ALGO_TREE, SIM_ALGO_DBTREE};
    long steps = 0, colls = 0;
    for (int ir = 0; ir < nR; ir++) {
        int R = Rs[ir];
        int rpns[] = {1, 2, 4, 8, R};
        size_t counts[] = {0, 1, (size_t)R - 1, (size_t)R * 37, (size_t)R * 37 + 5, 100003};
        for (int ip = 0; ip < 5; ip++) {
            if (rpns[ip] > R || R % rpns[ip] != 0)
                continue;
            for (int pr = 0; pr < 2; pr++) {
                SimCost c;
                sim_cost_init(&c, &profiles[pr], R, rpns[ip]);
                for (int ik = 0; ik < 5; ik++) {
                    for (int ia = 0; ia < 4; ia++) {
                        for (size_t ic = 0; ic < sizeof counts / sizeof counts[0]; ic++) {
                            SimSched s;
                            int root = R > 2 ? R - 2 : 0;
                            if ((algos[ia] == SIM_ALGO_DBTREE && ik != 0) || // the rest: ring
                                sim_sched_init(&s, kinds[ik], algos[ia], R, counts[ic], root) != 0)
                                continue;
                            for (size_t es = 2; es <= 4; es += 2) {
                                long n = tcost_ref_compare(&c, &s, es);
                                if (n < 0) {
                                    fprintf(stderr, "  in %s/%s R=%d rpn=%d count=%zu es=%zu\n",
                                            sim_coll_name(kinds[ik]), sim_algo_name(algos[ia]),
                                            R, rpns[ip], counts[ic], es);
                                    return 1;
                                }
                                steps += n;
                                colls++;
                            }
                        }
                    }
                }
            }
        }
    }
    printf("  %ld steps and %ld collectives equal to the reference, up to %d ranks\n", steps,
           colls, Rs[nR - 1]);
    return 0;
}

// Equal steps summed without visiting them: against the plain loop, with
// step times that round at every magnitude (1 + 2^-52 makes ties to even),
// on rings large enough to cross many binades.
static int test_repeated_sum(void) {
    const double two52 = 4503599627370496.0;
    struct {
        double alpha, bw;
        size_t count, es;
    } steps[] = {
        {1.0, two52, 1, 1},       // 1 + 2^-52: ties from the third step on
        {0.0, 3.0, 1, 1},         // 1/3
        {1e-6, 2.4e10, 4096, 2},  // a real link
        {5e-6, 3e11, 12345, 4},
        {0.0, 1.0, 3, 1},         // 3: exact integers
        {0.1, 1e300, 1, 1},       // 0.1
        {1.0, 0.5 * two52, 3, 1}, // 1 + 1.5 * 2^-51
    };
    int Rs[] = {2, 3, 5, 64, 1000, 4096, 16384};
    int nR = tenv_quick() ? 5 : 7;
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        SimSysProfile p = links(steps[i].alpha, steps[i].bw, steps[i].alpha, steps[i].bw);
        for (int ir = 0; ir < nR; ir++) {
            int R = Rs[ir];
            SimCost c;
            SimSched s;
            sim_cost_init(&c, &p, R, 8);
            // all_gather blocks: every step moves the same bytes on one class
            CHECK_EQ_INT(sim_sched_init(&s, SIM_COLL_ALL_GATHER, SIM_ALGO_RING, R,
                                        steps[i].count, 0), 0);
            double sum = 0.0;
            for (int t = 0; t < s.nsteps; t++)
                sum += sim_cost_step(&c, &s, t, steps[i].es);
            double got = sim_cost_coll(&c, &s, steps[i].es);
            if (got != sum) {
                fprintf(stderr, "step time case %zu, R=%d: %.17g != loop %.17g\n", i, R, got,
                        sum);
                return 1;
            }
        }
    }
    return 0;
}

// One collective of each algorithm at 16384 ranks (2048 nodes of 8).
static int test_price_at_scale(void) {
    const SimSysProfile *p = sim_sys_find("dgx-h100");
    CHECK(p != NULL);
    int R = 16384;
    SimCost c;
    sim_cost_init(&c, p, R, 8);
    struct {
        SimCollKind k;
        SimAlgo a;
        size_t count;
        double max_ms; // what it took on a quiet 2-core machine (printed, never asserted)
    } cases[] = {
        {SIM_COLL_ALL_GATHER, SIM_ALGO_RING, 54525952, 0.1},
        {SIM_COLL_REDUCE_SCATTER, SIM_ALGO_RING, 54525952, 0.1},
        {SIM_COLL_ALL_REDUCE, SIM_ALGO_RING, (size_t)R * 6400, 0.1},
        {SIM_COLL_ALL_REDUCE, SIM_ALGO_RING, 104857607, 5.0}, // unequal chunks: O(R) once
        {SIM_COLL_ALL_GATHER, SIM_ALGO_DIRECT, 54525952, 0.1},
        {SIM_COLL_REDUCE_SCATTER, SIM_ALGO_DIRECT, 54525952, 0.1},
        {SIM_COLL_ALL_REDUCE, SIM_ALGO_DIRECT, 104857607, 0.1},
        {SIM_COLL_ALL_REDUCE, SIM_ALGO_TREE, 104857607, 0.5},
        {SIM_COLL_BROADCAST, SIM_ALGO_TREE, 104857607, 0.5},
        {SIM_COLL_ALL_REDUCE, SIM_ALGO_DBTREE, 104857607, 50.0}, // O(R) per step
        {SIM_COLL_BROADCAST, SIM_ALGO_RING, 104857607, 10.0}, // the chain: O(R)
        {SIM_COLL_REDUCE, SIM_ALGO_RING, (size_t)R * 6400, 10.0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        SimSched s;
        CHECK_EQ_INT(sim_sched_init(&s, cases[i].k, cases[i].a, R, cases[i].count, 0), 0);
        double t0 = sim_wall_now();
        double cost = 0;
        int reps = 20;
        for (int k = 0; k < reps; k++)
            cost = sim_cost_coll(&c, &s, 2);
        double ms = (sim_wall_now() - t0) * 1e3 / reps;
        printf("  %-14s %-6s R=%d count=%zu: %.6g s simulated, priced in %.4f ms (under %g ms "
               "when the machine is quiet)\n",
               sim_coll_name(cases[i].k), sim_algo_name(cases[i].a), R, cases[i].count, cost,
               ms, cases[i].max_ms);
        CHECK(cost > 0);
    }
    return 0;
}

// ----------------------------------------------------------------------------
// a 70B-sized FSDP step on the sym backend

typedef struct {
    SimTrainConfig cfg;
    SimFsdpOptions fsdp;
    SimTrainer *tr; // [R]; only rank 0's is used
    double sim_s;
    int64_t peak;   // rank 0's device peak in the ledger
    size_t events;  // rank 0's trace events (0 with the trace off)
} PlanRun;

static SimStatus plan_rank(SimRank *r, void *arg) {
    PlanRun *p = arg;
    SimStatus st = sim_train_run(r, p->tr);
    if (st != SIM_OK)
        fprintf(stderr, "rank %d: %s\n", r->rank, p->tr[r->rank].error);
    p->sim_s = sim_rank_now(r);
    sim_train_free(&p->tr[r->rank], r);
    p->peak = r->mem.peak[SIM_MEM_DEVICE];
    return st;
}

static double rss_mib(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss / 1024.0; // kilobytes on Linux
}

// One phantom step of gpt:layers=L,... under FULL_SHARD on R ranks (nodes
// of 8), trace on; *wall in seconds.
static int plan_step(const SimDataset *ds, int layers, int R, int trace, double *wall,
                     PlanRun *out) {
    char text[160], err[512];
    PlanRun *p = calloc(1, sizeof *p);
    CHECK(p != NULL);
    double t0 = sim_wall_now();
    sim_train_config_default(&p->cfg);
    snprintf(text, sizeof text, "gpt:layers=%d,embd=8192,heads=64,ctx=4096,vocab=32000",
             layers);
    CHECK_EQ_INT(sim_model_parse(text, &p->cfg.model, err, sizeof err), SIM_OK);
    p->cfg.data.set = ds;
    p->cfg.data.batch = 1;
    p->cfg.loop.steps = 1;
    (void)sim_optim_flags_set(&p->cfg.opt, "optimizer", "adamw", err, sizeof err);
    (void)sim_optim_flags_set(&p->cfg.opt, "amp", "bf16", err, sizeof err);
    (void)sim_optim_flags_validate(&p->cfg.opt, err, sizeof err);
    sim_fsdp_options_default(&p->fsdp);
    p->fsdp.sharding = SIM_FSDP_FULL_SHARD;
    p->fsdp.param_dtype = SIM_BF16;
    p->cfg.strategy = &sim_fsdp_strategy;
    p->cfg.strategy_cfg = &p->fsdp;
    SimWorldConfig wc;
    sim_world_config_default(&wc);
    wc.nranks = R;
    wc.nodes = R / 8;
    wc.phantom = 1;
    wc.represent = 1;
    wc.trace = trace;
    wc.trace_max_per_rank = 0;
    SimWorld w;
    SimStatus st = sim_world_init(&w, &wc, &cpu_sym_backend_ops);
    if (st == SIM_OK) {
        p->tr = calloc((size_t)R, sizeof *p->tr);
        st = p->tr ? SIM_OK : SIM_ENOMEM;
    }
    if (st == SIM_OK) {
        p->tr[0].cfg = &p->cfg; // the others never run
        st = sim_world_run(&w, plan_rank, p);
    }
    if (st != SIM_OK)
        fprintf(stderr, "%s\n", sim_world_error(&w));
    size_t events = w.trace ? sim_trace_rank_count(w.trace, 0) : 0;
    sim_world_free(&w);
    *wall = sim_wall_now() - t0;
    free(p->tr);
    p->tr = NULL;
    *out = *p;
    out->events = events;
    free(p);
    CHECK_EQ_INT(st, SIM_OK);
    CHECK(trace == 0 || events > 50 * (size_t)layers); // ops, gathers, frees of every block
    CHECK(out->sim_s > 0 && out->peak > 0);
    return 0;
}

// The 1024- and 16384-rank steps with their bounds, then the growth table.
static int run_steps(const SimDataset *ds, int L, int bounds) {
    double wall;
    PlanRun r1024, r16k;
    double rss0 = rss_mib();
    CHECK(plan_step(ds, L, 1024, 1, &wall, &r1024) == 0);
    double rss = rss_mib();
    printf("  %d blocks, FSDP full_shard, 1024 ranks (128 x 8), trace on: %.3f s wall, %.0f "
           "MiB peak RSS (%.0f MiB before), step %.3f s simulated, device peak %.2f GiB\n", L,
           wall, rss, rss0, r1024.sim_s, r1024.peak / 1073741824.0);
    if (bounds)
        CHECK(rss < 1024.0);
    CHECK(plan_step(ds, L, 16384, 1, &wall, &r16k) == 0);
    printf("  %d blocks, FSDP full_shard, 16384 ranks (2048 x 8), trace on: %.3f s wall, step "
           "%.3f s simulated, device peak %.2f GiB\n", L, wall, r16k.sim_s,
           r16k.peak / 1073741824.0);
    // 16 times the ranks, the same work for the one rank that runs
    printf("  rank 0's trace: %zu events at 1024 ranks, %zu at 16384\n", r1024.events,
           r16k.events);
    CHECK_EQ_INT(r16k.events, r1024.events);
    // sharding 16 times wider holds less per rank
    CHECK(r16k.peak < r1024.peak);
    // how the wall time grows: with ranks at L blocks, with blocks at 1024 ranks
    int Rs[] = {8, 64, 1024, 16384};
    printf("  wall time by ranks (%d blocks, trace off):", L);
    for (int i = 0; i < 4; i++) {
        PlanRun pr;
        CHECK(plan_step(ds, L, Rs[i], 0, &wall, &pr) == 0);
        printf(" %d: %.3f s;", Rs[i], wall);
    }
    printf("\n  wall time by blocks (1024 ranks, trace off):");
    int Ls[] = {L / 4, L / 2, L};
    for (int i = 0; i < 3; i++) {
        PlanRun pr;
        CHECK(plan_step(ds, Ls[i], 1024, 0, &wall, &pr) == 0);
        printf(" %d: %.3f s;", Ls[i], wall);
    }
    printf("\n");
    return 0;
}

static int test_llama70b_sized_step(void) {
    // a token stream of 4096-token windows (26 letters: within the vocabulary)
    SimDataset ds;
    char err[256];
    size_t len = 3 * 4096;
    unsigned char *text = malloc(len);
    CHECK(text != NULL);
    uint64_t x = 88172645463325252ULL;
    for (size_t i = 0; i < len; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        text[i] = (unsigned char)('a' + x % 26);
    }
    CHECK_EQ_INT(sim_dataset_from_bytes(&ds, "random letters", text, len, 4096, NULL, 0, err,
                                        sizeof err), SIM_OK);
    free(text);
    int quick = tenv_quick(), bounds = !tenv_sanitized();
    int L = quick ? 8 : 80;
    int rc = run_steps(&ds, L, bounds);
    sim_dataset_free(&ds);
    return rc;
}

int main(void) {
    int failures = 0;
    RUN(test_closed_forms);
    RUN(test_repeated_sum);
    RUN(test_price_at_scale);
    RUN(test_llama70b_sized_step);
    return failures ? 1 : 0;
}
