// tests/test_model_flash.c: the phantom model's attention and activations
// against closed forms computed here, not by the code under test:
//   - activation memory after forward, for shapes across widths, heads,
//     sequences and micro-batches, against Korthikanti et al. 2022 ("Reducing
//     Activation Recomputation in Large Transformer Models", section 4, 16-bit
//     activations, t = 1): per layer sbh(34 + 5as/h) with no
//     checkpointing, sbh x 34 with selective recomputation, 2sbh kept with
//     full checkpointing; with flash attention sbh x 34 + 4abs (the scores
//     replaced by the kernel's fp32 log-sum-exp per row and head);
//   - the flash kernel's FLOPs (causal pairs x (4hs + 5) forward, x (10hs +
//     8) backward: the recomputed Q K^T is the fifth product) and its time,
//     the roofline of those FLOPs on the 16-bit tensor cores against its IO
//     (Q, K, V, O and the log-sum-exp; grouped-query K and V at their own
//     size);
//   - selective recomputation under flash recomputes nothing.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cost/cost.h"
#include "test_model_util.h"

static SimModel *create(SimRank *r, const char *text, int max_batch) {
    SimModelSpec spec;
    char err[512];
    SimModel *m = NULL;
    if (sim_model_parse(text, &spec, err, sizeof err) != SIM_OK) {
        fprintf(stderr, "%s\n", err);
        return NULL;
    }
    if (sim_model_create(r, &spec, max_batch, 1, &m) != SIM_OK)
        fprintf(stderr, "create: %s\n", r->error);
    return m;
}

// One forward and backward of b x s tokens in bf16; 1 when both ran.
static int step(SimRank *r, SimModel *m, int b, int s) {
    SimBatch bt;
    memset(&bt, 0, sizeof bt);
    bt.n = b;
    bt.seq = s;
    float loss;
    return sim_model_forward(r, m, &bt, 0, SIM_BF16, &loss) == SIM_OK &&
           sim_model_backward(r, m, 1.0f, NULL, NULL) == SIM_OK;
}

// ----------------------------------------------------------------------------
// activations against the paper

// Forward alone, then backward: what forward left charged.
static int64_t charged_by_forward(SimRank *r, SimModel *m, int b, int s) {
    SimBatch bt;
    memset(&bt, 0, sizeof bt);
    bt.n = b;
    bt.seq = s;
    float loss;
    int64_t before = r->mem.cur[SIM_MEM_DEVICE][SIM_MEM_ACT];
    if (sim_model_forward(r, m, &bt, 0, SIM_BF16, &loss) != SIM_OK)
        return -1;
    int64_t held = r->mem.cur[SIM_MEM_DEVICE][SIM_MEM_ACT] - before;
    if (sim_model_backward(r, m, 1.0f, NULL, NULL) != SIM_OK)
        return -1;
    if (r->mem.cur[SIM_MEM_DEVICE][SIM_MEM_ACT] != before)
        return -2; // backward must free everything forward stored
    return held;
}

static int test_korthikanti(SimRank *r) {
    // GPT-3's layer as the paper counts it: biases, a GELU MLP of 4h,
    // dropout after attention, its projection and the MLP
    static const struct {
        int L, h, a, s, b, V;
    } shapes[] = {
        {2, 512, 8, 256, 4, 1000},   {3, 1024, 16, 1024, 2, 5000}, {2, 2048, 16, 2048, 1, 8000},
        {1, 768, 12, 512, 8, 50257}, {4, 256, 4, 128, 16, 300},
    };
    static const char *const ck[3] = {"none", "selective", "full"};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        int64_t L = shapes[i].L, h = shapes[i].h, a = shapes[i].a, s = shapes[i].s,
                b = shapes[i].b, V = shapes[i].V;
        int64_t sbh = s * b * h;
        // outside the layers: the embedding's dropout mask (sbh), the final
        // norm's input and output (2 x 2sbh), the fp32 logits (4sbV)
        int64_t outside = sbh + 4 * sbh + 4 * s * b * V;
        int64_t want[2][3] = {
            // eager: sbh(34 + 5as/h), 34 sbh, 2 sbh
            {L * (34 * sbh + 5 * a * s * s * b), L * 34 * sbh, L * 2 * sbh},
            // flash: the scores' 5as/h becomes 4 bytes per row and head
            {L * (34 * sbh + 4 * a * s * b), L * (34 * sbh + 4 * a * s * b), L * 2 * sbh},
        };
        // triton: the same fused algorithm, the same memory as flash
        static const char *const kernel[3] = {"eager", "flash", "triton"};
        for (int f = 0; f < 3; f++)
            for (int k = 0; k < 3; k++) {
                char text[256];
                snprintf(text, sizeof text,
                         "gpt:layers=%d,embd=%d,heads=%d,ctx=%d,vocab=%d,bias=all,dropout,"
                         "ckpt=%s,attn=%s", shapes[i].L, shapes[i].h, shapes[i].a, shapes[i].s,
                         shapes[i].V, ck[k], kernel[f]);
                SimModel *m = create(r, text, shapes[i].b);
                CHECK(m != NULL);
                int64_t got = charged_by_forward(r, m, shapes[i].b, shapes[i].s);
                sim_model_destroy(r, m);
                int64_t paper = want[f ? 1 : 0][k] + outside;
                if (got != paper)
                    fprintf(stderr, "%s b=%d: %lld bytes, the paper's %lld\n", text,
                            shapes[i].b, (long long)got, (long long)paper);
                CHECK_EQ_INT(got, paper);
            }
    }
    return 0;
}

// ----------------------------------------------------------------------------
// the kernel's FLOPs and time

typedef struct {
    double flops, seconds;
    size_t n;
} Events;

static Events events_named(SimRank *r, size_t from, const char *name) {
    const SimTrace *tr = r->world->trace;
    size_t n = sim_trace_rank_count(tr, r->rank);
    const SimEvent *ev = sim_trace_rank_events(tr, r->rank);
    Events e = {0, 0, 0};
    for (size_t i = from; i < n; i++)
        if (ev[i].kind == SIM_EV_COMPUTE && strcmp(ev[i].name, name) == 0) {
            e.flops += (double)ev[i].count;
            e.seconds += ev[i].sim_end - ev[i].sim_start;
            e.n++;
        }
    return e;
}

// The roofline the cost model prices a fused attention kernel by
// (sim/cost/cost.h): the 16-bit peak at the device's attention efficiency.
static double roofline(const SimDeviceProfile *d, double flops, double bytes) {
    double tm = flops / d->peak_lowp_flops, tb = bytes / d->mem_bw_Bps;
    double eff = d->attn_efficiency > 0 ? d->attn_efficiency : d->efficiency;
    return (tm > tb ? tm : tb) / eff + d->launch_s;
}

// Query-key pairs a causal kernel of 128-row query blocks computes for one
// head (sim/model/model_flash.c): whole 128 x 128 tiles down to the diagonal,
// nb (nb + 1) / 2 of them for nb = s / 128 blocks; a sequence shorter than a
// block computes 128 rows against its keys (64-key blocks). By hand: 2048
// tokens 2,228,224 pairs where 2,098,176 are needed, 512 163,840 (131,328).
static double tiled_pairs(int s) {
    if (s % 128 == 0)
        return 128.0 * 128 * (s / 128) * (s / 128 + 1) / 2;
    CHECK(s == 64);
    return 128.0 * 64;
}

static int check_kernel(SimRank *r, const char *text, int L, int b, int s, int C, int H,
                        int Ckv) {
    SimModel *m = create(r, text, b);
    CHECK(m != NULL);
    size_t from = sim_trace_rank_count(r->world->trace, r->rank);
    int ok = step(r, m, b, s);
    sim_model_destroy(r, m);
    CHECK(ok);
    Events fwd = events_named(r, from, "flash_attention_fwd");
    Events bwd = events_named(r, from, "flash_attention_bwd");
    Events eager = events_named(r, from, "attention_fwd");
    CHECK_EQ_INT(fwd.n, L);
    CHECK_EQ_INT(bwd.n, L);
    CHECK_EQ_INT(eager.n, 0);
    double pairs = (double)b * H * tiled_pairs(s), hs = (double)C / H;
    CHECK_NEAR(fwd.flops / L, pairs * (4 * hs + 5), 1);
    CHECK_NEAR(bwd.flops / L, pairs * (10 * hs + 8), 1);
    // IO in bf16: Q and O [b, s, C], K and V [b, s, Ckv]; fp32 per row and head
    double q = 2.0 * b * s * C, kv = 2.0 * 2 * b * s * Ckv, rows = 4.0 * b * H * s;
    const SimDeviceProfile *d = sim_cost_device(&r->world->cost);
    CHECK(d->attn_efficiency > 0 && d->attn_efficiency < d->efficiency);
    CHECK_NEAR(fwd.seconds / L, roofline(d, pairs * (4 * hs + 5), 2 * q + kv + rows), 1e-12);
    CHECK_NEAR(bwd.seconds / L, roofline(d, pairs * (10 * hs + 8), 4 * q + 2 * kv + 3 * rows),
               1e-12);
    printf("  %s b=%d s=%d: flash forward %.4g s, backward %.4g s a layer\n", text, b, s,
           fwd.seconds / L, bwd.seconds / L);
    return 0;
}

static int test_kernel(SimRank *r) {
    CHECK(r->world->trace != NULL);
    // multi-head: K and V as wide as Q
    CHECK_EQ_INT(check_kernel(r, "gpt:layers=2,embd=1024,heads=16,ctx=2048,vocab=100,attn=flash",
                              2, 2, 2048, 1024, 16, 1024), 0);
    // grouped-query: 8 key/value heads of 64 for 32 query heads
    CHECK_EQ_INT(check_kernel(r, "gpt:layers=2,embd=2048,heads=32,ctx=512,vocab=100,"
                              "kv_heads=8,attn=flash", 2, 4, 512, 2048, 32, 512), 0);
    // a short sequence: IO-bound rather than bound by the products
    CHECK_EQ_INT(check_kernel(r, "gpt:layers=1,embd=4096,heads=32,ctx=64,vocab=100,"
                              "kv_heads=4,attn=flash", 1, 1, 64, 4096, 32, 512), 0);
    // selective recomputation has no scores to recompute under flash: one
    // forward kernel a layer, as without checkpointing
    SimModel *m = create(r, "gpt:layers=3,embd=256,heads=4,ctx=128,vocab=100,ckpt=selective,"
                            "attn=flash", 1);
    CHECK(m != NULL);
    size_t from = sim_trace_rank_count(r->world->trace, r->rank);
    int ok = step(r, m, 1, 128);
    sim_model_destroy(r, m);
    CHECK(ok);
    CHECK_EQ_INT(events_named(r, from, "flash_attention_fwd").n, 3);
    return 0;
}

// The Triton kernel: the same tiles and FLOPs as flash, at half its rate
// (sim/cost/cost.h, SIM_COST_TRITON_SHARE), on a shape long enough to be
// bound by the products.
static int test_triton(SimRank *r) {
    static const char *const text[2] = {
        "gpt:layers=1,embd=1024,heads=8,ctx=4096,vocab=100,attn=flash",
        "gpt:layers=1,embd=1024,heads=8,ctx=4096,vocab=100,attn=triton"};
    Events fwd[2], bwd[2];
    for (int k = 0; k < 2; k++) {
        SimModel *m = create(r, text[k], 1);
        CHECK(m != NULL);
        size_t from = sim_trace_rank_count(r->world->trace, r->rank);
        int ok = step(r, m, 1, 4096);
        sim_model_destroy(r, m);
        CHECK(ok);
        fwd[k] = events_named(r, from, "flash_attention_fwd");
        bwd[k] = events_named(r, from, "flash_attention_bwd");
        CHECK_EQ_INT(fwd[k].n, 1);
        CHECK_EQ_INT(bwd[k].n, 1);
    }
    double hs = 128, pairs = 8 * tiled_pairs(4096);
    const SimDeviceProfile *d = sim_cost_device(&r->world->cost);
    double eff = d->attn_efficiency * 0.5;
    CHECK_NEAR(fwd[1].flops, fwd[0].flops, 0);
    CHECK_NEAR(bwd[1].flops, pairs * (10 * hs + 8), 1);
    CHECK_NEAR(fwd[1].seconds, pairs * (4 * hs + 5) / d->peak_lowp_flops / eff + d->launch_s,
               1e-12);
    CHECK_NEAR(bwd[1].seconds - d->launch_s, 2 * (bwd[0].seconds - d->launch_s), 1e-12);
    printf("  triton against flash at 4096 tokens: forward %.4g s vs %.4g s\n", fwd[1].seconds,
           fwd[0].seconds);
    return 0;
}

static int all(SimRank *r) {
    return test_korthikanti(r) || test_kernel(r) || test_triton(r);
}

int main(void) {
    TModelRun run = {"flash attention", all};
    if (tmodel_run(&run) != 0)
        return 1;
    printf("flash attention and activations: all checks passed\n");
    return 0;
}
