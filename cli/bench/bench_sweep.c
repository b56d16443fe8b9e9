// cli/bench/bench_sweep.c: what the options of `ddplab bench` describe, worked
// out: the collective's name and block layout, the sweep of sizes, the count
// argument for each size, and the memory the buffers take at the largest size.
#include "bench/bench.h"

#include <math.h>
#include <unistd.h>

const char *bench_coll_name(SimCollKind k) {
    return k == BENCH_SENDRECV ? "sendrecv" : sim_coll_name(k);
}

int bench_coll_parts(SimCollKind k, int nranks) {
    int blocks = k == SIM_COLL_ALL_GATHER || k == SIM_COLL_REDUCE_SCATTER ||
                 k == SIM_COLL_GATHER || k == SIM_COLL_SCATTER;
    return blocks ? nranks : 1;
}

SimAlgo bench_algo_resolved(const BenchOptions *o) {
    return sim_coll_resolve_algo(o->coll, o->algo);
}

int bench_has_inplace(SimCollKind k) {
    return k != BENCH_SENDRECV && k != SIM_COLL_BARRIER;
}

size_t bench_count_for(const BenchOptions *o, size_t bytes) {
    if (o->coll == SIM_COLL_BARRIER)
        return 0;
    return bytes / sim_dtype_size(o->dtype) / (size_t)bench_coll_parts(o->coll, o->nranks);
}

int bench_sweep(const BenchOptions *o, size_t *bytes, int max) {
    if (o->coll == SIM_COLL_BARRIER) {
        if (max > 0)
            bytes[0] = 0;
        return 1;
    }
    int n = 0;
    size_t s = o->minbytes;
    for (;;) {
        if (n < max)
            bytes[n] = s;
        if (++n > BENCH_MAX_SIZES)
            return n;
        double next = floor((double)s * o->stepfactor);
        if (next > (double)o->maxbytes)
            break;
        size_t ns = (size_t)next;
        if (ns <= s)
            ns = s + 1; // small sizes with a factor close to 1 still advance
        if (ns > o->maxbytes)
            break;
        s = ns;
    }
    return n;
}

// Summed over ranks; see bench_run.c for the buffers themselves.
double bench_bytes_needed(const BenchOptions *o) {
    if (o->coll == SIM_COLL_BARRIER)
        return 0;
    size_t count = bench_count_for(o, o->maxbytes);
    double esize = (double)sim_dtype_size(o->dtype), total = 0;
    SimSched sched;
    int have_sched = o->coll != BENCH_SENDRECV &&
                     sim_sched_init(&sched, o->coll, bench_algo_resolved(o), o->nranks, count,
                                    o->root) == 0;
    for (int r = 0; r < o->nranks; r++) {
        size_t sc = o->coll == BENCH_SENDRECV ? count
                                              : sim_coll_send_count(o->coll, count, o->nranks, r, o->root);
        size_t rc = o->coll == BENCH_SENDRECV ? count
                                              : sim_coll_recv_count(o->coll, count, o->nranks, r, o->root);
        double big = (double)(sc > rc ? sc : rc);
        total += (2 * big + (double)rc) * esize;
        size_t work = 0;
        if (have_sched && sim_sched_work(&sched, r, &work) == SIM_WORK_SCRATCH)
            total += (double)work * esize;
    }
    return total;
}

double bench_physical_bytes(void) {
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (double)pages * (double)page : 0;
}

// The directory of an output file must exist now, so that a long run does not
// end in "cannot write".
