// tests/test_fsdp_comm.c: what FSDP and ZeRO put on the wire, read from the
// trace, one optimizer step at a time, against the formulas of
// reference/semantics.md; and what prefetching does to the simulated
// timeline and to the memory ledger's peak.
//
//   counts     per step, for L units with parameters (the MLP's root holds
//              none; the GPT's holds the embeddings, ln_f and the head):
//                full_shard     all-gathers: root + L in forward, L again in
//                               backward (the root stays gathered between them)
//                shard_grad_op  all-gathers: root + L (kept until backward ends)
//                both           reduce-scatters: one per unit with parameters;
//                               no all_reduce
//                no_shard       one all_reduce per unit, nothing else
//                zero1          one all_reduce (or reduce-scatter) of the flat
//                               buffer and one all-gather of the updated shards
//   bytes      sent by rank 0 per step (XFER events of every rank's trace with
//              src = 0, and the same computed from rank 0's COLL events with
//              the collective's schedule; the two must agree exactly), with P
//              the padded model bytes (each unit padded to a multiple of R),
//              M the model bytes and P_root the root unit's padded bytes:
//                full_shard     (3P - P_root) (R-1)/R     (3P (R-1)/R for the MLP)
//                shard_grad_op  2P (R-1)/R: one gather per unit
//                ddp            2M (R-1)/R, within the rounding of the ring
//                               chunks (balanced parts of each bucket)
//                no_shard       DDP's volume; zero1 all_reduce + all-gather =
//                               3P (R-1)/R; zero1 reduce-scatter 2P (R-1)/R
//              hybrid on W nodes of G ranks: the shards travel inside the node
//              (as full_shard with G ranks) and only the gradient shard's
//              all_reduce crosses nodes: 2 (P/G) (W-1)/W bytes per rank per step
//              (P padded to a multiple of G), identified by the Send events
//              whose destination is on another node.
//   timeline   per-step simulated time of full_shard on a model whose
//              gathers cost about what its layers' compute does: BACKWARD_PRE
//              prefetch is faster than none (the next unit's gather overlaps
//              this unit's backward), forward prefetch faster again
//   memory     with forward prefetch and no limit_all_gathers, every unit's
//              gather goes out at the first unit's forward: the ledger's
//              device peak exceeds the limited run's by at least one unit
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "coll/schedule.h"
#include "engine/comm.h"
#include "model/optim_flags.h"
#include "strategy/fsdp.h"
#include "test_ddp_util.h"
#include "test_env.h"
#include "test_world.h"

#define MAX_STEPS 8

// One traced run: every rank's events, with the event count of each rank's
// trace at the start (index 0) and at the end of each step.
typedef struct {
    SimTrainConfig cfg;
    SimFsdpOptions fsdp;
    SimDdpOptions ddp;
    int use_ddp;
    int R, nodes;
    // results
    SimTrainer tr[TDDP_MAX_RANKS];
    size_t mark[TDDP_MAX_RANKS][MAX_STEPS + 1];
    double sim_s[TDDP_MAX_RANKS][MAX_STEPS + 1];
    int64_t peak[TDDP_MAX_RANKS];   // the ledger's device peak
    SimEvent *ev[TDDP_MAX_RANKS];
    size_t nev[TDDP_MAX_RANKS];
    size_t padded_total, root_padded, numel_total;
    int units_with_params;
    int root_has_params;
    int shard_ranks;
} Traced;

static void on_ready(void *arg, int rank, const SimTrainer *t) {
    Traced *x = arg;
    SimTrace *tr = t->rank->world->trace;
    x->mark[rank][0] = tr ? sim_trace_rank_count(tr, rank) : 0;
    x->sim_s[rank][0] = t->rank->clock[SIM_STREAM_COMPUTE];
    const SimFsdpPlan *p = sim_fsdp_plan_of(t);
    if (rank == 0 && p) { // the plan the run uses, for the formulas
        x->padded_total = p->padded_total;
        x->root_padded = p->units[0].padded;
        x->root_has_params = p->units[0].numel > 0;
        x->shard_ranks = p->shard_ranks;
        x->numel_total = 0;
        x->units_with_params = 0;
        for (int u = 0; u < p->nunits; u++) {
            x->numel_total += p->units[u].numel;
            x->units_with_params += p->units[u].numel > 0;
        }
    }
}

static void on_step(void *arg, int rank, const SimStepStats *s) {
    Traced *x = arg;
    SimTrainer *t = &x->tr[rank];
    if (s->step < 1 || s->step > MAX_STEPS)
        return;
    SimTrace *tr = t->rank->world->trace;
    x->mark[rank][s->step] = tr ? sim_trace_rank_count(tr, rank) : 0;
    x->sim_s[rank][s->step] = s->sim_s;
}

static SimStatus traced_main(SimRank *r, void *arg) {
    Traced *x = arg;
    SimStatus st = sim_train_run(r, x->tr);
    x->peak[r->rank] = r->mem.peak[SIM_MEM_DEVICE];
    sim_train_free(&x->tr[r->rank], r);
    return st;
}

static int traced_run(Traced *x) {
    x->cfg.hooks.on_ready = on_ready;
    x->cfg.hooks.on_ready_arg = x;
    x->cfg.hooks.on_step = on_step;
    x->cfg.hooks.on_step_arg = x;
    if (x->use_ddp) {
        x->cfg.strategy = &sim_ddp_strategy;
        x->cfg.strategy_cfg = &x->ddp;
    } else {
        x->cfg.strategy = &sim_fsdp_strategy;
        x->cfg.strategy_cfg = &x->fsdp;
    }
    for (int i = 0; i < x->R; i++)
        x->tr[i].cfg = &x->cfg;
    SimWorld w;
    SimStatus st = tworld_init_cpu_nodes(&w, x->R, x->nodes, 1, 10.0);
    if (st == SIM_OK)
        st = sim_world_run(&w, traced_main, x);
    if (st != SIM_OK)
        fprintf(stderr, "traced run failed: %s\n", sim_world_error(&w));
    for (int r = 0; st == SIM_OK && r < x->R; r++) {
        size_t n = sim_trace_rank_count(w.trace, r);
        x->ev[r] = malloc((n + 1) * sizeof *x->ev[r]);
        if (x->ev[r] == NULL) {
            st = SIM_ENOMEM;
            break;
        }
        memcpy(x->ev[r], sim_trace_rank_events(w.trace, r), n * sizeof *x->ev[r]);
        x->nev[r] = n;
    }
    if (st == SIM_OK && sim_trace_dropped(w.trace) != 0)
        st = SIM_ENOMEM;
    sim_world_free(&w);
    return st != SIM_OK;
}

static void traced_free(Traced *x) {
    for (int r = 0; r < TDDP_MAX_RANKS; r++)
        free(x->ev[r]);
    free(x);
}

// A configuration: SGD (lr 0.1) on blobs, shuffle off; fsdp options at
// their defaults with the sharding given.
static Traced *traced_new(const SimDataset *ds, const SimModelSpec *spec, int R, int nodes,
                          int B, int64_t steps, SimFsdpSharding sh) {
    Traced *x = calloc(1, sizeof *x);
    if (x == NULL)
        return NULL;
    TddpRun t;
    tddp_config(&t, ds, spec, R, B, steps); // the tests' common configuration
    x->cfg = t.cfg;
    x->ddp = t.ddp;
    x->R = R;
    x->nodes = nodes;
    sim_fsdp_options_default(&x->fsdp);
    x->fsdp.sharding = sh;
    return x;
}

// ----------------------------------------------------------------------------
// reading one step

typedef struct {
    int coll[SIM_COLL_COUNT];   // rank 0's collectives of each kind (COLL events)
    uint64_t sent;              // bytes rank 0 sent: XFER events with src 0 (all ranks)
    uint64_t sent_sched;        // the same from rank 0's COLL events and the schedules
    uint64_t p2p_sent;          // bytes of rank 0's Send events (group rings)
    uint64_t p2p_inter;         // ... of them to a rank on another node
    uint64_t p2p_intra;
    int group_coll[SIM_COLL_COUNT]; // rank 0's group collectives (label = the group)
} StepIo;

// Bytes `rank` sends in a world collective, from its schedule.
static uint64_t sched_sent(const SimEvent *e, int R, int rank) {
    SimSched s;
    if (sim_sched_init(&s, (SimCollKind)e->coll, (SimAlgo)e->algo, R, e->count, 0) != 0)
        return 0;
    uint64_t b = 0;
    SimXfer x[64];
    for (int t = 0; t < s.nsteps; t++) {
        int n = sim_sched_outgoing(&s, rank, t, x, 64);
        for (int i = 0; i < n && i < 64; i++)
            b += x[i].count * sim_dtype_size((SimDtype)e->dtype);
    }
    return b;
}

// What rank 0 did during step k (1-based).
static StepIo step_io(const Traced *x, int k) {
    StepIo io;
    memset(&io, 0, sizeof io);
    int rpn = x->R / (x->nodes > 1 ? x->nodes : 1);
    for (int r = 0; r < x->R; r++) {
        for (size_t i = x->mark[r][k - 1]; i < x->mark[r][k]; i++) {
            const SimEvent *e = &x->ev[r][i];
            if (e->kind == SIM_EV_XFER && e->src == 0 && e->dst != 0)
                io.sent += e->bytes;
            if (r != 0 || e->kind != SIM_EV_COLL)
                continue;
            if (e->coll == SIM_COLL_SEND && e->src == 0) {
                io.p2p_sent += e->bytes;
                *(e->dst / rpn != 0 ? &io.p2p_inter : &io.p2p_intra) += e->bytes;
                continue;
            }
            if (e->coll == SIM_COLL_SEND || e->coll == SIM_COLL_RECV)
                continue;
            if (e->label != NULL) { // a group collective: its ring is the Sends above
                io.group_coll[e->coll]++;
                continue;
            }
            io.coll[e->coll]++;
            io.sent_sched += sched_sent(e, x->R, 0);
        }
    }
    return io;
}

// ----------------------------------------------------------------------------
// counts and volumes

static SimStatus mlp_spec(SimDataset *ds, SimModelSpec *spec, const char *model) {
    return tddp_data_mlp(ds, 1024, model, spec);
}

static SimStatus gpt_spec(SimDataset *ds, SimModelSpec *spec) {
    SimModelSpec one;
    SIM_CHECK(tddp_data_gpt(ds, &one));
    char text[128], err[256];
    snprintf(text, sizeof text, "gpt:layers=2,embd=16,heads=2,ctx=8,vocab=%d", ds->vocab);
    return sim_model_parse(text, spec, err, sizeof err);
}

// ddp on the same model: bytes rank 0 sends per step, and the model's bytes.
static int ddp_bytes(const SimDataset *ds, const SimModelSpec *spec, int R, int B,
                     uint64_t *sent, int *allreduces) {
    Traced *x = traced_new(ds, spec, R, 1, B, 3, SIM_FSDP_FULL_SHARD);
    CHECK(x != NULL);
    x->use_ddp = 1;
    x->ddp.broadcast_buffers = 0; // the GPT's mask is a buffer: its broadcast is not gradients
    int fails = traced_run(x);
    if (!fails) {
        StepIo io = step_io(x, 3);
        *sent = io.sent;
        *allreduces = io.coll[SIM_COLL_ALL_REDUCE];
        fails = io.sent != io.sent_sched;
    }
    traced_free(x);
    return fails;
}

// One FSDP run's step 3 (step 1 and 2 behind it).
static int fsdp_step(const SimDataset *ds, const SimModelSpec *spec, int R, int nodes, int B,
                     SimFsdpSharding sh, int zero1_rs, StepIo *io, Traced *keep) {
    Traced *x = traced_new(ds, spec, R, nodes, B, 3, sh);
    CHECK(x != NULL);
    x->fsdp.zero1_reduce_scatter = zero1_rs;
    int fails = traced_run(x);
    if (!fails) {
        *io = step_io(x, 3);
        if (keep) {
            *keep = *x;
            memset(keep->ev, 0, sizeof keep->ev);
        }
    }
    traced_free(x);
    return fails;
}

// full_shard and shard_grad_op on L units: the gathers and reduce-scatters,
// and the bytes against 3(R-1)/R of the padded model.
static int check_flat(const SimDataset *ds, const SimModelSpec *spec, int R, int L,
                      const char *what) {
    Traced *plan = calloc(1, sizeof *plan);
    CHECK(plan != NULL);
    StepIo fs, sg;
    int fails = fsdp_step(ds, spec, R, 1, 4, SIM_FSDP_FULL_SHARD, 0, &fs, plan);
    fails += fsdp_step(ds, spec, R, 1, 4, SIM_FSDP_SHARD_GRAD_OP, 0, &sg, NULL);
    uint64_t ddp = 0;
    int ddp_ar = 0;
    fails += ddp_bytes(ds, spec, R, 4, &ddp, &ddp_ar);
    if (fails) {
        free(plan);
        return 1;
    }
    int root = plan->root_has_params;
    uint64_t P = plan->padded_total * 4, Proot = root ? plan->root_padded * 4 : 0;
    uint64_t M = plan->numel_total * 4;
    uint64_t want_fs = (3 * P - Proot) * (uint64_t)(R - 1) / (uint64_t)R;
    uint64_t want_sg = 2 * P * (uint64_t)(R - 1) / (uint64_t)R;
    double ddp_formula = 2.0 * (double)M * (R - 1) / R;
    printf("%s, R=%d, %d units + root%s: full_shard %d all-gathers, %d reduce-scatters, "
           "%llu bytes sent (formula %llu); shard_grad_op %d all-gathers, %d reduce-scatters, "
           "%llu bytes (formula %llu); ddp %d all_reduces, %llu bytes (2(R-1)/R x %llu = %.0f); padded model "
           "%llu bytes\n", what, R, L, root ? " with parameters" : " without parameters",
           fs.coll[SIM_COLL_ALL_GATHER], fs.coll[SIM_COLL_REDUCE_SCATTER],
           (unsigned long long)fs.sent, (unsigned long long)want_fs,
           sg.coll[SIM_COLL_ALL_GATHER], sg.coll[SIM_COLL_REDUCE_SCATTER],
           (unsigned long long)sg.sent, (unsigned long long)want_sg, ddp_ar, (unsigned long long)ddp, (unsigned long long)M,
           ddp_formula, (unsigned long long)P);
    free(plan);
    CHECK_EQ_INT(fs.coll[SIM_COLL_ALL_GATHER], root + L + L);
    CHECK_EQ_INT(sg.coll[SIM_COLL_ALL_GATHER], root + L);
    CHECK_EQ_INT(fs.coll[SIM_COLL_REDUCE_SCATTER], root + L);
    CHECK_EQ_INT(sg.coll[SIM_COLL_REDUCE_SCATTER], root + L);
    CHECK_EQ_INT(fs.coll[SIM_COLL_ALL_REDUCE] + sg.coll[SIM_COLL_ALL_REDUCE], 0);
    CHECK_EQ_INT(fs.sent, fs.sent_sched);
    CHECK_EQ_INT(sg.sent, sg.sent_sched);
    CHECK_EQ_INT(fs.sent, want_fs);
    CHECK_EQ_INT(sg.sent, want_sg);
    if (!root) // the MLP: exactly 3(R-1)/R of the padded model, against DDP's 2(R-1)/R
        CHECK_EQ_INT(fs.sent * (uint64_t)R, 3 * P * (uint64_t)(R - 1));
    // DDP's ring chunks are balanced parts of each bucket: within R bytes of
    // rounding per bucket and step phase
    CHECK(fabs((double)ddp - ddp_formula) <= 2.0 * ddp_ar * R * 4);
    // 3/2 of DDP's traffic, less the root's backward gather, plus the padding
    CHECK(fabs((double)fs.sent / (double)ddp - (3.0 * P - Proot) / (2.0 * M)) < 0.01);
    return 0;
}

static int test_full_vs_grad_op(void) {
    SimDataset ds;
    SimModelSpec spec;
    int fails = 0;
    CHECK(mlp_spec(&ds, &spec, "mlp:16,32,32,32,4") == SIM_OK);
    fails += check_flat(&ds, &spec, 4, 4, "mlp:16,32,32,32,4"); // no padding at R = 4
    fails += check_flat(&ds, &spec, 3, 4, "mlp:16,32,32,32,4"); // padded units at R = 3
    fails += check_flat(&ds, &spec, 8, 4, "mlp:16,32,32,32,4");
    sim_dataset_free(&ds);
    CHECK(gpt_spec(&ds, &spec) == SIM_OK);
    fails += check_flat(&ds, &spec, 4, 2, "gpt 2 blocks");
    fails += check_flat(&ds, &spec, 3, 2, "gpt 2 blocks");
    sim_dataset_free(&ds);
    return fails;
}

// Gradient accumulation over K micro-steps under no_sync, as PyTorch's
// _should_free_in_backward decides: SHARD_GRAD_OP keeps every unit gathered
// across the micro-steps (one all-gather per unit per optimizer step),
// FULL_SHARD frees after each backward (forward and backward gathers in
// every micro-step); both reduce-scatter once per unit, at the last
// micro-step. With --accum-sync every, SHARD_GRAD_OP gathers every
// micro-step again.
static int accum_step(const SimDataset *ds, const SimModelSpec *spec, SimFsdpSharding sh,
                      int sync_every, StepIo *io) {
    Traced *x = traced_new(ds, spec, 4, 1, 4, 3, sh);
    CHECK(x != NULL);
    x->cfg.loop.accum = 4;
    x->cfg.loop.accum_sync_every = sync_every;
    int fails = traced_run(x);
    if (!fails)
        *io = step_io(x, 3);
    traced_free(x);
    return fails;
}

static int test_accumulation(void) {
    SimDataset ds;
    SimModelSpec spec;
    CHECK(mlp_spec(&ds, &spec, "mlp:16,32,32,32,4") == SIM_OK);
    const int K = 4, L = 4; // micro-steps; units with parameters (the root has none)
    StepIo sg, fs, sg_every;
    int fails = accum_step(&ds, &spec, SIM_FSDP_SHARD_GRAD_OP, 0, &sg);
    fails += accum_step(&ds, &spec, SIM_FSDP_FULL_SHARD, 0, &fs);
    fails += accum_step(&ds, &spec, SIM_FSDP_SHARD_GRAD_OP, 1, &sg_every);
    sim_dataset_free(&ds);
    CHECK_EQ_INT(fails, 0);
    printf("accumulation over %d micro-steps, %d units: shard_grad_op %d all-gathers (%d with "
           "--accum-sync every), full_shard %d\n", K, L, sg.coll[SIM_COLL_ALL_GATHER],
           sg_every.coll[SIM_COLL_ALL_GATHER], fs.coll[SIM_COLL_ALL_GATHER]);
    CHECK_EQ_INT(sg.coll[SIM_COLL_ALL_GATHER], L);
    CHECK_EQ_INT(sg.coll[SIM_COLL_REDUCE_SCATTER], L);
    CHECK_EQ_INT(fs.coll[SIM_COLL_ALL_GATHER], 2 * L * K);
    CHECK_EQ_INT(fs.coll[SIM_COLL_REDUCE_SCATTER], L);
    CHECK_EQ_INT(sg_every.coll[SIM_COLL_ALL_GATHER], L * K);
    CHECK_EQ_INT(sg_every.coll[SIM_COLL_REDUCE_SCATTER], L * K);
    return 0;
}

// CPU offload steps the optimizer on the host: every optimizer-step op of
// rank 0 is on the host stream, priced on the host's share of a node
// (sim_device_host) for its FLOPs and bytes, and none is on the device's
// compute stream; without offload they all are, priced on the device.
static int optimizer_ops(int offload, int *on_host, int *on_device, int *priced) {
    SimDataset ds;
    SimModelSpec spec;
    CHECK(mlp_spec(&ds, &spec, "mlp:16,32,32,32,4") == SIM_OK);
    Traced *x = traced_new(&ds, &spec, 4, 1, 4, 2, SIM_FSDP_FULL_SHARD);
    CHECK(x != NULL);
    x->fsdp.cpu_offload = offload;
    int fails = traced_run(x);
    *on_host = *on_device = *priced = 0;
    double last_opt = 0; // the end of the last optimizer step, on either stream
    for (size_t i = 0; !fails && i < x->nev[0]; i++) {
        const SimEvent *e = &x->ev[0][i];
        if (e->kind != SIM_EV_COMPUTE || e->name == NULL || strcmp(e->name, "sgd_step") != 0)
            continue;
        last_opt = e->sim_end > last_opt ? e->sim_end : last_opt;
        const SimDeviceProfile *d = e->stream == SIM_STREAM_HOST ? sim_device_host()
                                                                 : sim_device_default();
        double want = sim_cost_compute_on(d, (double)e->count, (double)e->bytes, 0);
        *on_host += e->stream == SIM_STREAM_HOST;
        *on_device += e->stream == SIM_STREAM_COMPUTE;
        *priced += fabs((e->sim_end - e->sim_start) - want) <= 1e-12;
    }
    // a step ends with its optimizer step, on the host under offload: the
    // step's simulated end (the run summary's time) is not before it
    if (!fails && !(x->sim_s[0][2] >= last_opt && last_opt > 0)) {
        fprintf(stderr, "step 2 ends at %.9g s, its optimizer at %.9g s\n", x->sim_s[0][2],
                last_opt);
        fails = 1;
    }
    traced_free(x);
    sim_dataset_free(&ds);
    return fails;
}

static int test_offload_optimizer(void) {
    int host, device, priced;
    CHECK_EQ_INT(optimizer_ops(1, &host, &device, &priced), 0);
    CHECK(host > 0);
    CHECK_EQ_INT(device, 0);
    CHECK_EQ_INT(priced, host);
    CHECK_EQ_INT(optimizer_ops(0, &host, &device, &priced), 0);
    CHECK(device > 0);
    CHECK_EQ_INT(host, 0);
    CHECK_EQ_INT(priced, device);
    return 0;
}

// no_shard moves DDP's bytes (one all_reduce per unit instead of per
// bucket); zero1 an all_reduce (or a reduce-scatter) plus the all-gather of
// the updated parameters.
static int test_no_shard_and_zero1(void) {
    SimDataset ds;
    SimModelSpec spec;
    CHECK(mlp_spec(&ds, &spec, "mlp:16,32,32,32,4") == SIM_OK);
    const int R = 4; // every tensor's size is a multiple of 4: no rounding anywhere
    Traced *plan = calloc(1, sizeof *plan);
    CHECK(plan != NULL);
    StepIo ns, z1, z1rs;
    uint64_t ddp = 0;
    int ddp_ar = 0;
    int fails = fsdp_step(&ds, &spec, R, 1, 4, SIM_FSDP_NO_SHARD, 0, &ns, NULL);
    fails += fsdp_step(&ds, &spec, R, 1, 4, SIM_FSDP_ZERO1, 0, &z1, plan);
    fails += fsdp_step(&ds, &spec, R, 1, 4, SIM_FSDP_ZERO1, 1, &z1rs, NULL);
    fails += ddp_bytes(&ds, &spec, R, 4, &ddp, &ddp_ar);
    uint64_t P = plan->padded_total * 4, M = plan->numel_total * 4;
    free(plan);
    sim_dataset_free(&ds);
    CHECK(fails == 0);
    printf("mlp:16,32,32,32,4 R=4 (M = %llu bytes): ddp %llu bytes in %d all_reduces; no_shard "
           "%llu bytes in %d all_reduces; zero1 %llu bytes (%d all_reduce + %d all-gather); "
           "zero1 reduce-scatter %llu bytes (%d reduce-scatter + %d all-gather)\n",
           (unsigned long long)M, (unsigned long long)ddp, ddp_ar, (unsigned long long)ns.sent,
           ns.coll[SIM_COLL_ALL_REDUCE], (unsigned long long)z1.sent,
           z1.coll[SIM_COLL_ALL_REDUCE], z1.coll[SIM_COLL_ALL_GATHER],
           (unsigned long long)z1rs.sent, z1rs.coll[SIM_COLL_REDUCE_SCATTER],
           z1rs.coll[SIM_COLL_ALL_GATHER]);
    CHECK_EQ_INT(ddp * R, 2 * M * (R - 1));
    CHECK_EQ_INT(ns.sent, ddp);
    CHECK_EQ_INT(ns.coll[SIM_COLL_ALL_REDUCE], 4); // one per unit
    CHECK_EQ_INT(ns.coll[SIM_COLL_ALL_GATHER] + ns.coll[SIM_COLL_REDUCE_SCATTER], 0);
    CHECK_EQ_INT(z1.coll[SIM_COLL_ALL_REDUCE], 1); // one flat buffer
    CHECK_EQ_INT(z1.coll[SIM_COLL_ALL_GATHER], 1);
    CHECK_EQ_INT(z1.coll[SIM_COLL_REDUCE_SCATTER], 0);
    CHECK_EQ_INT(z1.sent * R, 3 * P * (R - 1));
    CHECK_EQ_INT(z1rs.coll[SIM_COLL_REDUCE_SCATTER], 1);
    CHECK_EQ_INT(z1rs.coll[SIM_COLL_ALL_GATHER], 1);
    CHECK_EQ_INT(z1rs.coll[SIM_COLL_ALL_REDUCE], 0);
    CHECK_EQ_INT(z1rs.sent * R, 2 * P * (R - 1));
    CHECK_EQ_INT(ns.sent, ns.sent_sched);
    CHECK_EQ_INT(z1.sent, z1.sent_sched);
    CHECK_EQ_INT(z1rs.sent, z1rs.sent_sched);
    return 0;
}

// hybrid_shard on W = 2 nodes of G ranks: gathers and reduce-scatters
// inside the node, and only the gradient shards' all_reduce between nodes.
static int check_hybrid(const SimDataset *ds, const SimModelSpec *spec, int G, int L,
                        SimFsdpSharding sh, const char *what) {
    const int W = 2, R = W * G;
    Traced *plan = calloc(1, sizeof *plan);
    CHECK(plan != NULL);
    StepIo io;
    int fails = fsdp_step(ds, spec, R, W, 4, sh, 0, &io, plan);
    int root = plan->root_has_params, S = plan->shard_ranks;
    uint64_t P = plan->padded_total * 4, Proot = root ? plan->root_padded * 4 : 0;
    free(plan);
    CHECK(fails == 0);
    int full = sh == SIM_FSDP_HYBRID_SHARD;
    // inside the node, a full_shard (or shard_grad_op) of G ranks
    uint64_t gathers = full ? 2 * P - Proot : P;
    uint64_t want_intra = (gathers + P) * (uint64_t)(G - 1) / (uint64_t)G;
    // across nodes, each unit's gradient shard (P_u / G) all_reduced over W
    // nodes: 2 (W-1)/W of it (the shards here split evenly in two)
    uint64_t want_inter = 2 * (P / (uint64_t)G) * (uint64_t)(W - 1) / (uint64_t)W;
    printf("%s %s on %d nodes x %d: shard group %d ranks; %d all-gathers, %d reduce-scatters "
           "inside the node, %d all_reduces across; rank 0 sends %llu bytes inside its node "
           "(formula %llu) and %llu to the other node (2(P/G)(W-1)/W = %llu, P = %llu)\n",
           what, sim_fsdp_sharding_name(sh), W, G, S, io.group_coll[SIM_COLL_ALL_GATHER],
           io.group_coll[SIM_COLL_REDUCE_SCATTER], io.group_coll[SIM_COLL_ALL_REDUCE],
           (unsigned long long)io.p2p_intra, (unsigned long long)want_intra,
           (unsigned long long)io.p2p_inter, (unsigned long long)want_inter,
           (unsigned long long)P);
    CHECK_EQ_INT(S, G);
    CHECK_EQ_INT(io.group_coll[SIM_COLL_ALL_GATHER], full ? root + 2 * L : root + L);
    CHECK_EQ_INT(io.group_coll[SIM_COLL_REDUCE_SCATTER], root + L);
    CHECK_EQ_INT(io.group_coll[SIM_COLL_ALL_REDUCE], root + L);
    CHECK_EQ_INT(io.sent, 0); // no world collective at all
    CHECK_EQ_INT(io.p2p_intra, want_intra);
    CHECK_EQ_INT(io.p2p_inter, want_inter);
    return 0;
}

static int test_hybrid(void) {
    SimDataset ds;
    SimModelSpec spec;
    int fails = 0;
    CHECK(mlp_spec(&ds, &spec, "mlp:16,32,32,32,4") == SIM_OK);
    fails += check_hybrid(&ds, &spec, 2, 4, SIM_FSDP_HYBRID_SHARD, "mlp:16,32,32,32,4");
    fails += check_hybrid(&ds, &spec, 4, 4, SIM_FSDP_HYBRID_SHARD, "mlp:16,32,32,32,4");
    fails += check_hybrid(&ds, &spec, 2, 4, SIM_FSDP_HYBRID_ZERO2, "mlp:16,32,32,32,4");
    fails += check_hybrid(&ds, &spec, 4, 4, SIM_FSDP_HYBRID_ZERO2, "mlp:16,32,32,32,4");
    sim_dataset_free(&ds);
    CHECK(gpt_spec(&ds, &spec) == SIM_OK);
    fails += check_hybrid(&ds, &spec, 2, 2, SIM_FSDP_HYBRID_SHARD, "gpt 2 blocks");
    sim_dataset_free(&ds);
    return fails;
}

// ----------------------------------------------------------------------------
// the timeline and the memory peak

typedef struct {
    double step_s;   // simulated seconds of step 3 on rank 0
    int64_t peak;    // rank 0's device peak
} Timing;

static int timing(const SimDataset *ds, const SimModelSpec *spec, int B, SimFsdpPrefetch p,
                  int fwd, int limit, Timing *out) {
    Traced *x = traced_new(ds, spec, 4, 1, B, 3, SIM_FSDP_FULL_SHARD);
    CHECK(x != NULL);
    x->fsdp.prefetch = p;
    x->fsdp.forward_prefetch = fwd;
    x->fsdp.limit_all_gathers = limit;
    int fails = traced_run(x);
    out->step_s = x->sim_s[0][3] - x->sim_s[0][2];
    out->peak = x->peak[0];
    traced_free(x);
    return fails;
}

static int test_prefetch_overlap(void) {
    SimDataset ds;
    SimModelSpec spec;
    // wide layers: a unit's gather costs about what its forward does
    CHECK(mlp_spec(&ds, &spec, "mlp:16,512,512,512,512,4") == SIM_OK);
    Timing none, pre, post, fwd, nolimit;
    int fails = timing(&ds, &spec, 64, SIM_FSDP_PREFETCH_NONE, 0, 1, &none);
    fails += timing(&ds, &spec, 64, SIM_FSDP_PREFETCH_PRE, 0, 1, &pre);
    fails += timing(&ds, &spec, 64, SIM_FSDP_PREFETCH_POST, 0, 1, &post);
    fails += timing(&ds, &spec, 64, SIM_FSDP_PREFETCH_PRE, 1, 1, &fwd);
    fails += timing(&ds, &spec, 64, SIM_FSDP_PREFETCH_PRE, 1, 0, &nolimit);
    CHECK(fails == 0);
    printf("full_shard step on 4 ranks, simulated: no prefetch %.3f us, backward_post %.3f us, "
           "backward_pre %.3f us, + forward prefetch %.3f us, without the limit %.3f us\n",
           none.step_s * 1e6, post.step_s * 1e6, pre.step_s * 1e6, fwd.step_s * 1e6,
           nolimit.step_s * 1e6);
    CHECK(pre.step_s < none.step_s);
    CHECK(post.step_s < none.step_s);
    CHECK(fwd.step_s < pre.step_s);
    sim_dataset_free(&ds);
    return 0;
}

static int test_limit_all_gathers_memory(void) {
    SimDataset ds;
    SimModelSpec spec;
    // seven units of 262,656 elements (1 MiB) and small activations (batch
    // 2): gathering all of them at once outweighs backward's working set
    // (a unit, the next one prefetched, its gradient, and the reduce-scatter
    // buffers of the reductions in flight)
    CHECK(mlp_spec(&ds, &spec, "mlp:16,512,512,512,512,512,512,512,512,4") == SIM_OK);
    Timing limited, unlimited, plain;
    int fails = timing(&ds, &spec, 2, SIM_FSDP_PREFETCH_PRE, 1, 1, &limited);
    fails += timing(&ds, &spec, 2, SIM_FSDP_PREFETCH_PRE, 1, 0, &unlimited);
    fails += timing(&ds, &spec, 2, SIM_FSDP_PREFETCH_PRE, 0, 1, &plain);
    CHECK(fails == 0);
    int64_t unit = 512 * 513 * 4; // one hidden Linear's flat parameter, fp32
    printf("device peak on rank 0: no forward prefetch %lld bytes, forward prefetch with the "
           "limit %lld, without it %lld (a unit is %lld bytes)\n", (long long)plain.peak,
           (long long)limited.peak, (long long)unlimited.peak, (long long)unit);
    CHECK(unlimited.peak >= limited.peak + unit);
    CHECK(limited.peak >= plain.peak);
    sim_dataset_free(&ds);
    return 0;
}

int main(void) {
    int failures = 0;
    RUN(test_full_vs_grad_op);
    RUN(test_no_shard_and_zero1);
    RUN(test_accumulation);
    RUN(test_offload_optimizer);
    RUN(test_hybrid);
    RUN(test_prefetch_overlap);
    RUN(test_limit_all_gathers_memory);
    return failures ? 1 : 0;
}
