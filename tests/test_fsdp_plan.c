// tests/test_fsdp_plan.c: FSDP's plan (sim/strategy/fsdp.h), pure functions checked
// by hand: which modules each wrap policy makes units of, which parameters
// the root keeps, the flat layout and its padding to a multiple of the
// shard group, the shard sizes, the owner of boundary elements, the groups
// of hybrid sharding; the gradient divide factors; the names, with
// PyTorch's spellings; the ZeRO stage names; the options' defaults.
//
// The models are phantom (tables and shapes, no storage) and built on one
// CPU rank, since sim_model_create takes the rank it allocates for; nothing
// here runs a collective.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "strategy/fsdp.h"
#include "test_world.h"

// The unit's parameter names, joined with spaces.
static const char *unit_params(const SimFsdpPlan *p, const SimModel *m, int u, char *buf,
                               size_t len) {
    size_t k = 0;
    buf[0] = '\0';
    for (int j = 0; j < p->units[u].nparams && k < len; j++)
        k += (size_t)snprintf(buf + k, len - k, "%s%s", j ? " " : "",
                              m->params[p->units[u].params[j]].name);
    return buf;
}

// What every plan must satisfy, whatever the policy.
static int check_invariants(const SimFsdpPlan *p, const SimModel *m) {
    CHECK(p->nunits >= 1);
    CHECK(p->units[0].is_root);
    CHECK_EQ_INT(p->units[0].module, 0);
    CHECK_EQ_INT(p->nparams, m->nparams);
    size_t S = (size_t)p->shard_ranks, shard_total = 0, padded_total = 0, largest = 0;
    size_t numel_total = 0;
    int seen = 0, last_module = 0;
    for (int u = 0; u < p->nunits; u++) {
        const SimFsdpUnit *un = &p->units[u];
        CHECK_EQ_INT(un->order, u);
        CHECK_EQ_INT(un->is_root, u == 0);
        if (u > 0) { // children in module (forward) order, each holding parameters
            CHECK(un->module > last_module);
            last_module = un->module;
            CHECK(un->nparams > 0);
        }
        size_t off = 0;
        for (int j = 0; j < un->nparams; j++) {
            int i = un->params[j];
            CHECK(i >= 0 && i < m->nparams);
            CHECK_EQ_INT(p->param_unit[i], u);
            CHECK_EQ_INT(un->flat_offset[j], off); // concatenated in parameter order
            if (j > 0)
                CHECK(i > un->params[j - 1]);
            off += m->params[i].numel;
        }
        CHECK_EQ_INT(un->numel, off);
        CHECK_EQ_INT(un->padded % S, 0);        // right-padded to a multiple of S
        CHECK(un->padded >= un->numel && un->padded - un->numel < S);
        CHECK_EQ_INT(un->shard * S, un->padded);
        shard_total += un->shard;
        padded_total += un->padded;
        numel_total += un->numel;
        largest = un->numel > largest ? un->numel : largest;
        seen += un->nparams;
    }
    CHECK_EQ_INT(seen, m->nparams); // every parameter in exactly one unit
    CHECK_EQ_INT(numel_total, m->param_count);
    CHECK_EQ_INT(p->shard_total, shard_total);
    CHECK_EQ_INT(p->padded_total, padded_total);
    CHECK_EQ_INT(p->largest_unit, largest);
    return 0;
}

// The owner of the elements at every shard boundary of every unit, and of
// each parameter's first and last element; bad arguments.
static int check_owners(const SimFsdpPlan *p, const SimModel *m) {
    int checked = 0;
    for (int u = 0; u < p->nunits; u++) {
        const SimFsdpUnit *un = &p->units[u];
        for (int j = 0; j < un->nparams; j++) {
            int i = un->params[j];
            size_t a = un->flat_offset[j], n = m->params[i].numel;
            int uu = -1, o = -1;
            for (int g = 0; g <= p->shard_ranks; g++) {
                size_t b = (size_t)g * un->shard; // first element of shard g
                // b itself (owned by g) and b - 1 (the last of g - 1), if in this param
                for (int d = 0; d < 2; d++) {
                    if ((d == 1 && b == 0) || (d == 0 && g == p->shard_ranks))
                        continue;
                    size_t f = d ? b - 1 : b;
                    if (f < a || f >= a + n)
                        continue;
                    CHECK_EQ_INT(sim_fsdp_owner(p, i, f - a, &uu, &o), 0);
                    CHECK_EQ_INT(uu, u);
                    CHECK_EQ_INT(o, d ? g - 1 : g);
                    checked++;
                }
            }
            CHECK_EQ_INT(sim_fsdp_owner(p, i, 0, &uu, &o), 0);
            CHECK_EQ_INT(o, (int)(a / un->shard));
            CHECK_EQ_INT(sim_fsdp_owner(p, i, n - 1, &uu, &o), 0);
            CHECK_EQ_INT(o, (int)((a + n - 1) / un->shard));
            CHECK(o < p->shard_ranks);
            CHECK_EQ_INT(sim_fsdp_owner(p, i, n, &uu, &o), -1); // past its end
        }
    }
    int uu, o;
    CHECK_EQ_INT(sim_fsdp_owner(p, -1, 0, &uu, &o), -1);
    CHECK_EQ_INT(sim_fsdp_owner(p, m->nparams, 0, &uu, &o), -1);
    return checked > 0 ? 0 : 1;
}

typedef struct {
    SimFsdpSharding sh;
    SimFsdpWrap wrap;
    int64_t min_params;
    int R, nodes;
} PlanCase;

// Builds the plan of c and checks its invariants and owners; the caller
// checks the specifics and frees it.
static int build(SimFsdpPlan *p, const SimModel *m, PlanCase c) {
    SimFsdpOptions o;
    sim_fsdp_options_default(&o);
    o.sharding = c.sh;
    o.wrap = c.wrap;
    if (c.min_params > 0)
        o.min_params = c.min_params;
    char err[256] = "";
    SimStatus st = sim_fsdp_plan_build(p, m, &o, c.R, c.nodes, err, sizeof err);
    if (st != SIM_OK) {
        fprintf(stderr, "plan: %s\n", err);
        return 1;
    }
    CHECK(check_invariants(p, m) == 0);
    CHECK(check_owners(p, m) == 0);
    return 0;
}

static SimModel *model(SimRank *r, const char *text) {
    SimModelSpec spec;
    char err[256];
    SimModel *m = NULL;
    if (sim_model_parse(text, &spec, err, sizeof err) != SIM_OK ||
        sim_model_create(r, &spec, 2, 1, &m) != SIM_OK) {
        fprintf(stderr, "model %s: %s%s\n", text, err, r->error);
        return NULL;
    }
    return m;
}

// ----------------------------------------------------------------------------
// MLP

// mlp:16,32,32,4: modules "0" (544 elements), "2" (1056), "4" (132).
static int mlp_plans(SimRank *r) {
    SimModel *m = model(r, "mlp:16,32,32,4");
    CHECK(m != NULL);
    SimFsdpPlan p;
    char buf[256];
    int fails = 0;
    // per layer (auto = layer for an MLP) on 3 ranks: the root holds nothing
    for (int w = 0; w < 2 && !fails; w++) {
        PlanCase c = {SIM_FSDP_FULL_SHARD, w ? SIM_FSDP_WRAP_LAYER : SIM_FSDP_WRAP_AUTO, 0, 3, 1};
        fails += build(&p, m, c);
        CHECK_EQ_INT(p.nunits, 4);
        CHECK_EQ_INT(p.units[0].nparams, 0);
        CHECK_EQ_INT(p.units[0].numel, 0);
        CHECK_EQ_INT(p.units[0].padded, 0);
        CHECK(strcmp(m->modules[p.units[1].module].name, "0") == 0);
        CHECK(strcmp(m->modules[p.units[2].module].name, "2") == 0);
        CHECK(strcmp(m->modules[p.units[3].module].name, "4") == 0);
        CHECK(strcmp(unit_params(&p, m, 2, buf, sizeof buf), "2.weight 2.bias") == 0);
        const size_t numel[4] = {0, 544, 1056, 132}, padded[4] = {0, 546, 1056, 132};
        for (int u = 0; u < 4; u++) {
            CHECK_EQ_INT(p.units[u].numel, numel[u]);
            CHECK_EQ_INT(p.units[u].padded, padded[u]);
            CHECK_EQ_INT(p.units[u].shard, padded[u] / 3);
        }
        CHECK_EQ_INT(p.units[1].flat_offset[1], 512); // 0.bias after 0.weight
        CHECK_EQ_INT(p.shard_total, 182 + 352 + 44);
        CHECK_EQ_INT(p.padded_total, 1734);
        CHECK_EQ_INT(p.largest_unit, 1056);
        CHECK_EQ_INT(p.shard_ranks, 3);
        CHECK_EQ_INT(p.replicas, 1);
        // 0.weight's last element (flat 511) is rank 2's (shard 182: 364..545),
        // 0.bias's first (flat 512) too; flat 181 / 182 are ranks 0 / 1
        int u = -1, o = -1;
        CHECK_EQ_INT(sim_fsdp_owner(&p, 0, 181, &u, &o), 0);
        CHECK_EQ_INT(o, 0);
        CHECK_EQ_INT(sim_fsdp_owner(&p, 0, 182, &u, &o), 0);
        CHECK_EQ_INT(o, 1);
        CHECK_EQ_INT(sim_fsdp_owner(&p, 1, 31, &u, &o), 0);
        CHECK_EQ_INT(u, 1);
        CHECK_EQ_INT(o, 2);
        sim_fsdp_plan_free(&p);
        CHECK(p.units == NULL && p.nunits == 0);
    }
    // size-based, min 500: "0" and "2" are units, "4" (132) stays in the root
    fails += build(&p, m, (PlanCase){SIM_FSDP_FULL_SHARD, SIM_FSDP_WRAP_SIZE, 500, 4, 1});
    CHECK_EQ_INT(p.nunits, 3);
    CHECK(strcmp(unit_params(&p, m, 0, buf, sizeof buf), "4.weight 4.bias") == 0);
    CHECK_EQ_INT(p.units[0].numel, 132);
    CHECK(strcmp(unit_params(&p, m, 1, buf, sizeof buf), "0.weight 0.bias") == 0);
    CHECK(strcmp(unit_params(&p, m, 2, buf, sizeof buf), "2.weight 2.bias") == 0);
    sim_fsdp_plan_free(&p);
    // size-based at PyTorch's default threshold (1e8): nothing is wrapped
    fails += build(&p, m, (PlanCase){SIM_FSDP_FULL_SHARD, SIM_FSDP_WRAP_SIZE, 0, 4, 1});
    CHECK_EQ_INT(p.nunits, 1);
    sim_fsdp_plan_free(&p);
    // the whole model as one unit, on 8 ranks: 1732 -> 1736 (8 x 217)
    fails += build(&p, m, (PlanCase){SIM_FSDP_SHARD_GRAD_OP, SIM_FSDP_WRAP_NONE, 0, 8, 1});
    CHECK_EQ_INT(p.nunits, 1);
    CHECK_EQ_INT(p.units[0].nparams, 6);
    CHECK_EQ_INT(p.units[0].numel, 1732);
    CHECK_EQ_INT(p.units[0].padded, 1736);
    CHECK_EQ_INT(p.units[0].shard, 217);
    int u = -1, o = -1; // 4.bias (flat 1728..1731) is rank 7's, whose last 4 are padding
    CHECK_EQ_INT(sim_fsdp_owner(&p, 5, 3, &u, &o), 0);
    CHECK_EQ_INT(o, 7);
    sim_fsdp_plan_free(&p);
    // an MLP has no transformer blocks
    SimFsdpOptions opt;
    sim_fsdp_options_default(&opt);
    opt.wrap = SIM_FSDP_WRAP_BLOCK;
    char err[256] = "";
    CHECK(sim_fsdp_plan_build(&p, m, &opt, 4, 1, err, sizeof err) == SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "--fsdp-wrap block");
    CHECK(p.units == NULL);
    sim_model_destroy(r, m);
    return fails;
}

// BatchNorm layers are modules of their own; the unused head is a unit.
static int mlp_variants(SimRank *r) {
    SimFsdpPlan p;
    char buf[256];
    int fails = 0;
    SimModel *m = model(r, "mlp:16,32,32,4,bn");
    CHECK(m != NULL);
    fails += build(&p, m, (PlanCase){SIM_FSDP_FULL_SHARD, SIM_FSDP_WRAP_AUTO, 0, 4, 1});
    CHECK_EQ_INT(p.nunits, 6); // root, 0, 1 (bn), 3, 4 (bn), 6
    CHECK(strcmp(m->modules[p.units[2].module].name, "1") == 0);
    CHECK(strcmp(unit_params(&p, m, 2, buf, sizeof buf), "1.weight 1.bias") == 0);
    CHECK_EQ_INT(p.units[2].numel, 64);
    CHECK(strcmp(m->modules[p.units[5].module].name, "6") == 0);
    sim_fsdp_plan_free(&p);
    sim_model_destroy(r, m);
    m = model(r, "mlp:16,32,32,4,unused");
    CHECK(m != NULL);
    fails += build(&p, m, (PlanCase){SIM_FSDP_FULL_SHARD, SIM_FSDP_WRAP_LAYER, 0, 3, 1});
    CHECK_EQ_INT(p.nunits, 5); // root, 0, 2, 4 and the extra head
    CHECK(strcmp(unit_params(&p, m, 4, buf, sizeof buf), "5.weight 5.bias") == 0);
    CHECK_EQ_INT(p.units[4].numel, 132);
    sim_fsdp_plan_free(&p);
    sim_model_destroy(r, m);
    return fails;
}

// ----------------------------------------------------------------------------
// GPT

// gpt:layers=2,embd=16,heads=2,ctx=8,vocab=12: tok_emb 192, pos_emb 128,
// each block 3216 (ln1 32, qkv 768, proj 256, ln2 32, mlp.0 1088, mlp.2
// 1040), ln_f 32, head 192.
static int gpt_plans(SimRank *r) {
    SimModel *m = model(r, "gpt:layers=2,embd=16,heads=2,ctx=8,vocab=12");
    CHECK(m != NULL);
    SimFsdpPlan p;
    char buf[512];
    int fails = 0;
    for (int w = 0; w < 2; w++) { // auto = block for a GPT
        PlanCase c = {SIM_FSDP_FULL_SHARD, w ? SIM_FSDP_WRAP_BLOCK : SIM_FSDP_WRAP_AUTO, 0, 3, 1};
        fails += build(&p, m, c);
        CHECK_EQ_INT(p.nunits, 3);
        CHECK(strcmp(unit_params(&p, m, 0, buf, sizeof buf),
                     "tok_emb.weight pos_emb.weight ln_f.weight ln_f.bias head.weight") == 0);
        CHECK_EQ_INT(p.units[0].numel, 544);
        CHECK_EQ_INT(p.units[0].padded, 546);
        CHECK(strcmp(m->modules[p.units[1].module].name, "blocks.0") == 0);
        CHECK(strcmp(m->modules[p.units[2].module].name, "blocks.1") == 0);
        CHECK_EQ_INT(p.units[1].nparams, 10);
        CHECK_EQ_INT(p.units[1].numel, 3216);
        CHECK_EQ_INT(p.units[2].padded, 3216);
        CHECK_EQ_INT(p.units[2].shard, 1072);
        CHECK_EQ_INT(p.largest_unit, 3216);
        // the root's flat parameter: ln_f.weight after tok_emb and pos_emb
        CHECK_EQ_INT(p.units[0].flat_offset[2], 320);
        sim_fsdp_plan_free(&p);
    }
    // per layer: every child module is a unit, the root holds nothing
    fails += build(&p, m, (PlanCase){SIM_FSDP_FULL_SHARD, SIM_FSDP_WRAP_LAYER, 0, 4, 1});
    CHECK_EQ_INT(p.nunits, 7);
    CHECK_EQ_INT(p.units[0].nparams, 0);
    const char *mods[7] = {"", "tok_emb", "pos_emb", "blocks.0", "blocks.1", "ln_f", "head"};
    for (int u = 1; u < 7; u++)
        CHECK(strcmp(m->modules[p.units[u].module].name, mods[u]) == 0);
    sim_fsdp_plan_free(&p);
    // size-based, min 150: the embeddings, the blocks and the head are units;
    // pos_emb (128) and ln_f (32) stay in the root
    fails += build(&p, m, (PlanCase){SIM_FSDP_FULL_SHARD, SIM_FSDP_WRAP_SIZE, 150, 4, 1});
    CHECK_EQ_INT(p.nunits, 5);
    CHECK(strcmp(unit_params(&p, m, 0, buf, sizeof buf),
                 "pos_emb.weight ln_f.weight ln_f.bias") == 0);
    CHECK(strcmp(m->modules[p.units[1].module].name, "tok_emb") == 0);
    CHECK(strcmp(m->modules[p.units[4].module].name, "head") == 0);
    sim_fsdp_plan_free(&p);
    // min 1000: only the blocks, as the block policy
    fails += build(&p, m, (PlanCase){SIM_FSDP_FULL_SHARD, SIM_FSDP_WRAP_SIZE, 1000, 4, 1});
    CHECK_EQ_INT(p.nunits, 3);
    CHECK_EQ_INT(p.units[0].numel, 544);
    sim_fsdp_plan_free(&p);
    fails += build(&p, m, (PlanCase){SIM_FSDP_FULL_SHARD, SIM_FSDP_WRAP_NONE, 0, 8, 1});
    CHECK_EQ_INT(p.nunits, 1);
    CHECK_EQ_INT(p.units[0].numel, m->param_count);
    CHECK_EQ_INT(p.units[0].numel, 544 + 2 * 3216);
    CHECK_EQ_INT(p.units[0].padded, 6976);
    sim_fsdp_plan_free(&p);
    sim_model_destroy(r, m);
    return fails;
}

// ----------------------------------------------------------------------------
// shard groups: hybrid, no_shard, zero1

static int sharding_groups(SimRank *r) {
    SimModel *m = model(r, "gpt:layers=2,embd=16,heads=2,ctx=8,vocab=12");
    CHECK(m != NULL);
    SimFsdpPlan p;
    int fails = 0;
    // hybrid: shard over the node's ranks, one replica per node
    const SimFsdpSharding hy[2] = {SIM_FSDP_HYBRID_SHARD, SIM_FSDP_HYBRID_ZERO2};
    for (int h = 0; h < 2; h++) {
        fails += build(&p, m, (PlanCase){hy[h], SIM_FSDP_WRAP_AUTO, 0, 8, 2});
        CHECK_EQ_INT(p.shard_ranks, 4);
        CHECK_EQ_INT(p.replicas, 2);
        CHECK_EQ_INT(p.units[0].padded, 544);
        CHECK_EQ_INT(p.units[0].shard, 136);
        sim_fsdp_plan_free(&p);
        fails += build(&p, m, (PlanCase){hy[h], SIM_FSDP_WRAP_AUTO, 0, 6, 3});
        CHECK_EQ_INT(p.shard_ranks, 2);
        CHECK_EQ_INT(p.replicas, 3);
        sim_fsdp_plan_free(&p);
    }
    // full_shard ignores the nodes: every rank holds a shard
    fails += build(&p, m, (PlanCase){SIM_FSDP_FULL_SHARD, SIM_FSDP_WRAP_AUTO, 0, 8, 2});
    CHECK_EQ_INT(p.shard_ranks, 8);
    CHECK_EQ_INT(p.replicas, 1);
    sim_fsdp_plan_free(&p);
    // no_shard: nothing is padded, every rank holds all
    fails += build(&p, m, (PlanCase){SIM_FSDP_NO_SHARD, SIM_FSDP_WRAP_AUTO, 0, 8, 1});
    CHECK_EQ_INT(p.shard_ranks, 1);
    CHECK_EQ_INT(p.replicas, 8);
    CHECK_EQ_INT(p.padded_total, m->param_count);
    CHECK_EQ_INT(p.shard_total, m->param_count);
    sim_fsdp_plan_free(&p);
    // zero1: one flat buffer of the whole model by default (as DeepSpeed),
    // the wrap policy when one is given
    fails += build(&p, m, (PlanCase){SIM_FSDP_ZERO1, SIM_FSDP_WRAP_AUTO, 0, 3, 1});
    CHECK_EQ_INT(p.nunits, 1);
    CHECK_EQ_INT(p.shard_ranks, 3);
    CHECK_EQ_INT(p.units[0].padded, 6978);
    CHECK_EQ_INT(p.shard_total, 2326);
    sim_fsdp_plan_free(&p);
    fails += build(&p, m, (PlanCase){SIM_FSDP_ZERO1, SIM_FSDP_WRAP_BLOCK, 0, 3, 1});
    CHECK_EQ_INT(p.nunits, 3);
    sim_fsdp_plan_free(&p);
    // ranks that do not split into the nodes
    SimFsdpOptions o;
    sim_fsdp_options_default(&o);
    o.sharding = SIM_FSDP_HYBRID_SHARD;
    char err[256] = "";
    CHECK(sim_fsdp_plan_build(&p, m, &o, 6, 4, err, sizeof err) == SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "nodes");
    CHECK(sim_fsdp_plan_build(&p, m, &o, 0, 1, err, sizeof err) == SIM_EINVAL);
    sim_model_destroy(r, m);
    return fails;
}

// The printed table: a header, one row per unit with its sizes.
static int plan_print(SimRank *r) {
    SimModel *m = model(r, "mlp:16,32,32,4");
    CHECK(m != NULL);
    SimFsdpPlan p;
    CHECK(build(&p, m, (PlanCase){SIM_FSDP_FULL_SHARD, SIM_FSDP_WRAP_LAYER, 0, 3, 1}) == 0);
    char text[2048] = "";
    FILE *f = tmpfile();
    CHECK(f != NULL);
    sim_fsdp_plan_print(&p, m, f);
    rewind(f);
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    printf("%s", text);
    CHECK_STR_CONTAINS(text, "4 units, sharded over 3 ranks x 1 replica");
    CHECK_STR_CONTAINS(text, "| 0 | (root) | 0 | 0 | 0 | 0 | - .. - |");
    CHECK_STR_CONTAINS(text, "| 1 | 0 | 2 | 544 | 546 | 182 | 0.weight .. 0.bias |");
    CHECK_STR_CONTAINS(text, "| 2 | 2 | 2 | 1056 | 1056 | 352 | 2.weight .. 2.bias |");
    sim_fsdp_plan_free(&p);
    sim_model_destroy(r, m);
    return 0;
}

// The model cases run on rank 0 of a one-rank world, one after another.
typedef struct {
    const char *name;
    int (*fn)(SimRank *r);
} ModelCase;

static const ModelCase model_cases[] = {
    {"test_mlp_plans", mlp_plans},           {"test_mlp_variants", mlp_variants},
    {"test_gpt_plans", gpt_plans},           {"test_sharding_groups", sharding_groups},
    {"test_plan_print", plan_print},
};
#define NMODEL_CASES ((int)(sizeof model_cases / sizeof model_cases[0]))

typedef struct {
    int rc[NMODEL_CASES];
} ModelResults;

static SimStatus model_main(SimRank *r, void *arg) {
    ModelResults *res = arg;
    for (int i = 0; i < NMODEL_CASES; i++)
        res->rc[i] = model_cases[i].fn(r);
    return SIM_OK;
}

// ----------------------------------------------------------------------------
// pure functions

// FSDP's default hooks: pre doubles while it divides N and stays below N/pre
// (semantics.md: 8 -> 4, 2; 16 -> 4, 4; 64 -> 8, 8). The loop doubles before
// it tests divisibility, so N = 6 ends at 4 (and post 1.5), as PyTorch's
// _get_gradient_predivide_factor does.
static int test_divide_factors(void) {
    const struct {
        int n;
        double pre, post;
    } want[] = {{1, 1, 1},  {2, 2, 1},  {3, 2, 1.5}, {4, 2, 2},   {6, 4, 1.5},
                {8, 4, 2},  {12, 4, 3}, {16, 4, 4},  {32, 8, 4},  {64, 8, 8},
                {128, 16, 8}, {1024, 32, 32}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        double pre = 0, post = 0;
        sim_fsdp_divide_factors(want[i].n, &pre, &post);
        printf("  N=%d: pre %g, post %g\n", want[i].n, pre, post);
        CHECK_NEAR(pre, want[i].pre, 0);
        CHECK_NEAR(post, want[i].post, 1e-12);
        CHECK_NEAR(pre * post, want[i].n, 1e-9);
    }
    return 0;
}

static int test_names(void) {
    // every name parses back to itself; out of range has no name
    for (int i = 0; i < SIM_FSDP_SHARDING_COUNT; i++) {
        SimFsdpSharding x;
        CHECK(sim_fsdp_sharding_name((SimFsdpSharding)i) != NULL);
        CHECK_EQ_INT(sim_fsdp_sharding_parse(sim_fsdp_sharding_name((SimFsdpSharding)i), &x), 0);
        CHECK_EQ_INT(x, i);
    }
    for (int i = 0; i < SIM_FSDP_WRAP_COUNT; i++) {
        SimFsdpWrap x;
        CHECK_EQ_INT(sim_fsdp_wrap_parse(sim_fsdp_wrap_name((SimFsdpWrap)i), &x), 0);
        CHECK_EQ_INT(x, i);
    }
    for (int i = 0; i < SIM_FSDP_PREFETCH_COUNT; i++) {
        SimFsdpPrefetch x;
        CHECK_EQ_INT(sim_fsdp_prefetch_parse(sim_fsdp_prefetch_name((SimFsdpPrefetch)i), &x), 0);
        CHECK_EQ_INT(x, i);
    }
    for (int i = 0; i < SIM_FSDP_SD_COUNT; i++) {
        SimFsdpStateDict x;
        CHECK_EQ_INT(sim_fsdp_state_dict_parse(sim_fsdp_state_dict_name((SimFsdpStateDict)i),
                                               &x), 0);
        CHECK_EQ_INT(x, i);
    }
    CHECK(sim_fsdp_sharding_name(SIM_FSDP_SHARDING_COUNT) == NULL);
    CHECK(sim_fsdp_sharding_name((SimFsdpSharding)-1) == NULL);
    CHECK(sim_fsdp_wrap_name(SIM_FSDP_WRAP_COUNT) == NULL);
    CHECK(sim_fsdp_prefetch_name(SIM_FSDP_PREFETCH_COUNT) == NULL);
    CHECK(sim_fsdp_state_dict_name(SIM_FSDP_SD_COUNT) == NULL);
    CHECK(strcmp(sim_fsdp_sharding_name(SIM_FSDP_HYBRID_ZERO2), "hybrid_zero2") == 0);
    CHECK(strcmp(sim_fsdp_prefetch_name(SIM_FSDP_PREFETCH_PRE), "backward_pre") == 0);

    // PyTorch's spellings (ShardingStrategy, BackwardPrefetch, StateDictType
    // member names), any case, dashes for underscores
    const struct {
        const char *text;
        int want;
    } sh[] = {{"FULL_SHARD", SIM_FSDP_FULL_SHARD},       {"full-shard", SIM_FSDP_FULL_SHARD},
              {"Shard_Grad_Op", SIM_FSDP_SHARD_GRAD_OP}, {"NO_SHARD", SIM_FSDP_NO_SHARD},
              {"HYBRID_SHARD", SIM_FSDP_HYBRID_SHARD},   {"_HYBRID_SHARD_ZERO2", SIM_FSDP_HYBRID_ZERO2},
              {"hybrid_shard_zero2", SIM_FSDP_HYBRID_ZERO2}, {"ZERO1", SIM_FSDP_ZERO1},
              {"full", -1}, {"", -1}, {"FULL_STATE_DICT", -1}, {"zero3", -1},
              {"full_shard_and_more", -1}};
    for (size_t i = 0; i < sizeof sh / sizeof sh[0]; i++) {
        SimFsdpSharding x = SIM_FSDP_SHARDING_COUNT;
        int rc = sim_fsdp_sharding_parse(sh[i].text, &x);
        if (sh[i].want < 0) {
            CHECK_EQ_INT(rc, -1);
        } else {
            CHECK_EQ_INT(rc, 0);
            CHECK_EQ_INT(x, sh[i].want);
        }
    }
    SimFsdpSharding xs;
    CHECK_EQ_INT(sim_fsdp_sharding_parse(NULL, &xs), -1);
    char longname[200];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    memcpy(longname, "full_shard", 10);
    CHECK_EQ_INT(sim_fsdp_sharding_parse(longname, &xs), -1);

    SimFsdpStateDict sd;
    CHECK_EQ_INT(sim_fsdp_state_dict_parse("FULL_STATE_DICT", &sd), 0);
    CHECK_EQ_INT(sd, SIM_FSDP_SD_FULL);
    CHECK_EQ_INT(sim_fsdp_state_dict_parse("SHARDED_STATE_DICT", &sd), 0);
    CHECK_EQ_INT(sd, SIM_FSDP_SD_SHARDED);
    CHECK_EQ_INT(sim_fsdp_state_dict_parse("local_state_dict", &sd), 0);
    CHECK_EQ_INT(sd, SIM_FSDP_SD_LOCAL);
    CHECK_EQ_INT(sim_fsdp_state_dict_parse("Sharded", &sd), 0);
    CHECK_EQ_INT(sd, SIM_FSDP_SD_SHARDED);
    CHECK_EQ_INT(sim_fsdp_state_dict_parse("FULL_OPTIM_STATE_DICT", &sd), -1);
    CHECK_EQ_INT(sim_fsdp_state_dict_parse("_STATE_DICT", &sd), -1);

    SimFsdpPrefetch pf;
    CHECK_EQ_INT(sim_fsdp_prefetch_parse("BACKWARD_PRE", &pf), 0);
    CHECK_EQ_INT(pf, SIM_FSDP_PREFETCH_PRE);
    CHECK_EQ_INT(sim_fsdp_prefetch_parse("backward-post", &pf), 0);
    CHECK_EQ_INT(pf, SIM_FSDP_PREFETCH_POST);
    CHECK_EQ_INT(sim_fsdp_prefetch_parse("NONE", &pf), 0);
    CHECK_EQ_INT(pf, SIM_FSDP_PREFETCH_NONE);
    CHECK_EQ_INT(sim_fsdp_prefetch_parse("pre", &pf), -1);

    SimFsdpWrap wr;
    CHECK_EQ_INT(sim_fsdp_wrap_parse("BLOCK", &wr), 0);
    CHECK_EQ_INT(wr, SIM_FSDP_WRAP_BLOCK);
    CHECK_EQ_INT(sim_fsdp_wrap_parse("Size", &wr), 0);
    CHECK_EQ_INT(wr, SIM_FSDP_WRAP_SIZE);
    CHECK_EQ_INT(sim_fsdp_wrap_parse("transformer", &wr), -1);
    return 0;
}

// The ZeRO paper's stages are the strategies they equal.
static int test_zero_stages(void) {
    SimFsdpSharding z = SIM_FSDP_SHARDING_COUNT;
    CHECK_EQ_INT(sim_fsdp_zero_stage("zero1", &z), 0);
    CHECK_EQ_INT(z, SIM_FSDP_ZERO1);
    CHECK_EQ_INT(sim_fsdp_zero_stage("zero2", &z), 0);
    CHECK_EQ_INT(z, SIM_FSDP_SHARD_GRAD_OP);
    CHECK_EQ_INT(sim_fsdp_zero_stage("zero3", &z), 0);
    CHECK_EQ_INT(z, SIM_FSDP_FULL_SHARD);
    z = SIM_FSDP_SHARDING_COUNT;
    const char *bad[] = {"zero0", "zero4", "fsdp", "ddp", "", "zero", "zero12"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK_EQ_INT(sim_fsdp_zero_stage(bad[i], &z), -1);
    CHECK_EQ_INT(sim_fsdp_zero_stage(NULL, &z), -1);
    CHECK_EQ_INT(z, SIM_FSDP_SHARDING_COUNT); // untouched on failure
    return 0;
}

// FullyShardedDataParallel's defaults.
static int test_defaults(void) {
    SimFsdpOptions o;
    memset(&o, 0x5a, sizeof o);
    sim_fsdp_options_default(&o);
    CHECK_EQ_INT(o.sharding, SIM_FSDP_FULL_SHARD);
    CHECK_EQ_INT(o.wrap, SIM_FSDP_WRAP_AUTO);
    CHECK_EQ_INT(o.min_params, 100000000);
    CHECK_EQ_INT(o.prefetch, SIM_FSDP_PREFETCH_PRE);
    CHECK_EQ_INT(o.forward_prefetch, 0);
    CHECK_EQ_INT(o.limit_all_gathers, 1);
    CHECK_EQ_INT(o.param_dtype, SIM_FP32);
    CHECK_EQ_INT(o.reduce_dtype, SIM_FP32);
    CHECK_EQ_INT(o.buffer_dtype, SIM_FP32);
    CHECK_EQ_INT(o.reduce_dtype_set, 0);
    CHECK_EQ_INT(o.cpu_offload, 0);
    CHECK_EQ_INT(o.zero1_reduce_scatter, 0);
    CHECK_EQ_INT(o.state_dict, SIM_FSDP_SD_FULL);
    CHECK_EQ_INT(o.rank0_only, 1);
    CHECK_EQ_INT(o.state_dict_rank0_call, 0);
    CHECK(o.print_units == NULL);
    return 0;
}

int main(void) {
    int failures = 0;
    RUN(test_divide_factors);
    RUN(test_names);
    RUN(test_zero_stages);
    RUN(test_defaults);
    ModelResults res;
    memset(&res, 0, sizeof res);
    if (tworld_run_cpu(1, 0, model_main, &res) != SIM_OK) {
        printf("FAILED the one-rank world for the models\n");
        return 1;
    }
    for (int i = 0; i < NMODEL_CASES; i++) {
        printf("%s %s\n", res.rc[i] == 0 ? "ok    " : "FAILED", model_cases[i].name);
        failures += res.rc[i] != 0;
    }
    return failures ? 1 : 0;
}
