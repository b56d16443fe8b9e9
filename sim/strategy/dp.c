// sim/strategy/dp.c: DataParallel's step on one rank (see dp.h): the five
// communication phases around the replicas' forward and backward, the
// controller's serial kernel launches in the cost model, and the set-up
// that makes every rank draw the same whole batch.
//
// The loss. DataParallel computes the loss on device 0 over the gathered
// outputs [N, ...] and scatters d(loss)/d(outputs) back. The models here
// compute their loss inside forward and seed their own backward, so each
// replica computes its chunk's per-sample losses itself and seeds its
// backward with seed * n_k / N (seed = scale / accum): its model then
// forms d(loss)/d(out) = seed / N per sample, exactly its slice of the
// gradient of the mean loss over the whole gathered batch. The gather
// carries each chunk's loss sum (mean x n_k) next to its outputs, so rank 0
// reports the whole batch's mean loss; the output-gradient scatter carries
// the seed next to the [n_k, ...] gradient buffer, so the traffic and the
// memory are DataParallel's.
#include "strategy/dp.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/comm.h" // defines: sim_broadcast, sim_send, sim_recv, sim_reduce
#include "engine/ops.h"  // defines: sim_tensor_alloc, sim_tensor_upload
#include "train/train.h" // defines: SimTrainer

#define DP_MAX_DEVICES 4096
#define DP_NARRAYS 4 // x, tokens, labels, targets

typedef struct {
    const SimDpOptions *o;
    SimModel *m;
    int D;
    void *host[DP_NARRAYS];   // ranks > 0: the received chunk in host memory
    size_t host_cap[DP_NARRAYS]; // bytes
    int *size, *off;          // [D] chunk sizes and first samples
} DpState;

void sim_dp_options_default(SimDpOptions *o) {
    memset(o, 0, sizeof *o);
    o->launch_s = 5e-6;
}

int sim_dp_chunks(int n, int devices, int *sizes) {
    int c = devices > 0 && n > 0 ? (n + devices - 1) / devices : 0;
    int nch = 0;
    for (int k = 0; k < devices; k++) {
        int left = n - k * c;
        sizes[k] = left <= 0 ? 0 : left < c ? left : c;
        nch += sizes[k] > 0;
    }
    return nch;
}

static SimStatus fail(SimRank *r, SimStatus st, const char *msg) {
    snprintf(r->error, sizeof r->error, "%s", msg);
    return st;
}

// A marker opening one phase, at the rank's latest stream time.
static void mark(SimRank *r, const char *name) {
    SimEvent ev;
    sim_rank_event(&ev, r, SIM_EV_MARKER, SIM_STREAM_COMPUTE, name, "DataParallel",
                   sim_rank_now(r));
    ev.seq = r->coll_seq;
    sim_rank_trace(r, &ev);
}

// A 1-d staging tensor of n 4-byte elements (freed by the caller), charged
// to the memory ledger as cat: the scattered inputs and the loss scalars are
// SIM_MEM_OTHER, the gathered outputs and their gradients SIM_MEM_ACT (on
// device 0 they are the whole batch's output activations).
static SimStatus stage(SimRank *r, SimTensor *t, const char *name, SimDtype dt, size_t n,
                       SimMemCat cat) {
    int64_t shape[1] = {(int64_t)(n > 0 ? n : 1)};
    sim_tensor_init(t, name, dt, 1, shape);
    t->mem_cat = (int16_t)cat;
    return sim_tensor_alloc(r, t, 0);
}

static void *at(const SimTensor *t, size_t elem) {
    return t->data ? (char *)t->data + elem * 4 : NULL; // NULL: phantom
}

// ----------------------------------------------------------------------------
// set-up and tear-down

// DataParallel splits the batch the one process's loader drew: every rank's
// sampler is that loader's (one replica), so all draw the same batches.
static SimStatus single_sampler(SimTrainer *t, SimRank *r) {
    const SimTrainConfig *c = t->cfg;
    SimSamplerConfig sc;
    char err[400];
    sim_sampler_defaults(&sc, c->data.set->n);
    sc.num_replicas = 1;
    sc.rank = 0;
    sc.shuffle = c->data.shuffle;
    sc.seed = (int64_t)c->seed;
    sc.batch_size = c->data.batch;
    sc.drop_last_batch = c->data.drop_last;
    sim_sampler_free(&t->sampler);
    if (sim_sampler_init(&t->sampler, &sc, err, sizeof err) != SIM_OK) {
        snprintf(r->error, sizeof r->error, "sampler: %s", err);
        return SIM_EINVAL;
    }
    sim_sampler_set_epoch(&t->sampler, t->epoch);
    return SIM_OK;
}

static SimStatus dp_setup(SimRank *r, SimTrainer *t, const void *cfg, void **state) {
    DpState *s = calloc(1, sizeof *s);
    *state = s;
    if (s == NULL)
        return fail(r, SIM_ENOMEM, "out of memory");
    s->o = cfg;
    s->m = t->model;
    s->D = r->world->cfg.nranks;
    if (s->D < 2)
        return fail(r, SIM_EINVAL, "DataParallel needs at least 2 devices (-n 2 or more); "
                    "with one device use --strategy single");
    if (s->D > DP_MAX_DEVICES)
        return fail(r, SIM_EINVAL, "DataParallel: too many devices");
    if (r->world->cfg.represent)
        return fail(r, SIM_EINVAL, "DataParallel cannot run with one rank standing for all "
                    "(represent mode): device 0 is the controller and the others are replicas, "
                    "so the ranks do different things; run every rank (the cpu backend)");
    s->size = calloc((size_t)s->D, sizeof *s->size);
    s->off = calloc((size_t)s->D, sizeof *s->off);
    if (!s->size || !s->off)
        return fail(r, SIM_ENOMEM, "out of memory");
    SIM_CHECK(single_sampler(t, r));
    // --lr-scale linear: the batch is already the global one (one replica)
    char err[400];
    const SimTrainConfig *c = t->cfg;
    if (sim_lr_schedule_make(&t->sched, &c->opt.lr, c->opt.optim.lr, 1, c->loop.accum, c->loop.steps, err,
                             sizeof err) != SIM_OK) {
        snprintf(r->error, sizeof r->error, "%s", err);
        return SIM_EINVAL;
    }
    // Only the controller holds an optimizer (its state is never allocated
    // on the replicas' devices, so their memory peaks start without it).
    if (r->rank != 0) {
        sim_optim_free(&t->optim, r);
        sim_rank_mem_reset_peak(r);
    }
    // The first replicate happens before the first forward, like
    // DataParallel's; nothing to broadcast at construction.
    return SIM_OK;
}

static void dp_teardown(void *state, SimRank *r) {
    (void)r;
    DpState *s = state;
    if (s == NULL)
        return;
    for (int a = 0; a < DP_NARRAYS; a++)
        free(s->host[a]);
    free(s->size);
    free(s->off);
    free(s);
}

// ----------------------------------------------------------------------------
// the phases

// replicate: rank 0's parameters and buffers to every device.
static SimStatus replicate(DpState *s, SimRank *r) {
    SimModel *m = s->m;
    mark(r, "dp.replicate");
    if (m->param_count > 0)
        SIM_CHECK(sim_broadcast(r, m->param.data, m->param.data, m->param_count, SIM_FP32, 0,
                                r->world->cfg.algo));
    if (m->buffer_count > 0)
        SIM_CHECK(sim_broadcast(r, m->buffer.data, m->buffer.data, m->buffer_count, SIM_FP32,
                                0, r->world->cfg.algo));
    return SIM_OK;
}

typedef struct {
    const char *name;
    SimDtype dt;
    size_t w;          // elements per sample
    const void *src;   // the whole batch's array (host), or NULL
} DpArray;

static void batch_arrays(const SimBatch *b, DpArray a[DP_NARRAYS]) {
    size_t lw = b->tokens ? (size_t)b->seq : 1;
    a[0] = (DpArray){"dp.scatter.x", SIM_FP32, (size_t)b->features, b->x};
    a[1] = (DpArray){"dp.scatter.tokens", SIM_INT32, (size_t)b->seq, b->tokens};
    a[2] = (DpArray){"dp.scatter.labels", SIM_INT32, lw, b->labels};
    a[3] = (DpArray){"dp.scatter.targets", SIM_FP32, (size_t)b->target_dim, b->targets};
}

// Rank 0 sends device k its rows of array ai; device k receives them and
// keeps them in host memory (*dst), where its model's forward reads them.
static SimStatus scatter_array(DpState *s, SimRank *r, const DpArray *a, int ai, int nch,
                               int N, const void **dst) {
    int me = r->rank;
    size_t n = me == 0 ? (size_t)N * a->w : (size_t)s->size[me] * a->w;
    if (me != 0 && n * 4 > s->host_cap[ai]) {
        void *p = realloc(s->host[ai], n * 4);
        if (p == NULL)
            return fail(r, SIM_ENOMEM, "out of memory");
        s->host[ai] = p;
        s->host_cap[ai] = n * 4;
    }
    SimTensor t;
    SIM_CHECK(stage(r, &t, a->name, a->dt, n, SIM_MEM_OTHER));
    SimStatus st = SIM_OK;
    if (me == 0) {
        st = sim_tensor_upload(r, &t, a->src);
        for (int k = 1; st == SIM_OK && k < nch; k++)
            st = sim_send(r, at(&t, (size_t)s->off[k] * a->w), (size_t)s->size[k] * a->w,
                          a->dt, k);
        *dst = a->src; // device 0's chunk: the first rows
    } else {
        st = sim_recv(r, t.data, n, a->dt, 0);
        if (st == SIM_OK)
            st = sim_tensor_download(r, &t, s->host[ai]);
        // a phantom world received nothing: the replica's model (phantom
        // too) reads no batch data, so none is handed on
        *dst = r->world->cfg.phantom ? NULL : s->host[ai];
    }
    sim_tensor_free(r, &t);
    return st;
}

// scatter: the batch along dimension 0 in torch.chunk's sizes; *mine is
// this device's chunk (n = 0: none).
static SimStatus scatter(DpState *s, SimRank *r, const SimBatch *b, int nch, SimBatch *mine) {
    mark(r, "dp.scatter");
    *mine = *b;
    mine->n = s->size[r->rank];
    if (mine->n == 0)
        return SIM_OK;
    mine->indices = b->indices ? b->indices + s->off[r->rank] : NULL;
    DpArray a[DP_NARRAYS];
    batch_arrays(b, a);
    const void *dst[DP_NARRAYS] = {NULL, NULL, NULL, NULL};
    for (int i = 0; i < DP_NARRAYS; i++)
        if (a[i].src != NULL && a[i].w > 0)
            SIM_CHECK(scatter_array(s, r, &a[i], i, nch, b->n, &dst[i]));
    mine->x = dst[0];
    mine->tokens = dst[1];
    mine->labels = dst[2];
    mine->targets = dst[3];
    return SIM_OK;
}

// gather: each device's outputs [n_k, ...] into rank 0's [N, ...], each
// followed by its loss sum. Rank 0's own rows stay where they are (a copy
// on the device, no traffic). *sum: rank 0: the whole batch's loss sum.
static SimStatus gather(DpState *s, SimRank *r, int nch, int N, float loss, double *sum) {
    mark(r, "dp.gather");
    int me = r->rank;
    *sum = (double)loss * s->size[me];
    const SimTensor *out = sim_model_output(s->m);
    if (me >= nch)
        return SIM_OK;
    size_t per = out ? sim_tensor_numel(out) / (size_t)s->size[me] : 0;
    SimTensor g, l;
    SIM_CHECK(stage(r, &l, "dp.gather.loss", SIM_FP32, 1, SIM_MEM_OTHER));
    SimStatus st = stage(r, &g, "dp.gather.outputs", SIM_FP32, me == 0 ? (size_t)N * per : 1,
                         SIM_MEM_ACT);
    if (st != SIM_OK) {
        sim_tensor_free(r, &l);
        return st;
    }
    if (me == 0) {
        for (int k = 1; st == SIM_OK && k < nch; k++) {
            float lk = 0;
            st = sim_recv(r, at(&g, (size_t)s->off[k] * per), (size_t)s->size[k] * per,
                          SIM_FP32, k);
            if (st == SIM_OK)
                st = sim_recv(r, l.data, 1, SIM_FP32, k);
            if (st == SIM_OK)
                st = sim_tensor_download(r, &l, &lk);
            *sum += lk;
        }
    } else {
        float lk = (float)*sum;
        // a model without an output (a parameter count alone) sends nothing
        st = sim_send(r, out ? out->data : NULL, (size_t)s->size[me] * per, SIM_FP32, 0);
        if (st == SIM_OK)
            st = sim_tensor_upload(r, &l, &lk);
        if (st == SIM_OK)
            st = sim_send(r, l.data, 1, SIM_FP32, 0);
    }
    sim_tensor_free(r, &g);
    sim_tensor_free(r, &l);
    return st;
}

// scatter of the output gradients: rank 0 holds d(loss)/d(out) [N, ...] and
// sends each device its rows, with the seed they are formed from. *seed:
// rank 0's on every device.
static SimStatus scatter_grad(DpState *s, SimRank *r, int nch, int N, float *seed) {
    mark(r, "dp.scatter_grad");
    int me = r->rank;
    if (me >= nch)
        return SIM_OK;
    const SimTensor *out = sim_model_output(s->m);
    size_t per = out ? sim_tensor_numel(out) / (size_t)s->size[me] : 0;
    size_t n = (size_t)(me == 0 ? N : s->size[me]) * per;
    SimTensor g, l;
    SIM_CHECK(stage(r, &l, "dp.scatter_grad.seed", SIM_FP32, 1, SIM_MEM_OTHER));
    SimStatus st = stage(r, &g, "dp.scatter_grad.grads", SIM_FP32, n, SIM_MEM_ACT);
    if (st != SIM_OK) {
        sim_tensor_free(r, &l);
        return st;
    }
    float *zeros = me == 0 ? calloc(n > 0 ? n : 1, sizeof *zeros) : NULL;
    if (me == 0 && zeros == NULL)
        st = fail(r, SIM_ENOMEM, "out of memory");
    if (me == 0) {
        if (st == SIM_OK)
            st = sim_tensor_upload(r, &g, zeros);
        if (st == SIM_OK)
            st = sim_tensor_upload(r, &l, seed);
        for (int k = 1; st == SIM_OK && k < nch; k++) {
            st = sim_send(r, l.data, 1, SIM_FP32, k);
            if (st == SIM_OK)
                st = sim_send(r, at(&g, (size_t)s->off[k] * per), (size_t)s->size[k] * per,
                              SIM_FP32, k);
        }
    } else {
        st = sim_recv(r, l.data, 1, SIM_FP32, 0);
        if (st == SIM_OK)
            st = sim_recv(r, g.data, n, SIM_FP32, 0);
        if (st == SIM_OK)
            st = sim_tensor_download(r, &l, seed);
    }
    free(zeros);
    sim_tensor_free(r, &g);
    sim_tensor_free(r, &l);
    return st;
}

// reduce: the replicas' gradients summed onto rank 0 (ReduceAddCoalesced,
// Broadcast's backward). Rank 0's gradients keep what earlier micro-steps
// accumulated; the replicas' are fresh each micro-step, so they are zeroed
// after their contribution left.
static SimStatus reduce(DpState *s, SimRank *r) {
    SimModel *m = s->m;
    mark(r, "dp.reduce");
    if (m->param_count > 0)
        SIM_CHECK(sim_reduce(r, m->grad.data, m->grad.data, m->param_count, SIM_FP32, SIM_SUM,
                             0, r->world->cfg.algo));
    return r->rank == 0 ? SIM_OK : sim_model_zero_grad(r, m);
}

// The controller issues every replica's kernels from one host: replica k
// waits for the k replicas launched before it, and device 0's stream is
// held while it issues the others' (launches: kernels of one replica).
static void launch_cost(DpState *s, SimRank *r, int nch, int launches) {
    double t = s->o->launch_s * launches;
    if (t <= 0)
        return;
    if (r->rank == 0 && nch > 1)
        sim_rank_compute(r, "dp.launch_replicas", t * (nch - 1));
    else if (r->rank > 0 && r->rank < nch)
        sim_rank_compute(r, "dp.launch_wait", t * r->rank);
}

static SimStatus dp_micro_step(void *state, SimRank *r, SimTrainer *t, const SimBatch *b,
                               float dloss, int sync, float *loss) {
    (void)sync; // DataParallel has no no_sync: every backward reduces
    DpState *s = state;
    SimModel *m = s->m;
    int N = b->n;
    int nch = sim_dp_chunks(N, s->D, s->size);
    for (int k = 0, o = 0; k < s->D; o += s->size[k], k++)
        s->off[k] = o;
    SIM_CHECK(replicate(s, r));
    SimBatch mine;
    SIM_CHECK(scatter(s, r, b, nch, &mine));
    float chunk_loss = 0;
    if (mine.n > 0) {
        launch_cost(s, r, nch, m->nparams + 2);
        SIM_CHECK(sim_model_forward(r, m, &mine, (int)t->step, t->cfg->opt.amp.amp,
                                    &chunk_loss));
        for (int i = 0; i < m->nparams; i++)
            t->has_grad[i] |= (uint8_t)sim_model_param_used(m, i);
    }
    double sum = 0;
    SIM_CHECK(gather(s, r, nch, N, chunk_loss, &sum));
    *loss = r->rank == 0 ? (float)(sum / N) : chunk_loss;
    float seed = dloss;
    // the training loop marked the forward; the backward starts here
    SimEvent ph;
    sim_rank_event(&ph, r, SIM_EV_MARKER, SIM_STREAM_COMPUTE, "phase", "backward",
                   r->clock[SIM_STREAM_COMPUTE]);
    ph.step = (int32_t)t->step;
    sim_rank_trace(r, &ph);
    SIM_CHECK(scatter_grad(s, r, nch, N, &seed));
    if (mine.n > 0) {
        launch_cost(s, r, nch, 2 * m->nparams);
        SIM_CHECK(sim_model_backward(r, m, seed * (float)mine.n / (float)N, NULL, NULL));
    }
    return reduce(s, r);
}

// A replica's model holds its chunk's activations, not the whole batch's:
// the largest chunk torch.chunk gives device `rank` of any batch of 1..N
// samples (the last batch of an epoch can be smaller, and a smaller batch
// can give a later device more: 10 on 4 devices is 3,3,3,1, 8 is 2,2,2,2).
// At least 1, as a model needs (a device that never gets a chunk).
static int dp_model_batch(const SimTrainConfig *c, int rank, int nranks) {
    int most = 1;
    for (int n = 1; n <= c->data.batch; n++) {
        int per = (n + nranks - 1) / nranks, left = n - rank * per;
        int mine = left <= 0 ? 0 : left < per ? left : per;
        most = mine > most ? mine : most;
    }
    return most;
}

const SimStrategyOps sim_dp_strategy = {
    .name = "dp",
    .setup = dp_setup,
    .teardown = dp_teardown,
    .micro_step = dp_micro_step,
    .model_batch = dp_model_batch,
    .root_only_update = 1,
};
