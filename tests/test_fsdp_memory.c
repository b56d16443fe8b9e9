// tests/test_fsdp_memory.c: the memory ledger under each sharding strategy
// against the closed forms (sim/strategy/fsdp_mem.c says what is charged):
//   DDP, NO_SHARD    params 4Ψ, grads 4Ψ, Adam state 8Ψ            (16 B/param)
//   FULL_SHARD       params 4·Ψp/N, grads 4·Ψp/N, Adam 8·Ψp/N      (Ψp: padded)
//   ZeRO-1 fp32      params 4Ψ, grads 4Ψ, Adam 8·Ψp/N               (8Ψ + 8Ψ/N)
//   ZeRO-1 bf16      params 2Ψ, grads 2Ψ, master 4·Ψp/N, Adam 8·Ψp/N (4Ψ + 12Ψ/N)
//   CPU offload      the sharded state in host memory, none of it on the device
// after a few Adam steps (between steps, when only model state and the
// layers' activations are held), and the peaks: FULL_SHARD's includes the
// largest gathered unit; under no_sync accumulation the unsharded gradients
// stay (a higher gradient peak than reduce-scattering every micro-step).
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "engine/memory.h"
#include "model/optim_flags.h"
#include "strategy/fsdp.h"
#include "test_ddp_util.h"
#include "test_env.h"

typedef struct {
    SimMemLedger mem[TDDP_MAX_RANKS];
    size_t shard_total[TDDP_MAX_RANKS], padded_total, largest_padded;
    size_t psi;
} Snap;

static SimStatus snap(void *arg, SimRank *r, SimTrainer *t) {
    Snap *s = arg;
    s->mem[r->rank] = r->mem;
    const SimFsdpPlan *p = sim_fsdp_plan_of(t);
    if (p)
        s->shard_total[r->rank] = p->shard_total;
    if (r->rank != 0) // the rest is the same on every rank: rank 0 writes it
        return SIM_OK;
    s->psi = t->model->param_count;
    if (p) {
        s->padded_total = p->padded_total;
        s->largest_padded = 0;
        for (int u = 0; u < p->nunits; u++)
            if (p->units[u].padded > s->largest_padded)
                s->largest_padded = p->units[u].padded;
    }
    return SIM_OK;
}

typedef struct {
    SimFsdpSharding sharding; // or -1 for DDP
    SimDtype param_dtype;
    int offload, accum, every, R;
} Case;

static int run_case(const SimDataset *ds, const SimModelSpec *spec, const Case *c, Snap *out) {
    TddpRun run;
    SimFsdpOptions o;
    tddp_config(&run, ds, spec, c->R, 4, 3);
    char err[256];
    sim_optim_flags_default(&run.cfg.opt);
    CHECK(sim_optim_flags_set(&run.cfg.opt, "optimizer", "adam", err, sizeof err) == SIM_OK);
    CHECK(sim_optim_flags_set(&run.cfg.opt, "lr", "0.001", err, sizeof err) == SIM_OK);
    if (sim_optim_flags_validate(&run.cfg.opt, err, sizeof err) != SIM_OK) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    run.cfg.loop.accum = c->accum;
    run.cfg.loop.accum_sync_every = c->every;
    if ((int)c->sharding < 0) {
        run.use_ddp = 1;
    } else {
        sim_fsdp_options_default(&o);
        o.sharding = c->sharding;
        o.param_dtype = c->param_dtype;
        o.cpu_offload = c->offload;
        run.cfg.strategy = &sim_fsdp_strategy;
        run.cfg.strategy_cfg = &o;
    }
    memset(out, 0, sizeof *out);
    run.after = snap;
    run.after_arg = out;
    SimStatus st = tddp_run(&run);
    if (st != SIM_OK)
        fprintf(stderr, "run failed: %s\n", run.error);
    tddp_free(&run);
    return st == SIM_OK ? 0 : 1;
}

#define CUR(s, r, sp, cat) ((s)->mem[r].cur[sp][cat])

static int test_model_state(const SimDataset *ds, const SimModelSpec *spec) {
    Snap s;
    const int D = SIM_MEM_DEVICE, H = SIM_MEM_HOST;
    // DDP and NO_SHARD: 16 bytes per parameter
    Case ddp = {(SimFsdpSharding)-1, SIM_FP32, 0, 1, 0, 4};
    CHECK(run_case(ds, spec, &ddp, &s) == 0);
    int64_t psi = (int64_t)s.psi;
    for (int r = 0; r < 4; r++) {
        CHECK_EQ_INT(CUR(&s, r, D, SIM_MEM_PARAM), 4 * psi);
        CHECK_EQ_INT(CUR(&s, r, D, SIM_MEM_GRAD), 4 * psi);
        CHECK_EQ_INT(CUR(&s, r, D, SIM_MEM_OPTIM), 8 * psi);
        CHECK(CUR(&s, r, D, SIM_MEM_COMM) > 0); // the buckets
    }
    Case ns = {SIM_FSDP_NO_SHARD, SIM_FP32, 0, 1, 0, 4};
    CHECK(run_case(ds, spec, &ns, &s) == 0);
    for (int r = 0; r < 4; r++) {
        CHECK_EQ_INT(CUR(&s, r, D, SIM_MEM_PARAM), 4 * psi);
        CHECK_EQ_INT(CUR(&s, r, D, SIM_MEM_GRAD), 4 * psi);
        CHECK_EQ_INT(CUR(&s, r, D, SIM_MEM_OPTIM), 8 * psi);
    }
    // FULL_SHARD: one N-th of it (of the padded flat parameters)
    for (int R = 2; R <= 8; R *= 2) {
        Case fs = {SIM_FSDP_FULL_SHARD, SIM_FP32, 0, 1, 0, R};
        CHECK(run_case(ds, spec, &fs, &s) == 0);
        CHECK(s.padded_total % (size_t)R == 0);
        int64_t sh = (int64_t)s.padded_total / R;
        for (int r = 0; r < R; r++) {
            CHECK((int64_t)s.shard_total[r] == sh);
            CHECK_EQ_INT(CUR(&s, r, D, SIM_MEM_PARAM_SHARD), 4 * sh);
            CHECK_EQ_INT(CUR(&s, r, D, SIM_MEM_GRAD_SHARD), 4 * sh);
            CHECK_EQ_INT(CUR(&s, r, D, SIM_MEM_OPTIM), 8 * sh);
            // between steps no unit is gathered and no unsharded gradient held
            CHECK_EQ_INT(CUR(&s, r, D, SIM_MEM_PARAM), 0);
            CHECK_EQ_INT(CUR(&s, r, D, SIM_MEM_GRAD), 0);
            CHECK_EQ_INT(CUR(&s, r, D, SIM_MEM_COMM), 0);
            // the peak held at least the model state and the largest gathered unit
            int64_t state = 16 * sh + 4 * (int64_t)s.largest_padded;
            CHECK(s.mem[r].peak[D] >= state + CUR(&s, r, D, SIM_MEM_ACT));
            CHECK(s.mem[r].at_peak[D][SIM_MEM_PARAM] >= 4 * (int64_t)s.largest_padded);
        }
    }
    // ZeRO-1 in fp32: 8Ψ + 8Ψ/N; in bf16: 4Ψ + 12Ψ/N (the ZeRO paper's P_os)
    Case z1 = {SIM_FSDP_ZERO1, SIM_FP32, 0, 1, 0, 4};
    CHECK(run_case(ds, spec, &z1, &s) == 0);
    int64_t sh = (int64_t)s.shard_total[0];
    CHECK_EQ_INT(CUR(&s, 0, D, SIM_MEM_PARAM) + CUR(&s, 0, D, SIM_MEM_GRAD) + CUR(&s, 0, D, SIM_MEM_OPTIM) +
              CUR(&s, 0, D, SIM_MEM_PARAM_SHARD), 8 * psi + 8 * sh);
    Case z1b = {SIM_FSDP_ZERO1, SIM_BF16, 0, 1, 0, 4};
    CHECK(run_case(ds, spec, &z1b, &s) == 0);
    CHECK_EQ_INT(CUR(&s, 0, D, SIM_MEM_PARAM), 2 * psi);
    CHECK_EQ_INT(CUR(&s, 0, D, SIM_MEM_GRAD), 2 * psi);
    CHECK_EQ_INT(CUR(&s, 0, D, SIM_MEM_PARAM_SHARD), 4 * sh);
    CHECK_EQ_INT(CUR(&s, 0, D, SIM_MEM_OPTIM), 8 * sh);
    // CPU offload: the sharded state lives in host memory
    Case off = {SIM_FSDP_FULL_SHARD, SIM_FP32, 1, 1, 0, 4};
    CHECK(run_case(ds, spec, &off, &s) == 0);
    sh = (int64_t)s.shard_total[0];
    CHECK_EQ_INT(CUR(&s, 0, H, SIM_MEM_PARAM_SHARD), 4 * sh);
    CHECK_EQ_INT(CUR(&s, 0, H, SIM_MEM_GRAD_SHARD), 4 * sh);
    CHECK_EQ_INT(CUR(&s, 0, H, SIM_MEM_OPTIM), 8 * sh);
    CHECK_EQ_INT(CUR(&s, 0, D, SIM_MEM_PARAM_SHARD), 0);
    CHECK_EQ_INT(CUR(&s, 0, D, SIM_MEM_OPTIM), 0);
    return 0;
}

// no_sync keeps every unit's unsharded gradient until the last micro-step;
// reduce-scattering every micro-step holds at most two units' at a time.
static int test_no_sync_cost(const SimDataset *ds, const SimModelSpec *spec) {
    Snap a, b;
    Case nosync = {SIM_FSDP_FULL_SHARD, SIM_FP32, 0, 3, 0, 4};
    Case every = {SIM_FSDP_FULL_SHARD, SIM_FP32, 0, 3, 1, 4};
    CHECK(run_case(ds, spec, &nosync, &a) == 0);
    CHECK(run_case(ds, spec, &every, &b) == 0);
    int64_t ga = a.mem[0].at_peak[SIM_MEM_DEVICE][SIM_MEM_GRAD];
    int64_t gb = b.mem[0].at_peak[SIM_MEM_DEVICE][SIM_MEM_GRAD];
    int64_t pa = a.mem[0].peak[SIM_MEM_DEVICE], pb = b.mem[0].peak[SIM_MEM_DEVICE];
    printf("device peak: no_sync %lld B (unsharded grads %lld B in it), reduce-scatter every "
           "micro-step %lld B (%lld B); all unsharded grads %zu B\n", (long long)pa,
           (long long)ga, (long long)pb, (long long)gb, 4 * a.padded_total);
    CHECK(gb < ga);
    // most of the model's unsharded gradients more at the peak
    CHECK(pa - pb >= 2 * (int64_t)a.padded_total);
    return 0;
}

int main(void) {
    SimDataset mlp, gpt;
    SimModelSpec ms, gs;
    CHECK(tddp_data_mlp(&mlp, 256, "mlp:16,32,32,4", &ms) == SIM_OK);
    CHECK(tddp_data_gpt(&gpt, &gs) == SIM_OK);
    int fails = 0;
    fails += test_model_state(&mlp, &ms);
    fails += test_model_state(&gpt, &gs);
    SimDataset deep;
    SimModelSpec ds6;
    CHECK(tddp_data_mlp(&deep, 256, "mlp:16,32,32,32,32,32,4", &ds6) == SIM_OK);
    fails += test_no_sync_cost(&deep, &ds6);
    sim_dataset_free(&deep);
    sim_dataset_free(&mlp);
    sim_dataset_free(&gpt);
    if (fails == 0)
        printf("ok\n");
    return fails ? 1 : 0;
}
