// cli/bench/bench_device.c: the device the ranks compute on, measured as a device
// profile for `ddplab bench --calibrate`: this machine's CPU on the cpu
// backend, the GPU on the cuda backend.
//
// Every rank measures at the same time, as every rank computes at the same
// time in a training run (R threads sharing the cores, caches and memory, or
// R ranks sharing a GPU), and each rank's kernels are the backend's own,
// called through its math table (sim/engine/kernels.h) on memory from its allocator.
// Three figures, each the median over timed rounds (a noisy machine slows
// some rounds; the median is what a run typically sees), averaged over the
// ranks:
//   matmul rate  FLOP/s of Linear forward and backward (dinp, dweight and
//                dbias) on the plan's layers. FLOPs are counted as the cost
//                model counts them (sim/engine/ops_nn.c: 2NC*OC forward, 4NC*OC +
//                N*OC backward).
//   bandwidth    bytes per second of one pass over the plan's buffer,
//                counting each byte read and written (2S / t), the way the
//                cost model counts an op's bytes. The CPU's pass is a memcpy
//                between two 8 MiB buffers: the size of a layer's parameters
//                in the models numeric runs train, beyond the core's own
//                cache, as parameter-sized element-wise ops are. A GPU's is
//                the backend's in-place scale kernel over 256 MiB, four
//                times an H200's 60 MB L2, so that the figure is its memory's.
//   launch       seconds per call of fill on one element: the fixed cost of a
//                kernel call through the math table (on the cuda backend, the
//                launch and the wait for the stream that every op does).
// The CPU's layers are those of ddplab's larger MLP (mlp:784,1024,1024,10) at
// a batch of 64, the products its numeric runs make. A GPU's is one
// 4096x4096 layer at a batch of 4096: the lessons' small products would
// measure the launch again, not the rate the roofline's peak stands for.
// These are achieved rates, not datasheet peaks, so the profile's efficiency
// is 1. Then products of several shapes are timed (bench_gemm.c), and the
// line through their times refits the matmul rate and the per-op cost as the
// cost model prices products of any shape. fp16/bf16 products on both
// backends round their operands and run the same fp32 GEMM, so the
// low-precision peak is the fp32 one.
#include "bench/bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/comm.h" // defines: sim_barrier, sim_wall_now

#define DEV_ROUNDS 25        // timed rounds of each measurement
#define DEV_WARMUP 3         // untimed rounds first (page faults, BLAS buffers)
#define DEV_LAUNCH_CALLS 2000 // tiny ops per launch round

// The products for the fit of efficiency and launch (bench_gemm.c), from a
// few microseconds' worth to the plan's own size: on the CPU the MLP's
// products and smaller; on a GPU from 256-cubes, launch-bound, to 8192 x
// 4096 x 4096, a few hundred waves of tiles.
static const BenchDevicePlan cpu_plan = {0, 64, 2, {784, 1024}, {1024, 1024}, (size_t)8 << 20,
                                         4, {{16, 64, 64}, {64, 256, 256}, {64, 1024, 784},
                                             {256, 1024, 1024}}};
static const BenchDevicePlan gpu_plan = {1, 4096, 1, {4096, 0}, {4096, 0}, (size_t)256 << 20,
                                         5, {{256, 256, 256}, {1024, 1024, 1024},
                                             {2048, 2048, 2048}, {4096, 4096, 4096},
                                             {8192, 4096, 4096}}};

const BenchDevicePlan *bench_device_plan(const SimBackendOps *ops) {
    return ops->mem_info ? &gpu_plan : &cpu_plan;
}

typedef struct {
    double flops_s, bw_Bps, launch_s; // this rank's medians
    double shape_s[BENCH_DEV_MAX_SHAPES]; // the fit's products (bench_gemm.c)
    SimStatus st;
    char error[160];
} DeviceRank;

typedef struct {
    const BenchDevicePlan *plan;
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

// n floats of the rank's backend memory, or NULL.
static float *dev_alloc(SimRank *r, size_t n) {
    return r->world->ops->alloc(r->world->ctx, r->rank, n * sizeof(float));
}

static void dev_free(SimRank *r, void *p) {
    if (p != NULL)
        r->world->ops->free(r->world->ctx, r->rank, p);
}

// Waits for the rank's queued kernels (a backend whose ops return before
// their kernels end), so that a round's wall time covers them.
static SimStatus dev_sync(SimRank *r) {
    const SimBackendOps *ops = r->world->ops;
    return ops->synchronize ? ops->synchronize(r->world->ctx, r->rank) : SIM_OK;
}

static const char *memory_word(const BenchDevicePlan *plan) {
    return plan->device ? "device memory" : "memory";
}

// Buffers of one rank for the matmul rounds, sized for the plan's largest
// C and OC: inp, dinp [N, C]; out, dout [N, OC]; w, dw [OC, C]; b, db [OC].
typedef struct {
    float *inp, *out, *w, *b, *dinp, *dout, *dw, *db;
} MatBufs;

static void free_mat(SimRank *r, MatBufs *m) {
    float *all[] = {m->inp, m->out, m->w, m->b, m->dinp, m->dout, m->dw, m->db};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        dev_free(r, all[i]);
    memset(m, 0, sizeof *m);
}

// Copies n small, varied values (i*mul mod mod, scaled and shifted) into
// the backend buffer dst through the host buffer stage. Denormals or NaNs
// would time a different path; on a GPU, constant operands would time a
// cooler one.
static SimStatus upload(SimRank *r, float *dst, float *stage, size_t n, size_t mul, size_t mod,
                        float scale, float shift) {
    for (size_t i = 0; i < n; i++)
        stage[i] = (float)((i * mul) % mod) * scale + shift;
    return r->world->ops->copy_to_device(r->world->ctx, r->rank, dst, stage, n * sizeof(float));
}

static SimStatus alloc_mat(SimRank *r, const BenchDevicePlan *p, MatBufs *m) {
    size_t N = (size_t)p->batch, C = 0, OC = 0;
    for (int l = 0; l < p->nlayers; l++) {
        C = (size_t)p->c[l] > C ? (size_t)p->c[l] : C;
        OC = (size_t)p->oc[l] > OC ? (size_t)p->oc[l] : OC;
    }
    memset(m, 0, sizeof *m);
    m->inp = dev_alloc(r, N * C), m->dinp = dev_alloc(r, N * C);
    m->out = dev_alloc(r, N * OC), m->dout = dev_alloc(r, N * OC);
    m->w = dev_alloc(r, OC * C), m->dw = dev_alloc(r, OC * C);
    m->b = dev_alloc(r, OC), m->db = dev_alloc(r, OC);
    if (!m->inp || !m->dinp || !m->out || !m->dout || !m->w || !m->dw || !m->b || !m->db)
        return SIM_ENOMEM;
    size_t most = N * C > OC * C ? N * C : OC * C;
    most = N * OC > most ? N * OC : most;
    float *stage = malloc(most * sizeof(float));
    if (stage == NULL)
        return SIM_ENOMEM;
    SimStatus st = upload(r, m->inp, stage, N * C, 7, 13, 0.01f, 0.0f);
    if (st == SIM_OK)
        st = upload(r, m->w, stage, OC * C, 5, 11, 0.001f, -0.005f);
    if (st == SIM_OK)
        st = upload(r, m->dout, stage, N * OC, 3, 7, 0.01f, -0.03f);
    if (st == SIM_OK)
        st = upload(r, m->b, stage, OC, 1, 5, 0.01f, 0.0f);
    free(stage);
    return st;
}

// One round: forward and backward of every layer. Returns its seconds (< 0
// on a kernel failure) and adds its FLOPs to *flops.
static double mat_round(SimRank *r, const BenchDevicePlan *p, MatBufs *m, double *flops) {
    const SimMathOps *k = r->world->ops->math;
    void *ctx = r->world->ctx;
    double t0 = sim_wall_now();
    for (int l = 0; l < p->nlayers; l++) {
        int N = p->batch, C = p->c[l], OC = p->oc[l];
        if (k->linear_forward(ctx, r->rank, m->out, m->inp, m->w, m->b, N, C, OC, SIM_FP32) !=
                SIM_OK ||
            k->linear_backward(ctx, r->rank, m->dinp, m->dw, m->db, m->dout, m->inp, m->w, N, C,
                               OC, SIM_FP32) != SIM_OK)
            return -1;
        double mnk = (double)N * C * OC;
        *flops += 2.0 * mnk + 4.0 * mnk + (double)N * OC;
    }
    if (dev_sync(r) != SIM_OK)
        return -1;
    return sim_wall_now() - t0;
}

static SimStatus measure_matmul(SimRank *r, const BenchDevicePlan *p, DeviceRank *out) {
    MatBufs m;
    double rates[DEV_ROUNDS];
    SimStatus st = alloc_mat(r, p, &m);
    if (st != SIM_OK) {
        free_mat(r, &m);
        if (st == SIM_ENOMEM)
            snprintf(out->error, sizeof out->error, "out of %s for the matmul buffers",
                     memory_word(p));
        else
            snprintf(out->error, sizeof out->error, "the backend's copy into its memory failed");
        return st;
    }
    for (int i = 0; i < DEV_WARMUP + DEV_ROUNDS && st == SIM_OK; i++) {
        double flops = 0, t = mat_round(r, p, &m, &flops);
        if (t < 0) {
            snprintf(out->error, sizeof out->error, "the backend's Linear kernels failed");
            st = SIM_EINVAL;
        } else if (i >= DEV_WARMUP) {
            rates[i - DEV_WARMUP] = t > 0 ? flops / t : 0;
        }
    }
    free_mat(r, &m);
    if (st == SIM_OK)
        out->flops_s = median(rates, DEV_ROUNDS);
    return st;
}

// The CPU's pass: memcpy between two host buffers, alternating direction.
static SimStatus host_pass(size_t bytes, double *rates) {
    unsigned char *a = malloc(bytes), *b = malloc(bytes);
    if (a == NULL || b == NULL) {
        free(a), free(b);
        return SIM_ENOMEM;
    }
    memset(a, 1, bytes); // touch every page before timing
    memset(b, 2, bytes);
    volatile unsigned sink = 0; // reads of the copies, so that none can be elided
    for (int i = 0; i < DEV_WARMUP + DEV_ROUNDS; i++) {
        unsigned char *src = i % 2 ? b : a, *dst = i % 2 ? a : b;
        double t0 = sim_wall_now();
        memcpy(dst, src, bytes);
        double t = sim_wall_now() - t0;
        sink += dst[(size_t)i * 4093 % bytes];
        if (i >= DEV_WARMUP)
            rates[i - DEV_WARMUP] = t > 0 ? 2.0 * (double)bytes / t : 0;
    }
    (void)sink;
    free(a), free(b);
    return SIM_OK;
}

// A device's pass: the backend's in-place scale by 1 (every element read
// and written back unchanged) over its own memory.
static SimStatus device_pass(SimRank *r, size_t bytes, double *rates) {
    const SimMathOps *k = r->world->ops->math;
    size_t n = bytes / sizeof(float);
    float *x = dev_alloc(r, n);
    if (x == NULL)
        return SIM_ENOMEM;
    SimStatus st = k->fill(r->world->ctx, r->rank, x, 0.5f, n);
    for (int i = 0; i < DEV_WARMUP + DEV_ROUNDS && st == SIM_OK; i++) {
        double t0 = sim_wall_now();
        st = k->scale(r->world->ctx, r->rank, x, 1.0f, n);
        if (st == SIM_OK)
            st = dev_sync(r);
        double t = sim_wall_now() - t0;
        if (i >= DEV_WARMUP)
            rates[i - DEV_WARMUP] = t > 0 ? 2.0 * (double)bytes / t : 0;
    }
    dev_free(r, x);
    return st;
}

static SimStatus measure_bandwidth(SimRank *r, const BenchDevicePlan *p, DeviceRank *out) {
    double rates[DEV_ROUNDS];
    SimStatus st = p->device ? device_pass(r, p->stream_bytes, rates)
                             : host_pass(p->stream_bytes, rates);
    if (st == SIM_ENOMEM)
        snprintf(out->error, sizeof out->error, "out of %s for the bandwidth buffers",
                 memory_word(p));
    else if (st != SIM_OK)
        snprintf(out->error, sizeof out->error, "the backend's scale kernel failed");
    else
        out->bw_Bps = median(rates, DEV_ROUNDS);
    return st;
}

static SimStatus measure_launch(SimRank *r, const BenchDevicePlan *p, DeviceRank *out) {
    const SimMathOps *k = r->world->ops->math;
    float *x = dev_alloc(r, 16);
    double per_call[DEV_ROUNDS];
    if (x == NULL) {
        snprintf(out->error, sizeof out->error, "out of %s for one float", memory_word(p));
        return SIM_ENOMEM;
    }
    SimStatus st = SIM_OK;
    for (int i = 0; i < DEV_WARMUP + DEV_ROUNDS && st == SIM_OK; i++) {
        double t0 = sim_wall_now();
        for (int c = 0; c < DEV_LAUNCH_CALLS && st == SIM_OK; c++)
            st = k->fill(r->world->ctx, r->rank, x, (float)c, 1);
        if (st == SIM_OK)
            st = dev_sync(r);
        if (i >= DEV_WARMUP)
            per_call[i - DEV_WARMUP] = (sim_wall_now() - t0) / DEV_LAUNCH_CALLS;
    }
    dev_free(r, x);
    if (st != SIM_OK) {
        snprintf(out->error, sizeof out->error, "the backend's fill kernel failed");
        return SIM_EINVAL;
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
    SimStatus st = measure_matmul(r, run->plan, me);
    if (st == SIM_OK)
        st = sim_barrier(r);
    if (st == SIM_OK)
        st = measure_bandwidth(r, run->plan, me);
    if (st == SIM_OK)
        st = sim_barrier(r);
    if (st == SIM_OK)
        st = measure_launch(r, run->plan, me);
    if (st == SIM_OK)
        st = sim_barrier(r);
    if (st == SIM_OK)
        st = bench_time_shapes(r, run->plan, me->shape_s, me->error, sizeof me->error);
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

// The device's model as its driver names it (rank 0's), else the backend's
// name.
static void device_model(SimWorld *w, char *buf, size_t len) {
    const SimBackendOps *ops = w->ops;
    if (ops->device_name == NULL || ops->device_name(w->ctx, 0, buf, len) != SIM_OK || !buf[0])
        snprintf(buf, len, "%s device", ops->name);
}

// "NVIDIA H200" -> "measured-NVIDIA-H200": a profile name without blanks.
static void device_profile_name(char *dst, size_t len, const char *model) {
    snprintf(dst, len, "measured-%s", model);
    for (char *c = dst; *c; c++)
        if (*c == ' ' || *c == '\t' || *c == '/')
            *c = '-';
}

// "Linear fwd+bwd 64x784x1024 and 64x1024x1024": the plan's products as
// batch x C x OC.
static void describe_layers(char *buf, size_t len, const BenchDevicePlan *p) {
    int used = snprintf(buf, len, "Linear fwd+bwd");
    for (int l = 0; l < p->nlayers && used >= 0 && (size_t)used < len; l++)
        used += snprintf(buf + used, len - (size_t)used, "%s%dx%dx%d", l ? " and " : " ",
                         p->batch, p->c[l], p->oc[l]);
}

// A GPU the cost model knows by the driver's name ("NVIDIA H100 80GB HBM3":
// h100) lends the measured profile its SMs and product tile, so that the
// fit and later plans quantize the products as that GPU does.
static void known_tiles(const char *model, SimDeviceProfile *dev) {
    char word[48];
    const char *m = strncmp(model, "NVIDIA ", 7) == 0 ? model + 7 : model;
    size_t n = strcspn(m, " ");
    if (n == 0 || n >= sizeof word)
        return;
    memcpy(word, m, n);
    word[n] = '\0';
    const SimDeviceProfile *k = sim_device_find(word);
    if (k == NULL)
        return;
    dev->sm_count = k->sm_count;
    dev->gemm_tile_m = k->gemm_tile_m;
    dev->gemm_tile_n = k->gemm_tile_n;
}

// Names, sizes and sources the measured device (rates already set).
static void describe_device(SimWorld *w, const BenchDevicePlan *p, SimDeviceProfile *dev) {
    int R = w->cfg.nranks;
    char host[64] = "this machine", model[128], layers[96];
    if (gethostname(host, sizeof host) != 0)
        snprintf(host, sizeof host, "this machine");
    host[sizeof host - 1] = '\0';
    describe_layers(layers, sizeof layers, p);
    dev->mem_bytes = bench_physical_bytes();
    if (p->device) {
        device_model(w, model, sizeof model);
        device_profile_name(dev->name, sizeof dev->name, model);
        known_tiles(model, dev);
        int device = 0;
        uint64_t used = 0, total = 0;
        if (w->ops->mem_info(w->ctx, 0, &device, &used, &total) == SIM_OK && total > 0)
            dev->mem_bytes = (double)total;
    } else {
        cpu_model(model, sizeof model);
        snprintf(dev->name, sizeof dev->name, "cpu-%.40s", host);
        if (!model[0])
            snprintf(model, sizeof model, "this machine's CPU");
    }
    snprintf(dev->description, sizeof dev->description, "%.36s, %d rank%s at once", model, R,
             R == 1 ? "" : "s");
    dev->efficiency = 1.0;             // achieved rates, not peaks
    dev->coll_on_compute = !p->device; // a CPU rank's own thread runs its collectives
    snprintf(dev->source, sizeof dev->source,
             "measured by ddplab bench on %.32s, %d rank%s at once: %.48s (%.8s backend%s), %s %zu "
             "MiB, 1-element fill; medians",
             host, R, R == 1 ? "" : "s", layers, w->ops->name, p->device ? "" : ", OpenBLAS",
             p->device ? "in-place scale" : "memcpy", p->stream_bytes >> 20);
}

SimStatus bench_measure_device(SimWorld *w, SimDeviceProfile *dev, char *err, size_t errlen) {
    return bench_measure_device_with(w, bench_device_plan(w->ops), dev, err, errlen);
}

SimStatus bench_measure_device_with(SimWorld *w, const BenchDevicePlan *plan,
                                    SimDeviceProfile *dev, char *err, size_t errlen) {
    int R = w->cfg.nranks;
    memset(dev, 0, sizeof *dev);
    const SimMathOps *k = w->ops->math;
    if (k == NULL || !k->linear_forward || !k->linear_backward || !k->fill || !k->scale ||
        !w->ops->alloc || !w->ops->copy_to_device) {
        snprintf(err, errlen, "backend %s has no math kernels to time", w->ops->name);
        return SIM_ENOTSUP;
    }
    DeviceRun run = {plan, R, calloc((size_t)R, sizeof(DeviceRank))};
    if (run.ranks == NULL) {
        snprintf(err, errlen, "out of memory");
        return SIM_ENOMEM;
    }
    SimStatus st = sim_world_run(w, device_rank, &run);
    double flops = 0, bw = 0, launch = 0, shapes[BENCH_DEV_MAX_SHAPES] = {0};
    for (int i = 0; i < R && st == SIM_OK; i++) {
        flops += run.ranks[i].flops_s / R;
        bw += run.ranks[i].bw_Bps / R;
        launch += run.ranks[i].launch_s / R;
        for (int k = 0; k < plan->nshapes && k < BENCH_DEV_MAX_SHAPES; k++)
            shapes[k] += run.ranks[i].shape_s[k] / R;
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
    dev->peak_fp32_flops = flops;
    dev->peak_lowp_flops = flops; // amp products run as fp32 GEMMs on both backends
    dev->mem_bw_Bps = bw;
    dev->launch_s = launch;
    describe_device(w, plan, dev);
    if (bench_fit_shapes(dev, plan, shapes)) {
        size_t used = strlen(dev->source);
        snprintf(dev->source + used, sizeof dev->source - used,
                 "; efficiency, launch fitted to %d products", plan->nshapes);
    }
    return SIM_OK;
}
