// tests/test_ddp_parity.c: DDP computes what single-process training on the
// combined batch computes (numeric mode, shuffle off, so rank r's batch b is
// samples b*R*B + r, + R, ... and the R ranks' batches together are the
// single run's batch b of R*B samples).
//
// Tolerance: parameters agree to 2e-5 relative (|a-b| / (1+|b|)) after the
// steps. They cannot agree bit for bit: the single run sums the R*B
// per-sample gradients in one matrix product and divides by R*B; DDP sums
// B per rank, divides by B, multiplies by 1/R in the bucket and adds the R
// ranks in the all_reduce's order. fp32 rounding of the two orders differs
// by a few ulps per gradient element (~1e-7 relative), and a few SGD steps
// at lr 0.1 carry that into the parameters at ~1e-6; 2e-5 leaves room while
// still catching any real error (a missing 1/R is a factor of 2 or more).
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "test_ddp_util.h"
#include "test_env.h"

#define TOL 2e-5

// single on R*B*accum samples per step vs ddp on R ranks with B (x accum).
static int parity(const SimDataset *ds, const SimModelSpec *spec, int R, int B, int accum,
                  int every, int view, int find_unused, int64_t steps) {
    TddpRun one, dist;
    tddp_config(&one, ds, spec, 1, R * B * accum, steps);
    tddp_config(&dist, ds, spec, R, B, steps);
    dist.use_ddp = 1;
    dist.cfg.loop.accum = accum;
    dist.cfg.loop.accum_sync_every = every;
    dist.ddp.gradient_as_bucket_view = view;
    dist.ddp.buckets.find_unused = find_unused;
    dist.ddp.buckets.bucket_cap_mb = 0.01; // several buckets after the rebuild
    if (tddp_run(&one) != SIM_OK || tddp_run(&dist) != SIM_OK) {
        fprintf(stderr, "R=%d: %s%s\n", R, one.error, dist.error);
        tddp_free(&one), tddp_free(&dist);
        return 1;
    }
    double worst = 0;
    for (int r = 0; r < R; r++) {
        double d = tddp_maxdiff(dist.params[r], one.params[0], one.nparam);
        worst = d > worst ? d : worst;
    }
    // the ranks hold identical replicas
    int same = 1;
    for (int r = 1; r < R; r++)
        same &= tddp_maxdiff(dist.params[r], dist.params[0], dist.nparam) == 0;
    tddp_free(&one), tddp_free(&dist);
    printf("  R=%d B=%d accum=%d every=%d view=%d unused=%d: max relative diff %.2g\n", R, B,
           accum, every, view, find_unused, worst);
    if (!(worst <= TOL) || !same) {
        fprintf(stderr, "R=%d B=%d accum=%d every=%d view=%d: max diff %.3g (tol %g), "
                "replicas identical %d\n", R, B, accum, every, view, worst, TOL, same);
        return 1;
    }
    return 0;
}

static int test_mlp_parity(void) {
    SimDataset ds;
    SimModelSpec spec;
    CHECK(tddp_data_mlp(&ds, 1024, "mlp:16,48,48,4", &spec) == SIM_OK);
    const int Rs[] = {1, 2, 3, 4, 8};
    int fails = 0;
    for (int i = 0; i < 5; i++)
        fails += parity(&ds, &spec, Rs[i], 4, 1, 0, 0, 0, tenv_quick() ? 3 : 5);
    sim_dataset_free(&ds);
    return fails;
}

static int test_gpt_parity(void) {
    SimDataset ds;
    SimModelSpec spec;
    CHECK(tddp_data_gpt(&ds, &spec) == SIM_OK);
    const int Rs[] = {1, 2, 3, 4, 8};
    int fails = 0;
    for (int i = 0; i < 5; i++)
        fails += parity(&ds, &spec, Rs[i], 2, 1, 0, 0, 0, tenv_quick() ? 2 : 3);
    sim_dataset_free(&ds);
    return fails;
}

// K micro-batches on R ranks = one step on K x R x B; no_sync (last) and
// --accum-sync every agree; gradient_as_bucket_view changes nothing.
static int test_accumulation_and_views(void) {
    SimDataset ds;
    SimModelSpec spec;
    CHECK(tddp_data_mlp(&ds, 1024, "mlp:16,48,48,4", &spec) == SIM_OK);
    int fails = 0;
    fails += parity(&ds, &spec, 2, 4, 3, 0, 0, 0, 3);
    fails += parity(&ds, &spec, 2, 4, 3, 1, 0, 0, 3);
    fails += parity(&ds, &spec, 3, 4, 2, 0, 1, 0, 3);
    fails += parity(&ds, &spec, 4, 4, 1, 0, 1, 0, 3);
    fails += parity(&ds, &spec, 2, 4, 2, 1, 1, 0, 3);
    sim_dataset_free(&ds);
    return fails;
}

// The model with a branch unused on odd steps trains under
// find_unused_parameters, and still equals single-process training.
static int test_find_unused_trains(void) {
    SimDataset ds;
    SimModelSpec spec;
    CHECK(tddp_data_mlp(&ds, 1024, "mlp:16,32,32,4,unused", &spec) == SIM_OK);
    int fails = parity(&ds, &spec, 2, 4, 1, 0, 0, 1, 4);
    fails += parity(&ds, &spec, 3, 4, 2, 0, 1, 1, 3);
    sim_dataset_free(&ds);
    return fails;
}

// gradient_as_bucket_view: the bucket buffers (one gradient copy) are not
// allocated, and the memory peak shows it.
static int test_view_saves_memory(void) {
    SimDataset ds;
    SimModelSpec spec;
    CHECK(tddp_data_mlp(&ds, 1024, "mlp:16,256,256,4", &spec) == SIM_OK);
    TddpRun a, b;
    tddp_config(&a, &ds, &spec, 2, 4, 2);
    tddp_config(&b, &ds, &spec, 2, 4, 2);
    a.use_ddp = b.use_ddp = 1;
    b.ddp.gradient_as_bucket_view = 1;
    CHECK(tddp_run(&a) == SIM_OK);
    CHECK(tddp_run(&b) == SIM_OK);
    uint64_t grad_bytes = a.nparam * sizeof(float);
    printf("peak memory: copy %llu, view %llu bytes (gradients %llu)\n",
           (unsigned long long)a.mem_peak[0], (unsigned long long)b.mem_peak[0],
           (unsigned long long)grad_bytes);
    CHECK(a.mem_peak[0] >= b.mem_peak[0] + grad_bytes);
    tddp_free(&a), tddp_free(&b);
    sim_dataset_free(&ds);
    return 0;
}

int main(void) {
    int failures = 0;
    RUN(test_mlp_parity);
    RUN(test_gpt_parity);
    RUN(test_accumulation_and_views);
    RUN(test_find_unused_trains);
    RUN(test_view_saves_memory);
    return failures ? 1 : 0;
}
