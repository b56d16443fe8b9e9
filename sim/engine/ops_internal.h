// sim/engine/ops_internal.h: the machinery shared by the op wrappers (ops.c,
// ops_nn.c, ops_vec.c), private to sim/. Every wrapper runs the same
// sequence:
//   sim_ops_begin   checks presence and dtype of every tensor argument and
//                   decides phantom (no output has storage) or numeric;
//   shape checks    op-specific, through the helpers below;
//   the kernel      only in numeric mode (sim_ops_math says if it exists);
//   sim_ops_end     reports a kernel failure, or advances the rank's compute
//                   clock by the op's simulated time and traces it.
#ifndef DDPLAB_SIM_OPS_INTERNAL_H
#define DDPLAB_SIM_OPS_INTERNAL_H

#include <stdint.h>

#include "engine/ops.h" // defines: SimTensor, SimRank, SimMathOps

// Flags of one tensor argument.
#define SIM_OPS_OUT 1      // written by the op (decides phantom mode)
#define SIM_OPS_OPTIONAL 2 // may be NULL

typedef struct {
    const char *name;      // as in messages: "inp", "weight", ...
    const SimTensor *t;
    SimDtype dtype;        // the dtype it must have
    int flags;
} SimOpsArg;

typedef struct {
    SimRank *r;
    const char *op;        // the wrapper's name, for messages: "linear_forward"
    const char *event;     // static trace name: "linear_fwd"
    int phantom;           // 1: outputs have no storage, skip the math
    double wall0;          // sim_wall_now() when the op began
    int timed;             // 1: the backend's op_begin ran (device timing)
} SimOpsCall;

// Writes "<op>: <message>" into r->error and returns st.
SimStatus sim_ops_fail(const SimOpsCall *c, SimStatus st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

// Checks the arguments and decides the mode (see the top of this file).
SimStatus sim_ops_begin(SimOpsCall *c, SimRank *r, const char *op, const char *event,
                        const SimOpsArg *args, int nargs);

// The backend's kernels, or NULL when it has none.
const SimMathOps *sim_ops_math(const SimOpsCall *c);
void *sim_ops_ctx(const SimOpsCall *c);
// SIM_ENOTSUP with "<op>: not supported by backend <name>".
SimStatus sim_ops_notsup(const SimOpsCall *c);

// Device timing: before an op's first kernel call, the backend's op_begin
// (sim/engine/backend.h), when it has one; sim_ops_end then asks for the times.
void sim_ops_timing_begin(SimOpsCall *c);

// Runs the backend kernel `slot` with (ctx, rank, ...) into st, unless the
// call is phantom; returns SIM_ENOTSUP from the wrapper if the backend lacks
// the kernel. The first run of an op starts its device timing.
#define SIM_OPS_RUN(c, st, slot, ...)                                            \
    do {                                                                       \
        const SimMathOps *sim_ops_m_ = sim_ops_math(c);                        \
        if (!(c)->phantom) {                                                   \
            if (sim_ops_m_ == NULL || sim_ops_m_->slot == NULL)                \
                return sim_ops_notsup(c);                                      \
            sim_ops_timing_begin(c);                                           \
            (st) = sim_ops_m_->slot(sim_ops_ctx(c), (c)->r->rank, __VA_ARGS__); \
        }                                                                      \
    } while (0)

// Finishes the op: st is the kernel's status (SIM_OK in phantom mode).
// flops and bytes price it on the device (lowp: a fp16/bf16 matrix
// product); dtype goes into the trace event.
SimStatus sim_ops_end(const SimOpsCall *c, SimStatus st, double flops, double bytes, int lowp,
                      SimDtype dtype);
// The same with the op's simulated seconds given (an op of several kernels,
// or one priced by shape): flops and bytes only go into the trace.
SimStatus sim_ops_end_priced(const SimOpsCall *c, SimStatus st, double flops, double bytes,
                             SimDtype dtype, double seconds);
// Seconds of one kernel of c's op on the device it runs on (the host's
// CPUs under offload): a roofline op (sim_cost_compute_on), or a matrix
// product [M, K] x [K, N] moving `bytes`, priced by its shape
// (sim_cost_gemm_on).
double sim_ops_price(const SimOpsCall *c, double flops, double bytes, int lowp);
double sim_ops_price_gemm(const SimOpsCall *c, double M, double N, double K, double bytes,
                          int lowp);

// A [N, C] view of t: rows = product of the leading dimensions, last = the
// last dimension (a scalar is [1, 1]).
void sim_ops_rows(const SimTensor *t, int64_t *rows, int64_t *last);

// "<op>: <an> [..] and <bn> [..] disagree on <what>", SIM_EINVAL.
SimStatus sim_ops_disagree(const SimOpsCall *c, const char *an, const SimTensor *a,
                           const char *bn, const SimTensor *b, const char *what);
// "<op>: <name> [..] should have <ndim> dimensions" unless t->ndim == ndim.
SimStatus sim_ops_ndim(const SimOpsCall *c, const char *name, const SimTensor *t, int ndim);
// "<op>: <name> [..] should have <n> elements" unless numel(t) == n.
SimStatus sim_ops_numel(const SimOpsCall *c, const char *name, const SimTensor *t, int64_t n);
// Fails unless t (may be NULL) has n elements.
SimStatus sim_ops_numel_opt(const SimOpsCall *c, const char *name, const SimTensor *t,
                            int64_t n);
// N and C of x as [N, C] (the normalisations' shapes), checking that y has
// the same view and that the per-channel tensors a and b have C elements
// (y, a, b may be NULL).
SimStatus sim_ops_norm_shapes(const SimOpsCall *c, const char *xn, const SimTensor *x,
                              const char *yn, const SimTensor *y, const char *an,
                              const SimTensor *a, const char *bn, const SimTensor *b, int64_t *N,
                              int64_t *C);
// Fails unless every value is in [0, INT_MAX] (the kernels take int sizes).
SimStatus sim_ops_int_sizes(const SimOpsCall *c, const int64_t *v, int n);
// The range [off, off+n) of a flat tensor (n = 0: to the end) into *count.
SimStatus sim_ops_range(const SimOpsCall *c, const char *name, const SimTensor *t, size_t off,
                        size_t n, size_t *count);
// In numeric mode, fails unless every int32 of ids (n values) is in
// [0, limit): "<op>: <name>[i] = v is out of range [0, limit)".
SimStatus sim_ops_check_ids(const SimOpsCall *c, const char *name, const SimTensor *ids,
                            size_t n, int64_t limit);

#endif
