// tests/test_bench_device.c: the device measurement of `ddplab bench
// --calibrate` (cli/bench/bench_device.c) on a backend that stands in for a GPU:
// the cpu backend with a driver's name and memory size (device_name,
// mem_info), an allocator that counts, and a stream wait that counts. The
// measurement must take every buffer from the backend's allocator and give
// it back, wait for the backend before reading the clock, name the device
// as the driver does, take its memory size from the driver, and mark its
// collectives as running beside the compute. The CPU's own plan keeps its
// host figures. A backend without kernels, or too little device memory,
// fails with a reason and leaks nothing.
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "check.h"
#include "cpu_backend.h" // defines: cpu_backend_ops

static atomic_int allocs, frees, syncs;
static atomic_size_t alloc_limit; // bytes above which the fake's alloc fails (0: none)

static void *fake_alloc(void *ctx, int rank, size_t bytes) {
    size_t limit = atomic_load(&alloc_limit);
    if (limit && bytes > limit)
        return NULL;
    void *p = cpu_backend_ops.alloc(ctx, rank, bytes);
    if (p)
        atomic_fetch_add(&allocs, 1);
    return p;
}

static void fake_free(void *ctx, int rank, void *p) {
    atomic_fetch_add(&frees, 1);
    cpu_backend_ops.free(ctx, rank, p);
}

static SimStatus fake_sync(void *ctx, int rank) {
    (void)ctx, (void)rank;
    atomic_fetch_add(&syncs, 1);
    return SIM_OK;
}

static SimStatus fake_mem_info(void *ctx, int rank, int *device, uint64_t *used, uint64_t *total) {
    (void)ctx;
    *device = rank;
    *used = 1u << 20;
    *total = (uint64_t)80 << 30;
    return SIM_OK;
}

static SimStatus fake_name(void *ctx, int rank, char *buf, size_t len) {
    (void)ctx, (void)rank;
    snprintf(buf, len, "Fake GPU/9000 SXM");
    return SIM_OK;
}

static SimBackendOps fake_gpu(void) {
    SimBackendOps ops = cpu_backend_ops;
    ops.name = "fakegpu";
    ops.alloc = fake_alloc;
    ops.free = fake_free;
    ops.synchronize = fake_sync;
    ops.mem_info = fake_mem_info;
    ops.device_name = fake_name;
    return ops;
}

static void reset_counts(void) {
    atomic_store(&allocs, 0);
    atomic_store(&frees, 0);
    atomic_store(&syncs, 0);
    atomic_store(&alloc_limit, 0);
}

// Measures on a fresh world of R ranks of `ops` with `plan`.
static SimStatus measure(const SimBackendOps *ops, int R, const BenchDevicePlan *plan,
                         SimDeviceProfile *dev, char *err, size_t errlen) {
    SimWorldConfig cfg;
    sim_world_config_default(&cfg);
    cfg.nranks = R;
    SimWorld w;
    SimStatus st = sim_world_init(&w, &cfg, ops);
    if (st == SIM_OK)
        st = bench_measure_device_with(&w, plan, dev, err, errlen);
    sim_world_free(&w);
    return st;
}

// Small sizes in the shape of the GPU plan: one layer, the scale pass.
static const BenchDevicePlan small_gpu = {1, 16, 1, {32, 0}, {24, 0}, (size_t)1 << 20, 0, {{0}}};
static const BenchDevicePlan small_cpu = {0, 8, 2, {16, 24}, {24, 8}, (size_t)1 << 20,
                                          2, {{8, 16, 24}, {64, 128, 96}}};

static int test_plans(void) {
    SimBackendOps gpu = fake_gpu();
    const BenchDevicePlan *g = bench_device_plan(&gpu), *c = bench_device_plan(&cpu_backend_ops);
    CHECK_EQ_INT(g->device, 1);
    CHECK(g->batch == 4096 && g->nlayers == 1 && g->c[0] == 4096 && g->oc[0] == 4096);
    CHECK(g->stream_bytes == (size_t)256 << 20);
    CHECK_EQ_INT(c->device, 0);
    CHECK(c->batch == 64 && c->nlayers == 2 && c->c[0] == 784 && c->oc[1] == 1024);
    CHECK(c->stream_bytes == (size_t)8 << 20);
    return 0;
}

static int test_device(void) {
    SimBackendOps gpu = fake_gpu();
    SimDeviceProfile d;
    char err[256] = "";
    reset_counts();
    SimStatus st = measure(&gpu, 2, &small_gpu, &d, err, sizeof err);
    if (st != SIM_OK)
        fprintf(stderr, "measure: %s\n", err);
    CHECK_EQ_INT(st, SIM_OK);
    // 8 matmul buffers, the scale buffer and the fill's float, per rank.
    CHECK_EQ_INT(atomic_load(&allocs), 2 * 10);
    CHECK_EQ_INT(atomic_load(&frees), atomic_load(&allocs));
    CHECK(atomic_load(&syncs) >= 2 * 3 * 28); // every timed round of all three waits
    CHECK(strcmp(d.name, "measured-Fake-GPU-9000-SXM") == 0);
    CHECK(strcmp(d.description, "Fake GPU/9000 SXM, 2 ranks at once") == 0);
    CHECK_EQ_INT(d.mem_bytes, (double)((uint64_t)80 << 30));
    CHECK_EQ_INT(d.coll_on_compute, 0);
    CHECK(d.efficiency == 1.0);
    CHECK(d.peak_fp32_flops > 0 && d.peak_lowp_flops == d.peak_fp32_flops);
    CHECK(d.mem_bw_Bps > 0 && d.launch_s > 0);
    CHECK_STR_CONTAINS(d.source, "2 ranks at once: Linear fwd+bwd 16x32x24 (fakegpu backend), "
                                 "in-place scale 1 MiB, 1-element fill; medians");
    return 0;
}

static int test_host(void) {
    SimDeviceProfile d;
    char err[256] = "";
    SimStatus st = measure(&cpu_backend_ops, 1, &small_cpu, &d, err, sizeof err);
    CHECK_EQ_INT(st, SIM_OK);
    CHECK(strncmp(d.name, "cpu-", 4) == 0);
    CHECK_STR_CONTAINS(d.description, ", 1 rank at once");
    CHECK_EQ_INT(d.coll_on_compute, 1);
    CHECK(d.mem_bytes > 0 && d.peak_fp32_flops > 0 && d.mem_bw_Bps > 0 && d.launch_s > 0);
    CHECK_STR_CONTAINS(d.source, "Linear fwd+bwd 8x16x24 and 8x24x8 (cpu backend, OpenBLAS), "
                                 "memcpy 1 MiB");
    // achieved rates: the two products' fitted efficiency (whatever this
    // machine's is) goes into the peak, and a CPU states no tiles
    CHECK(d.efficiency == 1.0);
    CHECK(d.sm_count == 0);
    return 0;
}

static int test_refusals(void) {
    SimDeviceProfile d;
    char err[256] = "";
    SimBackendOps none = fake_gpu();
    none.name = "nomath";
    none.math = NULL;
    CHECK_EQ_INT(measure(&none, 1, &small_gpu, &d, err, sizeof err), SIM_ENOTSUP);
    CHECK_STR_CONTAINS(err, "backend nomath has no math kernels to time");

    // The matmul buffers do not fit: a reason, and every buffer given back.
    SimBackendOps gpu = fake_gpu();
    reset_counts();
    atomic_store(&alloc_limit, 1024);
    CHECK(measure(&gpu, 2, &small_gpu, &d, err, sizeof err) != SIM_OK);
    CHECK_STR_CONTAINS(err, "out of device memory for the matmul buffers");
    CHECK_EQ_INT(atomic_load(&frees), atomic_load(&allocs));
    // They fit, the 1 MiB pass does not.
    reset_counts();
    atomic_store(&alloc_limit, 4096);
    CHECK(measure(&gpu, 2, &small_gpu, &d, err, sizeof err) != SIM_OK);
    CHECK_STR_CONTAINS(err, "out of device memory for the bandwidth buffers");
    CHECK_EQ_INT(atomic_load(&frees), atomic_load(&allocs));
    reset_counts();
    return 0;
}

int main(void) {
    int failures = 0;
    RUN(test_plans);
    RUN(test_device);
    RUN(test_host);
    RUN(test_refusals);
    return failures ? 1 : 0;
}
