// cli/bench/bench_gemm.c: the products `ddplab bench --calibrate` times to fit a
// device's matrix-product efficiency and launch cost (sim_cost_fit_gemm).
//
// The cost model prices a product by its shape: waves of output tiles on the
// SMs, under the memory roofline, divided by an efficiency, plus a launch
// (sim/cost/cost_gemm.c). Timing the same kernel on products from a few
// hundred to billions of FLOPs puts points along that line: the slope is
// 1 / efficiency, the intercept the fixed cost each product pays (the
// efficiency goes into the measured peaks, bench_fit_shapes). Each
// shape is timed as the backend's Linear forward in fp32 (the products
// every op wrapper runs), one rank's median over timed rounds after
// warm-up, every rank at once as in bench_device.c.
#include "bench/bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/comm.h" // defines: sim_wall_now

#define SHAPE_ROUNDS 15
#define SHAPE_WARMUP 2

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct {
    float *inp, *w, *out;
} ShapeBufs;

static void shape_free(SimRank *r, ShapeBufs *b) {
    float *all[] = {b->inp, b->w, b->out};
    for (int i = 0; i < 3; i++)
        if (all[i] != NULL)
            r->world->ops->free(r->world->ctx, r->rank, all[i]);
    memset(b, 0, sizeof *b);
}

// Buffers for the largest operands of the plan's shapes, filled with 0.5
// (the kernel's time does not depend on the values, only on their being
// ordinary numbers).
static SimStatus shape_alloc(SimRank *r, const BenchDevicePlan *p, ShapeBufs *b) {
    size_t mk = 0, nk = 0, mn = 0;
    for (int i = 0; i < p->nshapes; i++) {
        size_t m = (size_t)p->shapes[i][0], n = (size_t)p->shapes[i][1],
               k = (size_t)p->shapes[i][2];
        mk = m * k > mk ? m * k : mk;
        nk = n * k > nk ? n * k : nk;
        mn = m * n > mn ? m * n : mn;
    }
    const SimBackendOps *ops = r->world->ops;
    memset(b, 0, sizeof *b);
    b->inp = ops->alloc(r->world->ctx, r->rank, mk * sizeof(float));
    b->w = ops->alloc(r->world->ctx, r->rank, nk * sizeof(float));
    b->out = ops->alloc(r->world->ctx, r->rank, mn * sizeof(float));
    if (b->inp == NULL || b->w == NULL || b->out == NULL)
        return SIM_ENOMEM;
    SimStatus st = ops->math->fill(r->world->ctx, r->rank, b->inp, 0.5f, mk);
    if (st == SIM_OK)
        st = ops->math->fill(r->world->ctx, r->rank, b->w, 0.5f, nk);
    return st;
}

// The median seconds of one Linear forward of shape s (with the wait for
// the device), or < 0 when the kernel fails.
static double time_shape(SimRank *r, const ShapeBufs *b, const int s[3]) {
    const SimBackendOps *ops = r->world->ops;
    double t[SHAPE_ROUNDS];
    for (int i = 0; i < SHAPE_WARMUP + SHAPE_ROUNDS; i++) {
        double t0 = sim_wall_now();
        if (ops->math->linear_forward(r->world->ctx, r->rank, b->out, b->inp, b->w, NULL, s[0],
                                      s[2], s[1], SIM_FP32) != SIM_OK)
            return -1;
        if (ops->synchronize && ops->synchronize(r->world->ctx, r->rank) != SIM_OK)
            return -1;
        if (i >= SHAPE_WARMUP)
            t[i - SHAPE_WARMUP] = sim_wall_now() - t0;
    }
    qsort(t, SHAPE_ROUNDS, sizeof t[0], cmp_double);
    return t[SHAPE_ROUNDS / 2];
}

SimStatus bench_time_shapes(SimRank *r, const BenchDevicePlan *plan, double *secs, char *err,
                            size_t errlen) {
    if (plan->nshapes < 1)
        return SIM_OK;
    ShapeBufs b;
    SimStatus st = shape_alloc(r, plan, &b);
    for (int i = 0; i < plan->nshapes && st == SIM_OK; i++) {
        secs[i] = time_shape(r, &b, plan->shapes[i]);
        if (secs[i] < 0)
            st = SIM_EINVAL;
    }
    shape_free(r, &b);
    if (st == SIM_ENOMEM)
        snprintf(err, errlen, "out of memory for the products' buffers");
    else if (st != SIM_OK)
        snprintf(err, errlen, "the backend's Linear kernel failed on the products");
    return st;
}

int bench_fit_shapes(SimDeviceProfile *dev, const BenchDevicePlan *plan, const double *secs) {
    SimCostGemm g[BENCH_DEV_MAX_SHAPES];
    int n = plan->nshapes < BENCH_DEV_MAX_SHAPES ? plan->nshapes : BENCH_DEV_MAX_SHAPES;
    for (int i = 0; i < n; i++) {
        double m = plan->shapes[i][0], nn = plan->shapes[i][1], k = plan->shapes[i][2];
        g[i] = (SimCostGemm){m, nn, k, 4.0 * (m * k + nn * k + m * nn)};
    }
    SimDeviceProfile fit = *dev;
    if (n < 2 || sim_cost_fit_gemm(&fit, g, secs, n, 0) != SIM_OK)
        return 0;
    if (!(fit.launch_s > 0))
        fit.launch_s = dev->launch_s; // too small to resolve: the fills' figure stands
    // The measured profile's rates are achieved ones (efficiency 1), and its
    // efficiency would also divide the memory-bound ops, whose bandwidth was
    // measured apart: the products' fitted efficiency goes into their peaks.
    fit.peak_fp32_flops = dev->peak_fp32_flops * fit.efficiency / dev->efficiency;
    fit.peak_lowp_flops = dev->peak_lowp_flops * fit.efficiency / dev->efficiency;
    fit.efficiency = dev->efficiency;
    *dev = fit;
    return 1;
}
