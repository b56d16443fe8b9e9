// tests/test_sampler.c: the distributed sampler and its batches.
//
//   test_sampler          the generator, the formulas, hand-worked cases, the
//                         properties of shuffled epochs, the non-distributed
//                         mode and bad configurations;
//   test_sampler torch    conformance with PyTorch: for a matrix of (N, R,
//                         batch, drop_last, loader drop_last) every rank's
//                         batches equal DistributedSampler + DataLoader's
//                         with shuffle off, and have the same sizes with
//                         shuffle on; the training loop's batches per epoch
//                         (--sampler-drop-last, --drop-last) equal
//                         len(DataLoader). Exits 77 (skipped) without torch.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "data/sampler.h"
#include "train/train.h" // defines: sim_train_batches_per_epoch
#include "test_env.h"
#include "test_files.h"
#include "torch_ref.h"

static char err[512];

// ----------------------------------------------------------------------------
// the generator

static int test_splitmix(void) {
    // The published splitmix64 sequence for state 0.
    SimSplitMix g;
    sim_splitmix_seed(&g, 0);
    CHECK(sim_splitmix_next(&g) == 0xE220A8397B1DCDAFull);
    CHECK(sim_splitmix_next(&g) == 0x6E789E6AA1B965F4ull);
    CHECK(sim_splitmix_next(&g) == 0x06C45D188009454Full);
    // below() stays in range and is close to uniform.
    int counts[3] = {0};
    sim_splitmix_seed(&g, 42);
    for (int k = 0; k < 30000; k++) {
        uint64_t v = sim_splitmix_below(&g, 3);
        CHECK(v < 3);
        counts[v]++;
    }
    for (int k = 0; k < 3; k++)
        CHECK(counts[k] > 9500 && counts[k] < 10500);
    CHECK_EQ_INT(sim_splitmix_below(&g, 1), 0);
    for (int k = 0; k < 1000; k++) {
        double u = sim_splitmix_unit(&g);
        CHECK(u >= 0.0 && u < 1.0);
    }
    // The permutation is pinned (values from an independent Python model of
    // the documented algorithm): a change to the generator or to the
    // shuffle would silently change every shuffled run and resumed epoch.
    static const int64_t want[10] = {6, 3, 2, 9, 8, 1, 4, 7, 0, 5};
    int64_t perm[10];
    sim_sampler_permutation(10, 0, perm);
    for (int k = 0; k < 10; k++)
        if (perm[k] != want[k]) {
            fprintf(stderr, "permutation(10, seed 0)[%d] = %lld, pinned %lld\n", k,
                    (long long)perm[k], (long long)want[k]);
            return 1;
        }
    // Every n gives a permutation.
    for (int64_t n = 0; n < 70; n++) {
        int64_t p[70];
        char seen[70] = {0};
        sim_sampler_permutation(n, (uint64_t)n * 31, p);
        for (int64_t k = 0; k < n; k++) {
            CHECK(p[k] >= 0 && p[k] < n && !seen[p[k]]);
            seen[p[k]] = 1;
        }
    }
    return 0;
}

// ----------------------------------------------------------------------------
// formulas and hand-worked cases

static int test_formulas(void) {
    // num_samples: ceil(N / R), or ceil((N - R) / R) with drop_last when R
    // does not divide N (0 when N < R).
    static const int64_t cases[][4] = {
        // N, R, drop_last, num_samples
        {10, 4, 0, 3}, {10, 4, 1, 2}, {12, 4, 0, 3}, {12, 4, 1, 3}, {3, 8, 0, 1},
        {3, 8, 1, 0},  {1, 1, 0, 1},  {1, 1, 1, 1},  {0, 3, 0, 0},  {7, 7, 1, 1},
        {8, 7, 1, 1},  {13, 7, 1, 1}, {14, 7, 1, 2}, {100, 16, 0, 7}, {100, 16, 1, 6},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        CHECK_EQ_INT(sim_sampler_num_samples(cases[k][0], (int)cases[k][1], (int)cases[k][2]),
                     cases[k][3]);
    CHECK_EQ_INT(sim_sampler_batches_of(10, 3, 0), 4);
    CHECK_EQ_INT(sim_sampler_batches_of(10, 3, 1), 3);
    CHECK_EQ_INT(sim_sampler_batches_of(9, 3, 1), 3);
    CHECK_EQ_INT(sim_sampler_batches_of(2, 3, 1), 0);
    CHECK_EQ_INT(sim_sampler_batches_of(0, 3, 0), 0);
    return 0;
}

static SimSamplerConfig config(int64_t n, int r, int rank, int shuffle, int drop_last, int b,
                               int dlb) {
    SimSamplerConfig c;
    sim_sampler_defaults(&c, n);
    c.num_replicas = r;
    c.rank = rank;
    c.shuffle = shuffle;
    c.drop_last = drop_last;
    c.batch_size = b;
    c.drop_last_batch = dlb;
    return c;
}

// The indices of rank `rank` equal want[count].
static int expect_order(SimSamplerConfig c, const int64_t *want, int64_t count) {
    SimSampler s;
    CHECK_EQ_INT(sim_sampler_init(&s, &c, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(s.num_samples, count);
    for (int64_t k = 0; k < count; k++)
        if (s.order[k] != want[k]) {
            fprintf(stderr, "N=%lld R=%d rank %d drop_last %d: index %lld is %lld, want %lld\n",
                    (long long)c.n, c.num_replicas, c.rank, c.drop_last, (long long)k,
                    (long long)s.order[k], (long long)want[k]);
            sim_sampler_free(&s);
            return 1;
        }
    sim_sampler_free(&s);
    return 0;
}

static int test_hand_cases(void) {
    // N = 10, R = 4: padded to 12 with 0, 1.
    static const int64_t pad[4][3] = {{0, 4, 8}, {1, 5, 9}, {2, 6, 0}, {3, 7, 1}};
    for (int r = 0; r < 4; r++)
        CHECK(expect_order(config(10, 4, r, 0, 0, 1, 0), pad[r], 3) == 0);
    // drop_last: cut to 8.
    for (int r = 0; r < 4; r++) {
        int64_t want[2] = {r, r + 4};
        CHECK(expect_order(config(10, 4, r, 0, 1, 1, 0), want, 2) == 0);
    }
    // N = 3 < R = 8: the order 0, 1, 2 repeats to fill 8 places.
    for (int r = 0; r < 8; r++) {
        int64_t want[1] = {r % 3};
        CHECK(expect_order(config(3, 8, r, 0, 0, 1, 0), want, 1) == 0);
        CHECK(expect_order(config(3, 8, r, 0, 1, 1, 0), want, 0) == 0);
    }
    // Batches of 2 from rank 1 of N = 10, R = 2 (1, 3, 5, 7, 9): the last is short.
    SimSampler s;
    SimSamplerConfig c = config(10, 2, 1, 0, 0, 2, 0);
    CHECK_EQ_INT(sim_sampler_init(&s, &c, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(s.num_batches, 3);
    const int64_t *idx;
    CHECK_EQ_INT(sim_sampler_batch(&s, 0, &idx), 2);
    CHECK(idx[0] == 1 && idx[1] == 3);
    CHECK_EQ_INT(sim_sampler_batch(&s, 2, &idx), 1);
    CHECK(idx[0] == 9);
    CHECK_EQ_INT(sim_sampler_batch(&s, 3, &idx), 0);
    CHECK(idx == NULL);
    CHECK_EQ_INT(sim_sampler_batch(&s, -1, &idx), 0);
    sim_sampler_free(&s);
    c.drop_last_batch = 1;
    CHECK_EQ_INT(sim_sampler_init(&s, &c, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(s.num_batches, 2);
    sim_sampler_free(&s);
    return 0;
}

// ----------------------------------------------------------------------------
// shuffled epochs

// Runs every rank of (n, r, drop_last) for one seed and epoch and checks
// that the ranks' orders interleave into one padded (or cut) permutation:
// position j = k R + rank holds base[j % N], base a permutation of 0..N-1.
// Copies rank 0's order into first[] (num_samples elements).
static int check_epoch(int64_t n, int r, int drop_last, int64_t seed, int64_t epoch,
                       int64_t *first) {
    int64_t total = sim_sampler_num_samples(n, r, drop_last) * r;
    int64_t *padded = malloc((size_t)(total + 1) * sizeof(int64_t));
    int *count = calloc((size_t)n + 1, sizeof(int));
    CHECK(padded != NULL && count != NULL);
    for (int rank = 0; rank < r; rank++) {
        SimSamplerConfig c = config(n, r, rank, 1, drop_last, 4, 0);
        c.seed = seed;
        SimSampler s;
        CHECK_EQ_INT(sim_sampler_init(&s, &c, err, sizeof err), SIM_OK);
        sim_sampler_set_epoch(&s, epoch);
        CHECK_EQ_INT(s.total_size, total);
        for (int64_t k = 0; k < s.num_samples; k++) {
            padded[k * r + rank] = s.order[k];
            count[s.order[k]]++;
        }
        if (rank == 0 && first != NULL)
            memcpy(first, s.order, (size_t)s.num_samples * sizeof(int64_t));
        sim_sampler_free(&s);
    }
    int64_t distinct = total < n ? total : n;
    for (int64_t j = distinct; j < total; j++)
        CHECK(padded[j] == padded[j % n]); // padding repeats from the start
    int64_t covered = 0;
    for (int64_t i = 0; i < n; i++) {
        covered += count[i] > 0;
        if (total <= n)
            CHECK(count[i] <= 1); // no padding: the ranks' sets are disjoint
        else
            CHECK(count[i] >= 1 && count[i] <= (total + n - 1) / n);
    }
    CHECK_EQ_INT(covered, distinct); // the union is the dataset (or its first total_size)
    free(padded);
    free(count);
    return 0;
}

static int same(const int64_t *a, const int64_t *b, int64_t n) {
    return n == 0 || memcmp(a, b, (size_t)n * sizeof(int64_t)) == 0;
}

static int test_shuffle(void) {
    static const int64_t ns[] = {1, 2, 5, 8, 10, 17, 64, 100, 257};
    static const int rs[] = {1, 2, 3, 4, 8, 16};
    int64_t a[300], b[300];
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
        for (size_t j = 0; j < sizeof rs / sizeof rs[0]; j++)
            for (int dl = 0; dl <= 1; dl++) {
                int64_t n = ns[i], m = sim_sampler_num_samples(n, rs[j], dl);
                CHECK(check_epoch(n, rs[j], dl, 7, 0, a) == 0);
                CHECK(check_epoch(n, rs[j], dl, 7, 0, b) == 0);
                CHECK(same(a, b, m)); // same seed and epoch: same order
                CHECK(check_epoch(n, rs[j], dl, 7, 1, b) == 0);
                if (m >= 8)
                    CHECK(!same(a, b, m)); // set_epoch changes the order
                CHECK(check_epoch(n, rs[j], dl, 8, 0, b) == 0);
                if (m >= 8)
                    CHECK(!same(a, b, m)); // and so does the seed
            }
    // Without set_epoch every epoch repeats the order; set_epoch back to 0
    // gives epoch 0's order again; shuffle off gives 0, 1, 2, ... on R = 1.
    SimSamplerConfig c = config(50, 1, 0, 1, 0, 5, 0);
    SimSampler s;
    CHECK_EQ_INT(sim_sampler_init(&s, &c, err, sizeof err), SIM_OK);
    memcpy(a, s.order, 50 * sizeof(int64_t));
    sim_sampler_set_epoch(&s, 0);
    CHECK(same(a, s.order, 50));
    sim_sampler_set_epoch(&s, 3);
    CHECK(!same(a, s.order, 50));
    CHECK_EQ_INT(s.epoch, 3);
    sim_sampler_set_epoch(&s, 0);
    CHECK(same(a, s.order, 50));
    int64_t perm[50];
    sim_sampler_permutation(50, 0 + 0, perm); // seed 0 + epoch 0
    CHECK(same(perm, s.order, 50));
    sim_sampler_free(&s);
    return 0;
}

// Without a distributed sampler every rank gets the whole dataset, in the
// same order on every rank.
static int test_not_distributed(void) {
    int64_t first[37];
    for (int shuffle = 0; shuffle <= 1; shuffle++)
        for (int rank = 0; rank < 4; rank++) {
            SimSamplerConfig c = config(37, 4, rank, shuffle, 1, 8, 0);
            c.distributed = 0;
            SimSampler s;
            CHECK_EQ_INT(sim_sampler_init(&s, &c, err, sizeof err), SIM_OK);
            CHECK_EQ_INT(s.num_samples, 37);
            CHECK_EQ_INT(s.num_batches, 5);
            if (rank == 0)
                memcpy(first, s.order, sizeof first);
            CHECK(same(first, s.order, 37));
            char seen[37] = {0};
            for (int k = 0; k < 37; k++) {
                CHECK(!seen[s.order[k]]);
                seen[s.order[k]] = 1;
                if (!shuffle)
                    CHECK_EQ_INT(s.order[k], k);
            }
            sim_sampler_free(&s);
        }
    return 0;
}

static int test_bad_config(void) {
    SimSampler s;
    SimSamplerConfig c = config(10, 4, 4, 0, 0, 1, 0);
    CHECK_EQ_INT(sim_sampler_init(&s, &c, err, sizeof err), SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "invalid rank 4, rank should be in 0..3");
    c.rank = -1;
    CHECK_EQ_INT(sim_sampler_init(&s, &c, err, sizeof err), SIM_EINVAL);
    c = config(10, 0, 0, 0, 0, 1, 0);
    CHECK_EQ_INT(sim_sampler_init(&s, &c, err, sizeof err), SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "num_replicas 0");
    c = config(10, 1, 0, 0, 0, 0, 0);
    CHECK_EQ_INT(sim_sampler_init(&s, &c, err, sizeof err), SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "batch size 0");
    c = config(-1, 1, 0, 0, 0, 1, 0);
    CHECK_EQ_INT(sim_sampler_init(&s, &c, err, sizeof err), SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "negative");
    // An empty dataset is valid, as in PyTorch: no samples, no batches.
    c = config(0, 2, 1, 1, 0, 4, 0);
    CHECK_EQ_INT(sim_sampler_init(&s, &c, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(s.num_samples, 0);
    CHECK_EQ_INT(s.num_batches, 0);
    sim_sampler_free(&s);
    sim_sampler_free(&s); // safe twice
    return 0;
}

// ----------------------------------------------------------------------------
// conformance with PyTorch

enum { C_N, C_R, C_B, C_DL, C_DLB, C_SHUF, C_SEED, C_EPOCH, C_COLS };

// The cases: every combination of the lists with shuffle off, and a slice
// of them with shuffle on (sizes only). Returns the number of rows.
static int make_cases(int64_t (*rows)[C_COLS], int cap) {
    static const int64_t ns[] = {1, 2, 3, 4, 5, 7, 8, 9, 10, 15, 16, 17, 31, 32, 33, 100, 101,
                                 1000};
    static const int rs[] = {1, 2, 3, 4, 5, 8, 16};
    static const int bs[] = {1, 3, 8, 32};
    int quick = tenv_quick(), k = 0;
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
        for (size_t j = 0; j < sizeof rs / sizeof rs[0]; j++)
            for (size_t b = 0; b < sizeof bs / sizeof bs[0]; b++)
                for (int flags = 0; flags < 8; flags++) {
                    int shuffle = flags >> 2;
                    // Quick runs keep every kind of case, on every other N and R.
                    if (quick && (i % 2 != 0 || j % 2 != 0))
                        continue;
                    if (shuffle && (i + j + b) % 3 != 0)
                        continue;
                    if (k == cap)
                        return k;
                    int64_t *row = rows[k++];
                    row[C_N] = ns[i];
                    row[C_R] = rs[j];
                    row[C_B] = bs[b];
                    row[C_DL] = flags & 1;
                    row[C_DLB] = (flags >> 1) & 1;
                    row[C_SHUF] = shuffle;
                    row[C_SEED] = shuffle ? (int64_t)(i * 7 + b) : 0;
                    row[C_EPOCH] = shuffle ? (int64_t)(j % 3) : 0;
                }
    return k;
}

// The training loop's batches per epoch for the case, from the settings
// --sampler-drop-last (the sampler's drop_last) and --drop-last (the
// loader's) fill: what `--epochs` and the run's table count.
static int64_t loop_batches(const int64_t *row) {
    SimTrainConfig tc;
    SimDataset ds;
    memset(&ds, 0, sizeof ds);
    ds.n = row[C_N];
    sim_train_config_default(&tc);
    tc.data.set = &ds;
    tc.data.batch = (int)row[C_B];
    tc.data.sampler_drop_last = (int)row[C_DL];
    tc.data.drop_last = (int)row[C_DLB];
    return sim_train_batches_per_epoch(&tc, (int)row[C_R]);
}

// Compares the reference stream (per rank: batch count, then size and
// indices per batch) with ddplab's, case by case.
static int compare_case(const int64_t *row, const int64_t *ref, size_t len, size_t *pos) {
    if (*pos < len && ref[*pos] != loop_batches(row)) {
        fprintf(stderr, "N=%lld R=%lld batch=%lld drop_last=%lld loader drop_last=%lld: the "
                "loop counts %lld batches per epoch, PyTorch %lld\n", (long long)row[C_N],
                (long long)row[C_R], (long long)row[C_B], (long long)row[C_DL],
                (long long)row[C_DLB], (long long)loop_batches(row), (long long)ref[*pos]);
        return 1;
    }
    for (int rank = 0; rank < (int)row[C_R]; rank++) {
        SimSamplerConfig c = config(row[C_N], (int)row[C_R], rank, (int)row[C_SHUF],
                                    (int)row[C_DL], (int)row[C_B], (int)row[C_DLB]);
        c.seed = row[C_SEED];
        SimSampler s;
        CHECK_EQ_INT(sim_sampler_init(&s, &c, err, sizeof err), SIM_OK);
        sim_sampler_set_epoch(&s, row[C_EPOCH]);
        int bad = *pos >= len || ref[*pos] != s.num_batches;
        (*pos)++;
        for (int64_t b = 0; !bad && b < s.num_batches; b++) {
            const int64_t *idx;
            int n = sim_sampler_batch(&s, b, &idx);
            bad = *pos >= len || ref[*pos] != n || *pos + 1 + (size_t)n > len;
            (*pos)++;
            for (int k = 0; !bad && k < n; k++)
                bad = !row[C_SHUF] && ref[*pos + (size_t)k] != idx[k];
            *pos += (size_t)n;
        }
        sim_sampler_free(&s);
        if (bad) {
            fprintf(stderr,
                    "N=%lld R=%lld batch=%lld drop_last=%lld loader drop_last=%lld shuffle=%lld: "
                    "rank %d differs from PyTorch near stream position %zu\n",
                    (long long)row[C_N], (long long)row[C_R], (long long)row[C_B],
                    (long long)row[C_DL], (long long)row[C_DLB], (long long)row[C_SHUF], rank,
                    *pos);
            return 1;
        }
    }
    return 0;
}

static int test_torch_conformance(void) {
    static int64_t rows[4096][C_COLS];
    int ncases = make_cases(rows, 4096);
    char dir[512];
    CHECK_EQ_INT(torchref_tmpdir(dir, sizeof dir), 0);
    CHECK_EQ_INT(torchref_write(dir, "cases.i64", rows, (size_t)ncases * sizeof rows[0]), 0);
    const char *args[] = {dir, NULL};
    int rc = torchref_run("sampler_ref.py", args);
    char path[640];
    snprintf(path, sizeof path, "%s/batches.i64", dir);
    size_t bytes = 0;
    int64_t *ref = rc == 0 ? (int64_t *)tfile_read(path, &bytes) : NULL;
    torchref_rmdir(dir);
    CHECK_EQ_INT(rc, 0);
    CHECK(ref != NULL);
    size_t len = bytes / sizeof(int64_t), pos = 0;
    int fails = 0, shuffled = 0;
    for (int k = 0; k < ncases && fails < 5; k++) {
        fails += compare_case(rows[k], ref, len, &pos);
        shuffled += (int)rows[k][C_SHUF];
    }
    if (fails == 0 && pos != len) {
        fprintf(stderr, "PyTorch wrote %zu values, ddplab's batches account for %zu\n", len,
                pos);
        fails = 1;
    }
    free(ref);
    printf("  %d cases (%d shuffled) compared with DistributedSampler + DataLoader\n", ncases,
           shuffled);
    return fails;
}

int main(int argc, char **argv) {
    int failures = 0;
    if (argc > 1 && strcmp(argv[1], "torch") == 0) {
        if (!torchref_available())
            return 77;
        RUN(test_torch_conformance);
        return failures ? 1 : 0;
    }
    RUN(test_splitmix);
    RUN(test_formulas);
    RUN(test_hand_cases);
    RUN(test_shuffle);
    RUN(test_not_distributed);
    RUN(test_bad_config);
    return failures ? 1 : 0;
}
