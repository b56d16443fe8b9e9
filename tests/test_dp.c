// tests/test_dp.c: --strategy dp (torch.nn.DataParallel) computes what
// single-process training on the same whole batch computes, and what DDP
// computes on the same global batch; its chunks are torch.chunk's; each
// step shows the five communication phases in order; device 0 carries the
// most memory; one device is refused.
//
// Tolerance: rank 0's parameters agree to 2e-5 relative (|a-b| / (1+|b|))
// after the steps, as in the DDP parity test and for the same reason: the
// single run sums all N per-sample gradients in one product, DataParallel
// sums n_k per replica (each seeded with seed * n_k / N) and adds the
// replicas in the reduce's order, which differs by a few fp32 ulps per
// gradient element; a wrong chunk weight would be off by a factor >= 1/D.
// Losses (rank 0's whole-batch mean) agree to 1e-5 relative.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "strategy/dp.h"
#include "test_ddp_util.h"
#include "test_env.h"

#define TOL 2e-5

static SimDpOptions dp_opts;

// The last step's loss of each rank, into TddpRun.loss.
static void keep_loss(void *arg, int rank, const SimStepStats *s) {
    ((TddpRun *)arg)->loss[rank] = s->loss;
}

static void use_dp(TddpRun *t) {
    sim_dp_options_default(&dp_opts);
    t->cfg.strategy = &sim_dp_strategy;
    t->cfg.strategy_cfg = &dp_opts;
}

static int test_chunks(void) {
    int s[8];
    CHECK(sim_dp_chunks(10, 4, s) == 4);
    CHECK(s[0] == 3 && s[1] == 3 && s[2] == 3 && s[3] == 1);
    CHECK(sim_dp_chunks(5, 4, s) == 3); // torch.chunk(5 rows, 4): 2, 2, 1
    CHECK(s[0] == 2 && s[1] == 2 && s[2] == 1 && s[3] == 0);
    CHECK(sim_dp_chunks(2, 3, s) == 2);
    CHECK(s[0] == 1 && s[1] == 1 && s[2] == 0);
    CHECK(sim_dp_chunks(8, 3, s) == 3);
    CHECK(s[0] == 3 && s[1] == 3 && s[2] == 2);
    CHECK(sim_dp_chunks(8, 2, s) == 2);
    CHECK(s[0] == 4 && s[1] == 4);
    return 0;
}

// single on N samples per step vs dp on D devices splitting the same N.
static int parity(const SimDataset *ds, const SimModelSpec *spec, int D, int N, int accum,
                  int64_t steps) {
    TddpRun one, dp;
    tddp_config(&one, ds, spec, 1, N, steps);
    tddp_config(&dp, ds, spec, D, N, steps);
    one.cfg.loop.accum = dp.cfg.loop.accum = accum;
    one.cfg.hooks.on_step = dp.cfg.hooks.on_step = keep_loss;
    one.cfg.hooks.on_step_arg = &one;
    dp.cfg.hooks.on_step_arg = &dp;
    use_dp(&dp);
    if (tddp_run(&one) != SIM_OK || tddp_run(&dp) != SIM_OK) {
        fprintf(stderr, "D=%d N=%d: %s%s\n", D, N, one.error, dp.error);
        tddp_free(&one), tddp_free(&dp);
        return 1;
    }
    double d = tddp_maxdiff(dp.params[0], one.params[0], one.nparam);
    double b = one.nbuffer ? tddp_maxdiff(dp.buffers[0], one.buffers[0], one.nbuffer) : 0;
    double l = fabs((double)dp.loss[0] - one.loss[0]) / (1 + fabs((double)one.loss[0]));
    printf("  D=%d N=%d accum=%d: params %.2g, buffers %.2g, loss %.2g (%g vs %g)\n", D, N,
           accum, d, b, l, dp.loss[0], one.loss[0]);
    tddp_free(&one), tddp_free(&dp);
    if (!(d <= TOL) || !(b <= TOL) || !(l <= 1e-5)) {
        fprintf(stderr, "D=%d N=%d: params %.3g buffers %.3g loss %.3g\n", D, N, d, b, l);
        return 1;
    }
    return 0;
}

static int test_mlp_equals_single(void) {
    SimDataset ds;
    SimModelSpec spec;
    CHECK(tddp_data_mlp(&ds, 512, "mlp:16,48,48,4", &spec) == SIM_OK);
    int64_t steps = tenv_quick() ? 3 : 5;
    int fails = 0;
    for (int D = 2; D <= 4; D++) {
        fails += parity(&ds, &spec, D, 12, 1, steps); // divides by 2, 3, 4
        fails += parity(&ds, &spec, D, 10, 1, steps); // D=3: 4,4,2; D=4: 3,3,3,1
        fails += parity(&ds, &spec, D, 2, 1, steps);  // smaller than 3 and 4
    }
    fails += parity(&ds, &spec, 4, 5, 1, steps);      // 2,2,1 and a device without a chunk
    fails += parity(&ds, &spec, 3, 7, 2, steps);      // accumulation: every backward reduces
    sim_dataset_free(&ds);
    return fails;
}

static int test_gpt_equals_single(void) {
    SimDataset ds;
    SimModelSpec spec;
    CHECK(tddp_data_gpt(&ds, &spec) == SIM_OK);
    int fails = 0;
    for (int D = 2; D <= 4; D++) {
        fails += parity(&ds, &spec, D, 6, 1, 2);
        fails += parity(&ds, &spec, D, 5, 1, 2);
    }
    fails += parity(&ds, &spec, 4, 3, 1, 2);
    sim_dataset_free(&ds);
    return fails;
}

// DataParallel on D devices with batch D*B equals DDP on D ranks with B each.
static int dp_vs_ddp(const SimDataset *ds, const SimModelSpec *spec, int D, int B, int steps) {
    TddpRun dp, ddp;
    tddp_config(&dp, ds, spec, D, D * B, steps);
    tddp_config(&ddp, ds, spec, D, B, steps);
    use_dp(&dp);
    ddp.use_ddp = 1;
    CHECK(tddp_run(&dp) == SIM_OK);
    CHECK(tddp_run(&ddp) == SIM_OK);
    double d = tddp_maxdiff(dp.params[0], ddp.params[0], ddp.nparam);
    printf("  dp vs ddp D=%d B=%d: max relative diff %.2g\n", D, B, d);
    tddp_free(&dp), tddp_free(&ddp);
    CHECK(d <= TOL);
    return 0;
}

static int test_equals_ddp(void) {
    SimDataset ds, tok;
    SimModelSpec spec, gspec;
    CHECK(tddp_data_mlp(&ds, 512, "mlp:16,48,48,4", &spec) == SIM_OK);
    CHECK(tddp_data_gpt(&tok, &gspec) == SIM_OK);
    int fails = 0;
    for (int D = 2; D <= 4; D++) {
        fails += dp_vs_ddp(&ds, &spec, D, 4, 3);
        fails += dp_vs_ddp(&tok, &gspec, D, 2, 2);
    }
    sim_dataset_free(&ds);
    sim_dataset_free(&tok);
    return fails;
}

static const char *const phases[5] = {"dp.replicate", "dp.scatter", "dp.gather",
                                      "dp.scatter_grad", "dp.reduce"};

// Rank 0's trace: per step the five markers in order, the broadcast after
// the replicate marker, sends after scatter, receives after gather, sends
// after scatter_grad, the reduce after reduce; memory peaks: rank 0 highest.
static int test_trace_and_memory(void) {
    SimDataset ds;
    SimModelSpec spec;
    CHECK(tddp_data_mlp(&ds, 512, "mlp:16,64,64,4", &spec) == SIM_OK);
    const int D = 3, steps = 2;
    TddpRun t;
    tddp_config(&t, &ds, &spec, D, 10, steps);
    use_dp(&t);
    t.trace = 1;
    CHECK(tddp_run(&t) == SIM_OK);
    const int want[5] = {SIM_COLL_BROADCAST, SIM_COLL_SEND, SIM_COLL_RECV, SIM_COLL_SEND,
                         SIM_COLL_REDUCE};
    int phase = -1, markers = 0, seen[5] = {0}, launches = 0;
    for (size_t i = 0; i < t.nevents; i++) {
        const SimEvent *e = &t.events[i];
        if (e->kind == SIM_EV_MARKER && e->name && strncmp(e->name, "dp.", 3) == 0) {
            int next = (phase + 1) % 5;
            CHECK(strcmp(e->name, phases[next]) == 0);
            if (phase >= 0)
                CHECK(seen[phase] > 0); // each phase moved data
            phase = next;
            seen[phase] = 0;
            markers++;
        } else if (e->kind == SIM_EV_COLL && phase >= 0 && e->coll == want[phase]) {
            seen[phase]++;
        } else if (e->kind == SIM_EV_COMPUTE && e->name &&
                   strcmp(e->name, "dp.launch_replicas") == 0) {
            launches++;
        }
    }
    CHECK(phase == 4 && seen[4] > 0);
    CHECK(markers == 5 * steps);
    CHECK(launches == 2 * steps); // forward and backward launches of the 2 other replicas
    printf("  peaks:");
    for (int r = 0; r < D; r++)
        printf(" %llu", (unsigned long long)t.mem_peak[r]);
    printf(" bytes\n");
    for (int r = 1; r < D; r++)
        CHECK(t.mem_peak[0] > t.mem_peak[r]);
    tddp_free(&t);
    sim_dataset_free(&ds);
    return 0;
}

static int test_one_device_refused(void) {
    SimDataset ds;
    SimModelSpec spec;
    CHECK(tddp_data_mlp(&ds, 64, "mlp:16,8,4", &spec) == SIM_OK);
    TddpRun t;
    tddp_config(&t, &ds, &spec, 1, 8, 1);
    use_dp(&t);
    CHECK(tddp_run(&t) != SIM_OK);
    printf("  %s\n", t.error);
    CHECK(strstr(t.error, "at least 2 devices") != NULL);
    tddp_free(&t);
    sim_dataset_free(&ds);
    return 0;
}

int main(void) {
    int failures = 0;
    RUN(test_chunks);
    RUN(test_mlp_equals_single);
    RUN(test_gpt_equals_single);
    RUN(test_equals_ddp);
    RUN(test_trace_and_memory);
    RUN(test_one_device_refused);
    return failures ? 1 : 0;
}
