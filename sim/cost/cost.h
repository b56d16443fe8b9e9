// sim/cost/cost.h: the cost model for collectives (alpha-beta per link) and for
// compute (a roofline per device), and the hardware profiles it reads.
//
// A link profile is a latency alpha (seconds per message) and a bandwidth
// beta^-1 (bytes per second, per direction, per rank). A system profile pairs
// the link used between ranks on the same node with the one between nodes.
// The time of one schedule step is
//   max over ranks r of  alpha(r) + max(sum in_bytes/bw, sum out_bytes/bw)
// where the sums run over r's transfers in that step, each at the bandwidth of
// its own link (intra- or inter-node), and alpha(r) is the largest latency of
// the links r uses. Ranks move in lock-step, so the slowest link gates each
// step, as it does in a real ring. A collective costs the sum of its steps.
// Ring all_reduce on one link type thus costs 2(R-1)(alpha + S/(R*bw)).
//
// Latency. A link's latency is time of flight, not time the link is busy:
// a collective pays the latencies along its longest chain of dependent
// transfers, and each step pays what that chain gains at it
// (sim_cost_step_alpha), as NCCL's own model counts its inter-node hops:
//   ring (all_reduce, reduce_scatter, all_gather) on several nodes of P
//     ranks: a chunk moves one rank per step, so any 2(R-1) consecutive
//     ring links hold at most ceil(2(R-1)/P) node crossings; step t pays the
//     inter-node latency when t is a multiple of P, else the intra-node one
//     (one node, or a rank per node: every step as above);
//   double binary tree, and the pipelined chain of ring broadcast and
//     reduce: only the first chunk's path pays, so steps past it (t >= 2H
//     for trees of height H, t >= R-1 for the chain) pay none; the chain's
//     first R-1 steps pay their own hop's latency;
//   every other schedule (direct, binomial tree, naive): each step waits for
//     the one before, and pays as above.
//
// Rails. A node with several NICs (a DGX H100 has eight ConnectX-7 of 400
// Gb/s, one beside each GPU) carries a ring's node crossings on all of them:
// NCCL splits a collective over channels, one ring each, and lays the rings
// so that each leaves the node through a different NIC, so the node's
// crossing moves 1/n of the data over each of n rails at once (NCCL's
// multi-rail topology search; nccl-tests measure a multi-node ring
// all_reduce busbw near n x one NIC's rate on such nodes). The ring
// schedules here are one ring, whose crossing goes through one rank; its
// inter-node transfers are therefore priced at the inter-node bandwidth
// times the rails, min(nics_per_node, ranks per node). A node of one rank,
// or a system that states no NICs, has one rail. The double binary tree's
// two trees cross each node at once and share them (half the rails each);
// binomial trees, direct exchanges and point-to-point messages keep one NIC
// per rank.
#ifndef DDPLAB_SIM_COST_H
#define DDPLAB_SIM_COST_H

#include <stddef.h>

#include "base/status.h"   // defines: SimStatus
#include "coll/schedule.h" // defines: SimSched

typedef struct {
    char name[48];
    double alpha_s;  // latency per message, seconds
    double bw_Bps;   // bandwidth per direction per rank, bytes/second
    char source[160]; // where the numbers come from
} SimLinkProfile;

// One accelerator (or one CPU core, as `ddplab bench --calibrate` measures
// it), for the compute side of the cost model (sim/cost/cost_compute.c): an op of
// F FLOPs touching B bytes of memory takes
//   max(F / peak, B / mem_bw) / efficiency + launch_s
// (a roofline); a matrix product of known shape is priced in waves of
// output tiles on the SMs instead (sim_cost_gemm_on below). peak is peak_lowp_flops for fp16/bf16 matrix products and
// peak_fp32_flops for everything else. The built-in devices are data with
// sources (sim/cost/cost_devices.c); efficiency there is the fraction of the
// datasheet peak that large GEMMs reach in public measurements. A fused
// attention kernel (lowp = SIM_COST_ATTN) runs on the 16-bit peak at
// attn_efficiency instead: its softmax between the two products keeps it
// well below a plain GEMM's rate.
typedef struct {
    char name[48];
    char description[64];    // e.g. "NVIDIA H100 SXM5 80 GB"
    double peak_fp32_flops;  // FLOP/s, fp32 without tensor cores
    double peak_lowp_flops;  // FLOP/s, dense fp16/bf16 on tensor cores
    double mem_bw_Bps;       // memory bandwidth, bytes/second
    double mem_bytes;        // memory capacity, bytes (decimal, as datasheets state it)
    double efficiency;       // fraction of the roofline a kernel reaches (0..1]
    double attn_efficiency;  // the same for a fused (flash) attention kernel on the
                             // 16-bit tensor cores, [0, 1]; 0: efficiency
    double launch_s;         // fixed cost per op (kernel launch), seconds
    int sm_count;            // streaming multiprocessors, for the matrix products'
                             // wave quantization (sim_cost_gemm_on); 0: not stated
    int gemm_tile_m, gemm_tile_n; // the output tile one SM computes at a time in a
                             // large product; 0: not stated (no quantization)
    int coll_on_compute;     // 1: collectives run on the cores that compute (a
                             // CPU rank's own thread copies and reduces every
                             // chunk), so a collective holds the compute stream
                             // until it ends; 0: they run beside the compute
                             // on their own stream, as NCCL does on a GPU
    char source[256];        // where the numbers come from
} SimDeviceProfile;

typedef struct {
    char name[64];
    char description[128];
    SimLinkProfile intra;  // between ranks on one node
    SimLinkProfile inter;  // between nodes
    int ranks_per_node;    // the node size this system usually has
    SimDeviceProfile device; // the system's accelerator; all zero: not stated
                             // (the cost model then uses the default device)
    SimDeviceProfile host;   // its host CPUs' share per GPU (CPU offload's
                             // optimizer step); all zero: not stated (a DGX
                             // H100 node's, sim_device_host)
    int nics_per_node;       // NICs a node's rings leave it through (see
                             // "Rails" above); 0: not stated, one
} SimSysProfile;

// Built-in link and system profiles (data with sources, see cost_profiles.c).
int sim_link_count(void);
const SimLinkProfile *sim_link_at(int i);
const SimLinkProfile *sim_link_find(const char *name);
int sim_sys_count(void);
const SimSysProfile *sim_sys_at(int i);
const SimSysProfile *sim_sys_find(const char *name);

// Resolves a --profile argument: a built-in system name, or the path of a
// profile file written by sim_sys_save (with the device it states, if any). On failure writes a one-line reason
// into err and returns SIM_EINVAL (unknown name), SIM_EIO (cannot read) or
// SIM_EFORMAT (corrupt file).
SimStatus sim_sys_resolve(const char *name_or_path, SimSysProfile *out,
                          char *err, size_t errlen);
// Writes a profile as JSON, atomically (temporary file + rename); its
// device, when stated (sim_device_valid), as the file's "device" object.
SimStatus sim_sys_save(const SimSysProfile *p, const char *path);
SimStatus sim_sys_load(const char *path, SimSysProfile *out, char *err, size_t errlen);

// Built-in devices (data with sources, see cost_devices.c), the default
// first: h100, h200, a100-40, a100-80, l40s, rtx4090.
int sim_device_count(void);
const SimDeviceProfile *sim_device_at(int i);
// A built-in device by name or alias, in any case ("H100", "h100-sxm",
// "a100-80gb", "RTX-4090"); NULL if none. A bare "a100" is ambiguous (40 or
// 80 GB) and finds nothing.
const SimDeviceProfile *sim_device_find(const char *name);
// The default device (H100 SXM): what a zero device means.
const SimDeviceProfile *sim_device_default(void);
// 1 if d states a device the cost model can use: positive peaks and
// bandwidth, an efficiency in (0, 1], a finite launch_s >= 0.
int sim_device_valid(const SimDeviceProfile *d);
// "h100 (80 GB), h200 (141 GB), ...": the built-in names for messages;
// returns buf.
const char *sim_device_names(char *buf, size_t len);
// Resolves a --gpu argument: a built-in device name or alias, or the path of
// a profile file with a "device" object (`ddplab bench --calibrate` writes
// one). On failure writes a one-line reason into err (an unknown name lists
// the built-in devices) and returns SIM_EINVAL, SIM_EIO or SIM_EFORMAT.
SimStatus sim_device_resolve(const char *name_or_path, SimDeviceProfile *out, char *err,
                             size_t errlen);

typedef struct {
    SimSysProfile sys;
    int nranks;
    int ranks_per_node;  // topology of the run: rank r is on node r / ranks_per_node
    SimDeviceProfile device; // compute device; all zero (as sim_cost_init leaves
                             // it) means sys.device, or sim_device_default()
                             // when the system states none
} SimCost;

void sim_cost_init(SimCost *c, const SimSysProfile *sys, int nranks, int ranks_per_node);
const SimLinkProfile *sim_cost_link(const SimCost *c, int src, int dst);
// The rails a ring crossing nodes spreads over (see "Rails" above): 1
// unless the run has several nodes of several ranks on a system with NICs.
int sim_cost_ring_rails(const SimCost *c);
// Seconds for step t of the schedule, for a buffer of elements of elem_size bytes.
double sim_cost_step(const SimCost *c, const SimSched *s, int step, size_t elem_size);
// The latency step t pays (see "Latency" at the top of this file): FULL,
// each rank the largest latency of the links it uses; INTRA, the
// intra-node latency only (the step's hop on the longest path is inside a
// node); NONE, no latency (a pipelined step behind the first chunk, whose
// latency the earlier steps paid).
typedef enum { SIM_ALPHA_FULL = 0, SIM_ALPHA_INTRA, SIM_ALPHA_NONE } SimAlphaMode;
SimAlphaMode sim_cost_step_alpha(const SimCost *c, const SimSched *s, int step);
// The latency a transfer on a link of latency link_alpha pays under mode m.
double sim_cost_alpha(const SimCost *c, double link_alpha, SimAlphaMode m);
// Seconds for the whole collective (sum of its steps; a barrier costs the
// ceil(log2 R) latency rounds of a dissemination barrier).
double sim_cost_coll(const SimCost *c, const SimSched *s, size_t elem_size);
// Seconds for a point-to-point message.
// The schedule an algorithm runs as (sim_coll_resolve_algo), except that
// SIM_ALGO_NCCL picks for an all_reduce on several ranks what NCCL's tuner
// picks by its own model: the algorithm this cost model prices lower, ring
// or dbtree (ring on a tie).
SimAlgo sim_cost_resolve_algo(const SimCost *c, SimCollKind k, SimAlgo a, int nranks,
                              size_t count, size_t elem_size);
double sim_cost_p2p(const SimCost *c, int src, int dst, size_t bytes);
// The device a run prices compute on: `given` (--gpu) if valid, else the
// system's own if valid (sys may be NULL), else sim_device_default().
const SimDeviceProfile *sim_device_effective(const SimDeviceProfile *given,
                                             const SimSysProfile *sys);
// sim_device_effective(&c->device, &c->sys).
const SimDeviceProfile *sim_cost_device(const SimCost *c);
// Seconds for one compute op of `flops` FLOPs moving `bytes` bytes of
// memory on c's device; lowp = 1 for fp16/bf16 matrix products.
// lowp: 0 an fp32 op, 1 a 16-bit matrix product, SIM_COST_ATTN a fused
// attention kernel on the 16-bit tensor cores (FlashAttention-2's rate,
// attn_efficiency), SIM_COST_ATTN_TRITON the FlashAttention-1-era Triton
// kernel (flash_attn_triton) at SIM_COST_TRITON_SHARE of that rate: the
// FlashAttention-2 paper (Dao 2023, arXiv 2307.08691) measures its kernel
// "around 2x" as fast as FlashAttention (1.7-3.0x forward and backward on
// A100), and the Triton kernel's own notes put its forward and backward
// together slightly slower than FlashAttention's CUDA kernels.
#define SIM_COST_ATTN 2
#define SIM_COST_ATTN_TRITON 3
#define SIM_COST_TRITON_SHARE 0.5
double sim_cost_compute(const SimCost *c, double flops, double bytes, int lowp);
// The same roofline on a given device profile.
double sim_cost_compute_on(const SimDeviceProfile *d, double flops, double bytes, int lowp);
// One matrix product C[M, N] = A[M, K] B[K, N] moving `bytes` of memory,
// priced by its shape (sim/cost/cost_gemm.c): the output is cut into tiles
// of tm x tn, one SM computes one tile at a time, so the product runs in
// waves = ceil(tiles / sm_count) of one tile's time each:
//   math = waves * 2 tm tn K / (rate * peak / sm_count)
//   time = max(math, bytes / mem_bw) / efficiency + launch_s
// where the tile is the device's gemm_tile_m x gemm_tile_n (rate 1) or one
// of its halvings down to 64 (rate: its arithmetic intensity tm tn / (tm +
// tn) over the large tile's), whichever is fastest. A product whose tiles do
// not fill the last wave, or one narrower than a tile, runs below peak (wave
// and tile quantization); a large one reaches efficiency x peak. A device
// without sm_count or tiles prices 2MNK / peak.
typedef struct {
    double M, N, K; // the product's dimensions
    double bytes;   // what it reads and writes
} SimCostGemm;
double sim_cost_gemm_on(const SimDeviceProfile *d, const SimCostGemm *g, int lowp);
double sim_cost_gemm(const SimCost *c, const SimCostGemm *g, int lowp);
// The arithmetic time of a product at full efficiency and without launch:
// the quantized `math` above (what a calibration fits against).
double sim_cost_gemm_math(const SimDeviceProfile *d, const SimCostGemm *g, int lowp);
// Fits a device's efficiency and launch cost to measured products: secs[i]
// = launch + max(math_i, mem_i) / efficiency for the n shapes g (math_i
// from sim_cost_gemm_math on d, mem_i = bytes / mem_bw), by least squares
// on the line secs = launch + slope * max(math, mem). Writes efficiency =
// 1 / slope (at most 1) and launch = the intercept (0 if negative) into d.
// SIM_EINVAL if fewer than 2 distinct shapes, a value is not finite, or
// the slope is not positive.
SimStatus sim_cost_fit_gemm(SimDeviceProfile *d, const SimCostGemm *g, const double *secs,
                            int n, int lowp);

// The host CPUs' share per GPU, where CPU offload steps the optimizer:
// the system's own (sys may be NULL), else a DGX H100 node's two Xeons over
// its 8 GPUs (sim_device_host; cost_device_data.h).
const SimDeviceProfile *sim_device_host(void);
const SimDeviceProfile *sim_sys_host(const SimSysProfile *sys);

// Fits alpha and bw to measured ring all_reduce times: time = steps*alpha +
// steps/R * bytes/bw with steps = 2(R-1), by least squares over n points.
// Returns SIM_EINVAL if fewer than 2 distinct sizes or a non-positive slope.
SimStatus sim_cost_fit_ring(const double *bytes, const double *secs, int n,
                            int nranks, SimLinkProfile *out);

#endif
