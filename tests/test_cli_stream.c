// tests/test_cli_stream.c: the streaming loader (`ddplab run --stream`).
// The generator's draws (per-rank seeds give different batches, a shared
// seed the same ones, every index in range); the distinct share of a
// micro-batch's R x B draws (exactly one rank's with a shared seed); and the
// command: four DDP ranks with a shared seed train exactly as one process
// does (the same final loss to the printed digit), four with rank seeds
// differently; the loader row; the --resume refusal.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "data/data_stream.h"
#include "test_cli_run.h"

static const char *exe;

static int test_draws(void) {
    SimDataStream a, b, c;
    CHECK_EQ_INT(sim_data_stream_init(&a, SIM_STREAM_RANK_SEEDS, 7, 0, 1000, 16), SIM_OK);
    CHECK_EQ_INT(sim_data_stream_init(&b, SIM_STREAM_RANK_SEEDS, 7, 1, 1000, 16), SIM_OK);
    CHECK_EQ_INT(sim_data_stream_init(&c, SIM_STREAM_SHARED_SEED, 7, 1, 1000, 16), SIM_OK);
    CHECK_EQ_INT((int)sim_data_stream_seed_of(SIM_STREAM_RANK_SEEDS, 7, 3), 10);
    CHECK_EQ_INT((int)sim_data_stream_seed_of(SIM_STREAM_SHARED_SEED, 7, 3), 7);
    int same_ab = 0, same_ac = 0;
    for (int k = 0; k < 5; k++) {
        int64_t x[16];
        memcpy(x, sim_data_stream_next(&a), sizeof x);
        const int64_t *y = sim_data_stream_next(&b), *z = sim_data_stream_next(&c);
        for (int i = 0; i < 16; i++) {
            CHECK(x[i] >= 0 && x[i] < 1000);
            same_ab += x[i] == y[i];
            same_ac += x[i] == z[i];
        }
    }
    CHECK_EQ_INT(same_ac, 80); // rank 1 with the shared seed 7 draws rank 0's batches
    CHECK(same_ab < 5);        // rank seeds 7 and 8: agreement by chance only (1 in 1000)
    sim_data_stream_free(&a);
    sim_data_stream_free(&b);
    sim_data_stream_free(&c);
    SimDataStream bad;
    CHECK_EQ_INT(sim_data_stream_init(&bad, SIM_STREAM_OFF, 0, 0, 10, 1), SIM_EINVAL);
    CHECK_EQ_INT(sim_data_stream_init(&bad, SIM_STREAM_RANK_SEEDS, 0, 0, 0, 1), SIM_EINVAL);
    return 0;
}

static int test_distinct(void) {
    // a shared seed: the R ranks' draws are one rank's, repeated R times
    int64_t one = sim_data_stream_distinct(SIM_STREAM_SHARED_SEED, 3, 1, 1000, 16, 50);
    int64_t four = sim_data_stream_distinct(SIM_STREAM_SHARED_SEED, 3, 4, 1000, 16, 50);
    CHECK(one > 0);
    CHECK_EQ_INT((int)four, (int)one);
    // rank seeds: 64 draws out of 1000 repeat about 64*63/2/1000 = 2 times per batch
    int64_t rank = sim_data_stream_distinct(SIM_STREAM_RANK_SEEDS, 3, 4, 1000, 16, 50);
    CHECK(rank > 50 * 58 && rank <= 50 * 64);
    return 0;
}

static int test_runs(void) {
    TcliResult r;
    char shared4[64], single[64], rank4[64];
    TCLI_RUN(r, exe, 120, "run", "--strategy", "ddp", "-n", "4", "--data", "blobs:n=1000",
             "--batch", "16", "--steps", "30", "--stream", "shared");
    CHECK_EQ_INT(r.rc, 0);
    CHECK_EQ_INT(tcli_field(&r, "final loss ", shared4, sizeof shared4), 0);
    CHECK_STR_CONTAINS(r.out, "every rank seeded with 0");
    CHECK_STR_CONTAINS(r.out, "24.9% of the 4 x");
    tcli_result_free(&r);
    TCLI_RUN(r, exe, 120, "run", "--strategy", "single", "--data", "blobs:n=1000", "--batch",
             "16", "--steps", "30", "--stream", "shared");
    CHECK_EQ_INT(r.rc, 0);
    CHECK_EQ_INT(tcli_field(&r, "final loss ", single, sizeof single), 0);
    tcli_result_free(&r);
    TCLI_RUN(r, exe, 120, "run", "--strategy", "ddp", "-n", "4", "--data", "blobs:n=1000",
             "--batch", "16", "--steps", "30", "--stream", "rank");
    CHECK_EQ_INT(r.rc, 0);
    CHECK_EQ_INT(tcli_field(&r, "final loss ", rank4, sizeof rank4), 0);
    CHECK_STR_CONTAINS(r.out, "rank r seeded with 0 + r");
    CHECK_STR_CONTAINS(r.out, "97.1% of the 4 x");
    tcli_result_free(&r);
    CHECK_EQ_INT(strcmp(shared4, single), 0); // four ranks, one batch: one process's training
    CHECK(strcmp(rank4, shared4) != 0); // four batches: a different run
    TCLI_RUN(r, exe, 60, "run", "--strategy", "ddp", "-n", "2", "--stream", "rank", "--resume",
             "x.ckpt");
    CHECK_EQ_INT(tcli_refused(&r, "ddplab run: ", "cannot be combined with --stream"), 0);
    tcli_result_free(&r);
    TCLI_RUN(r, exe, 60, "run", "--strategy", "ddp", "-n", "2", "--stream", "every");
    CHECK_EQ_INT(tcli_refused(&r, "ddplab run: ", "off, rank or shared"), 0);
    tcli_result_free(&r);
    return 0;
}

int main(int argc, char **argv) {
    exe = tcli_exe_arg(argc, argv);
    if (exe == NULL)
        return 2;
    int failures = 0;
    RUN(test_draws);
    RUN(test_distinct);
    RUN(test_runs);
    return failures ? 1 : 0;
}
