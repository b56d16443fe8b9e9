// sim/cost/cost_gemm.c: matrix products priced by their shape, and the fit of a
// device's product efficiency and launch cost to measured products.
//
// Why the shape matters. cuBLAS and CUTLASS cut the output C[M, N] into
// tiles; each thread block computes one tile, looping over K, and an SM
// runs one such block of a large tile at a time. A product therefore runs
// in waves of sm_count tiles: a product of 1.1 waves takes as long as one of
// 2, and a product narrower than a tile pays for the whole tile. NVIDIA's
// "Matrix Multiplication Background User's Guide" (Deep Learning
// Performance documentation, "Tile quantization" and "Wave quantization")
// describes both effects with A100's 108 SMs and 256x128 tiles, one block
// per SM; its figures show throughput falling in steps as a dimension
// crosses a tile or wave boundary, and small products well below peak. The
// third effect it describes, small K or a skinny product being bound by
// memory rather than arithmetic (low arithmetic intensity), is the
// roofline's bytes / mem_bw term.
//
// Smaller products get smaller tiles, as cuBLAS's heuristics pick them, at
// a rate lowered by their arithmetic intensity (tile_time). Not modelled:
// split-K and stream-K decompositions, which rescue a product of few tiles
// and a long K (such products are priced somewhat pessimistically), and
// the per-tile prologue and epilogue, which the efficiency absorbs.
#include <math.h>
#include <stdlib.h>

#include "cost/cost.h"
#include "cost/cost_internal.h" // defines: sim_cost_fit_line

static double ceil_div(double a, double b) {
    return ceil(a / b);
}

// The smallest tile edge tried: cuBLAS's and CUTLASS's tensor-core kernels
// do not go below 64 x 64 output tiles for bf16.
#define GEMM_MIN_TILE 64

// The arithmetic time of the product on tiles of tm x tn. A tile's main
// loop streams (tm + tn) K operands through the SM for 2 tm tn K FLOPs, so
// a smaller tile has a lower arithmetic intensity, tm tn / (tm + tn), and
// is assumed to run at the large tile's rate scaled by that ratio: the
// guide's "larger tiles are more efficient" (more reuse of each operand),
// as the one number that sets how much less.
static double tile_time(const SimDeviceProfile *d, const SimCostGemm *g, double peak, double tm,
                        double tn) {
    double big_m = d->gemm_tile_m, big_n = d->gemm_tile_n, sms = d->sm_count;
    double rate = (tm * tn / (tm + tn)) / (big_m * big_n / (big_m + big_n));
    double tiles = ceil_div(g->M, tm) * ceil_div(g->N, tn);
    double waves = ceil_div(tiles, sms);
    return waves * 2.0 * tm * tn * g->K / (rate * peak / sms);
}

double sim_cost_gemm_math(const SimDeviceProfile *d, const SimCostGemm *g, int lowp) {
    double peak = lowp ? d->peak_lowp_flops : d->peak_fp32_flops;
    if (!(g->M > 0 && g->N > 0 && g->K > 0))
        return 0.0;
    if (d->sm_count < 1 || d->gemm_tile_m < 1 || d->gemm_tile_n < 1)
        return 2.0 * g->M * g->N * g->K / peak;
    // The large tile and its halvings down to 64 on each side: the fastest,
    // as cuBLAS's heuristics pick a smaller tile for a small product.
    double best = tile_time(d, g, peak, d->gemm_tile_m, d->gemm_tile_n);
    for (int tm = d->gemm_tile_m; tm >= GEMM_MIN_TILE; tm /= 2)
        for (int tn = d->gemm_tile_n; tn >= GEMM_MIN_TILE; tn /= 2) {
            double t = tile_time(d, g, peak, tm, tn);
            best = t < best ? t : best;
        }
    return best;
}

// The larger of the quantized arithmetic and the memory traffic, at full
// efficiency: what the efficiency divides.
static double gemm_bound(const SimDeviceProfile *d, const SimCostGemm *g, int lowp) {
    double t_math = sim_cost_gemm_math(d, g, lowp);
    double t_mem = g->bytes > 0 ? g->bytes / d->mem_bw_Bps : 0.0;
    return t_math > t_mem ? t_math : t_mem;
}

double sim_cost_gemm_on(const SimDeviceProfile *d, const SimCostGemm *g, int lowp) {
    return gemm_bound(d, g, lowp) / d->efficiency + d->launch_s;
}

double sim_cost_gemm(const SimCost *c, const SimCostGemm *g, int lowp) {
    return sim_cost_gemm_on(sim_cost_device(c), g, lowp);
}

SimStatus sim_cost_fit_gemm(SimDeviceProfile *d, const SimCostGemm *g, const double *secs,
                            int n, int lowp) {
    if (d == NULL || g == NULL || secs == NULL || n < 2)
        return SIM_EINVAL;
    double *bound = malloc((size_t)n * sizeof *bound);
    if (bound == NULL)
        return SIM_ENOMEM;
    for (int i = 0; i < n; i++)
        bound[i] = gemm_bound(d, &g[i], lowp);
    double slope, launch;
    SimStatus st = sim_cost_fit_line(bound, secs, n, &slope, &launch);
    free(bound);
    // every shape with the same bound leaves nothing to fit
    if (st != SIM_OK || !(slope > 0.0) || !isfinite(slope))
        return SIM_EINVAL;
    // A slope below 1 means the products ran faster than the profile's peak
    // allows (a calibrated peak measured on a slower shape): efficiency 1.
    d->efficiency = slope > 1.0 ? 1.0 / slope : 1.0;
    d->launch_s = launch > 0.0 ? launch : 0.0;
    return SIM_OK;
}
