// cli/plan/plan.c: `ddplab plan`: one plan (and, when it does not fit, the
// nearest configuration that does, found by planning the candidates), the
// strategies side by side (--compare), or a scaling table over world sizes
// (--sweep, with a PNG plot).
#include "plan/plan.h"

#include <stdlib.h>
#include <string.h>

#include "core/cli.h" // defines: CLI_EXIT_*, plan_main

// A candidate configuration: o with one change, described in `how`.
typedef struct {
    PlanOptions o;
    char how[160];
} Candidate;

static void with_strategy(PlanOptions *o, const char *strategy, SimFsdpSharding sh) {
    o->strategy = strategy;
    o->fsdp.sharding = sh;
}

// Candidates from the smallest change to the largest: activation
// checkpointing, then sharding more (ZeRO-1, 2, 3) with each checkpointing
// level, then offload, then more ranks.
static int candidates(const PlanOptions *o, Candidate *c, int max) {
    static const struct {
        const char *strategy;
        SimFsdpSharding sh;
    } ladder[] = {{NULL, SIM_FSDP_FULL_SHARD},
                  {"zero1", SIM_FSDP_ZERO1},
                  {"zero2", SIM_FSDP_SHARD_GRAD_OP},
                  {"zero3", SIM_FSDP_FULL_SHARD}};
    static const char *const ckpts[] = {"none", "selective", "full"};
    int gpt = o->model.kind == SIM_MODEL_GPT, n = 0, from = 0;
    for (int k = 0; k < 3; k++)
        if (strcmp(o->ckpt, ckpts[k]) == 0)
            from = k;
    for (size_t s = 0; s < sizeof ladder / sizeof ladder[0]; s++) {
        for (int k = from; k < (gpt ? 3 : from + 1) && n < max; k++) {
            if (s == 0 && k == from)
                continue; // the configuration itself
            c[n].o = *o;
            if (ladder[s].strategy)
                with_strategy(&c[n].o, ladder[s].strategy, ladder[s].sh);
            c[n].o.ckpt = ckpts[k];
            snprintf(c[n].how, sizeof c[n].how, "--strategy %s --ckpt %s",
                     c[n].o.strategy, ckpts[k]);
            n++;
        }
    }
    const char *ck = gpt ? "full" : o->ckpt;
    if (n < max) {
        c[n].o = *o;
        with_strategy(&c[n].o, "zero3", SIM_FSDP_FULL_SHARD);
        c[n].o.ckpt = ck;
        c[n].o.fsdp.cpu_offload = 1;
        snprintf(c[n].how, sizeof c[n].how, "--strategy zero3 --ckpt %s --offload", ck);
        n++;
    }
    for (int r = o->nranks * 2; r <= 65536 && n < max; r *= 2) {
        c[n].o = *o;
        with_strategy(&c[n].o, "zero3", SIM_FSDP_FULL_SHARD);
        c[n].o.ckpt = ck;
        c[n].o.nranks = r;
        c[n].o.nodes = r / o->gpus_per_node > 0 ? r / o->gpus_per_node : 1;
        snprintf(c[n].how, sizeof c[n].how, "--strategy zero3 --ckpt %s --ranks %d", ck, r);
        n++;
    }
    return n;
}

static void nearest_fit(const PlanOptions *o) {
    Candidate c[40];
    int n = candidates(o, c, 40);
    for (int i = 0; i < n; i++) {
        PlanResult r;
        c[i].o.trace = NULL;
        if (plan_run(&c[i].o, &r) != 0)
            continue;
        if (r.fits) {
            printf("\nnearest configuration that fits: %s (peak %.2f GB per GPU, step %.2f ms)\n",
                   c[i].how, (double)r.mem.peak[SIM_MEM_DEVICE] / 1e9, r.step_s * 1e3);
            return;
        }
    }
    printf("\nnothing tried fits (checkpointing, ZeRO-3, offload, up to 65536 ranks): the "
           "model needs tensor or pipeline parallelism, or a smaller micro-batch\n");
}

static int plan_one(const PlanOptions *o) {
    PlanResult r;
    int code = plan_run(o, &r);
    if (code != 0) {
        plan_error("%s", r.error);
        return code;
    }
    plan_report(stdout, o, &r);
    if (!r.fits && !o->quiet)
        nearest_fit(o);
    return r.fits ? CLI_EXIT_OK : CLI_EXIT_CHECK;
}

static int plan_compare(const PlanOptions *o) {
    PlanOptions v[10];
    int n = 0;
    static const struct {
        const char *strategy;
        SimFsdpSharding sh;
        int offload;
        enum { ANY, NODES, ONE_MACHINE } needs; // hybrid: 2+ nodes of 2+; dp: one machine
    } list[] = {
        {"dp", SIM_FSDP_FULL_SHARD, 0, ONE_MACHINE},
        {"ddp", SIM_FSDP_FULL_SHARD, 0, ANY},
        {"zero1", SIM_FSDP_ZERO1, 0, ANY},
        {"zero2", SIM_FSDP_SHARD_GRAD_OP, 0, ANY},
        {"zero3", SIM_FSDP_FULL_SHARD, 0, ANY},
        {"fsdp2", SIM_FSDP_FULL_SHARD, 0, ANY},
        {"zero3", SIM_FSDP_FULL_SHARD, 1, ANY},
        {"fsdp", SIM_FSDP_HYBRID_SHARD, 0, NODES},
    };
    for (size_t i = 0; i < sizeof list / sizeof list[0]; i++) {
        if (list[i].needs == NODES && (o->nodes < 2 || o->gpus_per_node < 2))
            continue;
        if (list[i].needs == ONE_MACHINE && (o->nodes > 1 || o->nranks > 64 || o->nranks < 2))
            continue;
        v[n] = *o;
        v[n].trace = NULL;
        with_strategy(&v[n], list[i].strategy, list[i].sh);
        v[n].fsdp.cpu_offload = list[i].offload;
        n++;
    }
    PlanResult *r = calloc((size_t)n, sizeof *r);
    if (!r)
        return CLI_EXIT_INTERNAL;
    for (int i = 0; i < n; i++) {
        plan_run(&v[i], &r[i]);
        if (v[i].fsdp.cpu_offload)
            r[i].strategy_label = "full_shard + offload";
        else if (strcmp(v[i].strategy, "ddp") == 0)
            r[i].strategy_label = "ddp";
        else if (strcmp(v[i].strategy, "dp") == 0)
            r[i].strategy_label = "dp (DataParallel)";
    }
    plan_report_compare(stdout, o, r, n);
    free(r);
    return CLI_EXIT_OK;
}

static int plan_sweep(const PlanOptions *o) {
    PlanResult *r = calloc((size_t)o->nsweep, sizeof *r);
    if (!r)
        return CLI_EXIT_INTERNAL;
    for (int i = 0; i < o->nsweep; i++) {
        PlanOptions v = *o;
        v.nranks = o->sweep[i];
        v.gpus_per_node = o->sweep[i] < o->gpus_per_node ? o->sweep[i] : o->gpus_per_node;
        v.nodes = (v.nranks + v.gpus_per_node - 1) / v.gpus_per_node;
        v.trace = NULL;
        if (v.nranks % v.gpus_per_node) {
            snprintf(r[i].error, sizeof r[i].error, "%d ranks are not whole nodes of %d",
                     v.nranks, v.gpus_per_node);
            r[i].nranks = v.nranks;
            continue;
        }
        fprintf(stderr, "ddplab plan: %d ranks...\n", v.nranks);
        plan_run(&v, &r[i]);
    }
    plan_report_sweep(stdout, o, r, o->nsweep);
    int code = o->plot ? plan_plot_sweep(o, r, o->nsweep) : CLI_EXIT_OK;
    free(r);
    return code;
}

int plan_main(int argc, char **argv) {
    PlanOptions o;
    switch (plan_opts_parse(argc, argv, &o)) {
    case PLAN_PARSE_HELP:
        plan_help(stdout);
        return CLI_EXIT_OK;
    case PLAN_PARSE_ERROR:
        return CLI_EXIT_USAGE;
    default:
        break;
    }
    if (o.compare)
        return plan_compare(&o);
    if (o.nsweep)
        return plan_sweep(&o);
    return plan_one(&o);
}
