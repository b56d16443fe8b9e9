// cli/bench/bench.h: `ddplab bench`, a collective benchmark in the manner of
// nccl-tests, split by duty:
//   bench_opts.c      the option table (core/optable.h) and the help text
//   bench_parse.c     parsing and validating the command line
//   bench_sweep.c     the size sweep, counts and the memory it needs
//   bench_run.c       the run: buffers on every rank, warmup, timing
//   bench_verify.c    the verifiable data pattern and the correctness check
//   bench_report.c    the table (or CSV) of results and the simulated times
//   bench_calibrate.c fitting a hardware profile to the measured times
//   bench_device.c    measuring this machine's compute as the profile's device
//   bench.c           bench_main: puts the pieces together
//
// Terms used throughout (nccl-tests' conventions, see sim/coll/coll.h):
//   R      ranks in the world
//   count  elements of the collective's count argument (NCCL convention)
//   size   bytes used for algbw: sim_coll_algbw_bytes(kind, count, dtype, R)
//   mode   0 = out-of-place (separate send and recv buffers), 1 = in-place
#ifndef DDPLAB_CLI_BENCH_H
#define DDPLAB_CLI_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "coll/coll.h"      // defines: SimCollKind, SimAlgo
#include "core/optable.h"   // defines: CliOptTable
#include "cost/cost.h"      // defines: SimSysProfile
#include "engine/backend.h" // defines: SimBackendOps
#include "engine/world.h"   // defines: SimWorld, SimRank

// In the bench, SIM_COLL_SEND stands for "sendrecv": a ring exchange in which
// every rank r sends to r+1 and receives from r-1.
#define BENCH_SENDRECV SIM_COLL_SEND

#define BENCH_MAX_RANKS 4096
#define BENCH_MAX_BYTES ((size_t)64 << 30) // larger sizes are rejected as absurd
#define BENCH_MAX_SIZES 1000               // points in one sweep
#define BENCH_TRACE_CAP 200000             // trace events kept per rank

enum { BENCH_OUT_OF_PLACE = 1, BENCH_IN_PLACE = 2 }; // bits of BenchOptions.modes

// Everything the command line says, validated.
typedef struct {
    SimCollKind coll;      // BENCH_SENDRECV for sendrecv; never SIM_COLL_RECV
    SimAlgo algo;          // as given (AUTO allowed)
    int nranks, nodes;
    SimDtype dtype;
    SimRedOp op;           // reductions only
    int root;              // rooted collectives only
    size_t minbytes, maxbytes;
    double stepfactor;
    int warmup, iters;
    int modes;             // BENCH_OUT_OF_PLACE | BENCH_IN_PLACE
    int check;             // 1: verify every element
    const char *backend;   // name as given
    int tf32;              // --tf32 (cuda)
    const char *coll_impl; // --coll-impl (cuda), or NULL: auto
    const char *profile;   // built-in name or file, as given
    SimSysProfile sys;     // profile resolved from `profile`
    const char *gpu;       // --gpu as given, or NULL
    SimDeviceProfile device; // resolved --gpu; all zero without it
    const char *calibrate; // output file, or NULL
    const char *trace;     // output file, or NULL
    const char *plot;      // --plot: busbw chart (PNG), or NULL
    int csv;
    double watchdog_s;
} BenchOptions;

typedef enum { BENCH_PARSE_OK, BENCH_PARSE_HELP, BENCH_PARSE_ERROR } BenchParse;

// Parses and validates argv[1..argc) (argv[0] is "bench"). On a bad value
// prints exactly one line to stderr and returns BENCH_PARSE_ERROR; on --help
// returns BENCH_PARSE_HELP without printing. The strings in o point into argv.
BenchParse bench_opts_parse(int argc, char **argv, BenchOptions *o);
// The options' table (bench_opts.c).
const CliOptTable *bench_optab(void);

// The collective's name as the bench spells it ("sendrecv" for BENCH_SENDRECV).
const char *bench_coll_name(SimCollKind k);
// Ranks' buffers hold R blocks of `count` for these collectives, so a size in
// bytes is divided among the ranks: 1 for the others, R for these.
int bench_coll_parts(SimCollKind k, int nranks);
// The algorithm that runs when the options say `algo` (AUTO resolved).
SimAlgo bench_algo_resolved(const BenchOptions *o);
// Whether the collective has an in-place form in the bench (not sendrecv or
// barrier).
int bench_has_inplace(SimCollKind k);

// The sweep: sizes in bytes from minbytes to maxbytes, multiplied by
// stepfactor; barrier has a single point. Writes at most max sizes and returns
// the number of points (which may exceed max).
int bench_sweep(const BenchOptions *o, size_t *bytes, int max);
// Elements of the count argument for a sweep point of `bytes`.
size_t bench_count_for(const BenchOptions *o, size_t bytes);
// Bytes all ranks' buffers take at the largest size: send and recv buffers,
// the host staging buffer, and the scratch the algorithm works in.
double bench_bytes_needed(const BenchOptions *o);
// Physical memory of this machine in bytes (0 if unknown).
double bench_physical_bytes(void);

// ----------------------------------------------------------------------------
// the verifiable pattern (bench_verify.c)

#define BENCH_NVALS_MAX 16

// Inputs are small integers chosen per (rank, element) so that every
// reduction of them is exact in every element type and in any order: sums stay
// below the largest integer the type holds exactly, products are powers of
// two. An element j belongs to a class a(j) in [0, nvals) drawn from a hash of
// j, and the reduced value depends only on the class, so the expected result
// of element j is a table lookup (computed once, by brute force over ranks).
typedef struct {
    SimCollKind kind;
    SimDtype dtype;
    SimRedOp op;
    int nranks, root;
    int nvals;     // element classes
    int stride;    // SUM/AVG: only ranks r with r % stride == 0 contribute
    int bmod;      // SUM/AVG/MAX/MIN: rank r adds b(r) in [1, bmod]
    int pmod;      // PROD: ranks with (r + a) % pmod == 0 contribute a factor 2
    int copymod;   // copy collectives: values in [0, copymod)
    double expect[BENCH_NVALS_MAX]; // reduction result per class
    double tol[BENCH_NVALS_MAX];    // allowed |error| per class (AVG rounding)
} BenchPattern;

// Value every unwritten element of a recv buffer starts with; no pattern or
// result ever equals it.
#define BENCH_SENTINEL (-3.0)

void bench_pattern_init(BenchPattern *p, const BenchOptions *o);
// Fills n elements with the send data of `rank` (logical indices 0..n).
void bench_fill_send(const BenchPattern *p, int rank, void *host, size_t n);
// Fills n elements with the value v.
void bench_fill_value(void *host, SimDtype dt, size_t n, double v);
// Counts the elements of `rank`'s recv buffer (n elements, logical indices
// 0..n) that differ from the expected result of a collective of `count`.
uint64_t bench_count_wrong(const BenchPattern *p, int rank, size_t count,
                           const void *host, size_t n);

// ----------------------------------------------------------------------------
// the run (bench_run.c)

typedef struct {
    const BenchOptions *opt;
    BenchPattern pat;
    int nsizes;
    size_t *bytes;     // [nsizes] sweep points in bytes
    size_t *counts;    // [nsizes] count argument per point
    // Per point, mode (0 out-of-place, 1 in-place) and rank; each rank writes
    // only its own slots, the main thread reads them after the run.
    double *secs;      // [nsizes][2][R] seconds per call
    uint64_t *wrong;   // [nsizes][2][R] wrong elements
} BenchRun;

// Allocates the per-point arrays. Returns SIM_ENOMEM when out of memory.
SimStatus bench_run_init(BenchRun *run, const BenchOptions *o);
void bench_run_free(BenchRun *run);
// Runs the whole sweep on every rank of w.
SimStatus bench_run(BenchRun *run, SimWorld *w);
// Slot of (point, mode, rank) in secs and wrong.
size_t bench_slot(const BenchRun *run, int point, int mode, int rank);
// Seconds per call of a point and mode: the slowest rank's.
double bench_time(const BenchRun *run, int point, int mode);
// Wrong elements of a point and mode, summed over ranks.
uint64_t bench_wrong(const BenchRun *run, int point, int mode);

// ----------------------------------------------------------------------------
// reporting (bench_report.c)

// Simulated seconds of one call of the collective of `count` under the
// options' profile and topology (the cost model, not a measurement).
double bench_sim_time(const BenchOptions *o, size_t count);
// bench_plot.c: busbw against size as a PNG chart at path. 0, or -1 with
// err set.
int bench_plot(const BenchRun *run, const char *path, char *err, size_t errlen);
void bench_report_header(FILE *out, const BenchOptions *o, const char *backend_desc);
// Prints every row and the footer. Returns the total of wrong elements.
uint64_t bench_report_rows(FILE *out, const BenchRun *run);

// ----------------------------------------------------------------------------
// calibration (bench_calibrate.c)

// Fits alpha and bw to the ring all_reduce times of the run (in-place when
// measured, else out-of-place), adds a device (--gpu's, or this machine's
// CPU measured on w's ranks when the backend is cpu), and saves the profile
// to o->calibrate. Prints the fitted numbers to `out`. Returns an exit code
// (CLI_EXIT_OK, CLI_EXIT_CHECK when no fit is possible, CLI_EXIT_INTERNAL
// when the file cannot be written or the device cannot be measured).
int bench_calibrate(FILE *out, const BenchRun *run, SimWorld *w);
// What bench_measure_device times on each rank (bench_device.c): forward and
// backward of Linear layers [c[l] -> oc[l]] at a batch of `batch`, one
// element-wise pass over stream_bytes, and one-element fills.
#define BENCH_DEV_MAX_LAYERS 2
#define BENCH_DEV_MAX_SHAPES 6
typedef struct {
    int device;    // 1: a device with memory of its own (the backend has
                   // mem_info): named by the driver, collectives beside the
                   // compute; 0: this machine's CPU
    int batch, nlayers;
    int c[BENCH_DEV_MAX_LAYERS], oc[BENCH_DEV_MAX_LAYERS];
    size_t stream_bytes;
    // The products whose times the device's efficiency and launch cost are
    // fitted to (sim_cost_fit_gemm; bench_gemm.c): Linear forward of
    // [m, k] by [n, k]^T, from small to large; fewer than 2: not fitted.
    int nshapes;
    int shapes[BENCH_DEV_MAX_SHAPES][3]; // m, n, k
} BenchDevicePlan;
// Times one rank's Linear forward on each of plan's shapes (the median of
// rounds, after warm-up) into secs[nshapes]. SIM_ENOMEM when the buffers do
// not fit; err says what failed.
SimStatus bench_time_shapes(SimRank *r, const BenchDevicePlan *plan, double *secs, char *err,
                            size_t errlen);
// Fits dev's product efficiency and launch cost to the ranks' mean times of
// plan's shapes (sim_cost_fit_gemm on dev's peaks, SMs and tile), and puts
// the efficiency into dev's peaks (its rates are achieved ones: efficiency
// stays as it was, so that memory-bound ops keep their measured bandwidth).
// Keeps dev as it was when the fit fails, and the launch it had when the
// fit's is zero. Returns 1 when fitted.
int bench_fit_shapes(SimDeviceProfile *dev, const BenchDevicePlan *plan, const double *secs);
// The plan for a backend: the cpu's (the layers of ddplab's larger MLP at a
// batch of 64, an 8 MiB pass) or a GPU's (one 4096x4096 layer at a batch of
// 4096, a 256 MiB pass: sizes that fill the device, as datasheet rates do).
const BenchDevicePlan *bench_device_plan(const SimBackendOps *ops);
// Measures the device every rank of w computes on, all ranks at once, as a
// device profile, with the backend's own kernels and memory. Fails with
// SIM_ENOTSUP (err says why) on a backend without math kernels. On failure
// writes why into err.
SimStatus bench_measure_device(SimWorld *w, SimDeviceProfile *dev, char *err, size_t errlen);
SimStatus bench_measure_device_with(SimWorld *w, const BenchDevicePlan *plan,
                                    SimDeviceProfile *dev, char *err, size_t errlen);

// `ddplab bench ...`: argv[0] is "bench". Returns an exit code.
int bench_main(int argc, char **argv);
// Prints the full help of `ddplab bench`.
void bench_help(FILE *out);

#endif
