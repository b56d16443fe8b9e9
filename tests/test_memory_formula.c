// tests/test_memory_formula.c: the closed forms of sim/cost/memory_formula.h
// against every number reference/semantics.md section 3 gives for them
// (items 1, 2, 4, 5, 6 and 11): the ZeRO paper's Figure 1 and Table 1 as the
// paper rounds them, bytes per parameter at N = 32, Megatron's distributed
// optimizer, DeepSpeed's estimators on t5-small, and the no_sync gradient
// memory; then FSDP's padding and the plans sim_memf_fit compares.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "cost/memory_formula.h"

// The ZeRO paper's rounding in Table 1: two decimals below 10, one below
// 100, whole GB (cut, not rounded: 513.5 -> 513, 4187.5 -> 4187) above;
// halves round up below 100 (41.25 -> 41.3); trailing zeros dropped.
static const char *paper(double gb, char *buf, size_t len) {
    if (gb >= 100) {
        snprintf(buf, len, "%.0f", floor(gb));
        return buf;
    }
    double scale = gb < 10 ? 100 : 10;
    snprintf(buf, len, gb < 10 ? "%.2f" : "%.1f", floor(gb * scale + 0.5) / scale);
    char *dot = strchr(buf, '.');
    if (dot) {
        char *end = buf + strlen(buf) - 1;
        while (end > dot && *end == '0')
            *end-- = '\0';
        if (end == dot)
            *end = '\0';
    }
    return buf;
}

// Figure 1: Ψ = 7.5B, N_d = 64, K = 12.
static int test_zero_figure1(void) {
    SimMemfBytes b = sim_memf_mixed_adam();
    CHECK_NEAR(sim_memf_total(b), 16, 0);
    double psi = 7.5e9;
    CHECK_NEAR(sim_memf_zero(SIM_MEMF_STAGE0, psi, 64, b), 120e9, 0);
    CHECK_NEAR(sim_memf_zero(SIM_MEMF_ZERO1, psi, 64, b), 31.40625e9, 1);
    CHECK_NEAR(sim_memf_zero(SIM_MEMF_ZERO2, psi, 64, b), 16.640625e9, 1);
    CHECK_NEAR(sim_memf_zero(SIM_MEMF_ZERO3, psi, 64, b), 1.875e9, 1);
    char s[32];
    CHECK(strcmp(paper(sim_memf_zero(SIM_MEMF_ZERO1, psi, 64, b) / 1e9, s, sizeof s), "31.4") == 0);
    CHECK(strcmp(paper(sim_memf_zero(SIM_MEMF_ZERO2, psi, 64, b) / 1e9, s, sizeof s), "16.6") == 0);
    // The figure prints the last as 1.9 GB (one decimal).
    snprintf(s, sizeof s, "%.1f", sim_memf_zero(SIM_MEMF_ZERO3, psi, 64, b) / 1e9);
    CHECK(strcmp(s, "1.9") == 0);
    return 0;
}

// Table 1: per-device GB, P_os / P_os+g / P_os+g+p.
static int test_zero_table1(void) {
    static const int dps[6] = {1, 4, 16, 64, 256, 1024};
    static const double psis[3] = {7.5e9, 128e9, 1e12};
    static const char *const want[6][3][3] = {
        {{"120", "120", "120"}, {"2048", "2048", "2048"}, {"16000", "16000", "16000"}},
        {{"52.5", "41.3", "30"}, {"896", "704", "512"}, {"7000", "5500", "4000"}},
        {{"35.6", "21.6", "7.5"}, {"608", "368", "128"}, {"4750", "2875", "1000"}},
        {{"31.4", "16.6", "1.88"}, {"536", "284", "32"}, {"4187", "2218", "250"}},
        {{"30.4", "15.4", "0.47"}, {"518", "263", "8"}, {"4046", "2054", "62.5"}},
        {{"30.1", "15.1", "0.12"}, {"513", "257", "2"}, {"4011", "2013", "15.6"}},
    };
    static const SimMemfStage stages[3] = {SIM_MEMF_ZERO1, SIM_MEMF_ZERO2, SIM_MEMF_ZERO3};
    SimMemfBytes b = sim_memf_mixed_adam();
    char got[32];
    for (int i = 0; i < 6; i++)
        for (int m = 0; m < 3; m++)
            for (int k = 0; k < 3; k++) {
                double gb = sim_memf_zero(stages[k], psis[m], dps[i], b) / 1e9;
                paper(gb, got, sizeof got);
                if (strcmp(got, want[i][m][k]) != 0) {
                    fprintf(stderr, "DP %d, %g params, stage %d: %s (%.6g GB), want %s\n",
                            dps[i], psis[m], k + 1, got, gb, want[i][m][k]);
                    return 1;
                }
            }
    return 0;
}

// Bytes per parameter at N = 32 (16-byte budget): 16 -> 4.375 -> 2.4375 -> 0.5;
// and section 4's formulas for fp32 training.
static int test_bytes_per_param(void) {
    SimMemfBytes b = sim_memf_mixed_adam();
    CHECK_NEAR(sim_memf_zero(SIM_MEMF_STAGE0, 1, 32, b), 16, 0);
    CHECK_NEAR(sim_memf_zero(SIM_MEMF_ZERO1, 1, 32, b), 4.375, 0);
    CHECK_NEAR(sim_memf_zero(SIM_MEMF_ZERO2, 1, 32, b), 2.4375, 0);
    CHECK_NEAR(sim_memf_zero(SIM_MEMF_ZERO3, 1, 32, b), 0.5, 0);
    // DDP in fp32: Adam 16 bytes per parameter, SGD with momentum 12, SGD 8.
    CHECK_NEAR(sim_memf_zero(SIM_MEMF_STAGE0, 1, 8, sim_memf_fp32(SIM_MEMF_ADAM)), 16, 0);
    CHECK_NEAR(sim_memf_zero(SIM_MEMF_STAGE0, 1, 8, sim_memf_fp32(SIM_MEMF_SGD_MOMENTUM)), 12, 0);
    CHECK_NEAR(sim_memf_zero(SIM_MEMF_STAGE0, 1, 8, sim_memf_fp32(SIM_MEMF_SGD)), 8, 0);
    return 0;
}

// Megatron-LM's distributed optimizer: 20 -> 4 + 16/d; 18 -> 6 + 12/d;
// 16 -> 8 + 8/d.
static int test_megatron(void) {
    CHECK_NEAR(sim_memf_megatron(SIM_MEMF_MEGATRON_FP16, 1), 20, 0);
    CHECK_NEAR(sim_memf_megatron(SIM_MEMF_MEGATRON_BF16, 1), 18, 0);
    CHECK_NEAR(sim_memf_megatron(SIM_MEMF_MEGATRON_FP32, 1), 16, 0);
    for (int d = 2; d <= 1024; d *= 2) {
        CHECK_NEAR(sim_memf_megatron(SIM_MEMF_MEGATRON_FP16, d), 4 + 16.0 / d, 1e-12);
        CHECK_NEAR(sim_memf_megatron(SIM_MEMF_MEGATRON_BF16, d), 6 + 12.0 / d, 1e-12);
        CHECK_NEAR(sim_memf_megatron(SIM_MEMF_MEGATRON_FP32, d), 8 + 8.0 / d, 1e-12);
    }
    CHECK_NEAR(sim_memf_megatron(SIM_MEMF_MEGATRON_FP16, 8), 6, 0);
    return 0;
}

// DeepSpeed prints "%.2fGB" of GiB (2^30).
static const char *gib(double bytes, char *buf, size_t len) {
    snprintf(buf, len, "%.2fGB", bytes / 1073741824.0);
    return buf;
}

// DeepSpeed's estimators. t5-small: 60,506,624 parameters, the largest
// layer the shared 32128 x 512 embedding (16,449,536), 1 GPU on 1 node:
// `0.09GB | 1.08GB` (no offload, zero_init=1) and `1.52GB | 0.06GB` (both
// offloads), CPU first.
static int test_deepspeed(void) {
    const double psi = 60506624, largest = 32128.0 * 512;
    const double f = SIM_MEMF_DS_BUFFER_FACTOR;
    char c[32], g[32];
    SimMemfEstimate e = sim_memf_ds_zero3(psi, largest, 1, 1, 0, 0, 1, f);
    CHECK(strcmp(gib(e.cpu, c, sizeof c), "0.09GB") == 0);
    CHECK(strcmp(gib(e.gpu, g, sizeof g), "1.08GB") == 0);
    CHECK_NEAR(e.gpu, 4 * largest + floor(18 * psi), 0); // 4 x largest + 18Ψ/N
    e = sim_memf_ds_zero3(psi, largest, 1, 1, 1, 1, 1, f);
    CHECK(strcmp(gib(e.cpu, c, sizeof c), "1.52GB") == 0);
    CHECK(strcmp(gib(e.gpu, g, sizeof g), "0.06GB") == 0);
    // The estimator's other rows for the same model: optimizer offload only,
    // and no offload without zero_init.
    e = sim_memf_ds_zero3(psi, largest, 1, 1, 1, 0, 1, f);
    CHECK(strcmp(gib(e.cpu, c, sizeof c), "1.35GB") == 0);
    CHECK(strcmp(gib(e.gpu, g, sizeof g), "0.17GB") == 0);
    e = sim_memf_ds_zero3(psi, largest, 1, 1, 0, 0, 0, f);
    CHECK(strcmp(gib(e.cpu, c, sizeof c), "0.34GB") == 0);
    CHECK(strcmp(gib(e.gpu, g, sizeof g), "1.08GB") == 0);
    // ZeRO-3 on 8 GPUs: 4 x largest + 18Ψ/8.
    e = sim_memf_ds_zero3(1e9, 1e8, 8, 1, 0, 0, 1, f);
    CHECK_NEAR(e.gpu, 4e8 + 18e9 / 8, 0);
    // ZeRO-2: 2Ψ + 18Ψ/N; offloaded, 2Ψ on the GPU and Ψ x max(4N, 16) x 1.5.
    e = sim_memf_ds_zero2(1e9, 8, 1, 0, f);
    CHECK_NEAR(e.gpu, 2e9 + 18e9 / 8, 0);
    e = sim_memf_ds_zero2(1e9, 8, 1, 1, f);
    CHECK_NEAR(e.gpu, 2e9, 0);
    CHECK_NEAR(e.cpu, 1e9 * 32 * 1.5, 0);
    e = sim_memf_ds_zero2(1e9, 2, 1, 1, f);
    CHECK_NEAR(e.cpu, 1e9 * 16 * 1.5, 0);
    return 0;
}

// no_sync: 26B parameters, 16 GPUs, bf16 gradients: sharded 3.25 GB per
// rank, unsharded 52 GB.
static int test_no_sync(void) {
    CHECK_NEAR(sim_memf_grads(26e9, 2, 16, 1), 3.25e9, 0);
    CHECK_NEAR(sim_memf_grads(26e9, 2, 16, 0), 52e9, 0);
    return 0;
}

// FSDP pads each unit to a multiple of N: 16(Ψ + padding)/N for fp32 Adam.
static int test_fsdp_padding(void) {
    CHECK_EQ_INT(sim_memf_shard_numel(10, 4), 3);
    CHECK_EQ_INT(sim_memf_shard_numel(12, 4), 3);
    CHECK_EQ_INT(sim_memf_shard_numel(0, 4), 0);
    CHECK_EQ_INT(sim_memf_shard_numel(7, 1), 7);
    const uint64_t units[3] = {10, 7, 3}; // padded to 12, 8, 4: 24 elements, 6 per rank
    SimMemfBytes b = sim_memf_fp32(SIM_MEMF_ADAM);
    CHECK_NEAR(sim_memf_fsdp_full_shard(units, 3, 4, b), 16.0 * 6, 0);
    CHECK_NEAR(sim_memf_fsdp_full_shard(units, 3, 4, b), 16.0 * (20 + 4) / 4, 0);
    // Without padding it is ZeRO-3's (p + g + K)Ψ/N.
    const uint64_t even[2] = {40, 24};
    CHECK_NEAR(sim_memf_fsdp_full_shard(even, 2, 8, b), sim_memf_zero(SIM_MEMF_ZERO3, 64, 8, b),
               0);
    return 0;
}

// What would fit: a model of 1e9 parameters in fp32 Adam (16 GB of model
// states), its largest layer 1e8, on 8 ranks of 6 GB.
static int test_fit(void) {
    SimMemfQuery q;
    memset(&q, 0, sizeof q);
    q.psi = 1e9;
    q.largest_unit = 1e8;
    q.nranks = 8;
    q.capacity = 6e9;
    q.bytes = sim_memf_fp32(SIM_MEMF_ADAM);
    q.act_bytes = 1e9;
    q.other_bytes = 1e8;
    q.bucket_bytes = 4e9;
    q.batch = 16;
    SimMemfFit f[SIM_MEMF_PLAN_COUNT];
    int fits = sim_memf_fit(&q, f);
    // DDP: 16 GB of states + 4 GB of buckets; ZeRO-1: 8 + 1; ZeRO-2: 4 +
    // 1.5 + 0.4 for a layer's gradient; FULL_SHARD: 2 + 0.8 for the gathered
    // layer; offloaded: 0.8 on the device and 2 GB of host memory.
    CHECK_NEAR(f[SIM_MEMF_PLAN_DDP].states, 16e9, 0);
    CHECK_NEAR(f[SIM_MEMF_PLAN_DDP].device, 16e9 + 4e9 + 1.1e9, 1);
    CHECK(!f[SIM_MEMF_PLAN_DDP].fits && !f[SIM_MEMF_PLAN_DDP_VIEW].fits);
    CHECK_NEAR(f[SIM_MEMF_PLAN_ZERO1].states, 8e9 + 1e9, 1);
    CHECK(!f[SIM_MEMF_PLAN_ZERO1].fits);
    CHECK_NEAR(f[SIM_MEMF_PLAN_ZERO2].states, 4e9 + 1.5e9, 1);
    CHECK_NEAR(f[SIM_MEMF_PLAN_ZERO2].transient, 4e8, 0);
    CHECK(!f[SIM_MEMF_PLAN_ZERO2].fits); // 5.5 + 0.4 + 1.1 = 7 GB
    CHECK_NEAR(f[SIM_MEMF_PLAN_FULL_SHARD].states, 2e9, 0);
    CHECK_NEAR(f[SIM_MEMF_PLAN_FULL_SHARD].transient, 8e8, 0);
    CHECK(f[SIM_MEMF_PLAN_FULL_SHARD].fits);
    CHECK_NEAR(f[SIM_MEMF_PLAN_OFFLOAD].host, 2e9, 0);
    CHECK_NEAR(f[SIM_MEMF_PLAN_OFFLOAD].device, 8e8 + 1.1e9, 1);
    CHECK(f[SIM_MEMF_PLAN_OFFLOAD].fits);
    CHECK_EQ_INT(fits, 2);
    // More ranks: ZeRO-2 needs 4 + 0.75 + 0.4 + 1.1 = 6.25 GB on 16 ranks,
    // 4 + 0.375 + 0.4 + 1.1 = 5.875 GB on 32.
    CHECK_EQ_INT(sim_memf_min_ranks(&q, SIM_MEMF_PLAN_ZERO2, 4096), 32);
    CHECK_EQ_INT(sim_memf_min_ranks(&q, SIM_MEMF_PLAN_FULL_SHARD, 4096), 8);
    CHECK_EQ_INT(sim_memf_min_ranks(&q, SIM_MEMF_PLAN_DDP, 4096), 0); // never shards
    // A smaller micro-batch: on 8 ranks ZeRO-2 holds 6 GB besides the
    // activations (1e9 / 16 bytes per sample): none fit in 6 GB, 8 in 6.55.
    CHECK_EQ_INT(sim_memf_max_batch(&q, SIM_MEMF_PLAN_ZERO2), 0);
    CHECK_EQ_INT(sim_memf_max_batch(&q, SIM_MEMF_PLAN_DDP), 0);
    q.capacity = 6.55e9;
    CHECK_EQ_INT(sim_memf_max_batch(&q, SIM_MEMF_PLAN_ZERO2), 8);
    q.capacity = 6.5e9; // exactly 8 samples' worth
    CHECK_EQ_INT(sim_memf_max_batch(&q, SIM_MEMF_PLAN_ZERO2), 8);
    q.capacity = 1e12; // everything fits: the largest batch below 16
    CHECK_EQ_INT(sim_memf_max_batch(&q, SIM_MEMF_PLAN_DDP), 15);
    q.capacity = 6e9;

    // The seeds' example: one 8 GB layer (2e9 fp32 parameters) on 6 GB
    // GPUs. FSDP computes a unit whole, so nothing fits on any number of
    // ranks, offload included.
    q.psi = 4e9;
    q.largest_unit = 2e9;
    q.capacity = 6e9;
    q.act_bytes = 0;
    q.other_bytes = 0;
    CHECK_EQ_INT(sim_memf_fit(&q, f), 0);
    for (int p = 0; p < SIM_MEMF_PLAN_COUNT; p++)
        CHECK_EQ_INT(sim_memf_min_ranks(&q, (SimMemfPlan)p, 65536), 0);
    CHECK_NEAR(f[SIM_MEMF_PLAN_OFFLOAD].device, 16e9, 0); // the layer and its gradient
    CHECK(strcmp(sim_memf_plan_name(SIM_MEMF_PLAN_FULL_SHARD), "FULL_SHARD (ZeRO-3)") == 0);
    return 0;
}

int main(void) {
    int failures = 0;
    RUN(test_zero_figure1);
    RUN(test_zero_table1);
    RUN(test_bytes_per_param);
    RUN(test_megatron);
    RUN(test_deepspeed);
    RUN(test_no_sync);
    RUN(test_fsdp_padding);
    RUN(test_fit);
    return failures ? 1 : 0;
}
