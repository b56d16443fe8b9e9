// backend_cpu/cpu_backend.c: the CPU backend's ops table, its lifecycle and
// its memory. Ranks are threads (cpu_ranks.c), memory is plain host memory,
// and collectives run inline on the calling rank: the schedule executor
// (cpu_exec.c), the fused direct all_reduce (cpu_direct.c) or point-to-point
// (cpu_p2p.c). The math kernels are in cpu_math*.c (see cpu_math.h). The
// rest of the design is described in cpu_internal.h.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_backend.h"
#include "cpu_internal.h"
#include "cpu_math.h"

#define CPU_MAX_RANKS 65536

// ----------------------------------------------------------------------------
// lifecycle

static SimStatus cpu_check_config(const SimBackendConfig *cfg, char *err, size_t errlen) {
    if (cfg->nranks < 1 || cfg->nranks > CPU_MAX_RANKS) {
        snprintf(err, errlen, "ranks: %d is out of range; allowed: 1..%d", cfg->nranks,
                 CPU_MAX_RANKS);
        return SIM_EINVAL;
    }
    if (cfg->nodes < 1 || cfg->ranks_per_node < 1 ||
        (long long)cfg->nodes * cfg->ranks_per_node != cfg->nranks) {
        snprintf(err, errlen, "topology: %d nodes x %d ranks per node != %d ranks", cfg->nodes,
                 cfg->ranks_per_node, cfg->nranks);
        return SIM_EINVAL;
    }
    if (!(cfg->watchdog_s > 0) || !isfinite(cfg->watchdog_s)) {
        snprintf(err, errlen, "watchdog: %g seconds; allowed: a positive number",
                 cfg->watchdog_s);
        return SIM_EINVAL;
    }
    if (cfg->represent) {
        snprintf(err, errlen, "represent = 1 (rank 0 standing for every rank) is not what this "
                 "backend does: it runs all %d ranks as threads; allowed: represent = 0, or "
                 "the sym backend", cfg->nranks);
        return SIM_EINVAL;
    }
    return SIM_OK;
}

static void cpu_finalize(void *ctx) {
    CpuCtx *c = ctx;
    if (c == NULL)
        return;
    for (int r = 0; c->ranks && r < c->nranks; r++) {
        CpuRank *k = &c->ranks[r];
        // Sends posted but never waited for (their rank failed): the
        // messages are the backend's, the buffers they name are not.
        for (CpuMsg *m = k->inbox_head, *next; m; m = next) {
            next = m->next;
            free(m);
        }
        free(k->scratch);
        free(k->xfers);
        free(k->srcs);
        free(k->math_scratch);
        pthread_mutex_destroy(&k->inbox_lock);
    }
    free(c->ranks);
    pthread_mutex_destroy(&c->err_lock);
    free(c);
}

static SimStatus cpu_init(const SimBackendConfig *cfg, void **ctx, char *err, size_t errlen) {
    *ctx = NULL;
    SIM_CHECK(cpu_check_config(cfg, err, errlen));
    cpu_math_init_blas();
    CpuCtx *c = aligned_alloc(CPU_CACHE_LINE, sizeof *c);
    if (c == NULL) {
        snprintf(err, errlen, "out of memory for the backend state");
        return SIM_ENOMEM;
    }
    memset(c, 0, sizeof *c);
    pthread_mutex_init(&c->err_lock, NULL);
    c->nranks = cfg->nranks;
    c->nodes = cfg->nodes;
    c->ranks_per_node = cfg->ranks_per_node;
    c->watchdog_s = cfg->watchdog_s;
    c->phantom = cfg->phantom ? 1 : 0;
    c->spin = cfg->nranks <= cpu_online_cores();
    c->pin = c->spin && cfg->nranks >= 2;
    c->llc_bytes = cpu_stream_llc_bytes();
    c->ranks = aligned_alloc(CPU_CACHE_LINE, (size_t)cfg->nranks * sizeof *c->ranks);
    if (c->ranks == NULL) {
        c->nranks = 0;
        cpu_finalize(c);
        snprintf(err, errlen, "out of memory for %d ranks", cfg->nranks);
        return SIM_ENOMEM;
    }
    memset(c->ranks, 0, (size_t)cfg->nranks * sizeof *c->ranks);
    for (int r = 0; r < c->nranks; r++) {
        pthread_mutex_init(&c->ranks[r].inbox_lock, NULL);
        atomic_init(&c->ranks[r].fr.last_done, -1);
        atomic_init(&c->ranks[r].fr.peer, -1);
        atomic_init(&c->ranks[r].fr.step, -1);
    }
    *ctx = c;
    return SIM_OK;
}

static const char *cpu_last_error(void *ctx) {
    CpuCtx *c = ctx;
    if (c == NULL || !atomic_load_explicit(&c->err_set, memory_order_acquire))
        return "";
    return c->error;
}

// ----------------------------------------------------------------------------
// memory: plain host memory, cache-line aligned

static void *cpu_alloc(void *ctx, int rank, size_t bytes) {
    (void)ctx;
    (void)rank;
    if (bytes > SIZE_MAX - CPU_CACHE_LINE)
        return NULL;
    size_t padded = (bytes + CPU_CACHE_LINE - 1) / CPU_CACHE_LINE * CPU_CACHE_LINE;
    return aligned_alloc(CPU_CACHE_LINE, padded ? padded : CPU_CACHE_LINE);
}

static void cpu_free(void *ctx, int rank, void *p) {
    (void)ctx;
    (void)rank;
    free(p);
}

// In a phantom world no tensor has storage: whatever a caller passes, there
// is nothing to copy.
static SimStatus cpu_copy(void *ctx, int rank, void *dst, const void *src, size_t bytes) {
    const CpuCtx *c = ctx;
    (void)rank;
    if (bytes > 0 && dst != src && !(c && c->phantom))
        memmove(dst, src, bytes);
    return SIM_OK;
}

// ----------------------------------------------------------------------------
// collectives

// Collectives run inline, so a handle only needs to remember the status of
// its launch: it points at the matching entry of this table.
static const SimStatus cpu_status_box[SIM_STATUS_COUNT] = {
#define CPU_STATUS_ENTRY(name, desc) SIM_##name,
    SIM_STATUS_MAP(CPU_STATUS_ENTRY)
#undef CPU_STATUS_ENTRY
};

static void handle_finish(SimCollHandle *h, SimStatus st) {
    h->impl = (void *)&cpu_status_box[st];
    h->done = 1;
}

static SimStatus run_inline(CpuCtx *c, int rank, SimCollHandle *h) {
    SimCollCall *call = &h->call;
    SimCollKind k = call->args.kind;
    if (cpu_is_aborted(c))
        return SIM_EABORTED;
    if (k == SIM_COLL_RECV)
        return cpu_p2p_recv(c, rank, h);
    cpu_fr_enter(&c->ranks[rank], call);
    SimStatus st = k == SIM_COLL_ALL_REDUCE && call->args.algo == SIM_ALGO_DIRECT
                       ? cpu_direct_all_reduce(c, rank, call)
                       : cpu_exec_coll(c, rank, call);
    if (st == SIM_OK)
        cpu_fr_done(&c->ranks[rank], call);
    else
        cpu_abort_drain(c); // peers may still be inside my buffers
    return st;
}

static SimStatus cpu_coll_launch(void *ctx, int rank, SimCollHandle *h) {
    CpuCtx *c = ctx;
    if (h->call.args.kind == SIM_COLL_SEND) {
        // A send stays in flight until the receiver has copied it.
        SimStatus st = cpu_p2p_send_post(c, rank, h);
        if (st != SIM_OK)
            handle_finish(h, st);
        else
            h->done = 0;
        return st;
    }
    SimStatus st = run_inline(c, rank, h);
    handle_finish(h, st);
    return st;
}

static SimStatus cpu_coll_wait(void *ctx, int rank, SimCollHandle *h) {
    if (!h->done) {
        SimStatus st = cpu_p2p_send_wait(ctx, rank, h);
        handle_finish(h, st);
        return st;
    }
    return h->impl ? *(const SimStatus *)h->impl : SIM_EINVAL;
}

// Ctrl-C and the like: the same abort a failure raises, with its reason.
static void cpu_cancel(void *ctx, const char *why) {
    CpuCtx *c = ctx;
    cpu_error_record(c, why);
    cpu_abort_raise(c);
}

// ----------------------------------------------------------------------------

const SimBackendOps cpu_backend_ops = {
    .name = "cpu",
    .version = SIM_BACKEND_VERSION,
    .description = "ranks as threads on this CPU, collectives through shared memory",
    .init = cpu_init,
    .finalize = cpu_finalize,
    .last_error = cpu_last_error,
    .run_ranks = cpu_run_ranks,
    .alloc = cpu_alloc,
    .free = cpu_free,
    .copy_to_device = cpu_copy,
    .copy_to_host = cpu_copy,
    .coll_launch = cpu_coll_launch,
    .coll_wait = cpu_coll_wait,
    .synchronize = NULL,
    .math = &cpu_math_ops,
    .rank_crash = cpu_rank_crash,
    .cancel = cpu_cancel,
};
