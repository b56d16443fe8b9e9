// tests/test_torch_gen.c: PyTorch's CPU generator (sim/base/torch_gen.h:
// the engine, uniform_, randperm, normal_'s two paths) and
// the sampler's torch.randperm order, against values an independent route
// gives: the C++ standard's check value of mt19937, and numbers that
// torch 1.13 printed for these seeds (the commands are beside each). With
// the argument `torch` (test_torch_gen_torch): 64 cases of every draw over
// seeds and sizes from 1 to 100,003, made by torch itself
// (tests/conformance/torch_gen_ref.py) and compared bit for bit; exits 77
// (skipped) without python3-torch.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/torch_gen.h"
#include "check.h"
#include "data/sampler.h"
#include "torch_ref.h"

// ISO C++ [rand.predef]: the 10000th output of a default-constructed
// std::mt19937 (seed 5489) is 4123659995.
static int test_engine(void) {
    SimTorchGen g;
    sim_torchgen_seed(&g, 5489);
    uint32_t u = 0;
    for (int i = 0; i < 10000; i++)
        u = sim_torchgen_random(&g);
    CHECK_EQ_INT(u, 4123659995u);
    // Only the low 32 bits of a seed matter.
    SimTorchGen a, b;
    sim_torchgen_seed(&a, 12);
    sim_torchgen_seed(&b, (1ull << 32) + 12);
    for (int i = 0; i < 1000; i++)
        CHECK_EQ_INT(sim_torchgen_random(&a), sim_torchgen_random(&b));
    // random64: the first output is the high half.
    sim_torchgen_seed(&a, 3);
    sim_torchgen_seed(&b, 3);
    uint64_t hi = sim_torchgen_random(&a), lo = sim_torchgen_random(&a);
    CHECK(sim_torchgen_random64(&b) == (hi << 32 | lo));
    return 0;
}

// torch.manual_seed(0); torch.empty(5).uniform_(-0.5, 0.5), and
// torch.manual_seed(42); nn.Linear(3, 2): weight (kaiming_uniform_ with
// a = sqrt(5): bound sqrt(3) * sqrt(2 / (1 + 5.000000000000001)) / sqrt(3)),
// then bias (bound 1 / sqrt(3)), printed with float.hex.
static int test_uniform(void) {
    static const float u[5] = {-0x1.eaa8p-9f, 0x1.12a8bcp-2f, -0x1.a5662cp-2f, -0x1.78cdp-2f,
                               -0x1.8a65e8p-3f};
    SimTorchGen g;
    sim_torchgen_seed(&g, 0);
    for (int i = 0; i < 5; i++)
        CHECK(sim_torchgen_uniform_f32(&g, -0.5f, 0.5f) == u[i]);
    static const float w[6] = {0x1.c40012p-2f, 0x1.eab4cap-2f,  -0x1.1501c4p-3f,
                               0x1.0f8b68p-1f, -0x1.03122cp-3f, 0x1.dd3334p-4f};
    static const float b[2] = {-0x1.1fd4fap-2f, 0x1.5b3496p-2f};
    double a = sqrt(5.0);
    float wb = (float)(sqrt(3.0) * (sqrt(2.0 / (1.0 + a * a)) / sqrt(3.0)));
    float bb = (float)(1.0 / sqrt(3.0));
    sim_torchgen_seed(&g, 42);
    for (int i = 0; i < 6; i++)
        CHECK(sim_torchgen_uniform_f32(&g, -wb, wb) == w[i]);
    for (int i = 0; i < 2; i++)
        CHECK(sim_torchgen_uniform_f32(&g, -bb, bb) == b[i]);
    return 0;
}

// g = torch.Generator(); g.manual_seed(S); torch.randperm(n, generator=g).
static int test_randperm(void) {
    static const int64_t p12[10] = {3, 5, 8, 1, 0, 6, 9, 2, 7, 4};
    static const int64_t p7_tail[5] = {482, 594, 570, 477, 409}; // n = 1000, last five
    int64_t out[1000];
    SimTorchGen g;
    sim_torchgen_seed(&g, 12);
    sim_torchgen_randperm(&g, 10, out);
    CHECK(memcmp(out, p12, sizeof p12) == 0);
    sim_torchgen_seed(&g, 7);
    sim_torchgen_randperm(&g, 1000, out);
    CHECK(memcmp(out + 995, p7_tail, sizeof p7_tail) == 0);
    sim_torchgen_seed(&g, 7);
    sim_torchgen_randperm(&g, 1, out);
    CHECK_EQ_INT(out[0], 0);
    return 0;
}

// torch.manual_seed(S); torch.empty(n).normal_(), printed with float.hex:
// n = 17 and 4096 take the vectorised path (17: the last 16 drawn again),
// n = 3 twice the scalar one, whose second value of a pair is kept in the
// generator for the next draw; nn.Embedding(5, 4) is normal_ of 20.
static int test_normal(void) {
    float v[4096];
    SimTorchGen g;
    sim_torchgen_seed(&g, 0);
    sim_torchgen_normal_f32(&g, v, 17, 0.0f, 1.0f);
    CHECK(v[0] == -0x1.20370ap+0f && v[1] == -0x1.b2288cp+0f && v[8] == 0x1.df54aap-2f);
    CHECK(v[15] == -0x1.aff666p-1f && v[16] == 0x1.dd186p-1f);
    sim_torchgen_seed(&g, 1);
    sim_torchgen_normal_f32(&g, v, 4096, 0.0f, 1.0f);
    CHECK(v[0] == -0x1.868d74p+0f && v[7] == -0x1.9bedbcp+0f && v[8] == -0x1.6c9e38p-1f);
    CHECK(v[4095] == 0x1.d10962p+0f);
    static const float pairs[6] = {0x1.9b47p-1f,   0x1.660f0cp-3f,  0x1.6c744cp-4f,
                                   -0x1.3a394p-1f, 0x1.7a539ep-5f, -0x1.5e463cp+0f};
    sim_torchgen_seed(&g, 3);
    sim_torchgen_normal_f32(&g, v, 3, 0.0f, 1.0f);
    sim_torchgen_normal_f32(&g, v + 3, 3, 0.0f, 1.0f);
    for (int i = 0; i < 6; i++)
        CHECK(v[i] == pairs[i]);
    sim_torchgen_seed(&g, 9);
    sim_torchgen_normal_f32(&g, v, 20, 0.0f, 1.0f);
    CHECK(v[0] == -0x1.1140c8p+0f && v[19] == 0x1.efc7fap-1f);
    return 0;
}

// list(DistributedSampler(range(N), num_replicas=R, rank=r, shuffle=True,
// seed=S)) after set_epoch(E), with the sampler on PyTorch's generator.
static int sampler_case(int64_t n, int R, int rank, int64_t seed, int64_t epoch,
                        const int64_t *want, int count) {
    SimSamplerConfig c;
    SimSampler s;
    char err[256];
    sim_sampler_defaults(&c, n);
    c.num_replicas = R;
    c.rank = rank;
    c.seed = seed;
    c.batch_size = count;
    c.rng = SIM_RNG_TORCH;
    CHECK(sim_sampler_init(&s, &c, err, sizeof err) == SIM_OK);
    sim_sampler_set_epoch(&s, epoch);
    const int64_t *idx;
    int got = sim_sampler_batch(&s, 0, &idx);
    int same = got == count && memcmp(idx, want, (size_t)count * sizeof *want) == 0;
    sim_sampler_free(&s);
    CHECK(same);
    return 0;
}

static int test_sampler(void) {
    static const int64_t e0[5] = {5, 1, 6, 2, 4}, e1[5] = {5, 6, 3, 9, 7}, pad[3] = {3, 6, 0};
    CHECK_EQ_INT(sampler_case(10, 2, 1, 12, 0, e0, 5), 0);
    CHECK_EQ_INT(sampler_case(10, 2, 1, 12, 1, e1, 5), 0);
    CHECK_EQ_INT(sampler_case(7, 3, 2, 5, 2, pad, 3), 0); // padded: 9 of 7
    return 0;
}

// ----------------------------------------------------------------------------
// torch mode: many seeds and sizes drawn by torch itself (torch_gen_ref.py),
// compared bit for bit, with the counts printed.

enum { K_UNIFORM = 0, K_NORMAL, K_NORMAL_TWICE, K_RANDPERM };
#define NCASE 64

static void make_cases(int64_t rows[NCASE][3], size_t *values) {
    static const int64_t sizes[8] = {1, 3, 15, 16, 17, 100, 4096, 100003};
    *values = 0;
    for (int k = 0; k < NCASE; k++) {
        int64_t kind = k % 4, n = sizes[(k / 4) % 8];
        if (kind == K_RANDPERM && n > 4096)
            n = 4096;
        rows[k][0] = kind;
        rows[k][1] = k < 32 ? k : ((int64_t)1 << 32) + 977 * k; // low 32 bits only
        rows[k][2] = n;
        *values += (size_t)(kind == K_NORMAL_TWICE ? 2 * n : n);
    }
}

// The two-rounding variant of uniform_, to show that the fused one is needed.
static float uniform_two_roundings(SimTorchGen *g, float from, float to) {
    float x = (float)(sim_torchgen_random(g) & 0xffffffu) * (1.0f / 16777216.0f);
    float prod = x * (to - from);
    return prod + from;
}

// Compares case k's values with torch's at *ref; returns the mismatches and
// advances *ref. two_round counts the uniform draws two roundings would miss.
static size_t compare_case(const int64_t row[3], const unsigned char **ref, float *buf,
                           int64_t *perm, size_t *two_round) {
    int64_t kind = row[0], n = row[2];
    size_t bad = 0;
    SimTorchGen g, h;
    sim_torchgen_seed(&g, (uint64_t)row[1]);
    h = g;
    if (kind == K_RANDPERM) {
        sim_torchgen_randperm(&g, n, perm);
        bad = memcmp(perm, *ref, (size_t)n * sizeof *perm) != 0;
        *ref += (size_t)n * sizeof *perm;
        return bad;
    }
    size_t m = (size_t)(kind == K_NORMAL_TWICE ? 2 * n : n);
    if (kind == K_UNIFORM) {
        float b = (float)(1.0 / sqrt((double)(row[1] % 97 + 1)));
        for (int64_t i = 0; i < n; i++) {
            buf[i] = sim_torchgen_uniform_f32(&g, -b, b);
            float t;
            memcpy(&t, *ref + (size_t)i * 4, 4);
            *two_round += uniform_two_roundings(&h, -b, b) != t;
        }
    } else {
        sim_torchgen_normal_f32(&g, buf, n, 0.0f, 1.0f);
        if (kind == K_NORMAL_TWICE)
            sim_torchgen_normal_f32(&g, buf + n, n, 0.0f, 1.0f);
    }
    for (size_t i = 0; i < m; i++)
        bad += memcmp(buf + i, *ref + i * 4, 4) != 0;
    *ref += m * 4;
    return bad;
}

static int test_torch_draws(void) {
    int64_t rows[NCASE][3];
    size_t values, bytes = 0;
    make_cases(rows, &values);
    for (int k = 0; k < NCASE; k++)
        bytes += (size_t)(rows[k][0] == K_NORMAL_TWICE ? 2 : 1) * (size_t)rows[k][2] *
                 (rows[k][0] == K_RANDPERM ? 8 : 4);
    char dir[512];
    CHECK_EQ_INT(torchref_tmpdir(dir, sizeof dir), 0);
    CHECK_EQ_INT(torchref_write(dir, "cases.i64", rows, sizeof rows), 0);
    const char *args[] = {dir, NULL};
    int rc = torchref_run("torch_gen_ref.py", args);
    unsigned char *ref = malloc(bytes);
    float *buf = malloc(2 * 100003 * sizeof *buf);
    int64_t *perm = malloc(4096 * sizeof *perm);
    int ok = rc == 0 && ref && buf && perm && torchref_read(dir, "out.bin", ref, bytes) == 0;
    torchref_rmdir(dir);
    size_t bad[4] = {0, 0, 0, 0}, count[4] = {0, 0, 0, 0}, two_round = 0;
    const unsigned char *at = ref;
    for (int k = 0; ok && k < NCASE; k++) {
        int64_t kind = rows[k][0];
        bad[kind] += compare_case(rows[k], &at, buf, perm, &two_round);
        count[kind] += kind == K_RANDPERM ? 1 : (size_t)(kind == K_NORMAL_TWICE ? 2 : 1) *
                                                    (size_t)rows[k][2];
    }
    free(ref);
    free(buf);
    free(perm);
    CHECK(ok);
    printf("uniform_: %zu of %zu values differ (two roundings instead of one: %zu)\n", bad[0],
           count[0], two_round);
    printf("normal_: %zu of %zu values differ\n", bad[1] + bad[2], count[1] + count[2]);
    printf("randperm: %zu of %zu permutations differ\n", bad[3], count[3]);
    CHECK(bad[0] == 0 && bad[1] == 0 && bad[2] == 0 && bad[3] == 0);
    CHECK(two_round > 0);
    return 0;
}

int main(int argc, char **argv) {
    int failures = 0;
    if (argc > 1 && strcmp(argv[1], "torch") == 0) {
        if (!torchref_available())
            return 77;
        RUN(test_torch_draws);
        return failures ? 1 : 0;
    }
    RUN(test_engine);
    RUN(test_uniform);
    RUN(test_randperm);
    RUN(test_normal);
    RUN(test_sampler);
    return failures ? 1 : 0;
}
