// sim/strategy/ddp_powersgd.c: the PowerSGD hook's state and its work on
// one bucket (see ddp_powersgd.h for the steps). The compression runs on
// host copies of the bucket (downloaded, computed, uploaded), so that the
// same code serves every backend; the all_reduces go through the rank's
// collectives on device buffers. The host arithmetic is not priced in
// simulated time; the three all_reduces are. Under --phantom (no storage)
// only the all_reduces run, with their sizes.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/comm.h" // defines: sim_coll_launch, sim_coll_wait
#include "engine/ops.h"  // defines: sim_tensor_alloc, sim_tensor_upload, sim_tensor_download
#include "strategy/ddp_powersgd.h"

// One bucket's state, made at its first compressed iteration.
typedef struct {
    int made;
    int nt;            // gradients in the bucket
    SimDdpPowersgdTensor *t; // [nt] their places and matrix shapes
    size_t numel;      // the bucket's elements
    int *r;            // [nt] min(rows, cols, rank); 0: sent uncompressed
    size_t *p_off;     // [nt] first element of its P in ph (compressed ones)
    size_t *q_off;     // [nt] first element of its Q in qh
    int *order;        // [ncomp] compressed gradients in the order of their P
    int ncomp;         //   and Q: grouped by matrix shape, shapes by first appearance
    size_t psize;      // sum of rows x r over the compressed gradients
    size_t qsize;      // sum of cols x r
    size_t usize;      // elements sent uncompressed
    float *host;       // [numel] the bucket, error added, then its result
    float *copy;       // [numel] the bucket after the error was added
    float *error;      // [numel] what the last result left out, on this rank
    float *ph, *qh;    // [psize], [qsize]: every P, every Q (qh outlives the step:
                       //   the warm start)
    float *uh;         // [usize] the uncompressed gradients, concatenated
    SimTensor pd, qd, ud; // device buffers of ph, qh, uh for the all_reduces
    SimTensor err_ledger; // [numel]: charges torch's device-side error tensor to
                          //   the ledger (the values are in `error`)
} PsgdBucket;

struct SimDdpPowersgd {
    SimDdpPowersgdOptions o;
    int world;
    int nbuckets;
    PsgdBucket *b;       // [nbuckets]
    SimTorchGen np_rng;  // numpy's RandomState(random_seed)
    int64_t iter;        // PowerSGDState.iter
    uint64_t sent, plain;
};

SimDdpPowersgd *sim_ddp_powersgd_new(const SimDdpPowersgdOptions *o, int world, int nbuckets) {
    SimDdpPowersgd *p = calloc(1, sizeof *p);
    if (p == NULL)
        return NULL;
    p->o = *o;
    p->world = world;
    p->nbuckets = nbuckets;
    p->b = calloc((size_t)(nbuckets > 0 ? nbuckets : 1), sizeof *p->b);
    if (p->b == NULL) {
        free(p);
        return NULL;
    }
    sim_torchgen_seed(&p->np_rng, o->seed);
    return p;
}

static void bucket_free(PsgdBucket *b, SimRank *r) {
    free(b->t);
    free(b->r);
    free(b->p_off);
    free(b->q_off);
    free(b->order);
    free(b->host);
    free(b->copy);
    free(b->error);
    free(b->ph);
    free(b->qh);
    free(b->uh);
    sim_tensor_free(r, &b->pd); // no-op when never allocated
    sim_tensor_free(r, &b->qd);
    sim_tensor_free(r, &b->ud);
    sim_tensor_free(r, &b->err_ledger);
    memset(b, 0, sizeof *b);
}

void sim_ddp_powersgd_free(SimDdpPowersgd *p, SimRank *r) {
    if (p == NULL)
        return;
    for (int i = 0; i < p->nbuckets; i++)
        bucket_free(&p->b[i], r);
    free(p->b);
    free(p);
}

SimStatus sim_ddp_powersgd_replan(SimDdpPowersgd *p, SimRank *r, int nbuckets) {
    for (int i = 0; i < p->nbuckets; i++)
        bucket_free(&p->b[i], r);
    free(p->b);
    p->nbuckets = nbuckets;
    p->b = calloc((size_t)(nbuckets > 0 ? nbuckets : 1), sizeof *p->b);
    if (p->b == NULL) {
        p->nbuckets = 0;
        snprintf(r->error, sizeof r->error, "out of memory for the PowerSGD state");
        return SIM_ENOMEM;
    }
    return SIM_OK;
}

void sim_ddp_powersgd_traffic(const SimDdpPowersgd *p, SimDdpPowersgdTraffic *out) {
    out->sent = p->sent;
    out->plain = p->plain;
    out->iter = p->iter;
    out->start_iter = p->o.start_iter;
    out->rank = p->o.rank;
}

const float *sim_ddp_powersgd_error(const SimDdpPowersgd *p, int bucket) {
    if (bucket < 0 || bucket >= p->nbuckets || !p->b[bucket].made)
        return NULL;
    return p->b[bucket].error;
}

// ----------------------------------------------------------------------------
// the bucket's layout

static int same_shape(const SimDdpPowersgdTensor *a, const SimDdpPowersgdTensor *b) {
    return a->rows == b->rows && a->cols == b->cols;
}

// Which gradients are compressed, at which rank, and where their P and Q
// lie: shape by shape in the order each shape first appears, as torch
// batches them (the order the first Qs are drawn in).
static void plan_layout(PsgdBucket *b, const SimDdpPowersgd *p, const SimDdpPowersgdTensor *t) {
    for (int i = 0; i < b->nt; i++) {
        int64_t lim = t[i].rows < t[i].cols ? t[i].rows : t[i].cols;
        int r = (int)(p->o.rank < lim ? p->o.rank : lim);
        int yes = sim_ddp_powersgd_should_compress(t[i].rows, t[i].cols, r,
                                                   p->o.min_compression_rate);
        b->r[i] = yes ? r : 0;
        if (!yes)
            b->usize += (size_t)(t[i].rows * t[i].cols);
    }
    for (int i = 0; i < b->nt; i++) {
        int first = b->r[i] > 0;
        for (int j = 0; first && j < i; j++)
            first = !(b->r[j] > 0 && same_shape(&t[i], &t[j]));
        for (int j = i; first && j < b->nt; j++) {
            if (b->r[j] == 0 || !same_shape(&t[i], &t[j]))
                continue;
            b->order[b->ncomp++] = j;
            b->p_off[j] = b->psize;
            b->q_off[j] = b->qsize;
            b->psize += (size_t)(t[j].rows * b->r[j]);
            b->qsize += (size_t)(t[j].cols * b->r[j]);
        }
    }
}

static SimStatus device_buffer(SimRank *r, SimTensor *d, const char *name, size_t n, int phantom) {
    int64_t shape[1] = {(int64_t)n};
    sim_tensor_init(d, name, SIM_FP32, 1, shape);
    d->mem_cat = SIM_MEM_COMM;
    return sim_tensor_alloc(r, d, phantom);
}

static float *host_floats(size_t n, int real) {
    return real ? calloc(n > 0 ? n : 1, sizeof(float)) : NULL;
}

// The bucket's state at its first compressed iteration.
static SimStatus bucket_make(SimDdpPowersgd *p, SimRank *r, PsgdBucket *b, const SimTensor *buf,
                             const SimDdpPowersgdTensor *t, int nt) {
    int real = buf->data != NULL;
    bucket_free(b, r); // what a failed attempt left
    b->nt = nt;
    b->numel = sim_tensor_numel(buf);
    b->r = calloc((size_t)(nt > 0 ? nt : 1), sizeof *b->r);
    b->p_off = calloc((size_t)(nt > 0 ? nt : 1), sizeof *b->p_off);
    b->q_off = calloc((size_t)(nt > 0 ? nt : 1), sizeof *b->q_off);
    b->order = calloc((size_t)(nt > 0 ? nt : 1), sizeof *b->order);
    b->t = calloc((size_t)(nt > 0 ? nt : 1), sizeof *b->t);
    if (!b->r || !b->p_off || !b->q_off || !b->order || !b->t)
        goto oom;
    memcpy(b->t, t, (size_t)nt * sizeof *t);
    plan_layout(b, p, t);
    b->host = host_floats(b->numel, real);
    b->copy = host_floats(b->numel, real);
    b->error = host_floats(b->numel, real); // zeros: nothing left out yet
    b->ph = host_floats(b->psize, real);
    b->qh = host_floats(b->qsize, real);
    b->uh = host_floats(b->usize, real);
    if (real && (!b->host || !b->copy || !b->error || !b->ph || !b->qh || !b->uh))
        goto oom;
    SIM_CHECK(device_buffer(r, &b->pd, "powersgd.p", b->psize, !real));
    SIM_CHECK(device_buffer(r, &b->qd, "powersgd.q", b->qsize, !real));
    SIM_CHECK(device_buffer(r, &b->ud, "powersgd.uncompressed", b->usize, !real));
    SIM_CHECK(device_buffer(r, &b->err_ledger, "powersgd.error", b->numel, 1));
    b->made = 1;
    return SIM_OK;
oom:
    snprintf(r->error, sizeof r->error, "out of memory for the PowerSGD state");
    return SIM_ENOMEM;
}

// ----------------------------------------------------------------------------
// the steps

// The first Qs: torch.manual_seed(a draw of numpy's generator), then one
// torch.randn per Q in P/Q order.
static void draw_qs(SimDdpPowersgd *p, PsgdBucket *b, const SimDdpPowersgdTensor *t) {
    SimTorchGen g;
    sim_torchgen_seed(&g, sim_ddp_powersgd_draw_seed(&p->np_rng));
    for (int k = 0; k < b->ncomp; k++) {
        int i = b->order[k];
        sim_torchgen_normal_f32(&g, b->qh + b->q_off[i], t[i].cols * b->r[i], 0.0f, 1.0f);
    }
}

// P = M Q for every compressed gradient, Q orthogonalised first.
static void compute_ps(SimDdpPowersgd *p, PsgdBucket *b, const SimDdpPowersgdTensor *t) {
    for (int k = 0; k < b->ncomp; k++) {
        int i = b->order[k];
        float *q = b->qh + b->q_off[i];
        sim_ddp_powersgd_orthogonalize(q, t[i].cols, b->r[i], p->o.epsilon);
        sim_ddp_powersgd_matmul(b->ph + b->p_off[i], b->host + t[i].offset, q, t[i].rows,
                                t[i].cols, b->r[i], 0);
    }
}

// Q = M^T P for every compressed gradient, P orthogonalised first.
static void compute_qs(SimDdpPowersgd *p, PsgdBucket *b, const SimDdpPowersgdTensor *t) {
    for (int k = 0; k < b->ncomp; k++) {
        int i = b->order[k];
        float *pm = b->ph + b->p_off[i];
        sim_ddp_powersgd_orthogonalize(pm, t[i].rows, b->r[i], p->o.epsilon);
        sim_ddp_powersgd_matmul(b->qh + b->q_off[i], b->host + t[i].offset, pm, t[i].rows,
                                t[i].cols, b->r[i], 1);
    }
}

// The uncompressed gradients to uh (out = 1) or back from it, divided by
// the world size (out = 0).
static void move_uncompressed(SimDdpPowersgd *p, PsgdBucket *b, const SimDdpPowersgdTensor *t,
                              int out) {
    size_t at = 0;
    for (int i = 0; i < b->nt; i++) {
        if (b->r[i] > 0)
            continue;
        size_t n = (size_t)(t[i].rows * t[i].cols);
        float *g = b->host + t[i].offset;
        for (size_t j = 0; j < n; j++) {
            if (out)
                b->uh[at + j] = g[j];
            else
                g[j] = b->uh[at + j] / (float)p->world;
        }
        at += n;
    }
}

// all_reduce (SUM) of d, launched into h.
static SimStatus launch_sum(SimRank *r, SimTensor *d, size_t n, SimCollHandle *h) {
    SimCollArgs a = {SIM_COLL_ALL_REDUCE, r->world->cfg.algo, SIM_FP32, SIM_SUM, d->data,
                     d->data, n, 0, -1};
    return sim_coll_launch(r, &a, h);
}

// host -> d, all_reduce SUM to the end, d -> host. Waited for inside the
// hook (torch chains it in a future): in simulated time the rank's backward
// waits for it.
static SimStatus reduce_now(SimRank *r, SimTensor *d, float *host, size_t n) {
    SimCollHandle h; // n may be 0: torch all_reduces an empty tensor too
    if (host)
        SIM_CHECK(sim_tensor_upload(r, d, host));
    SIM_CHECK(launch_sum(r, d, n, &h));
    SIM_CHECK(sim_coll_wait(r, &h));
    return host ? sim_tensor_download(r, d, host) : SIM_OK;
}

// The plain iterations: divide, all_reduce SUM. x (1/R) where torch runs
// div_(R): the same bits when R is a power of two, within an ulp otherwise.
static SimStatus launch_plain(SimDdpPowersgd *p, SimRank *r, SimTensor *buf, SimCollHandle *h) {
    size_t n = sim_tensor_numel(buf);
    SIM_CHECK(sim_op_scale(r, buf, 0, n, 1.0f / (float)p->world));
    p->sent += n;
    p->plain += n;
    return launch_sum(r, buf, n, h);
}

// Error feedback in, then the uncompressed all_reduce, P's, and the launch
// of Q's.
static SimStatus launch_compressed(SimDdpPowersgd *p, SimRank *r, PsgdBucket *b, SimTensor *buf,
                                   const SimDdpPowersgdTensor *t, int first, SimCollHandle *h) {
    int real = buf->data != NULL;
    if (real) {
        SIM_CHECK(sim_tensor_download(r, buf, b->host));
        for (size_t j = 0; !first && j < b->numel; j++)
            b->host[j] += b->error[j];
        memcpy(b->copy, b->host, b->numel * sizeof(float));
        if (first)
            draw_qs(p, b, t);
        compute_ps(p, b, t);
        move_uncompressed(p, b, t, 1);
    }
    SIM_CHECK(reduce_now(r, &b->ud, b->uh, b->usize));
    if (real)
        move_uncompressed(p, b, t, 0);
    SIM_CHECK(reduce_now(r, &b->pd, b->ph, b->psize));
    if (real) {
        compute_qs(p, b, t);
        SIM_CHECK(sim_tensor_upload(r, &b->qd, b->qh));
    }
    p->sent += b->usize + b->psize + b->qsize;
    p->plain += b->numel;
    return launch_sum(r, &b->qd, b->qsize, h);
}

SimStatus sim_ddp_powersgd_launch(SimDdpPowersgd *p, SimRank *r, int bucket, SimTensor *buf,
                                  const SimDdpPowersgdTensor *t, int nt, SimCollHandle *h,
                                  int *compressed) {
    int last = bucket == p->nbuckets - 1;
    *compressed = p->iter >= p->o.start_iter;
    if (!*compressed) {
        p->iter += last;
        return launch_plain(p, r, buf, h);
    }
    PsgdBucket *b = &p->b[bucket];
    int first = !b->made;
    if (first)
        SIM_CHECK(bucket_make(p, r, b, buf, t, nt));
    SIM_CHECK(launch_compressed(p, r, b, buf, t, first, h));
    p->iter += last;
    return SIM_OK;
}

SimStatus sim_ddp_powersgd_finish(SimDdpPowersgd *p, SimRank *r, int bucket, SimTensor *buf) {
    PsgdBucket *b = &p->b[bucket];
    if (buf->data == NULL)
        return SIM_OK;
    SIM_CHECK(sim_tensor_download(r, &b->qd, b->qh));
    for (size_t j = 0; j < b->qsize; j++)
        b->qh[j] /= (float)p->world;
    const SimDdpPowersgdTensor *t = b->t;
    for (int k = 0; k < b->ncomp; k++) {
        int i = b->order[k];
        sim_ddp_powersgd_outer(b->host + t[i].offset, b->ph + b->p_off[i], b->qh + b->q_off[i],
                               t[i].rows, t[i].cols, b->r[i]);
    }
    for (size_t j = 0; j < b->numel; j++)
        b->error[j] = b->copy[j] - b->host[j];
    return sim_tensor_upload(r, buf, b->host);
}
