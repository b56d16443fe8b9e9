// tests/test_model_presets.c: the real architectures (sim/model/model_arch.c), the
// presets (sim/model/model_presets.c), the count-only kind, the activation
// formula (sim/model/model_act.c) and the random-token dataset.
//
// - every preset builds in phantom mode on one CPU rank with exactly the
//   published parameter count, and its spec survives a print-parse round trip;
// - the module tree names every block "blocks.N" and covers every parameter;
// - one forward and backward of every preset reports each gradient once,
//   charges the ledger's activations by the formula and frees them all;
// - the matrix products of a forward cost exactly 2 x tokens x the Linear
//   weights (llama2-7b), and the count-only model its stated FLOPs;
// - the activation formula reproduces Korthikanti et al.'s GPT-3 175B and
//   Megatron-1T memory (Calculon's validation, semantics.md 3.15);
// - new options are refused in numeric mode; sim_op_cost refuses storage.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "data/dataset.h"
#include "engine/ops.h"
#include "model/model.h"
#include "test_model_util.h"

#define GIB 1073741824.0

typedef struct {
    const char *name;
    int64_t params;
} Expected;

// The counts the issue asks for (and the model cards give); gpt3-175b is
// the dense GPT-2-style model of Brown et al.'s shape (see model_presets.c).
static const Expected expected[] = {
    {"gpt2", 124439808LL},        {"gpt2-medium", 354823168LL},
    {"gpt2-large", 774030080LL},  {"gpt2-xl", 1557611200LL},
    {"bert-large", 335141888LL},  {"llama2-7b", 6738415616LL},
    {"llama2-13b", 13015864320LL}, {"llama2-70b", 68976648192LL},
    {"llama3-8b", 8030261248LL},  {"llama3-70b", 70553706496LL},
    {"gpt3-175b", 174604259328LL}, {"minigpt", 16880640LL},
    {"resnet50", 25557032LL},
};
#define NEXPECTED ((int)(sizeof expected / sizeof expected[0]))

static SimModel *create(SimRank *r, const SimModelSpec *spec, int max_batch) {
    SimModel *m = NULL;
    if (sim_model_create(r, spec, max_batch, 1, &m) != SIM_OK) {
        fprintf(stderr, "create: %s\n", r->error);
        return NULL;
    }
    return m;
}

// ----------------------------------------------------------------------------
// counts, round trips, module trees

static int check_modules(const SimModel *m) {
    int blocks = 0;
    int *owner = calloc((size_t)m->nparams + 1, sizeof *owner);
    CHECK(owner != NULL);
    for (int k = 1; k < m->nmodules; k++) {
        const SimModuleInfo *mod = &m->modules[k];
        char want[32];
        snprintf(want, sizeof want, "blocks.%d", blocks);
        if (strcmp(mod->name, want) == 0)
            blocks++;
        for (int i = mod->first_param; i < mod->first_param + mod->nparams; i++)
            owner[i]++;
    }
    int ok = 1;
    for (int i = 0; i < m->nparams; i++) // each parameter in exactly one child (or the root)
        ok = ok && owner[i] <= 1;
    free(owner);
    CHECK(ok);
    if (m->spec.kind == SIM_MODEL_GPT)
        CHECK_EQ_INT(blocks, m->spec.layers);
    CHECK_EQ_INT(m->modules[0].nparams, m->nparams);
    return 0;
}

static int test_counts(SimRank *r) {
    CHECK_EQ_INT(sim_model_preset_count(), NEXPECTED);
    for (int i = 0; i < NEXPECTED; i++) {
        SimModelSpec spec, again;
        char text[512], err[512];
        CHECK_EQ_INT(sim_model_preset(expected[i].name, &spec), 0);
        const SimModelPreset *p = NULL;
        for (int k = 0; k < sim_model_preset_count(); k++)
            if (strcmp(sim_model_preset_at(k)->name, expected[i].name) == 0)
                p = sim_model_preset_at(k);
        CHECK(p != NULL);
        CHECK_EQ_INT(p->params, expected[i].params);
        CHECK(p->source && p->source[0]);
        // the bare name is a spec too, and the printed spec reads back the same
        CHECK_EQ_INT(sim_model_parse(expected[i].name, &again, err, sizeof err), SIM_OK);
        CHECK(memcmp(&spec, &again, sizeof spec) == 0);
        sim_model_spec_str(&spec, text, sizeof text);
        CHECK(strcmp(text, p->spec) == 0);
        CHECK_EQ_INT(sim_model_parse(text, &again, err, sizeof err), SIM_OK);
        CHECK(memcmp(&spec, &again, sizeof spec) == 0);
        CHECK_EQ_INT(sim_model_spec_params(&spec), expected[i].params);
        SimModel *m = create(r, &spec, 1);
        CHECK(m != NULL);
        printf("%-12s %15lld parameters, %4d tensors, %3d modules: %s\n", expected[i].name,
               (long long)m->param_count, m->nparams, m->nmodules, p->source);
        int rc = (int64_t)m->param_count == expected[i].params ? check_modules(m) : 1;
        if ((int64_t)m->param_count != expected[i].params)
            fprintf(stderr, "%s: %zu parameters, expected %lld\n", expected[i].name,
                    m->param_count, (long long)expected[i].params);
        sim_model_destroy(r, m);
        CHECK_EQ_INT(rc, 0);
    }
    SimModelSpec s;
    CHECK_EQ_INT(sim_model_preset("llama4", &s), -1);
    char names[400];
    CHECK_STR_CONTAINS(sim_model_preset_names(names, sizeof names), "gpt2, gpt2-medium");
    return 0;
}

// Names and shapes of the new layouts, as HuggingFace/PyTorch name them.
static int test_names(SimRank *r) {
    static const struct {
        const char *preset, *name;
        int64_t d0, d1;
    } want[] = {
        {"llama2-70b", "blocks.0.attn.q_proj.weight", 8192, 8192},
        {"llama2-70b", "blocks.79.attn.k_proj.weight", 1024, 8192},
        {"llama2-70b", "blocks.0.mlp.gate_proj.weight", 28672, 8192},
        {"llama2-70b", "blocks.0.mlp.down_proj.weight", 8192, 28672},
        {"llama2-70b", "blocks.0.ln1.weight", 8192, 0},
        {"llama2-70b", "head.weight", 32000, 8192},
        {"gpt2", "blocks.11.attn.qkv.bias", 2304, 0},
        {"gpt2", "blocks.0.attn.proj.bias", 768, 0},
        {"gpt2", "pos_emb.weight", 1024, 768},
        {"bert-large", "type_emb.weight", 2, 1024},
        {"bert-large", "ln_emb.bias", 1024, 0},
        {"bert-large", "pooler.dense.weight", 1024, 1024},
    };
    static const struct {
        const char *preset, *name;
    } absent[] = {
        {"gpt2", "head.weight"},        {"llama2-7b", "pos_emb.weight"},
        {"llama2-7b", "ln_f.bias"},     {"llama2-7b", "blocks.0.attn.qkv.weight"},
        {"bert-large", "head.weight"},  {"bert-large", "ln_f.weight"},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        SimModelSpec spec;
        CHECK_EQ_INT(sim_model_preset(want[i].preset, &spec), 0);
        SimModel *m = create(r, &spec, 1);
        CHECK(m != NULL);
        int k = sim_model_find_param(m, want[i].name);
        int ok = k >= 0 && m->params[k].shape[0] == want[i].d0 &&
                 (want[i].d1 == 0 ? m->params[k].ndim == 1 : m->params[k].shape[1] == want[i].d1);
        if (!ok)
            fprintf(stderr, "%s: %s missing or of the wrong shape\n", want[i].preset, want[i].name);
        sim_model_destroy(r, m);
        CHECK(ok);
    }
    for (size_t i = 0; i < sizeof absent / sizeof absent[0]; i++) {
        SimModelSpec spec;
        CHECK_EQ_INT(sim_model_preset(absent[i].preset, &spec), 0);
        SimModel *m = create(r, &spec, 1);
        CHECK(m != NULL);
        int k = sim_model_find_param(m, absent[i].name);
        sim_model_destroy(r, m);
        CHECK_EQ_INT(k, -1);
    }
    return 0;
}

// ----------------------------------------------------------------------------
// a step of every preset

typedef struct {
    SimModel *m;
    SimRank *r;
    int *seen;            // [nparams] gradient reports
    int64_t act_max;      // the most activation bytes held during backward
} Step;

static void on_grad(void *arg, int i) {
    Step *s = arg;
    s->seen[i]++;
    int64_t act = s->r->mem.cur[SIM_MEM_DEVICE][SIM_MEM_ACT];
    if (act > s->act_max)
        s->act_max = act;
}

static int run_step(SimRank *r, const SimModelSpec *spec, int B, int T, SimDtype amp,
                    int quiet) {
    SimModel *m = create(r, spec, B);
    CHECK(m != NULL);
    Step st = {m, r, calloc((size_t)m->nparams, sizeof(int)), 0};
    CHECK(st.seen != NULL);
    SimBatch b;
    memset(&b, 0, sizeof b);
    b.n = B;
    b.seq = spec->kind == SIM_MODEL_GPT ? T : 0;
    int64_t act0 = r->mem.cur[SIM_MEM_DEVICE][SIM_MEM_ACT];
    float loss = -1;
    SimStatus s1 = sim_model_forward(r, m, &b, 0, amp, &loss);
    if (s1 != SIM_OK)
        fprintf(stderr, "forward: %s\n", r->error);
    int64_t after_fwd = r->mem.cur[SIM_MEM_DEVICE][SIM_MEM_ACT] - act0;
    SimStatus s2 = s1 == SIM_OK ? sim_model_backward(r, m, 1.0f, on_grad, &st) : s1;
    if (s2 != SIM_OK)
        fprintf(stderr, "backward: %s\n", r->error);
    int64_t after_bwd = r->mem.cur[SIM_MEM_DEVICE][SIM_MEM_ACT] - act0;
    int once = 1;
    for (int i = 0; i < m->nparams; i++)
        once = once && st.seen[i] == 1;
    free(st.seen);
    sim_model_destroy(r, m);
    CHECK_EQ_INT(s1, SIM_OK);
    CHECK_EQ_INT(s2, SIM_OK);
    CHECK(once);
    CHECK_EQ_INT(loss, 0); // phantom: no values
    CHECK_EQ_INT(after_bwd, 0);
    if (spec->kind != SIM_MODEL_GPT || !sim_model_spec_phantom_only(spec))
        return 0; // MiniGPT and count: arenas, not the formula
    SimActBytes a;
    int p = amp == SIM_FP32 ? 4 : 2;
    CHECK_EQ_INT(sim_model_act_bytes(spec, B, T, p, spec->ckpt, &a), SIM_OK);
    CHECK_EQ_INT(after_fwd, a.stored + a.outside);
    // backward holds at most the stored layers plus one recomputed layer
    CHECK(st.act_max - act0 <= a.stored + (a.outside > a.recompute ? a.outside : a.recompute));
    if (spec->ckpt == SIM_CKPT_FULL)
        CHECK(st.act_max - act0 >= a.recompute);
    if (!quiet)
        printf("  %s b=%d s=%d: activations %.3f GiB after forward (formula %.3f GiB)\n",
               spec->ckpt ? sim_model_ckpt_name(spec->ckpt) : "", B, T, after_fwd / GIB,
               (a.stored + a.outside) / GIB);
    return 0;
}

static int test_steps(SimRank *r) {
    for (int i = 0; i < NEXPECTED; i++) {
        SimModelSpec spec;
        CHECK_EQ_INT(sim_model_preset(expected[i].name, &spec), 0);
        int T = spec.kind == SIM_MODEL_GPT ? (spec.ctx < 64 ? spec.ctx : 64) : 0;
        if (run_step(r, &spec, 2, T, SIM_BF16, 1) != 0) {
            fprintf(stderr, "step of %s failed\n", expected[i].name);
            return 1;
        }
    }
    // checkpointing, and the full context of a llama in fp32
    static const SimActCkpt ck[3] = {SIM_CKPT_NONE, SIM_CKPT_SELECTIVE, SIM_CKPT_FULL};
    for (int k = 0; k < 3; k++) {
        SimModelSpec spec;
        CHECK_EQ_INT(sim_model_preset("llama2-7b", &spec), 0);
        spec.ckpt = ck[k];
        printf("llama2-7b:\n");
        CHECK_EQ_INT(run_step(r, &spec, 1, 4096, SIM_BF16, 0), 0);
        CHECK_EQ_INT(sim_model_preset("bert-large", &spec), 0);
        spec.ckpt = ck[k];
        printf("bert-large:\n");
        CHECK_EQ_INT(run_step(r, &spec, 8, 512, SIM_FP32, 0), 0);
    }
    return 0;
}

// ----------------------------------------------------------------------------
// costs

// FLOPs of the compute events named `name` after event `from`.
static double flops_of(SimRank *r, size_t from, const char *name, size_t *count) {
    const SimTrace *tr = r->world->trace;
    size_t n = sim_trace_rank_count(tr, r->rank);
    const SimEvent *ev = sim_trace_rank_events(tr, r->rank);
    double f = 0;
    *count = 0;
    for (size_t i = from; i < n; i++)
        if (ev[i].kind == SIM_EV_COMPUTE && strcmp(ev[i].name, name) == 0)
            f += (double)ev[i].count, (*count)++;
    return f;
}

static int test_costs(SimRank *r) {
    CHECK(r->world->trace != NULL);
    // llama2-7b: the forward's matrix products are 2 x tokens x every Linear
    // weight (all but the token table and the norms)
    SimModelSpec spec;
    CHECK_EQ_INT(sim_model_preset("llama2-7b", &spec), 0);
    SimModel *m = create(r, &spec, 2);
    CHECK(m != NULL);
    int64_t weights = 0;
    for (int i = 0; i < m->nparams; i++)
        if (m->params[i].ndim == 2 && strcmp(m->params[i].name, "tok_emb.weight") != 0)
            weights += (int64_t)m->params[i].numel;
    SimBatch b;
    memset(&b, 0, sizeof b);
    b.n = 2;
    b.seq = 128;
    size_t from = sim_trace_rank_count(r->world->trace, r->rank), nlin, nrms, nrope, nsw;
    float loss;
    SimStatus st = sim_model_forward(r, m, &b, 0, SIM_BF16, &loss);
    double lin = flops_of(r, from, "linear_fwd", &nlin);
    double rms = flops_of(r, from, "rmsnorm_fwd", &nrms);
    flops_of(r, from, "rope_fwd", &nrope);
    flops_of(r, from, "swiglu_fwd", &nsw);
    SimStatus st2 = st == SIM_OK ? sim_model_backward(r, m, 1.0f, NULL, NULL) : st;
    sim_model_destroy(r, m);
    CHECK_EQ_INT(st, SIM_OK);
    CHECK_EQ_INT(st2, SIM_OK);
    CHECK_EQ_INT(lin, 2.0 * 2 * 128 * (double)weights);
    CHECK_EQ_INT(nlin, 32 * 7 + 1);
    CHECK_EQ_INT(nrms, 2 * 32 + 1);
    CHECK_EQ_INT(rms, 4.0 * 2 * 128 * 4096 * (2 * 32 + 1));
    CHECK_EQ_INT(nrope, 32);
    CHECK_EQ_INT(nsw, 32);
    printf("llama2-7b forward, 2 x 128 tokens: %.4g FLOPs in %zu Linear ops (2 x tokens x "
           "%lld weights)\n", lin, nlin, (long long)weights);
    // resnet50: its stated FLOPs per sample, backward twice
    CHECK_EQ_INT(sim_model_preset("resnet50", &spec), 0);
    m = create(r, &spec, 4);
    CHECK(m != NULL);
    memset(&b, 0, sizeof b);
    b.n = 4;
    from = sim_trace_rank_count(r->world->trace, r->rank);
    st = sim_model_forward(r, m, &b, 0, SIM_FP16, &loss);
    st2 = st == SIM_OK ? sim_model_backward(r, m, 1.0f, NULL, NULL) : st;
    size_t nf, nb;
    double f = flops_of(r, from, "count_fwd", &nf), bw = flops_of(r, from, "count_bwd", &nb);
    int nparams = m->nparams;
    sim_model_destroy(r, m);
    CHECK_EQ_INT(st, SIM_OK);
    CHECK_EQ_INT(st2, SIM_OK);
    CHECK_EQ_INT(nparams, 1);
    CHECK_EQ_INT(nf, 1);
    CHECK_EQ_INT(nb, 1);
    CHECK_EQ_INT(f, 4 * 8178000000.0);
    CHECK_EQ_INT(bw, 8 * 8178000000.0);
    // bert-large: bidirectional attention costs twice the causal pairs, less the diagonal
    CHECK_EQ_INT(sim_model_preset("bert-large", &spec), 0);
    m = create(r, &spec, 1);
    CHECK(m != NULL);
    memset(&b, 0, sizeof b);
    b.n = 1;
    b.seq = 512;
    from = sim_trace_rank_count(r->world->trace, r->rank);
    st = sim_model_forward(r, m, &b, 0, SIM_FP16, &loss);
    size_t na, nbi;
    double causal = flops_of(r, from, "attention_fwd", &na);
    double upper = flops_of(r, from, "attention_fwd_bidir", &nbi);
    sim_model_destroy(r, m);
    CHECK_EQ_INT(st, SIM_OK);
    CHECK_EQ_INT(na, 24);
    CHECK_EQ_INT(nbi, 24);
    double hs = 64, pairs = 16.0 * 512 * 512; // all T x T pairs of 16 heads
    CHECK_NEAR((causal + upper) / 24, pairs * (4 * hs + 5), 1);
    return 0;
}

// ----------------------------------------------------------------------------
// the activation formula

static int test_formula(void) {
    SimModelSpec g3;
    SimActBytes a;
    CHECK_EQ_INT(sim_model_preset("gpt3-175b", &g3), 0);
    // Korthikanti et al. eq. (2): s b h (34 + 5 a s / h), s 2048, b 1
    int64_t sbh = 2048LL * 12288;
    CHECK_EQ_INT(sim_model_act_bytes(&g3, 1, 2048, 2, SIM_CKPT_NONE, &a), SIM_OK);
    CHECK_EQ_INT(a.per_layer, sbh * (34 + 5 * 96 * 2048 / 12288));
    CHECK_EQ_INT(a.stored, 96 * a.per_layer);
    CHECK_EQ_INT(sim_model_act_bytes(&g3, 1, 2048, 2, SIM_CKPT_SELECTIVE, &a), SIM_OK);
    CHECK_EQ_INT(a.stored, 96 * sbh * 34);
    CHECK_EQ_INT(sim_model_act_bytes(&g3, 1, 2048, 2, SIM_CKPT_FULL, &a), SIM_OK);
    CHECK_EQ_INT(a.stored, 96 * 2 * sbh);
    CHECK_EQ_INT(a.recompute, sbh * (34 + 80));
    // Fig. 1 as Calculon's validation runs it (validation/seqsel/fig1:
    // tensor 8, pipeline 8, interleaving 3, micro-batch 1): the first stage
    // holds L (1 + (p - 1) / (p m)) = 96 x 31/24 layers' activations.
    // Profiled: 66.84375 GiB without recomputation, 12.3515625 GiB with
    // sequence parallelism and selective recomputation.
    CHECK_EQ_INT(sim_model_act_bytes_tp(&g3, 1, 2048, 2, SIM_CKPT_NONE, 8, 0, &a), SIM_OK);
    CHECK_EQ_INT(a.per_layer, sbh * 23); // 10 + 24/8 + 5 a s / (h t)
    CHECK_NEAR((double)a.stored * 31 / 24 / GIB, 66.84375, 1e-9);
    CHECK_EQ_INT(sim_model_act_bytes_tp(&g3, 1, 2048, 2, SIM_CKPT_SELECTIVE, 8, 1, &a), SIM_OK);
    CHECK_NEAR((double)a.stored * 31 / 24 / GIB, 12.3515625, 1e-9);
    // Megatron-1T (128 layers, h 25600, a 160; tensor 8, pipeline 64): 131.25
    // and 26.5625 GiB, the first stage holding all 128 layers' worth.
    SimModelSpec t1;
    char err[512];
    CHECK_EQ_INT(sim_model_parse("gpt:layers=128,embd=25600,heads=160,ctx=2048,vocab=51200,"
                                 "bias=all,tied,dropout", &t1, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(sim_model_act_bytes_tp(&t1, 1, 2048, 2, SIM_CKPT_NONE, 8, 0, &a), SIM_OK);
    CHECK_NEAR((double)a.stored / GIB, 131.25, 1e-9);
    CHECK_EQ_INT(sim_model_act_bytes_tp(&t1, 1, 2048, 2, SIM_CKPT_SELECTIVE, 8, 1, &a), SIM_OK);
    CHECK_NEAR((double)a.stored / GIB, 26.5625, 1e-9);
    // Fig. 7, relative to tensor parallelism alone (GPT-3 175B): the paper's
    // measured 62.04 / 56.53 / 18.49 / 8.71 % against the formula's
    // 61.96 / 56.52 / 18.48 / 8.70 %: within 0.1 point.
    CHECK_EQ_INT(sim_model_act_bytes_tp(&g3, 1, 2048, 2, SIM_CKPT_NONE, 8, 0, &a), SIM_OK);
    double base = (double)a.stored;
    static const struct {
        SimActCkpt ck;
        int sp;
        double pct;
    } fig7[4] = {{SIM_CKPT_NONE, 1, 62.04},
                 {SIM_CKPT_SELECTIVE, 0, 56.53},
                 {SIM_CKPT_SELECTIVE, 1, 18.49},
                 {SIM_CKPT_FULL, 0, 8.71}};
    for (int k = 0; k < 4; k++) {
        CHECK_EQ_INT(sim_model_act_bytes_tp(&g3, 1, 2048, 2, fig7[k].ck, 8, fig7[k].sp, &a),
                     SIM_OK);
        CHECK_NEAR(100.0 * (double)a.stored / base, fig7[k].pct, 0.1);
    }
    // a llama: grouped-query K and V, SwiGLU's three hidden tensors, no dropout
    SimModelSpec l70;
    CHECK_EQ_INT(sim_model_preset("llama2-70b", &l70), 0);
    CHECK_EQ_INT(sim_model_act_bytes(&l70, 1, 4096, 2, SIM_CKPT_NONE, &a), SIM_OK);
    int64_t sb = 4096, h = 8192, F = 28672, hkv = 1024;
    CHECK_EQ_INT(a.per_layer, sb * (2 * 4 * h + 2 * 2 * h + 2 * 2 * hkv + 2 * 3 * F) +
                                  2LL * 64 * 4096 * 4096);
    CHECK_EQ_INT(a.outside, sb * 2 * 2 * h + 4 * sb * 32000);
    CHECK_EQ_INT(a.total, a.stored + a.outside);
    // bad input
    SimModelSpec mlp;
    CHECK_EQ_INT(sim_model_parse("mlp:4,8,2", &mlp, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(sim_model_act_bytes(&mlp, 1, 1, 2, SIM_CKPT_NONE, &a), SIM_EINVAL);
    CHECK_EQ_INT(sim_model_act_bytes(&g3, 0, 2048, 2, SIM_CKPT_NONE, &a), SIM_EINVAL);
    CHECK_EQ_INT(sim_model_act_bytes(&g3, 1LL << 40, 2048, 2, SIM_CKPT_NONE, &a), SIM_EINVAL);
    printf("activation formula: GPT-3 175B per layer %.4f GiB (b 1, s 2048, fp16)\n",
           (double)(sbh * 114) / GIB);
    return 0;
}

// ----------------------------------------------------------------------------
// specs, numeric refusal, the cost op

static int test_specs(SimRank *r) {
    static const struct {
        const char *spec, *message;
    } bad[] = {
        {"gpt:layers=2,embd=64,heads=8,ctx=8,vocab=16,kv_heads=3", "kv_heads=3 does not divide"},
        {"gpt:layers=2,embd=64,heads=8,ctx=8,vocab=16,kv_heads=16", "kv_heads=16 does not divide"},
        {"gpt:layers=2,embd=64,heads=8,ctx=8,vocab=16,bias=some", "bias=\"some\" is unknown"},
        {"gpt:layers=2,embd=64,heads=8,ctx=8,vocab=16,norm=batch", "norm=\"batch\" is unknown"},
        {"gpt:layers=2,embd=64,heads=8,ctx=8,vocab=16,mlp=relu", "mlp=\"relu\" is unknown"},
        {"gpt:layers=2,embd=64,heads=8,ctx=8,vocab=16,pos=alibi", "pos=\"alibi\" is unknown"},
        {"gpt:layers=2,embd=64,heads=8,ctx=8,vocab=16,ckpt=some", "ckpt=\"some\" is unknown"},
        {"gpt:layers=2,embd=64,heads=8,ctx=8,vocab=16,ffn=0", "ffn=\"0\" is not an integer"},
        // "plain" names the default; the syntax has no way to ask for it
        {"gpt:layers=2,embd=64,heads=8,ctx=8,vocab=16,attn=plain", "attn=\"plain\" is unknown"},
        {"gpt:layers=2,embd=64,heads=8,ctx=8,vocab=16,tied,tied", "option tied given twice"},
        {"gpt:layers=2,embd=64,heads=8,ctx=8,vocab=16,tied=1", "option tied takes no value"},
        {"gpt:layers=2,embd=64,heads=8,ctx=8,vocab=16,norm", "option norm needs a value"},
        {"gpt:layers=2,embd=64,heads=8,ctx=8,vocab=16,type_vocab=3", "type_vocab is an "
                                                                     "encoder's option"},
        {"gpt:layers=2,embd=64,heads=8,ctx=8,vocab=16,encoder,tied", "an encoder has no LM head"},
        {"count:flops=5", "missing params="},
        {"count:params=0", "params=\"0\" is not an integer"},
        {"count:params=10,size=3", "unknown field \"size\""},
        {"count", "count needs its fields after a colon"},
        {"llama5-9b", "or a preset: gpt2, gpt2-medium"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        SimModelSpec s;
        char err[1024];
        SimStatus st = sim_model_parse(bad[i].spec, &s, err, sizeof err);
        if (st == SIM_OK || !strstr(err, bad[i].message))
            fprintf(stderr, "spec \"%s\": %s\n", bad[i].spec, st == SIM_OK ? "accepted" : err);
        CHECK_EQ_INT(st, SIM_EINVAL);
        CHECK_STR_CONTAINS(err, bad[i].message);
    }
    // defaults spelled out are the defaults: MiniGPT stays MiniGPT
    SimModelSpec a, b;
    char err[512], text[512];
    CHECK_EQ_INT(sim_model_parse("gpt:layers=2,embd=64,heads=8,ctx=8,vocab=16,kv_heads=8,ffn=256",
                                 &a, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(sim_model_parse("gpt:layers=2,embd=64,heads=8,ctx=8,vocab=16", &b, err,
                                 sizeof err), SIM_OK);
    CHECK(memcmp(&a, &b, sizeof a) == 0);
    CHECK(sim_model_spec_phantom_only(&a) == NULL);
    CHECK_EQ_INT(sim_model_parse("gpt:ckpt=full,layers=2,embd=64,heads=8,ctx=8,vocab=16,"
                                 "type_vocab=3,encoder,norm=rms", &a, err, sizeof err), SIM_OK);
    CHECK(strcmp(sim_model_spec_str(&a, text, sizeof text), "gpt:layers=2,embd=64,heads=8,"
                 "ctx=8,vocab=16,norm=rms,encoder,type_vocab=3,ckpt=full") == 0);
    CHECK_EQ_INT(sim_model_parse("gpt:attn=eager,layers=2,embd=64,heads=8,ctx=8,vocab=16", &a,
                                 err, sizeof err), SIM_OK);
    CHECK(a.attn == SIM_ATTN_EAGER);
    CHECK_STR_CONTAINS(sim_model_spec_phantom_only(&a), "attn");
    CHECK(strcmp(sim_model_spec_str(&a, text, sizeof text), "gpt:layers=2,embd=64,heads=8,"
                 "ctx=8,vocab=16,attn=eager") == 0);
    // descriptions
    CHECK_EQ_INT(sim_model_preset("llama2-70b", &a), 0);
    sim_model_describe(&a, text, sizeof text);
    CHECK_STR_CONTAINS(text, "decoder-only transformer (pre-norm, causal) of 80 layers, width "
                             "8192, 64 heads (8 key/value heads), RMSNorm, SwiGLU MLP of width "
                             "28672, rotary positions, no biases");
    CHECK_EQ_INT(sim_model_preset("bert-large", &a), 0);
    CHECK_STR_CONTAINS(sim_model_describe(&a, text, sizeof text), "BERT-style encoder");
    CHECK_EQ_INT(sim_model_preset("resnet50", &a), 0);
    CHECK_STR_CONTAINS(sim_model_describe(&a, text, sizeof text),
                       "25557032 parameters in one flat tensor, no layers, 8178000000 forward "
                       "FLOPs per sample");
    // numeric mode refuses what it cannot compute, and says where it runs
    const char *phantom_only[] = {"llama2-7b", "gpt2", "resnet50",
                                  "gpt:layers=2,embd=64,heads=8,ctx=8,vocab=16,ckpt=selective"};
    for (int i = 0; i < 4; i++) {
        CHECK_EQ_INT(sim_model_parse(phantom_only[i], &a, err, sizeof err), SIM_OK);
        SimModel *m = (SimModel *)&a; // overwritten with NULL
        CHECK_EQ_INT(sim_model_create(r, &a, 1, 0, &m), SIM_EINVAL);
        CHECK(m == NULL);
        CHECK_STR_CONTAINS(r->error, "is supported in phantom mode (ddplab plan) only");
    }
    // the seeds' MiniGPT runs numerically
    CHECK_EQ_INT(sim_model_preset("minigpt", &a), 0);
    SimModel *m = NULL;
    CHECK_EQ_INT(sim_model_create(r, &a, 1, 0, &m), SIM_OK);
    CHECK_EQ_INT(m->param_count, 16880640);
    CHECK(m->param.data != NULL);
    sim_model_destroy(r, m);
    // a cost-only op on a tensor with storage cannot be skipped
    SimTensor t;
    int64_t shape[1] = {4};
    sim_tensor_init(&t, "x", SIM_FP32, 1, shape);
    CHECK_EQ_INT(sim_tensor_alloc(r, &t, 0), SIM_OK);
    const SimTensor *ts[1] = {&t};
    SimStatus st = sim_op_cost(r, "rmsnorm_fwd", 16, 32, 0, SIM_FP32, ts, 1);
    sim_tensor_free(r, &t);
    CHECK_EQ_INT(st, SIM_ENOTSUP);
    CHECK_STR_CONTAINS(r->error, "rmsnorm_fwd is accounted in phantom mode only");
    t.data = NULL;
    CHECK_EQ_INT(sim_op_cost(r, "rmsnorm_fwd", 16, 32, 0, SIM_FP32, ts, 1), SIM_OK);
    CHECK_EQ_INT(sim_op_cost(r, "rmsnorm_fwd", -1, 32, 0, SIM_FP32, ts, 1), SIM_EINVAL);
    return 0;
}

// ----------------------------------------------------------------------------
// the random-token dataset

static int test_tokens(void) {
    SimSynthSpec sp;
    SimDataset ds, again;
    char err[512];
    CHECK_EQ_INT(sim_dataset_synth_parse("tokens:n=8,seq=4096,vocab=32000,seed=3", &sp, err,
                                         sizeof err), SIM_OK);
    CHECK_EQ_INT(sim_dataset_synth(&ds, &sp, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(ds.kind, SIM_DATA_TOKENS);
    CHECK_EQ_INT(ds.n, 8);
    CHECK_EQ_INT(ds.ctx, 4096);
    CHECK_EQ_INT(ds.ntokens, 8 + 4096 + 1);
    CHECK_EQ_INT(ds.vocab, 32000);
    int in_range = 1, big = 0;
    for (int64_t i = 0; i < ds.ntokens; i++) {
        in_range = in_range && ds.tokens[i] >= 0 && ds.tokens[i] < 32000;
        big += ds.tokens[i] >= 256;
    }
    CHECK(in_range);
    CHECK(big > 3000); // uniform over 32000 ids, not bytes
    CHECK_EQ_INT(sim_dataset_synth(&again, &sp, err, sizeof err), SIM_OK);
    CHECK(memcmp(ds.tokens, again.tokens, (size_t)ds.ntokens * sizeof *ds.tokens) == 0);
    char text[8];
    CHECK_EQ_INT(sim_dataset_decode(&ds, ds.tokens, 4, text, sizeof text), 4);
    sim_dataset_free(&again);
    // a loader batch of it
    SimLoader ld;
    SimBatch b;
    int64_t idx[2] = {0, 7};
    CHECK_EQ_INT(sim_loader_init(&ld, &ds, 2), SIM_OK);
    CHECK_EQ_INT(sim_loader_fill(&ld, idx, 2, &b), SIM_OK);
    CHECK_EQ_INT(b.seq, 4096);
    CHECK_EQ_INT(b.tokens[4096], ds.tokens[7]);
    CHECK_EQ_INT(b.labels[0], ds.tokens[1]);
    sim_loader_free(&ld);
    sim_dataset_free(&ds);
    // defaults, the model's context, bad keys
    CHECK_EQ_INT(sim_dataset_synth_parse("tokens", &sp, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(sp.n, 1024);
    CHECK_EQ_INT(sp.vocab, 256);
    CHECK_EQ_INT(sp.ctx, 0);
    CHECK_EQ_INT(sim_dataset_synth(&ds, &sp, err, sizeof err), SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "the sequence length is not set");
    CHECK_EQ_INT(sim_dataset_synth_parse("tokens:ctx=4", &sp, err, sizeof err), SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "unknown key 'ctx'");
    CHECK_EQ_INT(sim_dataset_synth_parse("tokens:vocab=0", &sp, err, sizeof err), SIM_EINVAL);
    CHECK_EQ_INT(sim_dataset_synth_parse("teacher:seq=3", &sp, err, sizeof err), SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "unknown key 'seq'");
    CHECK_EQ_INT(sim_dataset_synth_parse("teacher:hidden=3", &sp, err, sizeof err), SIM_OK);
    return 0;
}

// ----------------------------------------------------------------------------

static int all(SimRank *r) {
    if (test_counts(r) || test_names(r) || test_specs(r) || test_costs(r) || test_steps(r))
        return 1;
    return 0;
}

int main(void) {
    TModelRun run = {"model presets", all};
    if (tmodel_run(&run) != 0)
        return 1;
    if (test_formula() || test_tokens())
        return 1;
    printf("model presets: all checks passed\n");
    return 0;
}
