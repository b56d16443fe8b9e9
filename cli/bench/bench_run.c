// cli/bench/bench_run.c: running the sweep of `ddplab bench` on every rank.
//
// Every rank runs bench_rank_main: it allocates its buffers once, for the
// largest size, in the backend's memory (host memory on cpu, device memory on
// cuda), and then for each size and each in-place mode
//   1. fills its buffers (through a host staging buffer),
//   2. makes --warmup untimed calls, then a barrier so all ranks start
//      together,
//   3. times --iters calls and records elapsed / iters in its own slot,
//   4. with --check 1 refills the inputs, makes one more call and counts the
//      elements of the result that differ from the expected ones.
// Step 4 refills because in-place calls overwrite their inputs; nccl-tests
// does the same. For the same reason the timed in-place calls of reductions
// run on zeros: repeated in-place sums of the pattern would grow without
// bound (and overflow integer types), while zeros cost the same to add.
#include "bench/bench.h"

#include <stdlib.h>
#include <string.h>

#include "engine/comm.h" // defines: sim_coll_launch, sim_send, sim_barrier

// One rank's buffers, sized for the largest point of the sweep.
typedef struct {
    void *a;              // out-of-place: send buffer; in-place: the only buffer
    void *b;              // out-of-place: recv buffer
    unsigned char *host;  // staging: [max elements] for fills and checks
    size_t a_bytes, b_bytes, host_bytes;
} RankBufs;

// Where send and recv are for one call: element offsets into buffer a (and b).
typedef struct {
    int inplace;
    size_t nsend, nrecv;     // elements this rank sends / receives
    size_t region;           // in-place: elements of a the call touches
    size_t send_off, recv_off; // in-place: offsets of send and recv in a
} Layout;

static size_t send_count(const BenchOptions *o, int rank, size_t count) {
    if (o->coll == BENCH_SENDRECV)
        return count;
    return sim_coll_send_count(o->coll, count, o->nranks, rank, o->root);
}

static size_t recv_count(const BenchOptions *o, int rank, size_t count) {
    if (o->coll == BENCH_SENDRECV)
        return count;
    return sim_coll_recv_count(o->coll, count, o->nranks, rank, o->root);
}

// In-place layouts (NCCL's, extended to gather and scatter as nccl-tests
// does): reduce_scatter's recv and all_gather's and gather's send are this
// rank's block of the big buffer; scatter's root keeps its own block.
static void layout(const BenchOptions *o, int rank, size_t count, int inplace, Layout *L) {
    memset(L, 0, sizeof *L);
    L->inplace = inplace;
    L->nsend = send_count(o, rank, count);
    L->nrecv = recv_count(o, rank, count);
    L->region = L->nsend > L->nrecv ? L->nsend : L->nrecv;
    if (!inplace)
        return;
    size_t block = (size_t)rank * count;
    switch (o->coll) {
    case SIM_COLL_REDUCE_SCATTER:
        L->recv_off = block;
        break;
    case SIM_COLL_ALL_GATHER:
        L->send_off = block;
        break;
    case SIM_COLL_GATHER:
        L->send_off = rank == o->root ? block : 0;
        break;
    case SIM_COLL_SCATTER:
        L->recv_off = rank == o->root ? block : 0;
        break;
    default:
        break;
    }
}

static void *elem_ptr(void *base, size_t off, SimDtype dt) {
    return (unsigned char *)base + off * sim_dtype_size(dt);
}

// ----------------------------------------------------------------------------
// buffers

static void *rank_alloc(SimRank *r, size_t bytes) {
    SimWorld *w = r->world;
    return w->ops->alloc(w->ctx, r->rank, bytes ? bytes : 1);
}

static void bufs_free(SimRank *r, RankBufs *b) {
    SimWorld *w = r->world;
    if (b->a)
        w->ops->free(w->ctx, r->rank, b->a);
    if (b->b)
        w->ops->free(w->ctx, r->rank, b->b);
    free(b->host);
    memset(b, 0, sizeof *b);
}

static SimStatus bufs_alloc(SimRank *r, const BenchRun *run, RankBufs *b) {
    const BenchOptions *o = run->opt;
    size_t esize = sim_dtype_size(o->dtype);
    size_t count = run->counts[run->nsizes - 1]; // counts grow along the sweep
    size_t ns = send_count(o, r->rank, count), nr = recv_count(o, r->rank, count);
    memset(b, 0, sizeof *b);
    b->a_bytes = (ns > nr ? ns : nr) * esize;
    b->b_bytes = nr * esize;
    b->host_bytes = b->a_bytes;
    b->a = rank_alloc(r, b->a_bytes);
    b->b = rank_alloc(r, b->b_bytes);
    b->host = malloc(b->host_bytes ? b->host_bytes : 1);
    if (!b->a || !b->b || !b->host) {
        snprintf(r->error, sizeof r->error, "out of memory for %zu bytes of benchmark buffers",
                 b->a_bytes + b->b_bytes + b->host_bytes);
        bufs_free(r, b);
        return SIM_ENOMEM;
    }
    return SIM_OK;
}

static SimStatus to_device(SimRank *r, void *dst, const void *src, size_t bytes) {
    if (bytes == 0)
        return SIM_OK;
    return r->world->ops->copy_to_device(r->world->ctx, r->rank, dst, src, bytes);
}

// Writes the inputs of one call: the recv side starts as BENCH_SENTINEL so an
// element the collective forgot to write is caught; the send side holds the
// pattern, or zeros when `zeros` is set.
static SimStatus stage_inputs(SimRank *r, const BenchRun *run, RankBufs *b, const Layout *L,
                              int zeros) {
    SimDtype dt = run->opt->dtype;
    size_t esize = sim_dtype_size(dt);
    void *send_host = elem_ptr(b->host, L->inplace ? L->send_off : 0, dt);
    if (L->inplace)
        bench_fill_value(b->host, dt, L->region, BENCH_SENTINEL);
    if (zeros)
        bench_fill_value(send_host, dt, L->nsend, 0.0);
    else
        bench_fill_send(&run->pat, r->rank, send_host, L->nsend);
    if (L->inplace)
        return to_device(r, b->a, b->host, L->region * esize);
    SIM_CHECK(to_device(r, b->a, b->host, L->nsend * esize));
    bench_fill_value(b->host, dt, L->nrecv, BENCH_SENTINEL);
    return to_device(r, b->b, b->host, L->nrecv * esize);
}

// ----------------------------------------------------------------------------
// one call of the collective

static SimStatus sendrecv(SimRank *r, const BenchOptions *o, const void *send, void *recv,
                          size_t count) {
    int R = o->nranks, next = (r->rank + 1) % R, prev = (r->rank + R - 1) % R;
    // Even ranks send first and odd ranks receive first, so every send meets a
    // receive and the ring cannot deadlock, for even and odd R alike.
    if (r->rank % 2 == 0) {
        SIM_CHECK(sim_send(r, send, count, o->dtype, next));
        return sim_recv(r, recv, count, o->dtype, prev);
    }
    SIM_CHECK(sim_recv(r, recv, count, o->dtype, prev));
    return sim_send(r, send, count, o->dtype, next);
}

static SimStatus call_once(SimRank *r, const BenchOptions *o, const void *send, void *recv,
                           size_t count) {
    if (o->coll == SIM_COLL_BARRIER)
        return sim_barrier(r);
    if (o->coll == BENCH_SENDRECV)
        return sendrecv(r, o, send, recv, count);
    SimCollArgs a = {o->coll, o->algo, o->dtype, o->op, send, recv, count, o->root, -1};
    SimCollHandle h;
    SIM_CHECK(sim_coll_launch(r, &a, &h));
    return sim_coll_wait(r, &h);
}

// ----------------------------------------------------------------------------
// one point of the sweep, one mode

static SimStatus run_point(SimRank *r, BenchRun *run, RankBufs *b, int pt, int mode) {
    const BenchOptions *o = run->opt;
    size_t count = run->counts[pt];
    Layout L;
    layout(o, r->rank, count, mode == 1, &L);
    void *base_recv = L.inplace ? b->a : b->b;
    const void *send = elem_ptr(b->a, L.send_off, o->dtype);
    void *recv = elem_ptr(base_recv, L.recv_off, o->dtype);
    int zeros = L.inplace && sim_coll_is_reduction(o->coll);

    SIM_CHECK(stage_inputs(r, run, b, &L, zeros));
    for (int i = 0; i < o->warmup; i++)
        SIM_CHECK(call_once(r, o, send, recv, count));
    SIM_CHECK(sim_barrier(r));
    double t0 = sim_wall_now();
    for (int i = 0; i < o->iters; i++)
        SIM_CHECK(call_once(r, o, send, recv, count));
    double t1 = sim_wall_now();
    size_t slot = bench_slot(run, pt, mode, r->rank);
    run->secs[slot] = (t1 - t0) / o->iters;

    if (!o->check)
        return SIM_OK;
    // Every rank makes the checked call (it is a collective), even one that
    // receives nothing to check, like a non-root rank of reduce.
    SIM_CHECK(stage_inputs(r, run, b, &L, 0));
    SIM_CHECK(call_once(r, o, send, recv, count));
    if (L.nrecv == 0)
        return SIM_OK;
    size_t bytes = L.nrecv * sim_dtype_size(o->dtype);
    SIM_CHECK(r->world->ops->copy_to_host(r->world->ctx, r->rank, b->host, recv, bytes));
    run->wrong[slot] = bench_count_wrong(&run->pat, r->rank, count, b->host, L.nrecv);
    return SIM_OK;
}

static SimStatus bench_rank_main(SimRank *r, void *arg) {
    BenchRun *run = arg;
    RankBufs b;
    SIM_CHECK(bufs_alloc(r, run, &b));
    SimStatus st = SIM_OK;
    for (int pt = 0; pt < run->nsizes && st == SIM_OK; pt++)
        for (int mode = 0; mode < 2 && st == SIM_OK; mode++)
            if (run->opt->modes & (mode ? BENCH_IN_PLACE : BENCH_OUT_OF_PLACE))
                st = run_point(r, run, &b, pt, mode);
    bufs_free(r, &b);
    return st;
}

// ----------------------------------------------------------------------------
// the run as a whole

size_t bench_slot(const BenchRun *run, int point, int mode, int rank) {
    return ((size_t)point * 2 + (size_t)mode) * (size_t)run->opt->nranks + (size_t)rank;
}

SimStatus bench_run_init(BenchRun *run, const BenchOptions *o) {
    memset(run, 0, sizeof *run);
    run->opt = o;
    bench_pattern_init(&run->pat, o);
    run->nsizes = bench_sweep(o, NULL, 0);
    size_t slots = (size_t)run->nsizes * 2 * (size_t)o->nranks;
    run->bytes = calloc((size_t)run->nsizes, sizeof *run->bytes);
    run->counts = calloc((size_t)run->nsizes, sizeof *run->counts);
    run->secs = calloc(slots, sizeof *run->secs);
    run->wrong = calloc(slots, sizeof *run->wrong);
    if (!run->bytes || !run->counts || !run->secs || !run->wrong) {
        bench_run_free(run);
        return SIM_ENOMEM;
    }
    bench_sweep(o, run->bytes, run->nsizes);
    for (int i = 0; i < run->nsizes; i++)
        run->counts[i] = bench_count_for(o, run->bytes[i]);
    return SIM_OK;
}

void bench_run_free(BenchRun *run) {
    free(run->bytes);
    free(run->counts);
    free(run->secs);
    free(run->wrong);
    memset(run, 0, sizeof *run);
}

SimStatus bench_run(BenchRun *run, SimWorld *w) {
    return sim_world_run(w, bench_rank_main, run);
}

double bench_time(const BenchRun *run, int point, int mode) {
    double t = 0;
    for (int r = 0; r < run->opt->nranks; r++) {
        double v = run->secs[bench_slot(run, point, mode, r)];
        t = v > t ? v : t;
    }
    return t;
}

uint64_t bench_wrong(const BenchRun *run, int point, int mode) {
    uint64_t n = 0;
    for (int r = 0; r < run->opt->nranks; r++)
        n += run->wrong[bench_slot(run, point, mode, r)];
    return n;
}
