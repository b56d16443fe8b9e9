// cli/learn/interview_coll.c: collectives: nccl-tests' bus bandwidth from the
// algorithm bandwidth (sim_coll_busbw_factor) or from a measured size and
// time (sim_coll_algbw_bytes), and the ring all_reduce's steps and bytes
// sent per rank, and the ring's steps against NCCL's double binary tree's,
// counted on the schedules the cpu backend executes (sim/coll/schedule.h).
#include <stdio.h>
#include <stdlib.h>

#include "coll/coll.h"     // defines: sim_coll_*
#include "coll/schedule.h" // defines: SimSched, sim_sched_*
#include "learn/interview.h"

#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const SimCollKind kinds[] = {SIM_COLL_ALL_REDUCE, SIM_COLL_ALL_GATHER,
                                    SIM_COLL_REDUCE_SCATTER};

// The factor as a formula, for the explanations.
static const char *factor_formula(SimCollKind k) {
    return k == SIM_COLL_ALL_REDUCE ? "2(R-1)/R" : "(R-1)/R";
}

// The bench run of the question's collective on its ranks at mib MiB (the
// whole array, as the questions and nccl-tests count it): one timed call,
// in place, so that the larger sizes stay quick and fit in memory.
static void bench_command(IvQuestion *q, SimCollKind k, const char *algo, int n, int mib) {
    snprintf(q->command, sizeof q->command,
             "ddplab bench -c %s%s%s -n %d -b %dM -e %dM -w 0 -i 1 --inplace 1",
             sim_coll_name(k), algo ? " -a " : "", algo ? algo : "", n, mib, mib);
}

// The bench runs hold every rank's buffer at once: ranks x MiB at most this.
#define IV_BENCH_MIB 256

// One of the n sizes in MiB that fit ranks ranks under IV_BENCH_MIB (the
// smallest if none does).
static int fitting_mib(SimSplitMix *g, const int *mib, int n, int ranks) {
    int fit = 0;
    while (fit < n && mib[fit] * ranks <= IV_BENCH_MIB)
        fit++;
    return mib[fit > 0 ? iv_pick(g, fit) : 0];
}

// busbw from algbw.
static void from_algbw(SimSplitMix *g, IvQuestion *q) {
    static const int ranks[] = {2, 3, 4, 8, 16, 32};
    SimCollKind k = kinds[iv_pick(g, NELEM(kinds))];
    int n = ranks[iv_pick(g, NELEM(ranks))];
    double algbw = (200 + iv_pick(g, 3800)) / 10.0; // 20.0 .. 399.9 GB/s
    double f = sim_coll_busbw_factor(k, n), busbw = algbw * f;
    snprintf(q->text, sizeof q->text,
             "nccl-tests runs %s on %d GPUs and reports an algorithm bandwidth (algbw) of "
             "%.1f GB/s. What bus bandwidth (busbw) does it report, in GB/s?",
             sim_coll_name(k), n, algbw);
    iv_set_value(q, 0, "busbw", "GB/s", busbw, 2, 0.02, 0.01);
    snprintf(q->explain, sizeof q->explain,
             "busbw = algbw x %s for %s: %s = %.4g with R = %d, so %.1f x %.4g = %.2f GB/s. "
             "The factor turns algbw into what each rank's link carries in a bandwidth-"
             "optimal algorithm such as a ring (2(R-1)/R of the buffer per rank for "
             "all_reduce, (R-1)/R of the whole array for all_gather and reduce_scatter), so "
             "busbw compares across rank counts and with the link's peak.",
             factor_formula(k), sim_coll_name(k), factor_formula(k), f, n, algbw, f, busbw);
    bench_command(q, k, NULL, n, 1); // the factor is the same at any size
}

// algbw and busbw from a size and a time, as nccl-tests measures them.
static void from_time(SimSplitMix *g, IvQuestion *q) {
    static const int ranks[] = {2, 4, 8, 16, 32};
    static const int mib[] = {8, 16, 32, 64, 128}; // ascending: fitting_mib
    SimCollKind k = kinds[iv_pick(g, NELEM(kinds))];
    int n = ranks[iv_pick(g, NELEM(ranks))];
    int size_mib = fitting_mib(g, mib, NELEM(mib), n);
    double bytes = (double)size_mib * 1048576.0;
    double target = 50 + iv_pick(g, 300); // GB/s, to choose a plausible time
    double us = (double)(long)(bytes / (target * 1e9) * 1e6 + 0.5);
    // NCCL's count: each rank's buffer (all_reduce), each rank's part (others)
    size_t count = (size_t)(bytes / 4) / (k == SIM_COLL_ALL_REDUCE ? 1 : (size_t)n);
    double alg_bytes = sim_coll_algbw_bytes(k, count, SIM_FP32, n);
    double algbw = alg_bytes / (us * 1e-6) / 1e9;
    double f = sim_coll_busbw_factor(k, n), busbw = algbw * f;
    char b[32];
    snprintf(q->text, sizeof q->text,
             "nccl-tests times %s of fp32 on %d GPUs at size %s bytes (%g MiB; the size is %s) "
             "and measures %.0f us per call. What algbw and what busbw does it report, in "
             "GB/s? (answer both: algbw busbw)",
             sim_coll_name(k), n, iv_grouped((int64_t)bytes, b, sizeof b), bytes / 1048576.0,
             k == SIM_COLL_ALL_REDUCE   ? "each rank's buffer"
             : k == SIM_COLL_ALL_GATHER ? "the whole gathered array"
                                        : "the whole array each rank reduces",
             us);
    iv_set_value(q, 0, "algbw", "GB/s", algbw, 2, 0.02, 0.01);
    iv_set_value(q, 1, "busbw", "GB/s", busbw, 2, 0.02, 0.01);
    snprintf(q->explain, sizeof q->explain,
             "algbw = size / time = %s bytes / %.0f us = %.2f GB/s (GB = 10^9 bytes). "
             "busbw = algbw x %s = %.2f x %.4g = %.2f GB/s.",
             b, us, algbw, factor_formula(k), algbw, f, busbw);
    bench_command(q, k, NULL, n, size_mib);
}

// Ring all_reduce: steps and bytes each rank sends, from the schedule.
static int ring(SimSplitMix *g, IvQuestion *q, char *err, size_t errlen) {
    static const int ranks[] = {2, 3, 4, 5, 6, 8, 12, 16};
    static const int mib[] = {10, 16, 25, 32, 50, 64, 100, 128}; // ascending: fitting_mib
    int n = ranks[iv_pick(g, NELEM(ranks))];
    int m = fitting_mib(g, mib, NELEM(mib), n);
    size_t count = (size_t)m * 1048576 / 4;
    SimSched s;
    if (sim_sched_init(&s, SIM_COLL_ALL_REDUCE, SIM_ALGO_RING, n, count, 0) != 0) {
        snprintf(err, errlen, "no ring schedule for %d ranks", n);
        return -1;
    }
    SimXfer *x = calloc((size_t)n + 1, sizeof *x);
    if (!x) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    double sent = 0;
    for (int t = 0; t < s.nsteps; t++) {
        int k = sim_sched_outgoing(&s, 0, t, x, n + 1);
        for (int i = 0; i < k && i <= n; i++)
            sent += (double)x[i].count * 4;
    }
    free(x);
    double mib_sent = sent / 1048576.0, f = sim_coll_busbw_factor(SIM_COLL_ALL_REDUCE, n);
    snprintf(q->text, sizeof q->text,
             "A ring all_reduce sums %d MiB of fp32 gradients over %d ranks. How many steps "
             "does the ring take, and how many MiB does each rank send in all? (answer both: "
             "steps MiB)",
             m, n);
    iv_set_value(q, 0, "steps", "", s.nsteps, 0, 0, 0);
    iv_set_value(q, 1, "MiB sent per rank", "MiB", mib_sent, 2, 0.02, 0.01);
    snprintf(q->explain, sizeof q->explain,
             "A ring all_reduce is a reduce-scatter (R-1 = %d step%s) then an all-gather (%d "
             "more): 2(R-1) = %d steps. The buffer is cut into R = %d chunks of about %.2f "
             "MiB; at each step every rank sends one chunk to its neighbour, so each sends "
             "2(R-1)/R x %d MiB = %.4g x %d = %.2f MiB: from once the data (R = 2) towards "
             "twice, however many ranks there are (the bus bandwidth factor). The time is "
             "about 2(R-1) latencies plus 2(R-1)/R x size / link bandwidth: the latency part "
             "grows with R, the bandwidth part hardly does. The bench's simulated columns "
             "price exactly these steps.",
             n - 1, n == 2 ? "" : "s", n - 1, s.nsteps, n, m / (double)n, m, f, m, mib_sent);
    bench_command(q, SIM_COLL_ALL_REDUCE, "ring", n, m);
    return 0;
}

// Ring against NCCL's double binary tree on many nodes: the steps of each,
// from the schedules.
static int trees(SimSplitMix *g, IvQuestion *q, char *err, size_t errlen) {
    // at most 128 ranks of 1 MiB: the command shows it on a laptop
    static const int nodes[] = {2, 4, 8, 16};
    static const int kib[] = {64, 256, 1024};
    int N = nodes[iv_pick(g, NELEM(nodes))], n = 8 * N, kb = kib[iv_pick(g, NELEM(kib))];
    size_t count = (size_t)kb * 1024 / 4;
    SimSched rs, ts;
    if (sim_sched_init(&rs, SIM_COLL_ALL_REDUCE, SIM_ALGO_RING, n, count, 0) != 0 ||
        sim_sched_init(&ts, SIM_COLL_ALL_REDUCE, SIM_ALGO_DBTREE, n, count, 0) != 0) {
        snprintf(err, errlen, "no schedule for %d ranks", n);
        return -1;
    }
    int K = ts.nchunks / 2, H = sim_dbtree_height(n);
    snprintf(q->text, sizeof q->text,
             "An all_reduce of %d KiB of fp32 runs on %d nodes of 8 GPUs. How many steps does "
             "a ring take, and how many does NCCL's double binary tree take when each tree's "
             "half is pipelined in chunks of 64 Ki elements? (answer both: ring tree)",
             kb, N);
    iv_set_value(q, 0, "ring steps", "", rs.nsteps, 0, 0, 0);
    iv_set_value(q, 1, "tree steps", "", ts.nsteps, 0, 0, 0);
    snprintf(q->explain, sizeof q->explain,
             "The ring takes 2(R-1) = %d steps with R = %d, and a chunk passes them one "
             "after the other, paying each link's latency: an InfiniBand hop every 8th "
             "step, an NVLink hop otherwise. The two trees each carry half the buffer (%zu "
             "elements) in K = %d chunk%s that climb one level a step and come back down, "
             "overlapping: K + 2H - 1 = %d steps with H = floor(log2 R) = %d, and only the "
             "first chunk's 2H levels pay latency. Every rank still moves about twice the "
             "buffer each way, so the trees win where latency dominates (small buffers, "
             "many nodes) and NCCL's tuner picks them there; `ddplab plan --algo nccl` makes "
             "the same choice.",
             rs.nsteps, n, (count + 1) / 2, K, K == 1 ? "" : "s", ts.nsteps, H);
    snprintf(q->command, sizeof q->command,
             "ddplab bench -c all_reduce -a dbtree -n %d --nodes %d -b %dK -e %dK -w 0 -i 1", n,
             N, kb, kb);
    return 0;
}

int iv_gen_collectives(SimSplitMix *g, IvQuestion *q, char *err, size_t errlen) {
    switch (iv_pick(g, 4)) {
    case 0: from_algbw(g, q); return 0;
    case 1: from_time(g, q); return 0;
    case 2: return trees(g, q, err, errlen);
    default: return ring(g, q, err, errlen);
    }
}
