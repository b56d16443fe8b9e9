// sim/cost_compute.c: the compute side of the cost model. Every math op is
// priced as a roofline against one device profile: the op is bound either by
// arithmetic (FLOPs / peak FLOP/s) or by memory traffic (bytes / bandwidth),
// whichever is slower, scaled by an efficiency and plus a launch overhead.
//
// This is deliberately simple. It gets the orders of magnitude and the
// compute/communication balance right (which is what overlap and exposed
// communication depend on); it does not model caches, kernel fusion or
// shape-dependent tensor-core utilisation.
#include "cost.h"


// NVIDIA H100 SXM5 80GB, from the NVIDIA H100 Tensor Core GPU datasheet:
// FP32 (non-tensor) 67 TFLOPS; BF16/FP16 tensor core 1,979 TFLOPS with
// structured sparsity, i.e. 989 TFLOPS dense; HBM3 3.35 TB/s; 80 GB.
// Efficiency 0.7 is an assumption of this model (large GEMMs reach about
// 60-80% of peak in practice, and memory-bound kernels a similar fraction of
// the bandwidth); the launch overhead of 5 us is likewise a typical figure
// for one kernel launch seen from the host.
static const SimDeviceProfile device_h100_sxm = {
    .name = "h100-sxm",
    .peak_fp32_flops = 67e12,
    .peak_lowp_flops = 989e12,
    .mem_bw_Bps = 3.35e12,
    .mem_bytes = 80e9,
    .efficiency = 0.7,
    .launch_s = 5e-6,
    .source = "NVIDIA H100 SXM5 datasheet: 67 TFLOPS fp32, 989 TFLOPS bf16/fp16 dense, "
              "3.35 TB/s HBM3, 80 GB; efficiency 0.7 and 5 us launch assumed",
};

const SimDeviceProfile *sim_device_default(void) {
    return &device_h100_sxm;
}

double sim_cost_compute(const SimCost *c, double flops, double bytes, int lowp) {
    const SimDeviceProfile *d = &c->device;
    if (!(d->peak_fp32_flops > 0 && d->mem_bw_Bps > 0))
        d = sim_device_default(); // sim_cost_init leaves the device zeroed
    double peak = lowp && d->peak_lowp_flops > 0 ? d->peak_lowp_flops : d->peak_fp32_flops;
    double eff = d->efficiency > 0 && d->efficiency <= 1 ? d->efficiency : 1.0;
    double t_math = flops > 0 ? flops / peak : 0.0;
    double t_mem = bytes > 0 ? bytes / d->mem_bw_Bps : 0.0;
    double t = t_math > t_mem ? t_math : t_mem;
    return t / eff + d->launch_s;
}
