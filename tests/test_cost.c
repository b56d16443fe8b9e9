// tests/test_cost.c: the collective cost model against hand-computed values
// (ring, tree, naive, direct, a ring crossing a node boundary, p2p, barrier),
// the structured fast paths against a plain evaluation of the same model
// through the schedule's transfer lists (they must agree to the last bit),
// the speed of a 4096-rank ring, and the alpha-beta fit.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cost/cost.h"
#include "engine/backend.h"
#include "test_cost_ref.h"
#include "test_env.h"

// Round numbers that make hand computation easy: intra 1 us and 1e9 B/s,
// inter 10 us and 1e8 B/s.
static SimSysProfile test_sys(void) {
    SimSysProfile p;
    memset(&p, 0, sizeof(p));
    strcpy(p.name, "test");
    strcpy(p.intra.name, "fast");
    p.intra.alpha_s = 1e-6;
    p.intra.bw_Bps = 1e9;
    strcpy(p.inter.name, "slow");
    p.inter.alpha_s = 1e-5;
    p.inter.bw_Bps = 1e8;
    p.ranks_per_node = 4;
    return p;
}

static double coll_cost(SimCollKind k, SimAlgo a, int R, int rpn, size_t count, size_t es) {
    SimSysProfile p = test_sys();
    SimCost c;
    SimSched s;
    sim_cost_init(&c, &p, R, rpn);
    if (sim_sched_init(&s, k, a, R, count, 0) != 0)
        return -1.0;
    return sim_cost_coll(&c, &s, es);
}

#define REL(x) (1e-12 * (x))

static int test_ring_one_node(void) {
    const double alpha = 1e-6, bw = 1e9;
    int Rs[] = {2, 3, 4, 8};
    size_t ks[] = {1, 10, 1000};
    for (int i = 0; i < 4; i++) {
        for (int j = 0; j < 3; j++) {
            int R = Rs[i];
            size_t count = (size_t)R * ks[j];
            double S = (double)count * 4;
            double want = 2 * (R - 1) * (alpha + S / (R * bw));
            double got = coll_cost(SIM_COLL_ALL_REDUCE, SIM_ALGO_RING, R, R, count, 4);
            CHECK_NEAR(got, want, REL(want));
            // count not divisible by R: the largest chunk gates every step.
            size_t odd = count + 1;
            double big = (double)(ks[j] + 1) * 4;
            want = 2 * (R - 1) * (alpha + big / bw);
            got = coll_cost(SIM_COLL_ALL_REDUCE, SIM_ALGO_RING, R, R, odd, 4);
            CHECK_NEAR(got, want, REL(want));
            // reduce_scatter / all_gather with `count` per rank: the whole
            // buffer is S = R * count elements.
            double Stot = (double)R * (double)count * 4;
            want = (R - 1) * (alpha + Stot / (R * bw));
            got = coll_cost(SIM_COLL_REDUCE_SCATTER, SIM_ALGO_RING, R, R, count, 4);
            CHECK_NEAR(got, want, REL(want));
            got = coll_cost(SIM_COLL_ALL_GATHER, SIM_ALGO_RING, R, R, count, 4);
            CHECK_NEAR(got, want, REL(want));
        }
    }
    return 0;
}

static int test_tree_naive_direct(void) {
    const double alpha = 1e-6, bw = 1e9;
    size_t count = 4000;
    double S = (double)count * 2; // fp16
    int Rs[] = {2, 4, 5, 8};
    int logs[] = {1, 2, 3, 3};
    for (int i = 0; i < 4; i++) {
        int R = Rs[i];
        // binomial tree: each level moves the whole buffer once, up then down.
        double want = 2 * logs[i] * (alpha + S / bw);
        CHECK_NEAR(coll_cost(SIM_COLL_ALL_REDUCE, SIM_ALGO_TREE, R, R, count, 2), want,
                   REL(want));
        // naive: the root receives R-1 buffers, then sends R-1 buffers.
        want = 2 * (alpha + (R - 1) * S / bw);
        CHECK_NEAR(coll_cost(SIM_COLL_ALL_REDUCE, SIM_ALGO_NAIVE, R, R, count, 2), want,
                   REL(want));
        // direct (count divisible by R): R-1 chunks in and out per phase.
        size_t c2 = (size_t)R * 1000;
        double S2 = (double)c2 * 2;
        want = 2 * (alpha + (R - 1) * S2 / R / bw);
        CHECK_NEAR(coll_cost(SIM_COLL_ALL_REDUCE, SIM_ALGO_DIRECT, R, R, c2, 2), want,
                   REL(want));
        // tree broadcast: log2 levels of the whole buffer.
        want = logs[i] * (alpha + S / bw);
        CHECK_NEAR(coll_cost(SIM_COLL_BROADCAST, SIM_ALGO_TREE, R, R, count, 2), want,
                   REL(want));
    }
    // count 0 moves nothing and costs nothing.
    CHECK_EQ_INT(coll_cost(SIM_COLL_ALL_REDUCE, SIM_ALGO_RING, 8, 4, 0, 4) == 0.0, 1);
    CHECK_EQ_INT(coll_cost(SIM_COLL_ALL_REDUCE, SIM_ALGO_RING, 1, 1, 1000, 4) == 0.0, 1);
    return 0;
}

// Two nodes of 4: the ring crosses 3 -> 4 and 7 -> 0, and those ranks pay
// the slow link's bandwidth on every step. Its latency is time of flight: a
// chunk's path of 14 links crosses nodes at most 4 times (every 4th step,
// from step 0), and the other 10 steps pay the intra-node latency.
static int test_ring_two_nodes(void) {
    const double alpha = 1e-5, alpha_intra = 1e-6, bw = 1e8;
    int R = 8;
    size_t count = 8 * 1024;
    double S = (double)count * 4;
    double want = 2 * (R - 1) * (S / (R * bw)) + 4 * alpha + 10 * alpha_intra;
    double got = coll_cost(SIM_COLL_ALL_REDUCE, SIM_ALGO_RING, R, 4, count, 4);
    CHECK_NEAR(got, want, REL(want));
    // The same ring on one node is much faster.
    double one = coll_cost(SIM_COLL_ALL_REDUCE, SIM_ALGO_RING, R, 8, count, 4);
    CHECK(one < got / 5);
    // The link lookup follows the topology.
    SimSysProfile p = test_sys();
    SimCost c;
    sim_cost_init(&c, &p, 8, 4);
    CHECK(sim_cost_link(&c, 0, 3) == &c.sys.intra);
    CHECK(sim_cost_link(&c, 3, 4) == &c.sys.inter);
    CHECK(sim_cost_link(&c, 7, 0) == &c.sys.inter);
    return 0;
}

static int test_p2p_barrier(void) {
    SimSysProfile p = test_sys();
    SimCost c;
    sim_cost_init(&c, &p, 8, 4);
    CHECK_NEAR(sim_cost_p2p(&c, 0, 1, 1000), 1e-6 + 1000 / 1e9, 1e-18);
    CHECK_NEAR(sim_cost_p2p(&c, 0, 5, 1000), 1e-5 + 1000 / 1e8, 1e-18);
    CHECK_EQ_INT(sim_cost_p2p(&c, 2, 2, 1000) == 0.0, 1);
    CHECK_EQ_INT(sim_cost_p2p(&c, 0, 5, 0) == 0.0, 1);

    SimSched s;
    struct {
        int R, rpn;
        double want;
    } cases[] = {
        {1, 1, 0.0},                // nothing to wait for
        {2, 2, 1 * 1e-6},           // one round, one node
        {8, 8, 3 * 1e-6},           // ceil(log2 8) rounds
        {5, 5, 3 * 1e-6},           // ceil(log2 5) = 3
        {8, 4, 3 * 1e-5},           // every round crosses the node boundary
        {6, 1, 3 * 1e-5},           // one rank per node
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        sim_cost_init(&c, &p, cases[i].R, cases[i].rpn);
        CHECK_EQ_INT(sim_sched_init(&s, SIM_COLL_BARRIER, SIM_ALGO_AUTO, cases[i].R, 0, 0), 0);
        CHECK_EQ_INT(s.nsteps, 0);
        CHECK_NEAR(sim_cost_coll(&c, &s, 4), cases[i].want, 1e-15);
    }
    return 0;
}

// Every step of every collective/algorithm on many shapes, with links whose
// latency and bandwidth order disagree so that no shortcut can hide.
static int test_fast_paths_match_reference(void) {
    SimSysProfile p = test_sys();
    p.intra.alpha_s = 1e-6;
    p.intra.bw_Bps = 3e11;
    p.inter.alpha_s = 5e-6;
    p.inter.bw_Bps = 2.4e10;
    int maxR = tenv_quick() ? 10 : 18;
    SimCollKind kinds[] = {SIM_COLL_ALL_REDUCE, SIM_COLL_REDUCE_SCATTER, SIM_COLL_ALL_GATHER,
                           SIM_COLL_BROADCAST, SIM_COLL_REDUCE};
    SimAlgo algos[] = {SIM_ALGO_RING, SIM_ALGO_DIRECT, SIM_ALGO_TREE, SIM_ALGO_NAIVE,
                       SIM_ALGO_DBTREE};
    long compared = 0;
    for (int R = 1; R <= maxR; R++) {
        int rpns[] = {1, 2, 3, 4, 5, R};
        size_t counts[] = {0, 1, (size_t)R - 1, (size_t)R, (size_t)R + 1, 2 * (size_t)R + 3,
                           (size_t)R * (size_t)R / 2 + 1, 1000, 12347,
                           6 * (size_t)SIM_DBTREE_CHUNK + 5}; // 4 tree chunks
        for (size_t ir = 0; ir < 6; ir++) {
            SimCost c;
            sim_cost_init(&c, &p, R, rpns[ir]);
            for (size_t ik = 0; ik < 5; ik++) {
                for (size_t ia = 0; ia < sizeof algos / sizeof algos[0]; ia++) {
                    for (size_t ic = 0; ic < sizeof(counts) / sizeof(counts[0]); ic++) {
                        SimSched s;
                        if ((algos[ia] == SIM_ALGO_DBTREE && ik != 0) || // the rest: ring
                            sim_sched_init(&s, kinds[ik], algos[ia], R, counts[ic], R / 2) != 0)
                            continue;
                        for (size_t es = 2; es <= 4; es += 2) {
                            long n = tcost_ref_compare(&c, &s, es);
                            if (n < 0) {
                                fprintf(stderr, "  in %s/%s R=%d rpn=%d count=%zu es=%zu\n",
                                        sim_coll_name(kinds[ik]), sim_algo_name(algos[ia]), R,
                                        rpns[ir], counts[ic], es);
                                return 1;
                            }
                            compared += n;
                        }
                    }
                }
            }
        }
    }
    printf("  %ld steps compared\n", compared);
    return 0;
}

// NCCL's choice between ring and the double binary tree, as its tuner makes
// it: the ring's 2(R - 1) latencies lose on many nodes, its bandwidth wins
// on one. A 25 MiB fp32 bucket (GPT-2's DDP buckets) on DGX H100s.
static int test_nccl_choice(void) {
    const SimSysProfile *h100 = sim_sys_find("dgx-h100");
    CHECK(h100 != NULL);
    size_t count = 25u << 18; // 25 MiB of fp32
    struct {
        int R;
        SimAlgo want;
    } cases[] = {{8, SIM_ALGO_RING}, {1024, SIM_ALGO_DBTREE}};
    for (int i = 0; i < 2; i++) {
        SimCost c;
        sim_cost_init(&c, h100, cases[i].R, 8);
        SimSched ring, tree;
        CHECK_EQ_INT(sim_sched_init(&ring, SIM_COLL_ALL_REDUCE, SIM_ALGO_RING, cases[i].R, count, 0), 0);
        CHECK_EQ_INT(sim_sched_init(&tree, SIM_COLL_ALL_REDUCE, SIM_ALGO_DBTREE, cases[i].R, count, 0), 0);
        double tr = sim_cost_coll(&c, &ring, 4), tt = sim_cost_coll(&c, &tree, 4);
        printf("  %d ranks: ring %.3f ms, dbtree %.3f ms\n", cases[i].R, tr * 1e3, tt * 1e3);
        CHECK_EQ_INT(sim_cost_resolve_algo(&c, SIM_COLL_ALL_REDUCE, SIM_ALGO_NCCL, cases[i].R,
                                           count, 4), cases[i].want);
        CHECK_EQ_INT(tt < tr, cases[i].want == SIM_ALGO_DBTREE);
        // the same amount of data crosses each rank's links: the tree's
        // bandwidth term is within its pipeline fill of the ring's
        if (cases[i].R == 8)
            CHECK(tt < 1.5 * tr);
    }
    SimCost c;
    sim_cost_init(&c, h100, 1024, 8);
    // the policy leaves other collectives to the ring (gather: direct), and
    // a given algorithm alone
    CHECK_EQ_INT(sim_cost_resolve_algo(&c, SIM_COLL_REDUCE_SCATTER, SIM_ALGO_NCCL, 1024, count, 4),
                 SIM_ALGO_RING);
    CHECK_EQ_INT(sim_cost_resolve_algo(&c, SIM_COLL_GATHER, SIM_ALGO_NCCL, 1024, count, 4),
                 SIM_ALGO_DIRECT);
    CHECK_EQ_INT(sim_cost_resolve_algo(&c, SIM_COLL_ALL_REDUCE, SIM_ALGO_TREE, 1024, count, 4),
                 SIM_ALGO_TREE);
    CHECK_EQ_INT(sim_cost_resolve_algo(&c, SIM_COLL_ALL_REDUCE, SIM_ALGO_AUTO, 1024, count, 4),
                 SIM_ALGO_DIRECT);
    return 0;
}

// A 4096-rank ring must be priced quickly: it is O(1) or O(nodes) per step.
static int test_ring_speed(void) {
    const SimSysProfile *h100 = sim_sys_find("dgx-h100");
    CHECK(h100 != NULL);
    int R = 4096;
    struct {
        int rpn;
        size_t count;
    } cases[] = {{8, (size_t)R * 1000}, {8, (size_t)R * 1000 + 7}, {2, (size_t)R * 1000 + 7},
                 {1, (size_t)R * 1000 + 7}, {4096, 12345}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        SimCost c;
        SimSched s;
        sim_cost_init(&c, h100, R, cases[i].rpn);
        CHECK_EQ_INT(sim_sched_init(&s, SIM_COLL_ALL_REDUCE, SIM_ALGO_RING, R, cases[i].count, 0), 0);
        double t0 = sim_wall_now();
        double cost = sim_cost_coll(&c, &s, 4);
        double dt = sim_wall_now() - t0;
        printf("  ring all_reduce R=%d rpn=%d count=%zu: %.6g s simulated, priced in %.2f ms\n", R,
               cases[i].rpn, cases[i].count, cost, dt * 1e3);
        CHECK(cost > 0.0);
    }
    // Direct at 4096 ranks is O(R) per step.
    SimCost c;
    SimSched s;
    sim_cost_init(&c, h100, R, 8);
    CHECK_EQ_INT(sim_sched_init(&s, SIM_COLL_ALL_REDUCE, SIM_ALGO_DIRECT, R, 1 << 20, 0), 0);
    CHECK(sim_cost_coll(&c, &s, 4) > 0.0);
    return 0;
}

static int test_fit(void) {
    const double alpha = 2.5e-6, bw = 1.2e10;
    int R = 8;
    double steps = 2.0 * (R - 1);
    double bytes[6], secs[6];
    for (int i = 0; i < 6; i++) {
        bytes[i] = (double)(1024 << (3 * i));
        secs[i] = steps * alpha + steps / R * bytes[i] / bw;
    }
    SimLinkProfile l;
    CHECK_EQ_INT(sim_cost_fit_ring(bytes, secs, 6, R, &l), SIM_OK);
    CHECK_NEAR(l.alpha_s, alpha, 1e-9 * alpha);
    CHECK_NEAR(l.bw_Bps, bw, 1e-9 * bw);
    CHECK(l.name[0] != '\0' && l.source[0] != '\0');

    // What the fit rejects.
    double same[3] = {4096, 4096, 4096}, t3[3] = {1e-3, 2e-3, 3e-3};
    CHECK_EQ_INT(sim_cost_fit_ring(bytes, secs, 1, R, &l), SIM_EINVAL);
    CHECK_EQ_INT(sim_cost_fit_ring(same, t3, 3, R, &l), SIM_EINVAL);
    double down[2] = {2e-3, 1e-3};
    CHECK_EQ_INT(sim_cost_fit_ring(bytes, down, 2, R, &l), SIM_EINVAL);
    CHECK_EQ_INT(sim_cost_fit_ring(bytes, secs, 6, 1, &l), SIM_EINVAL);
    double bad[2] = {1e-3, NAN};
    CHECK_EQ_INT(sim_cost_fit_ring(bytes, bad, 2, R, &l), SIM_EINVAL);
    // A negative intercept means no measurable latency: alpha is clamped to 0.
    double neg[2] = {-1e-6 + 1024 / 1e9, -1e-6 + 8192 / 1e9};
    CHECK_EQ_INT(sim_cost_fit_ring(bytes, neg, 2, R, &l), SIM_OK);
    CHECK_EQ_INT(l.alpha_s == 0.0, 1);
    CHECK_NEAR(l.bw_Bps, steps / R * 1e9, 1e-6 * 1e9);
    return 0;
}

int main(void) {
    int failures = 0;
    RUN(test_ring_one_node);
    RUN(test_tree_naive_direct);
    RUN(test_ring_two_nodes);
    RUN(test_p2p_barrier);
    RUN(test_fast_paths_match_reference);
    RUN(test_nccl_choice);
    RUN(test_ring_speed);
    RUN(test_fit);
    return failures != 0;
}
