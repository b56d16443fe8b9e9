// sim/data/data_stage.c: the input pipeline's schedule (loader workers, prefetch,
// the copy to the device) in simulated time; the model is in data_stage.h.
#include "data/data_stage.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/world.h" // defines: SimRank, sim_rank_event
#include "trace/trace.h"  // defines: SimEvent

#define DATA_STAGE_MAX_WORKERS 1024
#define DATA_STAGE_MAX_PREFETCH 1024

void sim_data_stage_default(SimDataStage *c) {
    memset(c, 0, sizeof *c);
    c->prefetch = 2;
    c->pin_memory = 1;
}

int sim_data_stage_on(const SimDataStage *c) {
    return c != NULL && c->sample_cost > 0;
}

SimStatus sim_data_stage_check(const SimDataStage *c, char *err, size_t errlen) {
    if (!(c->sample_cost >= 0) || !isfinite(c->sample_cost))
        snprintf(err, errlen, "sample_cost %g is not allowed; allowed: a finite number of "
                 "seconds >= 0", c->sample_cost);
    else if (c->workers < 0 || c->workers > DATA_STAGE_MAX_WORKERS)
        snprintf(err, errlen, "workers %d is not allowed; allowed: 0 to %d", c->workers,
                 DATA_STAGE_MAX_WORKERS);
    else if (c->workers > 0 && (c->prefetch < 1 || c->prefetch > DATA_STAGE_MAX_PREFETCH))
        snprintf(err, errlen, "prefetch %d is not allowed; allowed: 1 to %d", c->prefetch,
                 DATA_STAGE_MAX_PREFETCH);
    else if (c->pin_memory != 0 && c->pin_memory != 1)
        snprintf(err, errlen, "pin_memory %d is not allowed; allowed: 0 or 1", c->pin_memory);
    else
        return SIM_OK;
    return SIM_EINVAL;
}

// Hopper boards sit on PCIe 5.0 x16; A100, L40S and RTX 4090 on PCIe 4.0 x16
// (their datasheets). An unnamed or calibrated device takes Gen4.
const SimLinkProfile *sim_data_stage_host_link(const SimSysProfile *sys,
                                               const SimDeviceProfile *dev) {
    if (sys && strncmp(sys->intra.name, "pcie", 4) == 0 && sys->intra.bw_Bps > 0)
        return &sys->intra;
    int gen5 = dev && (strncmp(dev->name, "h100", 4) == 0 || strncmp(dev->name, "h200", 4) == 0);
    const SimLinkProfile *l = sim_link_find(gen5 ? "pcie5-x16" : "pcie4-x16");
    return l ? l : sim_link_at(0);
}

double sim_data_stage_copy_s(const SimLinkProfile *link, double bytes, int pinned) {
    double bw = link->bw_Bps * (pinned ? 1.0 : SIM_DATA_PAGEABLE_FACTOR);
    return link->alpha_s + bytes / bw;
}

double sim_data_stage_batch_bytes(const SimBatch *b) {
    double n = b->n, bytes = 0;
    if (b->x)
        bytes += n * b->features * sizeof(float);
    if (b->tokens)
        bytes += n * b->seq * sizeof(int32_t);
    if (b->labels)
        bytes += n * (b->tokens ? b->seq : 1) * sizeof(int32_t);
    if (b->targets)
        bytes += n * b->target_dim * sizeof(float);
    return bytes;
}

void sim_data_stage_free(SimDataStageState *s) {
    free(s->worker_ready);
    free(s->taken);
    s->worker_ready = s->taken = NULL;
    s->started = 0;
}

static size_t nslots(const SimDataStage *c) {
    return (size_t)c->workers * (size_t)(c->prefetch > 0 ? c->prefetch : 1);
}

void sim_data_stage_write(const SimDataStageState *s, const SimDataStage *c, SimRecOut *o) {
    if (!sim_data_stage_on(c))
        return;
    size_t n = (size_t)c->workers, nf = nslots(c);
    int have = s->started && s->worker_ready && s->taken;
    double *zeros = have ? NULL : calloc(nf + 1, sizeof *zeros);
    if (!have && zeros == NULL) {
        o->oom = 1;
        return;
    }
    sim_rec_i64(o, "data_started", s->started);
    sim_rec_i64(o, "data_epoch", s->epoch);
    sim_rec_i64(o, "data_served", s->served);
    sim_rec_f64(o, "data_t0", s->t0);
    sim_rec_f64(o, "data_last_got", s->last_got);
    sim_rec_f64(o, "data_copy_free", s->copy_free);
    sim_rec_f64s(o, "data_worker_ready", have ? s->worker_ready : zeros, n);
    sim_rec_f64s(o, "data_taken", have ? s->taken : zeros, nf);
    const SimDataStageStats *st = &s->stats;
    sim_rec_i64(o, "data_batches", st->batches);
    sim_rec_i64(o, "data_waits", st->waits);
    sim_rec_f64(o, "data_wait_s", st->wait_s);
    sim_rec_f64(o, "data_first_wait_s", st->first_wait_s);
    sim_rec_f64(o, "data_load_s", st->load_s);
    sim_rec_f64(o, "data_h2d_s", st->h2d_s);
    sim_rec_f64(o, "data_start_s", st->start_s);
    free(zeros);
}

int sim_data_stage_read(SimDataStageState *s, const SimDataStage *c, SimRecIn *in) {
    if (!sim_data_stage_on(c))
        return in->bad ? -1 : 0;
    size_t n = (size_t)c->workers, nf = nslots(c);
    SimDataStageState x;
    memset(&x, 0, sizeof x);
    x.cfg = *c;
    double *ready = malloc((n + 1) * sizeof *ready), *taken = malloc((nf + 1) * sizeof *taken);
    if (ready == NULL || taken == NULL)
        in->bad = 1;
    x.started = (int)sim_rec_get_i64(in, "data_started");
    x.epoch = sim_rec_get_i64(in, "data_epoch");
    x.served = sim_rec_get_i64(in, "data_served");
    x.t0 = sim_rec_get_f64(in, "data_t0");
    x.last_got = sim_rec_get_f64(in, "data_last_got");
    x.copy_free = sim_rec_get_f64(in, "data_copy_free");
    sim_rec_get_f64s(in, "data_worker_ready", ready, n);
    sim_rec_get_f64s(in, "data_taken", taken, nf);
    SimDataStageStats *st = &x.stats;
    st->batches = sim_rec_get_i64(in, "data_batches");
    st->waits = sim_rec_get_i64(in, "data_waits");
    st->wait_s = sim_rec_get_f64(in, "data_wait_s");
    st->first_wait_s = sim_rec_get_f64(in, "data_first_wait_s");
    st->load_s = sim_rec_get_f64(in, "data_load_s");
    st->h2d_s = sim_rec_get_f64(in, "data_h2d_s");
    st->start_s = sim_rec_get_f64(in, "data_start_s");
    if (x.started < 0 || x.started > 1 || x.epoch < 0 || x.served < 0 || st->batches < 0 ||
        st->waits < 0)
        in->bad = 1;
    if (in->bad) {
        free(ready);
        free(taken);
        return -1;
    }
    if (x.started && n > 0) {
        x.worker_ready = ready;
        x.taken = taken;
    } else { // no iterator yet (or no workers): the first batch starts one
        free(ready);
        free(taken);
    }
    sim_data_stage_free(s);
    *s = x;
    return 0;
}

SimStatus sim_data_stage_restart(SimDataStageState *s, const SimDataStage *c, double now) {
    int n = c->workers;
    size_t nf = (size_t)n * (size_t)(c->prefetch > 0 ? c->prefetch : 1);
    if (!s->started || s->cfg.workers != n || s->cfg.prefetch != c->prefetch) {
        free(s->worker_ready);
        free(s->taken);
        s->worker_ready = n > 0 ? malloc((size_t)n * sizeof *s->worker_ready) : NULL;
        s->taken = n > 0 ? malloc(nf * sizeof *s->taken) : NULL;
        if (n > 0 && (s->worker_ready == NULL || s->taken == NULL)) {
            sim_data_stage_free(s);
            return SIM_ENOMEM;
        }
    }
    s->cfg = *c;
    // the workers start now, each with nothing done; the first N * F
    // indices are dispatched now (taken_{i - N*F} is read only for i >= N*F)
    for (int w = 0; w < n; w++)
        s->worker_ready[w] = now;
    s->started = 1;
    s->served = 0;
    s->t0 = now;
    s->last_got = now;
    s->stats.first_wait_s = 0;
    return SIM_OK;
}

void sim_data_stage_next(SimDataStageState *s, double now, int n, double bytes,
                         const SimLinkProfile *link, SimDataSlot *out) {
    const SimDataStage *c = &s->cfg;
    double load = (double)n * c->sample_cost;
    int64_t i = s->served;
    memset(out, 0, sizeof *out);
    if (c->workers == 0) { // the loop loads it itself, now
        out->worker = -1;
        out->load_start = now;
    } else {
        int64_t nf = (int64_t)c->workers * c->prefetch;
        int w = (int)(i % c->workers);
        double dispatch = i < nf ? s->t0 : s->taken[i % nf];
        out->worker = w;
        out->load_start = dispatch > s->worker_ready[w] ? dispatch : s->worker_ready[w];
    }
    out->ready = out->load_start + load;
    double copy = sim_data_stage_copy_s(link, bytes, c->pin_memory);
    if (c->pin_memory) { // asynchronous, one batch ahead of the compute stream
        double start = out->ready;
        if (start < s->copy_free)
            start = s->copy_free;
        if (start < s->last_got)
            start = s->last_got;
        out->copy_start = start;
        out->copy_end = start + copy;
        out->dev = out->copy_end;
        out->wait = out->dev > now ? out->dev - now : 0;
        out->taken = start;
        out->got = now + out->wait;
        s->copy_free = out->copy_end;
    } else { // synchronous, on the compute stream, once the batch is built
        out->dev = out->ready;
        out->wait = out->ready > now ? out->ready - now : 0;
        out->taken = now + out->wait;
        out->copy_start = out->taken;
        out->copy_end = out->copy_start + copy;
        out->got = out->copy_end;
    }
    if (c->workers > 0) {
        int64_t nf = (int64_t)c->workers * c->prefetch;
        s->worker_ready[out->worker] = out->ready;
        s->taken[i % nf] = out->taken; // dispatches batch i + N * F
    }
    s->last_got = out->got;
    s->served++;
    SimDataStageStats *st = &s->stats;
    if (st->batches == 0)
        st->start_s = now;
    st->batches++;
    st->waits += out->wait > 0;
    st->wait_s += out->wait;
    if (i == 0)
        st->first_wait_s = out->wait;
    st->load_s += load;
    st->h2d_s += copy;
}

// One event of the stage on rank r.
static void trace_one(SimRank *r, SimStream stream, const char *name, const char *label,
                      double t0, double t1, int chunk, int64_t index, int n, double bytes) {
    SimEvent ev;
    sim_rank_event(&ev, r, SIM_EV_COMPUTE, stream, name, label, t0);
    ev.sim_end = t1;
    ev.chunk = chunk;
    ev.step = (int32_t)index;
    ev.count = (uint64_t)n;
    ev.bytes = (uint64_t)bytes;
    sim_rank_trace(r, &ev);
}

SimStatus sim_data_stage_batch(SimDataStageState *s, SimRank *r, const SimDataStage *c,
                               int64_t epoch, int64_t index, const SimBatch *b) {
    if (!sim_data_stage_on(c) || (c->main_rank_only && r->rank != 0))
        return SIM_OK;
    double *compute = &r->clock[SIM_STREAM_COMPUTE];
    double *host = &r->clock[SIM_STREAM_HOST];
    if (!s->started || epoch != s->epoch) { // a new iterator: the workers start afresh
        if (sim_data_stage_restart(s, c, *compute) != SIM_OK) {
            snprintf(r->error, sizeof r->error, "data stage: out of memory for %d loader "
                     "workers", c->workers);
            return SIM_ENOMEM;
        }
        s->epoch = epoch;
    }
    if (s->copy_free < *host) // the copy engine is shared with other host copies
        s->copy_free = *host;
    const SimWorld *w = r->world;
    const SimLinkProfile *link =
        sim_data_stage_host_link(&w->cost.sys, sim_cost_device(&w->cost));
    double bytes = sim_data_stage_batch_bytes(b);
    double now = *compute;
    SimDataSlot d;
    sim_data_stage_next(s, now, b->n, bytes, link, &d);
    if (w->trace) {
        trace_one(r, SIM_STREAM_HOST, "data.load", NULL, d.load_start, d.ready, d.worker, index,
                  b->n, bytes);
        if (d.wait > 0)
            trace_one(r, SIM_STREAM_COMPUTE, "data.wait", NULL, now, now + d.wait, d.worker,
                      index, b->n, bytes);
        trace_one(r, c->pin_memory ? SIM_STREAM_HOST : SIM_STREAM_COMPUTE, "data.h2d",
                  c->pin_memory ? "pinned" : "pageable", d.copy_start, d.copy_end, d.worker,
                  index, b->n, bytes);
    }
    if (c->pin_memory && *host < d.copy_end)
        *host = d.copy_end;
    *compute = d.got;
    return SIM_OK;
}
