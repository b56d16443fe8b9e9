// sim/strategy/ddp_buckets.c: DDP's bucket plans, rule for rule as PyTorch 1.13 makes
// them, so that a plan printed here can be compared line by line with the
// one a real DistributedDataParallel uses.
//
// The rules (distributed.py _ddp_init_helper, reducer.cpp
// compute_bucket_assignment_by_size / rebuild_buckets / autograd_hook):
//  1. Assignment. Parameters are walked in a given order; each goes into the
//     open bucket of its dtype, whose size grows by numel x element size;
//     when the size reaches or passes the dtype's current limit (>=) the
//     bucket closes with that parameter in it and the dtype moves on to the
//     next limit (the last limit repeats). Closed buckets are listed in the
//     order they closed, then the buckets still open, in reverse order of
//     their dtype's first appearance (std::unordered_map iteration in
//     libstdc++, measured on torch 1.13). Without tensor_indices (DDP's
//     constructor) the list is then sorted by each bucket's smallest
//     position in the walk; with them (the rebuild) it is left as it is.
//  2. Iteration 0. find_unused_parameters off, or static_graph on: limits
//     [sys.maxsize], one bucket per dtype. Otherwise limits [1 MiB, cap]
//     over the parameters in definition order. Either way the bucket list
//     is reversed, the parameters inside each bucket are not.
//     (1.13 uses [1 MiB, cap] whatever bucket_cap_mb is; later 2.x releases
//     use [cap] when bucket_cap_mb is passed: first_bucket_is_cap.)
//  3. Rebuild. Once, at the start of a forward, from the order in which the
//     autograd hooks fired in the previous backward (rebuilt_params_), with
//     limits [first_bucket_bytes, cap] and no sort. first_bucket_bytes is
//     dist._DEFAULT_FIRST_BUCKET_BYTES (1 MiB) in 1.13 whatever the cap.
//     Without static_graph it happens in iteration 1's forward. With
//     static_graph the hooks of iteration 0 only count, so the order comes
//     from iteration 1's backward and the rebuild from iteration 2's
//     forward; parameters that got no gradient are appended at the end of
//     that backward in ascending index order. With find_unused_parameters
//     and no static_graph, should_rebuild_buckets() is false: never.
//  4. DDP_SET_LAST_BUCKET_CAP=1 reverses the ready order before the
//     assignment and the bucket list after it, so the small first-limit
//     bucket ends up last.
#include "strategy/ddp_buckets.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// One dtype's bucket while it is being filled.
typedef struct {
    int *idx;     // [n] parameter indices appended so far
    int count;
    int minpos;   // position in the walk of its first parameter
    size_t bytes;
    int limit_i;  // index into the limits
} OpenBucket;

// A finished bucket with the key PyTorch sorts on.
typedef struct {
    int minpos;
    SimBucket b;
} Keyed;

static void free_keyed(Keyed *k, int nk) {
    for (int i = 0; i < nk; i++) {
        free(k[i].b.params);
        free(k[i].b.offsets);
    }
    free(k);
}

// Checks that the n entries of order are distinct indices >= 0 and the
// dtypes they name are known.
static SimStatus check_order(const SimBucketParam *params, const int *order, int n) {
    int max = -1;
    for (int i = 0; i < n; i++) {
        if (order[i] < 0)
            return SIM_EINVAL;
        if (order[i] > max)
            max = order[i];
    }
    unsigned char *seen = calloc((size_t)max + 1, 1);
    if (!seen)
        return SIM_ENOMEM;
    SimStatus st = SIM_OK;
    for (int i = 0; i < n && st == SIM_OK; i++) {
        int p = order[i];
        if (seen[p] || (unsigned)params[p].dtype >= (unsigned)SIM_DTYPE_COUNT)
            st = SIM_EINVAL;
        seen[p] = 1;
    }
    free(seen);
    return st;
}

// Moves the open bucket ob into k[*nk] (copying its indices, and laying
// out the byte offsets of their slots) and resets it.
static SimStatus close_bucket(const SimBucketParam *params, OpenBucket *ob, SimDtype dt,
                              size_t limit, Keyed *k, int *nk) {
    int *copy = malloc((size_t)ob->count * sizeof *copy);
    size_t *offsets = malloc((size_t)ob->count * sizeof *offsets);
    if (!copy || !offsets) {
        free(copy);
        free(offsets);
        return SIM_ENOMEM;
    }
    size_t at = 0;
    for (int j = 0; j < ob->count; j++) {
        copy[j] = ob->idx[j];
        offsets[j] = at;
        at += params[copy[j]].bytes;
    }
    Keyed *e = &k[(*nk)++];
    e->minpos = ob->minpos;
    e->b = (SimBucket){.nparams = ob->count, .params = copy, .offsets = offsets,
                       .bytes = ob->bytes, .limit = limit, .dtype = dt};
    ob->count = 0;
    ob->bytes = 0;
    return SIM_OK;
}

static int by_minpos(const void *a, const void *b) {
    int x = ((const Keyed *)a)->minpos, y = ((const Keyed *)b)->minpos;
    return (x > y) - (x < y);
}

// Appends dt to first_seen unless it is there already.
static void note_dtype(SimDtype *first_seen, int *nseen, SimDtype dt) {
    for (int s = 0; s < *nseen; s++)
        if (first_seen[s] == dt)
            return;
    first_seen[(*nseen)++] = dt;
}

// The walk of rule 1 into k (n entries of room); *nk gets the bucket count.
static SimStatus walk(const SimBucketParam *params, const int *order, int n,
                      const size_t *limits, int nlimits, Keyed *k, int *nk) {
    OpenBucket open[SIM_DTYPE_COUNT];
    SimDtype first_seen[SIM_DTYPE_COUNT]; // dtypes in order of first appearance
    int nseen = 0;
    SimStatus st = SIM_OK;
    memset(open, 0, sizeof open);
    for (int d = 0; d < SIM_DTYPE_COUNT && st == SIM_OK; d++) {
        open[d].idx = malloc((size_t)n * sizeof(int));
        if (!open[d].idx)
            st = SIM_ENOMEM;
    }
    for (int pos = 0; pos < n && st == SIM_OK; pos++) {
        const SimBucketParam *p = &params[order[pos]];
        OpenBucket *ob = &open[p->dtype];
        note_dtype(first_seen, &nseen, p->dtype);
        if (ob->count == 0)
            ob->minpos = pos;
        if (p->bytes > SIZE_MAX - ob->bytes) {
            st = SIM_EINVAL;
            break;
        }
        ob->idx[ob->count++] = order[pos];
        ob->bytes += p->bytes;
        size_t limit = limits[ob->limit_i];
        if (ob->bytes >= limit) {
            st = close_bucket(params, ob, p->dtype, limit, k, nk);
            if (ob->limit_i + 1 < nlimits)
                ob->limit_i++;
        }
    }
    for (int s = nseen - 1; s >= 0 && st == SIM_OK; s--) {
        OpenBucket *ob = &open[first_seen[s]];
        if (ob->count > 0)
            st = close_bucket(params, ob, first_seen[s], limits[ob->limit_i], k, nk);
    }
    for (int d = 0; d < SIM_DTYPE_COUNT; d++)
        free(open[d].idx);
    return st;
}

static SimStatus assign(const SimBucketParam *params, const int *order, int n,
                        const size_t *limits, int nlimits, int sort, SimBucketPlan *out) {
    if (!out)
        return SIM_EINVAL;
    *out = (SimBucketPlan){0, NULL};
    if (n < 0 || (n > 0 && (!params || !order || !limits || nlimits < 1)))
        return SIM_EINVAL;
    if (n == 0)
        return SIM_OK;
    SimStatus st = check_order(params, order, n);
    if (st != SIM_OK)
        return st;
    Keyed *k = malloc((size_t)n * sizeof *k);
    SimBucket *b = malloc((size_t)n * sizeof *b);
    int nk = 0;
    if (!k || !b) {
        free(k);
        free(b);
        return SIM_ENOMEM;
    }
    st = walk(params, order, n, limits, nlimits, k, &nk);
    if (st != SIM_OK) {
        free_keyed(k, nk);
        free(b);
        return st;
    }
    if (sort)
        qsort(k, (size_t)nk, sizeof *k, by_minpos);
    for (int i = 0; i < nk; i++)
        b[i] = k[i].b;
    free(k);
    out->nbuckets = nk;
    out->buckets = b;
    return SIM_OK;
}

SimStatus sim_bucket_assign(const SimBucketParam *params, const int *order, int n,
                            const size_t *limits, int nlimits, SimBucketPlan *out) {
    return assign(params, order, n, limits, nlimits, 1, out);
}

SimStatus sim_bucket_assign_in_order(const SimBucketParam *params, const int *order, int n,
                                     const size_t *limits, int nlimits, SimBucketPlan *out) {
    return assign(params, order, n, limits, nlimits, 0, out);
}

void sim_ddp_bucket_options_default(SimDdpBucketOptions *o) {
    *o = (SimDdpBucketOptions){.bucket_cap_mb = SIM_DDP_DEFAULT_CAP_MB};
}

SimStatus sim_ddp_cap_bytes(double bucket_cap_mb, size_t *out) {
    // Multiplying by 2^20 is exact in binary floating point, so this equals
    // Python's int(bucket_cap_mb * 1024 * 1024) (truncation toward zero).
    double bytes = bucket_cap_mb * 1048576.0;
    if (!isfinite(bytes) || bytes < 0.0 || bytes >= 9223372036854775807.0)
        return SIM_EINVAL;
    *out = (size_t)bytes;
    return SIM_OK;
}

static void reverse_plan(SimBucketPlan *p) {
    for (int i = 0, j = p->nbuckets - 1; i < j; i++, j--) {
        SimBucket t = p->buckets[i];
        p->buckets[i] = p->buckets[j];
        p->buckets[j] = t;
    }
}

static void reverse_ints(int *a, int n) {
    for (int i = 0, j = n - 1; i < j; i++, j--) {
        int t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

// [first, cap]: the rebuild's limits, and iteration 0's with find_unused.
static SimStatus two_limits(const SimDdpBucketOptions *o, size_t limits[2]) {
    SimStatus st = sim_ddp_cap_bytes(o->bucket_cap_mb, &limits[1]);
    if (st != SIM_OK)
        return st;
    limits[0] = o->first_bucket_is_cap ? limits[1] : SIM_DDP_FIRST_BUCKET_BYTES;
    return SIM_OK;
}

SimStatus sim_ddp_initial_plan(const SimBucketParam *params, int n,
                               const SimDdpBucketOptions *o, SimBucketPlan *out) {
    if (!out)
        return SIM_EINVAL;
    *out = (SimBucketPlan){0, NULL};
    size_t limits[2];
    if (!o || n < 0 || two_limits(o, limits) != SIM_OK)
        return SIM_EINVAL;
    int *order = malloc(((size_t)n + 1) * sizeof *order);
    if (!order)
        return SIM_ENOMEM;
    for (int i = 0; i < n; i++)
        order[i] = i;
    SimStatus st;
    if (!o->find_unused || o->static_graph) {
        size_t none = SIM_DDP_NO_LIMIT;
        st = sim_bucket_assign(params, order, n, &none, 1, out);
    } else if (o->first_bucket_is_cap) {
        st = sim_bucket_assign(params, order, n, &limits[1], 1, out);
    } else {
        st = sim_bucket_assign(params, order, n, limits, 2, out);
    }
    free(order);
    if (st == SIM_OK)
        reverse_plan(out);
    return st;
}

int sim_ddp_rebuild_iteration(const SimDdpBucketOptions *o) {
    if (o->static_graph)
        return 2;
    return o->find_unused ? -1 : 1;
}

// The rebuild's walk order: ready_order, then (static graph) the parameters
// that never became ready in ascending order. *order is malloc'ed, n entries.
static SimStatus rebuild_order(int n, const int *ready_order, int nready, int static_graph,
                               int **order) {
    *order = NULL;
    if (nready < 0 || nready > n || (nready > 0 && !ready_order))
        return SIM_EINVAL;
    if (nready < n && !static_graph)
        return SIM_EINVAL;
    int *ord = malloc(((size_t)n + 1) * sizeof *ord);
    unsigned char *seen = calloc((size_t)n + 1, 1);
    if (!ord || !seen) {
        free(ord);
        free(seen);
        return SIM_ENOMEM;
    }
    SimStatus st = SIM_OK;
    for (int i = 0; i < nready && st == SIM_OK; i++) {
        int p = ready_order[i];
        if (p < 0 || p >= n || seen[p])
            st = SIM_EINVAL;
        else
            seen[p] = 1;
        ord[i] = p;
    }
    for (int p = 0, k = nready; p < n && st == SIM_OK; p++)
        if (!seen[p])
            ord[k++] = p;
    free(seen);
    if (st != SIM_OK) {
        free(ord);
        return st;
    }
    *order = ord;
    return SIM_OK;
}

SimStatus sim_ddp_rebuilt_plan(const SimBucketParam *params, int n, const int *ready_order,
                               int nready, const SimDdpBucketOptions *o, SimBucketPlan *out) {
    if (!out)
        return SIM_EINVAL;
    *out = (SimBucketPlan){0, NULL};
    if (!o || n < 0)
        return SIM_EINVAL;
    if (sim_ddp_rebuild_iteration(o) < 0)
        return sim_ddp_initial_plan(params, n, o, out);
    size_t limits[2];
    if (two_limits(o, limits) != SIM_OK)
        return SIM_EINVAL;
    int *order;
    SimStatus st = rebuild_order(n, ready_order, nready, o->static_graph, &order);
    if (st != SIM_OK)
        return st;
    if (o->last_bucket_cap)
        reverse_ints(order, n);
    st = sim_bucket_assign_in_order(params, order, n, limits, 2, out);
    free(order);
    if (st == SIM_OK && o->last_bucket_cap)
        reverse_plan(out);
    return st;
}

void sim_bucket_plan_free(SimBucketPlan *p) {
    if (!p)
        return;
    for (int i = 0; i < p->nbuckets; i++) {
        free(p->buckets[i].params);
        free(p->buckets[i].offsets);
    }
    free(p->buckets);
    *p = (SimBucketPlan){0, NULL};
}

void sim_bucket_plan_index(const SimBucketPlan *p, int n, int *bucket_of, size_t *offset_bytes) {
    for (int i = 0; i < n; i++) {
        if (bucket_of)
            bucket_of[i] = -1;
        if (offset_bytes)
            offset_bytes[i] = 0;
    }
    for (int b = 0; b < p->nbuckets; b++) {
        const SimBucket *bk = &p->buckets[b];
        for (int j = 0; j < bk->nparams; j++) {
            int i = bk->params[j];
            if (i < 0 || i >= n)
                continue;
            if (bucket_of)
                bucket_of[i] = b;
            if (offset_bytes && bk->offsets)
                offset_bytes[i] = bk->offsets[j];
        }
    }
}

// 1234567 -> "1,234,567" into buf (32 bytes is enough for any size_t).
static const char *thousands(size_t v, char buf[32]) {
    char digits[24];
    int nd = snprintf(digits, sizeof digits, "%zu", v), o = 0;
    for (int i = 0; i < nd; i++) {
        if (i > 0 && (nd - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
    return buf;
}

void sim_bucket_plan_print(FILE *f, const SimBucketPlan *p, const char *const *names) {
    for (int b = 0; b < p->nbuckets; b++) {
        const SimBucket *bk = &p->buckets[b];
        char bytes[32], limit[32];
        fprintf(f, "bucket %d: %s bytes", b, thousands(bk->bytes, bytes));
        if (bk->dtype != SIM_FP32)
            fprintf(f, " %s", sim_dtype_name(bk->dtype));
        if (bk->limit == SIM_DDP_NO_LIMIT)
            fprintf(f, " (no limit):");
        else
            fprintf(f, " (limit %s):", thousands(bk->limit, limit));
        for (int j = 0; j < bk->nparams; j++) {
            if (names)
                fprintf(f, " %s", names[bk->params[j]]);
            else
                fprintf(f, " %d", bk->params[j]);
        }
        fputc('\n', f);
    }
}
