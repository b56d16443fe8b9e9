// sim/cost/memory_formula.h: closed-form memory per rank, as the papers and
// tools state it (reference/semantics.md, sections A7, 3 and 4), to check the
// ledger (sim/engine/memory.h) against and to say what would fit. Pure functions.
//
// psi (Ψ) is the number of parameters and n (N) the ranks that shard. The
// formulas count model states only (parameters, gradients, optimizer
// state); activations, buffers, bucket copies and gathered units are
// transients the callers add (sim_memf_fit does).
//
// Units: bytes. The ZeRO paper prints GB = 1e9 bytes; DeepSpeed's
// estimators print GiB = 2^30 bytes.
#ifndef DDPLAB_SIM_MEMORY_FORMULA_H
#define DDPLAB_SIM_MEMORY_FORMULA_H

#include <stdint.h>

// Bytes per parameter of each model state.
typedef struct {
    double param; // the parameters computed with: fp32 4, fp16/bf16 2
    double grad;  // gradients: fp32 4, fp16/bf16 2
    double optim; // K: optimizer state, with the fp32 master copy in mixed precision
} SimMemfBytes;

typedef enum { SIM_MEMF_SGD = 0, SIM_MEMF_SGD_MOMENTUM, SIM_MEMF_ADAM } SimMemfOptim;

// fp32 training: parameters 4, gradients 4, and K = 0 (SGD: 8 bytes per
// parameter in all), 4 (SGD with momentum: 12) or 8 (Adam / AdamW: 16).
SimMemfBytes sim_memf_fp32(SimMemfOptim opt);
// The ZeRO paper's mixed-precision Adam: fp16 parameters 2, fp16 gradients
// 2, K = 12 (fp32 parameters, momentum and variance): 16 bytes per parameter.
SimMemfBytes sim_memf_mixed_adam(void);
double sim_memf_total(SimMemfBytes b); // param + grad + optim

// ZeRO stages (Rajbhandari et al., SC'20, Figure 1 and Table 1).
typedef enum {
    SIM_MEMF_STAGE0 = 0, // data parallelism, nothing sharded: (p + g + K)Ψ
    SIM_MEMF_ZERO1,      // P_os, optimizer state sharded: (p + g)Ψ + KΨ/N
    SIM_MEMF_ZERO2,      // P_os+g, and gradients: pΨ + (g + K)Ψ/N
    SIM_MEMF_ZERO3,      // P_os+g+p, and parameters: (p + g + K)Ψ/N
} SimMemfStage;

// Model-state bytes per rank of stage st; with sim_memf_mixed_adam:
// 16Ψ, 4Ψ + 12Ψ/N, 2Ψ + 14Ψ/N, 16Ψ/N.
double sim_memf_zero(SimMemfStage st, double psi, int n, SimMemfBytes b);

// FSDP's flat parameters: each unit's is right-padded to a multiple of N
// and rank r holds elements [r*s, (r+1)*s) with s = ceil(numel / N).
uint64_t sim_memf_shard_numel(uint64_t numel, int n);
// FULL_SHARD's model states per rank: (p + g + K) x the sum over the units
// of ceil(numel / N), i.e. 16(Ψ + padding)/N for fp32 Adam.
double sim_memf_fsdp_full_shard(const uint64_t *unit_numel, int nunits, int n, SimMemfBytes b);

// Gradient bytes per rank: Ψ x bytes, or one N-th of it when sharded (the
// no_sync trade-off: unsharded gradients kept across micro-steps).
double sim_memf_grads(double psi, double bytes_per_grad, int n, int sharded);

// Megatron-LM's distributed optimizer (docs/source/distrib_optimizer.md):
// bytes per parameter with data-parallel size d; d = 1 gives the plain
// optimizer's 20, 18, 16.
typedef enum {
    SIM_MEMF_MEGATRON_FP16 = 0, // fp16 parameters and gradients: 4 + 16/d
    SIM_MEMF_MEGATRON_BF16,     // bf16 parameters, fp32 gradients: 6 + 12/d
    SIM_MEMF_MEGATRON_FP32,     // fp32 parameters and gradients: 8 + 8/d
} SimMemfMegatron;
double sim_memf_megatron(SimMemfMegatron kind, int d);

// DeepSpeed's estimators (deepspeed/runtime/zero/stage_1_and_2.py and
// stage3.py: estimate_zero2/zero3_model_states_mem_needs), in bytes, with
// DeepSpeed's int() truncations; they print GiB.
typedef struct {
    double gpu, cpu; // per GPU; per node (cpu)
} SimMemfEstimate;

#define SIM_MEMF_DS_BUFFER_FACTOR 1.5 // additional_buffer_factor's default

// ZeRO-2: gpu = 2Ψ + 18Ψ/N (18 = 2 fp16 grads + 4 fp32 grads + 4 fp32
// params + 8 Adam), cpu = 4Ψ x gpus_per_node x factor; with optimizer
// offload gpu = 2Ψ, cpu = Ψ x max(4N, 16) x factor.
SimMemfEstimate sim_memf_ds_zero2(double psi, int gpus_per_node, int nodes, int cpu_offload,
                                  double factor);
// ZeRO-3, largest = the largest layer's parameters, L = 4 x largest:
//   no offload:              gpu = L + 18Ψ/N, cpu = 4 x (largest if
//                            zero_init else Ψ) x gpus_per_node x factor
//   optimizer offload:       gpu = L + 2Ψ/N,  cpu = 16Ψ/nodes x factor
//   optimizer + parameters:  gpu = L,         cpu = 18Ψ/nodes x factor
// (without zero_init the offloads' cpu is Ψ x max(4 x gpus_per_node,
// 16 or 18 / nodes) x factor). offload_params needs offload_optimizer.
SimMemfEstimate sim_memf_ds_zero3(double psi, double largest, int gpus_per_node, int nodes,
                                  int offload_optimizer, int offload_params, int zero_init,
                                  double factor);

// ----------------------------------------------------------------------------
// what would fit

// Ways to lay the same training out over the ranks, cheapest in
// communication first.
typedef enum {
    SIM_MEMF_PLAN_DDP = 0,      // replicas; the buckets hold a copy of the gradients
    SIM_MEMF_PLAN_DDP_VIEW,     // replicas, gradient_as_bucket_view (no copy)
    SIM_MEMF_PLAN_ZERO1,        // optimizer state sharded
    SIM_MEMF_PLAN_ZERO2,        // and gradients (FSDP SHARD_GRAD_OP)
    SIM_MEMF_PLAN_FULL_SHARD,   // and parameters (FSDP FULL_SHARD, ZeRO-3)
    SIM_MEMF_PLAN_OFFLOAD,      // FULL_SHARD with the shards in host memory
    SIM_MEMF_PLAN_COUNT
} SimMemfPlan;

// "DDP", "DDP (gradient_as_bucket_view)", "ZeRO-1", "ZeRO-2 (SHARD_GRAD_OP)",
// "FULL_SHARD (ZeRO-3)", "FULL_SHARD + CPU offload".
const char *sim_memf_plan_name(SimMemfPlan p);

typedef struct {
    double psi;          // parameters
    double largest_unit; // parameters of the largest unit (a layer, a block)
                         // that must be whole on the device while it computes
    int nranks;          // ranks that shard
    double capacity;     // device bytes per rank
    SimMemfBytes bytes;  // per parameter
    double act_bytes;    // activations at micro-batch `batch` (they do not shard)
    double other_bytes;  // everything else that does not shard (inputs, buffers)
    double bucket_bytes; // DDP's bucket buffers (a copy of the gradients); 0: none
    int batch;           // the micro-batch act_bytes was measured at
} SimMemfQuery;

typedef struct {
    SimMemfPlan plan;
    int nranks;
    double states;    // model states on the device per rank
    double transient; // buckets (DDP, ZeRO-1), or the largest unit's gradient
                      // (ZeRO-2), or its parameters and gradient (FULL_SHARD)
    double device;    // states + transient + activations + other
    double host;      // host memory per rank (offload)
    int fits;         // device <= capacity
} SimMemfFit;

// Every plan for q on q->nranks ranks (out[p] for plan p); returns how many fit.
int sim_memf_fit(const SimMemfQuery *q, SimMemfFit out[SIM_MEMF_PLAN_COUNT]);
// One plan on n ranks.
SimMemfFit sim_memf_fit_plan(const SimMemfQuery *q, SimMemfPlan p, int n);
// The fewest ranks, q->nranks times a power of two up to max_ranks, on which
// plan p fits; 0 when none does (the unsharded part alone is too big).
int sim_memf_min_ranks(const SimMemfQuery *q, SimMemfPlan p, int max_ranks);
// The largest micro-batch below q->batch with which plan p fits on
// q->nranks ranks (activations scale with the batch); 0 when none does.
int sim_memf_max_batch(const SimMemfQuery *q, SimMemfPlan p);

#endif
