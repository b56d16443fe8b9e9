// tests/test_fp16_hook_torch.c: the half-precision all_reduce of simulated
// ranks, and DDP's fp16 communication hook, bit for bit against gloo's (the
// CPU all_reduce of PyTorch 1.13) on 3, 4 and 5 ranks.
//
// For each R, tests/conformance/gloo_fp16_ref.py runs R gloo processes and
//   - all_reduces (SUM) fp16 tensors: the [1, 2^-11, 2^-11] pattern of
//     test_cpu_rounding and random values from 2^-5 to 4 of either sign, on
//     buffers of 1 to 70,001 elements (on 3 ranks also 3.5 million, whose 7
//     MB need 9 of gloo's 1 MiB segments: 3 per chunk), which ddplab's
//     default all_reduce (auto: the direct pass) must equal;
//   - runs one backward of DistributedDataParallel with
//     default_hooks.fp16_compress_hook over one flat parameter whose local
//     gradient on rank r is ddplab's local gradient of rank r at step 1 of
//     `--strategy ddp --comm-hook fp16` (mlp:16,32,32,4: its first bucket
//     holds every parameter in order), and the hook's result must equal
//     ddplab's synchronised gradient.
// Exits 77 (skipped) where torch cannot be imported.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "engine/comm.h"
#include "engine/ops.h" // defines: sim_tensor_download
#include "test_ddp_util.h"
#include "test_files.h"
#include "test_world.h"
#include "torch_ref.h"

#define NCASES 7
#define BIG 3500000

typedef struct {
    int R;
    size_t counts[NCASES];
    int ncases;
    size_t total;    // sum of counts
    uint16_t *in;    // case after case, each [R][count]
    uint16_t *out;   // case after case, [R][count]: every rank's result
    SimStatus st[8];
} Cases;

static SimStatus ar_rank(SimRank *r, void *arg) {
    Cases *c = arg;
    size_t at = 0;
    SimStatus st = SIM_OK;
    for (int k = 0; st == SIM_OK && k < c->ncases; k++) {
        size_t n = c->counts[k];
        uint16_t *mine = c->out + at + (size_t)r->rank * n;
        memcpy(mine, c->in + at + (size_t)r->rank * n, n * sizeof *mine);
        st = sim_all_reduce(r, mine, mine, n, SIM_FP16, SIM_SUM, SIM_ALGO_AUTO); // in place
        at += (size_t)c->R * n;
    }
    c->st[r->rank] = st;
    return st;
}

// Random fp16 values within a few binades of each other: a sign, a
// mantissa in [0.5, 1) and a binary exponent from -4 to 2. Where a rank's
// own value is 2^11 or more times smaller than the partial sum it receives,
// the gloo of Debian's torch 1.13 sometimes returns something else than the
// rounded sum (2^-24 + 1.0 gives 2^-24), which ddplab does not copy
// (docs/exactness.md); such values are left out here.
static uint16_t random_half(uint64_t *s) {
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    double u = 0.5 + (double)((*s >> 40) & 0xffffff) / (double)0x2000000;
    int e = (int)((*s >> 20) % 7) - 4;
    return sim_f32_to_f16((float)ldexp((*s >> 63) ? -u : u, e));
}

static int make_cases(Cases *c, int R) {
    static const size_t counts[] = {9, 1, 2, 1000, 4099, 70001};
    memset(c, 0, sizeof *c);
    c->R = R;
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++)
        c->counts[c->ncases++] = counts[k];
    if (R == 3)
        c->counts[c->ncases++] = BIG;
    for (int k = 0; k < c->ncases; k++)
        c->total += c->counts[k];
    c->in = malloc(c->total * (size_t)R * sizeof *c->in);
    c->out = malloc(c->total * (size_t)R * sizeof *c->out);
    CHECK(c->in && c->out);
    uint64_t s = 0x5eed0000u + (uint64_t)R;
    for (int q = 0; q < R; q++) // case 0: element i's 1.0 on rank i % R, 2^-11 elsewhere
        for (size_t i = 0; i < 9; i++)
            c->in[(size_t)q * 9 + i] = (int)(i % (size_t)R) == q ? 0x3c00 : 0x1000;
    for (size_t i = 9 * (size_t)R; i < c->total * (size_t)R; i++)
        c->in[i] = random_half(&s);
    return 0;
}

static int compare_all_reduce(const Cases *c, const uint16_t *ref) {
    size_t at = 0, ref_at = 0, differ = 0;
    for (int k = 0; k < c->ncases; k++) {
        size_t n = c->counts[k];
        for (size_t i = 0; i < n; i++)
            for (int q = 0; q < c->R; q++)
                if (c->out[at + (size_t)q * n + i] != ref[ref_at + i]) {
                    if (differ++ < 5)
                        fprintf(stderr, "  R=%d, %zu elements, [%zu] on rank %d: 0x%04x, gloo "
                                "0x%04x (inputs 0x%04x 0x%04x 0x%04x ...)\n", c->R, n, i, q,
                                c->out[at + (size_t)q * n + i], ref[ref_at + i],
                                c->in[at + i], c->in[at + n + i], c->in[at + 2 * n + i]);
                }
        at += (size_t)c->R * n;
        ref_at += n;
    }
    printf("  R=%d: %d all_reduces, %zu elements, %zu (rank, element) pairs differ from gloo\n",
           c->R, c->ncases, c->total, differ);
    return differ == 0 ? 0 : 1;
}

// ----------------------------------------------------------------------------
// the hook: ddplab's local and synchronised gradients of step 1

typedef struct {
    int R;
    size_t n;
    float *local;   // [R][n]
    float *synced;  // [R][n]
} Grads;

static SimStatus grab(void *arg, const SimTrainer *t, SimTrainStage stage, int param) {
    Grads *g = arg;
    const SimModel *m = t->model;
    if (t->step != 0 || (stage != SIM_STAGE_GRAD_LOCAL && stage != SIM_STAGE_GRAD_SYNCED))
        return SIM_OK;
    size_t off = stage == SIM_STAGE_GRAD_LOCAL ? m->params[param].offset : 0;
    size_t n = stage == SIM_STAGE_GRAD_LOCAL ? m->params[param].numel : g->n;
    float *dst = (stage == SIM_STAGE_GRAD_LOCAL ? g->local : g->synced) +
                 (size_t)t->rank->rank * g->n + off;
    SimTensor v = m->grad;
    v.data = (float *)m->grad.data + off;
    v.ndim = 1;
    v.shape[0] = (int64_t)n;
    v.charged = 0;
    return sim_tensor_download(t->rank, &v, dst);
}

static int run_hook(int R, Grads *g) {
    SimDataset ds;
    SimModelSpec spec;
    CHECK(tddp_data_mlp(&ds, 512, "mlp:16,32,32,4", &spec) == SIM_OK);
    TddpRun t;
    tddp_config(&t, &ds, &spec, R, 8, 1);
    t.use_ddp = 1;
    t.ddp.comm_hook = SIM_DDP_HOOK_FP16;
    g->R = R;
    g->n = 16 * 32 + 32 + 32 * 32 + 32 + 32 * 4 + 4;
    g->local = calloc((size_t)R * g->n, sizeof(float));
    g->synced = calloc((size_t)R * g->n, sizeof(float));
    CHECK(g->local && g->synced);
    t.cfg.hooks.on_stage = grab;
    t.cfg.hooks.on_stage_arg = g;
    CHECK(tddp_run(&t) == SIM_OK);
    CHECK(t.nparam == g->n);
    tddp_free(&t);
    sim_dataset_free(&ds);
    return 0;
}

static int compare_hook(const Grads *g, const float *ref) {
    size_t differ = 0, moved = 0;
    for (size_t i = 0; i < g->n; i++) {
        for (int q = 0; q < g->R; q++)
            if (memcmp(&g->synced[(size_t)q * g->n + i], &ref[i], sizeof(float)) != 0 &&
                differ++ < 5)
                fprintf(stderr, "  R=%d hook [%zu] on rank %d: %.9g, torch %.9g\n", g->R, i, q,
                        g->synced[(size_t)q * g->n + i], ref[i]);
        moved += g->synced[i] != g->local[i]; // the sync did something
    }
    printf("  R=%d: fp16_compress_hook over %zu gradients, %zu (rank, element) pairs differ "
           "from torch's\n", g->R, g->n, differ);
    CHECK(moved > g->n / 2);
    return differ == 0 ? 0 : 1;
}

// ----------------------------------------------------------------------------

static int run_size(int R) {
    Cases c;
    Grads g;
    CHECK(make_cases(&c, R) == 0);
    CHECK_EQ_INT(tworld_run_cpu(R, 0, ar_rank, &c), SIM_OK);
    CHECK(run_hook(R, &g) == 0);
    char dir[512], rs[8], path[640];
    CHECK_EQ_INT(torchref_tmpdir(dir, sizeof dir), 0);
    int64_t counts[NCASES];
    for (int k = 0; k < c.ncases; k++)
        counts[k] = (int64_t)c.counts[k];
    CHECK_EQ_INT(torchref_write(dir, "ar.cnt.i64", counts, (size_t)c.ncases * sizeof *counts), 0);
    CHECK_EQ_INT(torchref_write(dir, "ar.in.u16", c.in, c.total * (size_t)R * sizeof *c.in), 0);
    CHECK_EQ_INT(torchref_write(dir, "hook.in.f32", g.local, (size_t)R * g.n * sizeof(float)),
                 0);
    snprintf(rs, sizeof rs, "%d", R);
    const char *args[] = {dir, rs, "240", NULL};
    int rc = torchref_run("gloo_fp16_ref.py", args);
    uint16_t *ar = malloc(c.total * sizeof *ar);
    float *hook = malloc(g.n * sizeof *hook);
    CHECK(ar && hook);
    snprintf(path, sizeof path, "%s", dir);
    int got = rc == 0 && torchref_read(path, "ar.out.u16", ar, c.total * sizeof *ar) == 0 &&
              torchref_read(path, "hook.out.f32", hook, g.n * sizeof *hook) == 0;
    torchref_rmdir(dir);
    CHECK_EQ_INT(rc, 0);
    CHECK(got);
    int bad = compare_all_reduce(&c, ar) + compare_hook(&g, hook);
    free(ar);
    free(hook);
    free(c.in);
    free(c.out);
    free(g.local);
    free(g.synced);
    return bad;
}

static int test_against_gloo(void) {
    int bad = 0;
    for (int R = 3; R <= 5; R++)
        bad += run_size(R);
    return bad;
}

int main(void) {
    if (!torchref_available())
        return 77;
    int failures = 0;
    RUN(test_against_gloo);
    return failures ? 1 : 0;
}
