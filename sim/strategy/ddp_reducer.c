// sim/strategy/ddp_reducer.c: DDP's reducer on one rank (reducer.cpp in PyTorch):
// the flat bucket buffers of the current plan, the copy of each ready
// gradient into its bucket slot multiplied by 1/world_size, the launch of
// each bucket's all_reduce (SUM) strictly in bucket order, and the final
// wait and copy back. Every step is a bucket event in the trace. The
// communication hooks (ddp.h) change the launch: the fp16 and bf16 hooks
// all_reduce a compressed copy of the bucket (`low`), cast back at the end;
// the powersgd hook hands the bucket to ddp_powersgd.c, which finishes it
// after the wait.
//
// With gradient_as_bucket_view a bucket whose parameters fill one
// contiguous range of the model's gradient buffer IS that range: nothing is
// allocated, the gradients are scaled in place and reduced in place, and
// nothing is copied back. (The model keeps all gradients in one flat buffer,
// so the bucket's layout inside the range is the buffer's, not the plan's;
// a bucket whose parameters are not contiguous keeps a buffer of its own.)
#include <stdlib.h>
#include <string.h>

#include "engine/comm.h" // defines: sim_coll_launch, sim_coll_wait
#include "engine/ops.h"  // defines: sim_tensor_alloc, sim_op_cast, sim_op_scale
#include "strategy/ddp_internal.h"

static void trace_bucket(SimRank *r, const char *label, int bucket, int param, size_t bytes,
                         double t0, double t1, uint64_t seq) {
    if (r->world->trace == NULL)
        return;
    SimEvent ev;
    sim_rank_event(&ev, r, SIM_EV_BUCKET,
                   param >= 0 ? SIM_STREAM_COMPUTE : SIM_STREAM_COMM, "bucket", label, t0);
    ev.bytes = bytes;
    ev.step = bucket;
    ev.chunk = param;
    ev.sim_end = t1;
    ev.seq = seq;
    sim_rank_trace(r, &ev);
}

// A 1-D view of n elements of a flat fp32 tensor from element off.
static SimTensor range_view(const SimTensor *t, const char *name, size_t off, size_t n) {
    SimTensor v;
    int64_t shape[1] = {(int64_t)n};
    sim_tensor_init(&v, name, SIM_FP32, 1, shape);
    v.data = t->data ? (float *)t->data + off : NULL;
    return v;
}

// The low type the compressing hooks all_reduce in (SIM_FP32: none).
static SimDtype hook_dtype(SimDdpCommHook h) {
    return h == SIM_DDP_HOOK_FP16 ? SIM_FP16 : h == SIM_DDP_HOOK_BF16 ? SIM_BF16 : SIM_FP32;
}

void ddp_reducer_free(DdpState *s, SimRank *r) {
    for (int i = 0; s->b && i < s->plan.nbuckets; i++) {
        if (!s->b[i].view)
            sim_tensor_free(r, &s->b[i].buf);
        sim_tensor_free(r, &s->b[i].low); // no-op when never allocated
    }
    free(s->b);
    s->b = NULL;
}

// The gradient range a bucket's parameters cover, if it is contiguous.
static int contiguous_range(const DdpState *s, const SimBucket *bk, size_t *base) {
    size_t lo = (size_t)-1, hi = 0, sum = 0;
    for (int j = 0; j < bk->nparams; j++) {
        const SimParamInfo *p = &s->m->params[bk->params[j]];
        lo = p->offset < lo ? p->offset : lo;
        hi = p->offset + p->numel > hi ? p->offset + p->numel : hi;
        sum += p->numel;
    }
    *base = lo;
    return bk->nparams > 0 && hi - lo == sum;
}

SimStatus ddp_reducer_build(DdpState *s, SimRank *r) {
    ddp_reducer_free(s, r);
    int nb = s->plan.nbuckets, n = s->m->nparams;
    s->b = calloc((size_t)(nb > 0 ? nb : 1), sizeof *s->b);
    size_t *off_bytes = malloc((size_t)n * sizeof *off_bytes);
    if (s->b == NULL || off_bytes == NULL) {
        free(off_bytes);
        snprintf(r->error, sizeof r->error, "out of memory for the buckets");
        return SIM_ENOMEM;
    }
    sim_bucket_plan_index(&s->plan, n, s->bucket_of, off_bytes);
    SimStatus st = s->psgd ? sim_ddp_powersgd_replan(s->psgd, r, nb) : SIM_OK;
    for (int i = 0; i < nb && st == SIM_OK; i++) {
        const SimBucket *bk = &s->plan.buckets[i];
        DdpBucket *b = &s->b[i];
        b->bytes = bk->bytes;
        b->numel = bk->bytes / sizeof(float);
        int64_t shape[1] = {(int64_t)b->numel};
        sim_tensor_init(&b->buf, "ddp.bucket", SIM_FP32, 1, shape);
        b->buf.mem_cat = SIM_MEM_COMM; // a view instead holds no memory of its own
        if (s->o->gradient_as_bucket_view && contiguous_range(s, bk, &b->base)) {
            b->view = 1;
            b->buf = range_view(&s->m->grad, "ddp.bucket", b->base, b->numel);
        } else {
            st = sim_tensor_alloc(r, &b->buf, s->m->grad.data == NULL);
        }
        SimDtype low = hook_dtype(s->o->comm_hook);
        if (st == SIM_OK && low != SIM_FP32) {
            sim_tensor_init(&b->low, "ddp.bucket_compressed", low, 1, shape);
            b->low.mem_cat = SIM_MEM_COMM;
            st = sim_tensor_alloc(r, &b->low, s->m->grad.data == NULL);
        }
        for (int j = 0; j < bk->nparams; j++) {
            int p = bk->params[j];
            s->slot[p] = b->view ? s->m->params[p].offset - b->base : off_bytes[p] / sizeof(float);
        }
    }
    free(off_bytes);
    return st;
}

void ddp_reducer_prepare(DdpState *s) {
    for (int i = 0; i < s->plan.nbuckets; i++) {
        s->b[i].pending = s->plan.buckets[i].nparams;
        s->b[i].launched = 0;
    }
    memset(s->ready, 0, (size_t)s->m->nparams);
    s->next_launch = 0;
    s->active = 1;
}

// fp16_compress_hook / bf16_compress_hook before the all_reduce:
// bucket.buffer().to(low).div_(world_size). The division happens in the low
// type (torch computes it in fp32 and rounds), so the value is rounded twice:
// low(low(g) / R). Here: cast down, up again (exact), x 1/R in fp32, down.
static SimStatus compress(DdpState *s, SimRank *r, DdpBucket *b) {
    SIM_CHECK(sim_op_cast(r, &b->low, &b->buf));
    SIM_CHECK(sim_op_cast(r, &b->buf, &b->low));
    SIM_CHECK(sim_op_scale(r, &b->buf, 0, b->numel, 1.0f / (float)s->world));
    return sim_op_cast(r, &b->low, &b->buf);
}

// The powersgd hook on bucket i: its gradients' places and matrix shapes
// (dim 0 by the rest; a 1-D gradient is a column), then the hook.
static SimStatus launch_powersgd(DdpState *s, SimRank *r, int i) {
    const SimBucket *bk = &s->plan.buckets[i];
    DdpBucket *b = &s->b[i];
    SimDdpPowersgdTensor *t = malloc((size_t)(bk->nparams > 0 ? bk->nparams : 1) * sizeof *t);
    if (t == NULL) {
        snprintf(r->error, sizeof r->error, "out of memory for the PowerSGD hook");
        return SIM_ENOMEM;
    }
    for (int j = 0; j < bk->nparams; j++) {
        const SimParamInfo *p = &s->m->params[bk->params[j]];
        int64_t rows = p->ndim > 0 && p->shape[0] > 0 ? p->shape[0] : 1;
        t[j].offset = s->slot[bk->params[j]];
        t[j].rows = rows;
        t[j].cols = (int64_t)p->numel / rows;
    }
    SimStatus st = sim_ddp_powersgd_launch(s->psgd, r, i, &b->buf, t, bk->nparams, &b->h,
                                           &b->compressed);
    free(t);
    return st;
}

static SimStatus launch_hook(DdpState *s, SimRank *r, int i) {
    DdpBucket *b = &s->b[i];
    if (s->psgd)
        return launch_powersgd(s, r, i);
    SimDtype dt = hook_dtype(s->o->comm_hook);
    void *data = b->buf.data;
    if (dt != SIM_FP32) {
        SIM_CHECK(compress(s, r, b));
        data = b->low.data;
    }
    SimCollArgs a = {SIM_COLL_ALL_REDUCE, r->world->cfg.algo, dt, SIM_SUM, data, data, b->numel,
                     0, -1};
    return sim_coll_launch(r, &a, &b->h);
}

static SimStatus launch(DdpState *s, SimRank *r, int i) {
    DdpBucket *b = &s->b[i];
    SimStatus st = launch_hook(s, r, i);
    if (st != SIM_OK)
        return st;
    b->launched = 1;
    trace_bucket(r, "launch", i, -1, b->bytes, b->h.call.start_sim, b->h.sim_end,
                 b->h.call.seq);
    return SIM_OK;
}

// The gradient of `param` into its slot, divided by the world size (in
// place when the bucket is a view of the gradients). With a comm hook the
// reducer copies without dividing: the hook divides, or (sum) does not.
static SimStatus copy_in(DdpState *s, SimRank *r, int param) {
    const SimParamInfo *p = &s->m->params[param];
    DdpBucket *b = &s->b[s->bucket_of[param]];
    float div = 1.0f / (float)s->world;
    if (!b->view) {
        SimTensor dst = range_view(&b->buf, "ddp.bucket", s->slot[param], p->numel);
        SimTensor src = range_view(&s->m->grad, "grads", p->offset, p->numel);
        SIM_CHECK(sim_op_cast(r, &dst, &src));
    }
    if (s->o->comm_hook != SIM_DDP_HOOK_ALLREDUCE)
        return SIM_OK;
    return sim_op_scale(r, &b->buf, s->slot[param], p->numel, div);
}

SimStatus ddp_reducer_mark_ready(DdpState *s, SimRank *r, int param) {
    if (!s->active)
        return SIM_OK;
    if (s->ready[param]) {
        snprintf(r->error, sizeof r->error, "Expected to mark a variable ready only once. "
                 "Parameter %s (index %d) was marked ready twice in one backward",
                 s->m->params[param].name, param);
        return SIM_EPROTO;
    }
    s->ready[param] = 1;
    s->require_finalize = 1;
    if (s->recording && s->nready < s->m->nparams)
        s->ready_order[s->nready++] = param;
    int bi = s->bucket_of[param];
    if (bi < 0)
        return SIM_OK;
    SIM_CHECK(copy_in(s, r, param));
    double now = r->clock[SIM_STREAM_COMPUTE];
    trace_bucket(r, "ready", bi, param, s->b[bi].bytes, now, now, 0);
    s->b[bi].pending--;
    // "Buckets are reduced in sequence": only the next bucket may launch,
    // and with it every following bucket that is already complete.
    while (s->next_launch < s->plan.nbuckets && s->b[s->next_launch].pending == 0)
        SIM_CHECK(launch(s, r, s->next_launch++));
    return SIM_OK;
}

SimStatus ddp_reducer_finalize(DdpState *s, SimRank *r) {
    s->active = 0;
    int complete = s->next_launch == s->plan.nbuckets;
    for (int i = 0; i < s->plan.nbuckets; i++) {
        DdpBucket *b = &s->b[i];
        if (!b->launched)
            continue;
        b->launched = 0;
        SIM_CHECK(sim_coll_wait(r, &b->h));
        // the hook's decompress: the reduced low-type values into the bucket
        if (hook_dtype(s->o->comm_hook) != SIM_FP32)
            SIM_CHECK(sim_op_cast(r, &b->buf, &b->low));
        if (s->psgd && b->compressed)
            SIM_CHECK(sim_ddp_powersgd_finish(s->psgd, r, i, &b->buf));
        b->compressed = 0;
        trace_bucket(r, "done", i, -1, b->bytes, b->h.sim_end, b->h.sim_end,
                     b->h.call.seq);
    }
    // An incomplete reduction (a parameter got no gradient) is not
    // finalised: the gradients stay as they are, and the next forward fails.
    if (!complete)
        return SIM_OK;
    s->recording = 0;
    for (int i = 0; i < s->plan.nbuckets; i++) {
        const SimBucket *bk = &s->plan.buckets[i];
        if (s->b[i].view)
            continue;
        for (int j = 0; j < bk->nparams; j++) {
            const SimParamInfo *p = &s->m->params[bk->params[j]];
            SimTensor dst = range_view(&s->m->grad, "grads", p->offset, p->numel);
            SimTensor src = range_view(&s->b[i].buf, "ddp.bucket", s->slot[bk->params[j]],
                                       p->numel);
            SIM_CHECK(sim_op_cast(r, &dst, &src));
        }
    }
    s->require_finalize = 0;
    return SIM_OK;
}

SimStatus ddp_reducer_shadow(DdpState *s, SimRank *r) {
    SimDtype dt = hook_dtype(s->o->comm_hook);
    for (int i = 0; i < s->plan.nbuckets; i++) {
        DdpBucket *b = &s->b[i];
        // a joined rank contributes zeros (a view bucket zeroes its own
        // gradients: this rank takes no step with them)
        SIM_CHECK(sim_op_fill(r, &b->buf, 0, b->numel, 0.0f));
        void *data = b->buf.data;
        if (dt != SIM_FP32) {
            SIM_CHECK(sim_op_cast(r, &b->low, &b->buf));
            data = b->low.data;
        }
        SimCollArgs a = {SIM_COLL_ALL_REDUCE, r->world->cfg.algo, dt, SIM_SUM, data, data,
                         b->numel, 0, -1};
        SIM_CHECK(sim_coll_launch(r, &a, &b->h));
        b->launched = 1;
        trace_bucket(r, "shadow", i, -1, b->bytes, b->h.call.start_sim, b->h.sim_end,
                     b->h.call.seq);
    }
    for (int i = 0; i < s->plan.nbuckets; i++) {
        s->b[i].launched = 0;
        SIM_CHECK(sim_coll_wait(r, &s->b[i].h));
    }
    return SIM_OK;
}
