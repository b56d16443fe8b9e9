// cli/bench_device.c: this machine's compute as a device profile, measured
// for `ddplab bench --calibrate` on the cpu backend.
//
// Every rank measures at the same time, as every rank computes at the same
// time in a training run on this machine (R threads sharing its cores,
// caches and memory), and each rank's kernels are the CPU backend's own,
// called through its math table (sim/kernels.h: OpenBLAS with one thread
// per rank). Three figures, each the median over timed rounds (a noisy
// machine slows some rounds; the median is what a run typically sees),
// averaged over the ranks:
//   matmul rate  FLOP/s of Linear forward and backward (dinp, dweight and
//                dbias) on the layers of ddplab's larger MLP
//                (mlp:784,1024,1024,10) at a batch of 64: [64,784] x
//                [1024,784]^T and [64,1024] x [1024,1024]^T. FLOPs are
//                counted as the cost model counts them (sim/ops_nn.c:
//                2NC*OC forward, 4NC*OC + N*OC backward).
//   bandwidth    bytes per second of memcpy between two 8 MiB buffers,
//                counting each byte read and written (2S / t, as
//                bench/memcpy_bw.c reports traffic), the way the cost model
//                counts an op's bytes. 8 MiB is the size of a layer's
//                parameters in the models numeric runs train: beyond the
//                core's own cache, as parameter-sized element-wise ops
//                (optimizer steps, bucket copies, zero_grad) are.
//   launch       seconds per call of fill on one element: the fixed cost of
//                a kernel call through the math table.
// These are achieved rates, not datasheet peaks, so the profile's
// efficiency is 1. fp16/bf16 products on this backend round their operands
// and run the same fp32 GEMM, so the low-precision peak is the fp32 one.
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "comm.h" // defines: sim_barrier, sim_wall_now

#define DEV_BATCH 64
#define DEV_ROUNDS 25        // timed rounds of each measurement
#define DEV_WARMUP 3         // untimed rounds first (page faults, BLAS buffers)
#define DEV_COPY_BYTES ((size_t)8 << 20)
#define DEV_LAUNCH_CALLS 2000 // tiny ops per launch round

// The MLP's two large layers, [C -> OC].
static const int layer_c[] = {784, 1024}, layer_oc[] = {1024, 1024};
enum { NLAYERS = 2 };

typedef struct {
    double flops_s, bw_Bps, launch_s; // this rank's medians
    SimStatus st;
    char error[128];
} DeviceRank;

typedef struct {
    int nranks;
    DeviceRank *ranks;
} DeviceRun;

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Buffers of one rank for the matmul rounds: the largest layer's shapes.
typedef struct {
    float *inp, *out, *w, *b, *dinp, *dout, *dw, *db;
} MatBufs;

static void free_mat(MatBufs *m) {
    free(m->inp), free(m->out), free(m->w), free(m->b);
    free(m->dinp), free(m->dout), free(m->dw), free(m->db);
}

static int alloc_mat(MatBufs *m) {
    size_t N = DEV_BATCH, C = 1024, OC = 1024; // the largest of layer_c, layer_oc
    memset(m, 0, sizeof *m);
    m->inp = calloc(N * C, sizeof(float)), m->dinp = calloc(N * C, sizeof(float));
    m->out = calloc(N * OC, sizeof(float)), m->dout = calloc(N * OC, sizeof(float));
    m->w = calloc(OC * C, sizeof(float)), m->dw = calloc(OC * C, sizeof(float));
    m->b = calloc(OC, sizeof(float)), m->db = calloc(OC, sizeof(float));
    if (!m->inp || !m->dinp || !m->out || !m->dout || !m->w || !m->dw || !m->b || !m->db)
        return -1;
    // Small, varied values: denormals or NaNs would time a different path.
    for (size_t i = 0; i < N * C; i++)
        m->inp[i] = (float)((i * 7) % 13) * 0.01f;
    for (size_t i = 0; i < OC * C; i++)
        m->w[i] = (float)((i * 5) % 11) * 0.001f - 0.005f;
    for (size_t i = 0; i < N * OC; i++)
        m->dout[i] = (float)((i * 3) % 7) * 0.01f - 0.03f;
    return 0;
}

// One round: forward and backward of every layer. Returns its seconds (< 0
// on a kernel failure) and adds its FLOPs to *flops.
static double mat_round(SimRank *r, MatBufs *m, double *flops) {
    const SimMathOps *k = r->world->ops->math;
    void *ctx = r->world->ctx;
    double t0 = sim_wall_now();
    for (int l = 0; l < NLAYERS; l++) {
        int N = DEV_BATCH, C = layer_c[l], OC = layer_oc[l];
        if (k->linear_forward(ctx, r->rank, m->out, m->inp, m->w, m->b, N, C, OC, SIM_FP32) !=
                SIM_OK ||
            k->linear_backward(ctx, r->rank, m->dinp, m->dw, m->db, m->dout, m->inp, m->w, N, C,
                               OC, SIM_FP32) != SIM_OK)
            return -1;
        double mnk = (double)N * C * OC;
        *flops += 2.0 * mnk + 4.0 * mnk + (double)N * OC;
    }
    return sim_wall_now() - t0;
}

static SimStatus measure_matmul(SimRank *r, DeviceRank *out) {
    MatBufs m;
    double rates[DEV_ROUNDS];
    if (alloc_mat(&m) != 0) {
        free_mat(&m);
        snprintf(out->error, sizeof out->error, "out of memory for the matmul buffers");
        return SIM_ENOMEM;
    }
    SimStatus st = SIM_OK;
    for (int i = 0; i < DEV_WARMUP + DEV_ROUNDS && st == SIM_OK; i++) {
        double flops = 0, t = mat_round(r, &m, &flops);
        if (t < 0) {
            snprintf(out->error, sizeof out->error, "the backend's Linear kernels failed");
            st = SIM_EINVAL;
        } else if (i >= DEV_WARMUP) {
            rates[i - DEV_WARMUP] = t > 0 ? flops / t : 0;
        }
    }
    free_mat(&m);
    if (st == SIM_OK)
        out->flops_s = median(rates, DEV_ROUNDS);
    return st;
}

static SimStatus measure_bandwidth(DeviceRank *out) {
    unsigned char *a = malloc(DEV_COPY_BYTES), *b = malloc(DEV_COPY_BYTES);
    if (a == NULL || b == NULL) {
        free(a), free(b);
        snprintf(out->error, sizeof out->error, "out of memory for the copy buffers");
        return SIM_ENOMEM;
    }
    memset(a, 1, DEV_COPY_BYTES); // touch every page before timing
    memset(b, 2, DEV_COPY_BYTES);
    double rates[DEV_ROUNDS];
    volatile unsigned sink = 0; // reads of the copies, so that none can be elided
    for (int i = 0; i < DEV_WARMUP + DEV_ROUNDS; i++) {
        unsigned char *src = i % 2 ? b : a, *dst = i % 2 ? a : b;
        double t0 = sim_wall_now();
        memcpy(dst, src, DEV_COPY_BYTES);
        double t = sim_wall_now() - t0;
        sink += dst[(size_t)i * 4093 % DEV_COPY_BYTES];
        if (i >= DEV_WARMUP)
            rates[i - DEV_WARMUP] = t > 0 ? 2.0 * (double)DEV_COPY_BYTES / t : 0;
    }
    (void)sink;
    free(a), free(b);
    out->bw_Bps = median(rates, DEV_ROUNDS);
    return SIM_OK;
}

static SimStatus measure_launch(SimRank *r, DeviceRank *out) {
    const SimMathOps *k = r->world->ops->math;
    float x[16];
    double per_call[DEV_ROUNDS];
    for (int i = 0; i < DEV_WARMUP + DEV_ROUNDS; i++) {
        double t0 = sim_wall_now();
        for (int c = 0; c < DEV_LAUNCH_CALLS; c++)
            if (k->fill(r->world->ctx, r->rank, x, (float)c, 1) != SIM_OK) {
                snprintf(out->error, sizeof out->error, "the backend's fill kernel failed");
                return SIM_EINVAL;
            }
        if (i >= DEV_WARMUP)
            per_call[i - DEV_WARMUP] = (sim_wall_now() - t0) / DEV_LAUNCH_CALLS;
    }
    out->launch_s = median(per_call, DEV_ROUNDS);
    return SIM_OK;
}

// Every rank: start together, then the three measurements in turn (each
// rank runs the same one at the same time, as in a training step).
static SimStatus device_rank(SimRank *r, void *arg) {
    DeviceRun *run = arg;
    DeviceRank *me = &run->ranks[r->rank];
    SIM_CHECK(sim_barrier(r));
    SimStatus st = measure_matmul(r, me);
    if (st == SIM_OK)
        st = sim_barrier(r);
    if (st == SIM_OK)
        st = measure_bandwidth(me);
    if (st == SIM_OK)
        st = sim_barrier(r);
    if (st == SIM_OK)
        st = measure_launch(r, me);
    me->st = st;
    return st;
}

// "Intel(R) Xeon(R) Processor" from /proc/cpuinfo, or "" (not Linux).
static void cpu_model(char *buf, size_t len) {
    buf[0] = '\0';
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f == NULL)
        return;
    char line[256];
    while (fgets(line, sizeof line, f) != NULL) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) != 0 || colon == NULL)
            continue;
        const char *v = colon + 1;
        while (*v == ' ' || *v == '\t')
            v++;
        snprintf(buf, len, "%s", v);
        buf[strcspn(buf, "\n")] = '\0';
        break;
    }
    fclose(f);
}

SimStatus bench_measure_device(SimWorld *w, SimDeviceProfile *dev, char *err, size_t errlen) {
    int R = w->cfg.nranks;
    DeviceRun run = {R, calloc((size_t)R, sizeof(DeviceRank))};
    memset(dev, 0, sizeof *dev);
    if (run.ranks == NULL) {
        snprintf(err, errlen, "out of memory");
        return SIM_ENOMEM;
    }
    SimStatus st = sim_world_run(w, device_rank, &run);
    double flops = 0, bw = 0, launch = 0;
    for (int i = 0; i < R && st == SIM_OK; i++) {
        flops += run.ranks[i].flops_s / R;
        bw += run.ranks[i].bw_Bps / R;
        launch += run.ranks[i].launch_s / R;
    }
    if (st != SIM_OK) {
        const char *why = sim_world_error(w);
        for (int i = 0; i < R; i++)
            if (run.ranks[i].error[0])
                why = run.ranks[i].error;
        snprintf(err, errlen, "%s", why && why[0] ? why : sim_strerror(st));
    }
    free(run.ranks);
    if (st != SIM_OK)
        return st;
    if (!(flops > 0) || !(bw > 0)) {
        snprintf(err, errlen, "the timings came out zero (a clock too coarse?)");
        return SIM_EINVAL;
    }

    char host[64] = "this machine", model[128];
    if (gethostname(host, sizeof host) != 0)
        snprintf(host, sizeof host, "this machine");
    host[sizeof host - 1] = '\0';
    cpu_model(model, sizeof model);
    snprintf(dev->name, sizeof dev->name, "cpu-%.40s", host);
    snprintf(dev->description, sizeof dev->description, "%.36s, %d rank%s at once",
             model[0] ? model : "this machine's CPU", R, R == 1 ? "" : "s");
    dev->peak_fp32_flops = flops;
    dev->peak_lowp_flops = flops; // amp products run as fp32 GEMMs here
    dev->mem_bw_Bps = bw;
    dev->mem_bytes = bench_physical_bytes();
    dev->efficiency = 1.0; // achieved rates, not peaks
    dev->launch_s = launch;
    dev->coll_on_compute = 1; // a rank's own thread runs its collectives
    snprintf(dev->source, sizeof dev->source,
             "measured by ddplab bench on %.40s, %d rank%s at once: Linear fwd+bwd 64x784x1024 "
             "and 64x1024x1024 (cpu backend, OpenBLAS), memcpy 8 MiB, 1-element fill; medians",
             host, R, R == 1 ? "" : "s");
    return SIM_OK;
}
