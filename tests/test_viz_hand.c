// tests/test_viz_hand.c: hand-built scenes (see test_viz_hand.h).
#include "test_viz_hand.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "coll/coll.h" // defines: SIM_COLL_*, SIM_ALGO_*

static const uint64_t MiB = 1024 * 1024;

static void base(THand *h, int R, const char *strategy, const char *title) {
    memset(h, 0, sizeof *h);
    if (R > THAND_MAX_R)
        R = THAND_MAX_R;
    VizScene *s = &h->s;
    snprintf(h->info.title, sizeof h->info.title, "%s", title);
    snprintf(h->info.strategy, sizeof h->info.strategy, "%s", strategy);
    snprintf(h->info.profile, sizeof h->info.profile, "dgx-a100");
    h->info.device_capacity = 1024 * MiB;
    h->info.nodes = 1;
    s->info = &h->info;
    s->nranks = R;
    s->ranks = h->ranks;
    s->index = 120;
    s->count = 590;
    s->iteration = 1;
    s->iterations = 3;
    s->now = 2.5e-3;
    s->loss = NAN;
    s->coll.bucket = -1;
    s->coll.unit = -1;
    s->coll.root = -1;
    s->shards.current = -1;
    for (int r = 0; r < R; r++) {
        VizRankBox *b = &h->ranks[r];
        b->phase = VIZ_PHASE_BACKWARD;
        b->op = r == R - 1 ? "linear (slow)" : "linear";
        b->mem[SIM_MEM_PARAM] = (int64_t)(100 * MiB);
        b->mem[SIM_MEM_GRAD] = (int64_t)(100 * MiB);
        b->mem[SIM_MEM_OPTIM] = (int64_t)(200 * MiB);
        b->mem[SIM_MEM_ACT] = (int64_t)(150 * MiB);
        b->mem[SIM_MEM_COMM] = (int64_t)(8 * MiB);
        for (int c = 0; c < SIM_MEM_CAT_COUNT; c++)
            b->mem_total += b->mem[c];
        b->mem_peak = b->mem_total + (int64_t)(100 * MiB);
        b->clock = 2.5e-3;
    }
    // Timeline: forward, backward, optimizer on the compute lane; the
    // buckets' all_reduce overlapped with backward, then exposed.
    VizTimeline *t = &s->timeline;
    t->nranks = R < 4 ? R : 4;
    for (int i = 0; i < t->nranks; i++)
        t->ranks[i] = i;
    t->ncols = THAND_COLS;
    t->t0 = 0;
    t->t1 = 5e-3;
    t->cursor_col = THAND_COLS / 2;
    t->compute = h->compute;
    t->comm = h->comm;
    t->exposed_s = 0.4e-3;
    for (int i = 0; i < t->nranks; i++) {
        for (int j = 0; j < THAND_COLS; j++) {
            uint8_t c = VIZ_CELL_IDLE, m = VIZ_CELL_IDLE;
            if (j < 30)
                c = VIZ_CELL_FORWARD;
            else if (j < 80)
                c = VIZ_CELL_BACKWARD;
            else if (j >= 100 && j < 110)
                c = VIZ_CELL_OPTIMIZER;
            if (j >= 50 && j < 80)
                m = VIZ_CELL_COMM;
            else if (j >= 80 && j < 95)
                m = VIZ_CELL_EXPOSED;
            h->compute[i * THAND_COLS + j] = c;
            h->comm[i * THAND_COLS + j] = m;
        }
    }
}

// A ring collective on all R ranks at step `step` of its phase: every rank
// r sends chunk (r - step) mod R to r + 1; held as after the steps before.
static void ring(THand *h, int step, int reduce) {
    VizScene *s = &h->s;
    VizColl *k = &s->coll;
    int R = s->nranks;
    k->nchunks = R;
    k->held = h->held;
    k->nheld = h->nheld;
    for (int r = 0; r < R; r++)
        for (int c = 0; c < R; c++) {
            // reduce: each rank starts with its own contribution to every
            // chunk; copy (all-gather): rank r has chunk r only.
            int has = reduce || c == r;
            h->held[r * R + c] = has && r < 64 ? 1ull << r : 0;
            h->nheld[r * R + c] = has;
        }
    for (int j = 0; j < step; j++) {
        uint64_t nh[THAND_MAX_R];
        int nn[THAND_MAX_R];
        for (int r = 0; r < R; r++) {
            int c = ((r - j) % R + R) % R, d = (r + 1) % R;
            nh[r] = h->held[r * R + c];
            nn[r] = h->nheld[r * R + c];
            (void)d;
        }
        for (int r = 0; r < R; r++) {
            int c = ((r - j) % R + R) % R, d = (r + 1) % R;
            if (reduce) {
                h->held[d * R + c] |= nh[r];
                h->nheld[d * R + c] += nn[r];
            } else {
                h->held[d * R + c] = nh[r];
                h->nheld[d * R + c] = nn[r];
            }
        }
    }
    k->nxfer = R < VIZ_MAX_XFERS ? R : VIZ_MAX_XFERS;
    for (int r = 0; r < k->nxfer; r++)
        k->xfer[r] = (VizXfer){r, (r + 1) % R, ((r - step) % R + R) % R, reduce};
}

void thand_ddp(THand *h, int R) {
    base(h, R, "ddp", "ddp  mlp:784,1024,1024,1024,10  R=4 (1 node x 4)  bucket_cap 4 MiB");
    VizScene *s = &h->s;
    R = s->nranks;
    snprintf(s->caption, sizeof s->caption,
             "rank 0: bucket #1 launched: all_reduce of 4.00 MiB while backward goes on");
    static const char *const names[] = {"6.bias", "6.weight", "4.bias", "4.weight",
                                        "2.bias", "2.weight", "0.bias", "0.weight"};
    static const uint64_t bytes[] = {40, 40960, 4096, 4194304, 4096, 4194304, 4096, 3211264};
    for (int i = 0; i < 8; i++)
        h->params[i] = (VizParam){names[i], i < 4 ? 0 : i < 6 ? 1 : 2, bytes[i], R};
    h->params[7].ready = R - 1;
    s->params = h->params;
    s->nparams = 8;
    s->buckets = h->buckets;
    s->nbuckets = 3;
    s->plan_kind = VIZ_PLAN_REBUILT;
    s->plan_order = VIZ_ORDER_READY;
    s->plan_iteration = 1;
    h->buckets[0] = (VizBucket){VIZ_BUCKET_DONE, 0, 4, 4239400, 4, 1, .other_lo = -1,
                                .other_hi = -1};
    h->buckets[1] = (VizBucket){VIZ_BUCKET_REDUCING, 4, 2, 4198400, 2, 0.5, .other_lo = -1,
                                .other_hi = -1};
    // rank 0 has both gradients of #2 and has launched it; rank R-1 has one
    h->buckets[2] = (VizBucket){VIZ_BUCKET_REDUCING, 6, 2, 3215360, 2, 0, 1, R - 1, R - 1, 1,
                                VIZ_BUCKET_FILLING, 1, 1};
    VizColl *k = &s->coll;
    k->active = 1;
    k->running = 1;
    k->name = "AllReduce";
    k->coll = SIM_COLL_ALL_REDUCE;
    k->algo = SIM_ALGO_RING;
    k->topo = VIZ_TOPO_RING;
    k->bytes = 4198400;
    k->seq = 5;
    k->step = 2;
    k->nsteps = 2 * (R - 1);
    k->step_label = "reduce-scatter";
    k->phase_step = 2; // the reduce-scatter is the first R - 1 steps
    k->phase_steps = R - 1;
    k->bucket = 1;
    k->progress = 0.4;
    ring(h, 2 % (R > 1 ? R : 1), 1);
    for (int r = 0; r < R; r++)
        h->ranks[r].coll = "AllReduce";
    s->loss = 0.6931;
}

void thand_fsdp(THand *h, int R) {
    base(h, R, "fsdp", "fsdp FULL_SHARD  gpt:layers=4,embd=128  R=4");
    VizScene *s = &h->s;
    R = s->nranks;
    snprintf(s->caption, sizeof s->caption,
             "rank 0: unit 2 (blocks.1) gathered: its forward can run");
    for (int r = 0; r < R; r++) {
        VizRankBox *b = &h->ranks[r];
        b->phase = VIZ_PHASE_FORWARD;
        b->op = "attention";
        b->mem[SIM_MEM_PARAM] = (int64_t)(20 * MiB);
        b->mem[SIM_MEM_PARAM_SHARD] = (int64_t)(25 * MiB);
        b->mem[SIM_MEM_GRAD] = 0;
        b->mem[SIM_MEM_GRAD_SHARD] = (int64_t)(25 * MiB);
        b->mem[SIM_MEM_OPTIM] = (int64_t)(50 * MiB);
    }
    for (int r = 0; r < R; r++) {
        VizRankBox *b = &h->ranks[r];
        b->mem_total = 0;
        for (int c = 0; c < SIM_MEM_CAT_COUNT; c++)
            b->mem_total += b->mem[c];
        b->mem_peak = b->mem_total + (int64_t)(30 * MiB);
    }
    static const char *const names[] = {"root", "blocks.0", "blocks.1", "blocks.2", "blocks.3"};
    for (int u = 0; u < 5; u++)
        h->units[u] = (VizUnit){names[u], 4 * MiB, MiB, -1, 0};
    VizShards *sh = &s->shards;
    sh->nunits = 5;
    sh->group = R;
    sh->units = h->units;
    sh->state = h->state;
    sh->current = 2;
    for (int u = 0; u < 5; u++)
        for (int r = 0; r < R; r++)
            h->state[u * R + r] = u == 2   ? VIZ_SHARD_GATHERED
                                  : u == 3 ? VIZ_SHARD_GATHERING
                                  : u == 0 ? VIZ_SHARD_REDUCED
                                           : VIZ_SHARD_SHARDED;
    VizColl *k = &s->coll;
    k->active = 1;
    k->running = 1;
    k->name = "AllGather";
    k->coll = SIM_COLL_ALL_GATHER;
    k->algo = SIM_ALGO_RING;
    k->topo = VIZ_TOPO_RING;
    k->bytes = 4 * MiB;
    k->step = 1;
    k->nsteps = R - 1;
    k->step_label = "all-gather";
    k->phase_step = 1; // an all_gather is one phase
    k->phase_steps = R - 1;
    k->unit = 3;
    ring(h, 1 % (R > 1 ? R : 1), 0);
}

void thand_dp(THand *h, int R) {
    base(h, R, "dp", "dp  mlp:16,32,4  R=4 (1 node x 4)");
    VizScene *s = &h->s;
    snprintf(s->caption, sizeof s->caption, "device 0: dp.scatter");
    s->hub.active = 1;
    s->hub.step = "dp.scatter";
    for (int r = 0; r < s->nranks; r++)
        h->ranks[r].phase = r == 0 ? VIZ_PHASE_COMM : VIZ_PHASE_WAIT;
}

void thand_topo(THand *h, VizTopo topo) {
    VizScene *s = &h->s;
    VizColl *k = &s->coll;
    int R = s->nranks;
    k->topo = topo;
    k->algo = topo == VIZ_TOPO_TREE ? SIM_ALGO_TREE
              : topo == VIZ_TOPO_STAR ? SIM_ALGO_NAIVE
                                      : SIM_ALGO_DIRECT;
    k->root = topo == VIZ_TOPO_DIRECT ? -1 : 0;
    k->step_label = "broadcast";
    k->nchunks = 0;
    k->nxfer = 0;
    for (int a = 0; a < R && k->nxfer < VIZ_MAX_XFERS; a++) {
        for (int b = 0; b < R && k->nxfer < VIZ_MAX_XFERS; b++) {
            if (a == b)
                continue;
            int want = topo == VIZ_TOPO_DIRECT                  ? 1
                       : topo == VIZ_TOPO_STAR                  ? a == 0
                                                                : (a == 0 && b == 2) || (a == 0 && b == 1) ||
                                                     (a == 2 && b == 3);
            if (want)
                k->xfer[k->nxfer++] = (VizXfer){a, b, -1, 0};
        }
    }
}
