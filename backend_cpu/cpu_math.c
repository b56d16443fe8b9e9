// backend_cpu/cpu_math.c: the CPU backend's table of math kernels, the
// per-rank scratch memory they share, and the BLAS set-up and gate.
//
// Each rank is a thread that runs its own kernels, so the BLAS library must
// not start threads of its own: R ranks x cores BLAS threads would fight for
// the same cores. One BLAS thread per rank is also how DDP on CPU is run
// (one process per rank, OMP_NUM_THREADS=1).
//
// The gate. OpenBLAS (the pthread build) hands every level-3 call a work
// buffer from one process-wide table of at least 2 x MAX_THREADS entries,
// its compile-time thread limit (64 in Debian's build: 128 entries), which
// recent releases extend once by 512. A call that finds no free entry prints
// "Program is Terminated. Because you tried to allocate too many memory
// regions" and goes on with a NULL buffer, which crashes. A world of
// thousands of rank threads can have more calls in flight than that, so at
// most cpu_math_blas_slots() ranks are inside a BLAS call at once; the
// others wait at the gate. The gate only orders whole calls: each product is
// still computed by one thread exactly as before, so results do not change.
// It is process-wide, as the table it protects is: two worlds run side by
// side in one process share it.
#include <cblas.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_internal.h"
#include "cpu_math.h"

int cpu_math_blas_slots_for(const char *config, int threads, int procs) {
    // MAX_THREADS as the library reports it; without it (a build older than
    // the field) the most threads it was seen to run is a lower bound.
    long max_threads = 0;
    const char *p = config ? strstr(config, "MAX_THREADS=") : NULL;
    if (p)
        max_threads = strtol(p + strlen("MAX_THREADS="), NULL, 10);
    if (max_threads < threads)
        max_threads = threads;
    if (max_threads < 1)
        max_threads = 1;
    if (max_threads > 1 << 20)
        max_threads = 1 << 20;
    // OpenBLAS's own worker threads (started at load for up to
    // min(cores, MAX_THREADS) threads, less the caller) may hold one buffer
    // each for their lifetime.
    long pool = threads;
    long usable = procs < max_threads ? procs : max_threads;
    if (pool < usable)
        pool = usable;
    long held = pool > 1 ? pool - 1 : 0;
    long free_buffers = 2 * max_threads - held;
    // Half of what is left: the rest, and the overflow table, are margin for
    // a library whose table is sized differently from its release notes.
    long slots = free_buffers / 2;
    return slots < 1 ? 1 : (int)slots;
}

typedef struct {
    pthread_once_t once;
    int slots; // 0: no gate (a BLAS without a buffer table)
    sem_t free_slots;
} CpuBlasGate;

static CpuBlasGate cpu_blas_gate = {.once = PTHREAD_ONCE_INIT};

static void blas_gate_init(void) {
#ifdef OPENBLAS_VERSION
    // Read the pool size before asking for one thread per call: the
    // workers already started keep their buffers either way.
    int threads = openblas_get_num_threads();
    openblas_set_num_threads(1);
    cpu_blas_gate.slots =
        cpu_math_blas_slots_for(openblas_get_config(), threads, openblas_get_num_procs());
    if (sem_init(&cpu_blas_gate.free_slots, 0, (unsigned)cpu_blas_gate.slots) != 0)
        abort(); // only for a count above SEM_VALUE_MAX, which slots never is
#endif
}

void cpu_math_init_blas(void) {
    pthread_once(&cpu_blas_gate.once, blas_gate_init);
}

int cpu_math_blas_slots(void) {
    cpu_math_init_blas();
    return cpu_blas_gate.slots;
}

void cpu_math_blas_enter(void) {
    cpu_math_init_blas(); // a cheap check once done; orders the read of slots
    if (cpu_blas_gate.slots == 0)
        return;
    while (sem_wait(&cpu_blas_gate.free_slots) != 0 && errno == EINTR) {
    }
}

void cpu_math_blas_leave(void) {
    if (cpu_blas_gate.slots != 0)
        sem_post(&cpu_blas_gate.free_slots);
}

void *cpu_math_scratch(void *ctx, int rank, size_t bytes) {
    CpuRank *k = &((CpuCtx *)ctx)->ranks[rank];
    if (bytes <= k->math_scratch_bytes)
        return k->math_scratch;
    // Grow geometrically so that a sequence of slightly larger requests
    // does not reallocate every time.
    size_t want = bytes + bytes / 2;
    void *p = realloc(k->math_scratch, want);
    if (p == NULL)
        return NULL;
    k->math_scratch = p;
    k->math_scratch_bytes = want;
    return p;
}

const SimMathOps cpu_math_ops = {
    .gemm = cpu_math_gemm,
    .linear_forward = cpu_math_linear_forward,
    .linear_backward = cpu_math_linear_backward,
    .act_forward = cpu_math_act_forward,
    .act_backward = cpu_math_act_backward,
    .layernorm_forward = cpu_math_layernorm_forward,
    .layernorm_backward = cpu_math_layernorm_backward,
    .batchnorm_forward = cpu_math_batchnorm_forward,
    .batchnorm_backward = cpu_math_batchnorm_backward,
    .batchnorm_stats = cpu_math_batchnorm_stats,
    .batchnorm_gather_stats = cpu_math_batchnorm_gather_stats,
    .batchnorm_elemt = cpu_math_batchnorm_elemt,
    .batchnorm_backward_reduce = cpu_math_batchnorm_backward_reduce,
    .batchnorm_backward_elemt = cpu_math_batchnorm_backward_elemt,
    .embedding_forward = cpu_math_embedding_forward,
    .embedding_backward = cpu_math_embedding_backward,
    .attention_forward = cpu_math_attention_forward,
    .attention_backward = cpu_math_attention_backward,
    .xent_forward = cpu_math_xent_forward,
    .xent_backward = cpu_math_xent_backward,
    .add = cpu_math_add,
    .axpy = cpu_math_axpy,
    .scale = cpu_math_scale,
    .fill = cpu_math_fill,
    .sumsq = cpu_math_sumsq,
    .nonfinite = cpu_math_nonfinite,
    .cast = cpu_math_cast,
    .sgd_step = cpu_math_sgd_step,
    .adam_step = cpu_math_adam_step,
};
