// backend_cpu/cpu_exec.c: the schedule executor, which runs any collective
// algorithm of sim/coll/schedule.h by really moving its chunks between rank buffers.
//
// One collective on one rank:
//   1. prepare the work buffer (recv, send, or the rank's scratch) and make
//      the local initial copy (send -> work), which the ring all_reduce
//      folds into its reduce-scatter instead (cpu_ring.c);
//   2. rendezvous: publish the work buffer, check the protocol;
//   3. for each step t: wait until the ordering contract of schedule.h holds,
//      pull the incoming chunks out of the sources' work buffers (copy or
//      reduce), count the step done, report it to the trace;
//   4. wait until the ranks that read this rank's buffer in the last step
//      have finished (after that the buffers belong to the caller again);
//   5. final local copy (work -> recv) and the AVG division.
// A barrier is step 2 alone. In a phantom world (CpuCtx.phantom) every
// part runs but the data movement: no scratch, no copies, no reductions.
//
// Step counters count steps across collectives and never reset. Every rank
// runs the same number of steps per collective, so at the start of a
// collective all ranks share the same base, and "rank q has finished step t"
// reads `q.step >= base + t + 1`.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_internal.h"

// Grows the rank's transfer array to hold n; 0 on success, -1 out of memory.
static int grow_xfers(CpuRank *r, int n) {
    if (n <= r->xfer_cap)
        return 0;
    int cap = r->xfer_cap ? r->xfer_cap : 16;
    while (cap < n)
        cap *= 2;
    SimXfer *x = realloc(r->xfers, (size_t)cap * sizeof *x);
    if (x == NULL)
        return -1;
    r->xfers = x;
    r->xfer_cap = cap;
    return 0;
}

// The transfers of rank me at step t (incoming or outgoing) in r->xfers;
// returns how many, or -1 when out of memory.
static int step_xfers(CpuRank *r, const SimSched *s, int me, int t, int incoming) {
    int n = incoming ? sim_sched_incoming(s, me, t, r->xfers, r->xfer_cap)
                     : sim_sched_outgoing(s, me, t, r->xfers, r->xfer_cap);
    if (n > r->xfer_cap) {
        if (grow_xfers(r, n) != 0)
            return -1;
        n = incoming ? sim_sched_incoming(s, me, t, r->xfers, r->xfer_cap)
                     : sim_sched_outgoing(s, me, t, r->xfers, r->xfer_cap);
    }
    return n;
}

// Copies n bytes between possibly identical or overlapping local regions.
static void local_copy(void *dst, const void *src, size_t n) {
    if (n > 0 && dst != src)
        memmove(dst, src, n);
}

// Picks the work buffer and makes the initial copy. On failure the reason is
// written into the slot, which still goes to the rendezvous so that every
// rank fails together instead of waiting for this one.
static void prepare(CpuRank *r, const SimCollCall *call, int me, CpuSlot *slot, int phantom) {
    const SimCollArgs *a = &call->args;
    const SimSched *s = &call->sched;
    size_t esz = sim_dtype_size(a->dtype), wcount = 0;
    SimWorkKind kind = sim_sched_work(s, me, &wcount);
    slot->work = kind == SIM_WORK_SEND ? (void *)a->sendbuf : a->recvbuf;
    if (phantom) {
        slot->work = NULL; // nothing is read or written
        return;
    }
    if (kind == SIM_WORK_SCRATCH) {
        size_t bytes = wcount * esz;
        if (bytes > r->scratch_bytes) {
            free(r->scratch);
            size_t padded = (bytes + CPU_CACHE_LINE - 1) / CPU_CACHE_LINE * CPU_CACHE_LINE;
            r->scratch = aligned_alloc(CPU_CACHE_LINE, padded);
            r->scratch_bytes = r->scratch ? padded : 0;
        }
        if (bytes > 0 && r->scratch == NULL) {
            slot->local_status = SIM_ENOMEM;
            snprintf(slot->local_err, sizeof slot->local_err,
                     "out of memory for %zu bytes of scratch", bytes);
            return;
        }
        slot->work = r->scratch;
    }
    size_t so, wo, n;
    if (!cpu_ring_folds_copy(call) && sim_sched_init_copy(s, me, &so, &wo, &n))
        local_copy((char *)slot->work + wo * esz, (const char *)a->sendbuf + so * esz, n * esz);
}

// Waits until rank q has finished step t of this collective.
static SimStatus wait_step(CpuCtx *c, int me, int q, uint32_t base, int t, int step) {
    CpuRank *r = &c->ranks[me];
    CpuWord *w = &c->ranks[q].step;
    if (cpu_reached(atomic_load_explicit(&w->value, memory_order_acquire), base + (uint32_t)t + 1))
        return SIM_OK;
    cpu_fr_set(r, step < 0 ? CPU_FR_DRAIN : CPU_FR_STEP_WAIT, step, q);
    SimStatus st = cpu_wait_reach(c, me, w, base + (uint32_t)t + 1);
    cpu_fr_set(r, CPU_FR_RUNNING, step, -1);
    return st;
}

// Waits for every rank that read from me at step t to finish step t.
// `step` is what the recorder shows (-1: draining after the last step).
static SimStatus wait_readers(CpuCtx *c, int me, const SimSched *s, uint32_t base, int t,
                              int step) {
    CpuRank *r = &c->ranks[me];
    int n = step_xfers(r, s, me, t, 0);
    if (n < 0)
        return SIM_ENOMEM;
    for (int i = 0; i < n; i++)
        SIM_CHECK(wait_step(c, me, r->xfers[i].dst, base, t, step));
    return SIM_OK;
}

// Moves one incoming transfer of step t into my work buffer. A reduction
// combines my own value of the chunk (from the work buffer, or from the send
// buffer where a folded ring has not copied it: cpu_ring.c) with the peer's.
static void move_xfer(CpuCtx *c, const SimCollCall *call, int parity, int t, const SimXfer *x,
                      void *work) {
    const SimCollArgs *a = &call->args;
    size_t esz = sim_dtype_size(a->dtype);
    const char *src = (const char *)cpu_ring_source(call, cpu_slot(c, x->src, parity), t) +
                      x->src_off * esz;
    char *dst = (char *)work + x->dst_off * esz;
    int stream = cpu_ring_streams(c, call);
    if (x->op == SIM_XFER_COPY) {
        cpu_stream_copy(dst, src, x->count * esz, stream);
    } else {
        const char *own = cpu_ring_folds_copy(call)
                              ? (const char *)a->sendbuf + x->dst_off * esz
                              : dst;
        if (stream)
            cpu_ring_reduce_stream(dst, own, src, x->count, a->dtype, a->op);
        else
            cpu_ring_reduce(dst, own, src, x->count, a->dtype, a->op);
    }
    cpu_stream_fence(stream); // drained before the step is counted done
}

// One step: the ordering contract, then every incoming transfer.
static SimStatus run_step(CpuCtx *c, int me, const SimCollCall *call, int parity,
                          uint32_t base, int t, void *work) {
    const SimSched *s = &call->sched;
    CpuRank *r = &c->ranks[me];
    // (b) the readers of the previous step are done with my buffer
    if (t > 0)
        SIM_CHECK(wait_readers(c, me, s, base, t - 1, t));
    int n = step_xfers(r, s, me, t, 1);
    if (n < 0)
        return SIM_ENOMEM;
    for (int i = 0; i < n; i++) {
        const SimXfer *x = &r->xfers[i];
        // (a) the source has finished the previous step
        if (t > 0)
            SIM_CHECK(wait_step(c, me, x->src, base, t - 1, t));
        if (x->count == 0 || c->phantom)
            continue;
        if (!cpu_touch_begin(c, me))
            return SIM_EABORTED;
        move_xfer(c, call, parity, t, x, work);
        cpu_touch_end(c, me);
    }
    return SIM_OK;
}

// The local work after the last step: copy out of scratch, divide for AVG.
static void finish(const SimCollCall *call, int me, void *work, int nranks) {
    const SimCollArgs *a = &call->args;
    const SimSched *s = &call->sched;
    size_t esz = sim_dtype_size(a->dtype), wo, ro, n;
    if (sim_sched_final_copy(s, me, &wo, &ro, &n))
        local_copy((char *)a->recvbuf + ro * esz, (const char *)work + wo * esz, n * esz);
    if (a->op == SIM_AVG && sim_coll_is_reduction(a->kind)) {
        size_t rn = sim_coll_recv_count(a->kind, a->count, nranks, me, s->root);
        if (rn > 0)
            sim_scale_avg(a->recvbuf, rn, a->dtype, nranks);
    }
}

SimStatus cpu_exec_coll(CpuCtx *c, int me, SimCollCall *call) {
    CpuRank *r = &c->ranks[me];
    const SimCollArgs *a = &call->args;
    CpuSlot mine = {.seq = call->seq, .kind = a->kind, .algo = a->algo, .dtype = a->dtype,
                    .op = a->op, .count = a->count, .root = a->root,
                    .arrive_sim = call->arrive_sim, .send = a->sendbuf, .recv = a->recvbuf,
                    .local_status = SIM_OK};
    if (a->kind != SIM_COLL_BARRIER)
        prepare(r, call, me, &mine, c->phantom);
    int parity;
    SIM_CHECK(cpu_rendezvous(c, me, call, &mine, &parity));
    if (a->kind == SIM_COLL_BARRIER)
        return SIM_OK;

    const SimSched *s = &call->sched;
    uint32_t base = atomic_load_explicit(&r->step.value, memory_order_relaxed);
    for (int t = 0; t < s->nsteps; t++) {
        double w0 = sim_wall_now();
        SIM_CHECK(run_step(c, me, call, parity, base, t, mine.work));
        cpu_word_store(&r->step, base + (uint32_t)t + 1);
        sim_coll_report_step(call, t, w0, sim_wall_now());
    }
    if (s->nsteps > 0)
        SIM_CHECK(wait_readers(c, me, s, base, s->nsteps - 1, -1));
    if (!c->phantom)
        finish(call, me, mine.work, c->nranks);
    return SIM_OK;
}
