// sim/cost/cost_compute.c: the compute side of the cost model. Every math op is
// priced as a roofline against one device profile: the op is bound either by
// arithmetic (FLOPs / peak FLOP/s) or by memory traffic (bytes / bandwidth),
// whichever is slower, scaled by an efficiency and plus a launch overhead.
//
// This is deliberately simple. It gets the orders of magnitude and the
// compute/communication balance right (which is what overlap and exposed
// communication depend on); it does not model caches or kernel fusion.
// Matrix products whose shape is known are priced by it instead
// (cost_gemm.c: waves of output tiles on the SMs); element-wise and
// normalisation kernels are priced here, by the bytes they move. The
// devices and the sources of their numbers are in cost_devices.c.
#include "cost/cost.h"

const SimDeviceProfile *sim_device_effective(const SimDeviceProfile *given,
                                             const SimSysProfile *sys) {
    if (sim_device_valid(given))
        return given; // --gpu, or SimWorldConfig.device
    if (sys != NULL && sim_device_valid(&sys->device))
        return &sys->device; // the system profile's own (a DGX, a calibrated file)
    return sim_device_default();
}

const SimDeviceProfile *sim_cost_device(const SimCost *c) {
    return sim_device_effective(&c->device, &c->sys); // sim_cost_init zeroes c->device
}

double sim_cost_compute(const SimCost *c, double flops, double bytes, int lowp) {
    return sim_cost_compute_on(sim_cost_device(c), flops, bytes, lowp);
}

double sim_cost_compute_on(const SimDeviceProfile *d, double flops, double bytes, int lowp) {
    double peak = lowp ? d->peak_lowp_flops : d->peak_fp32_flops;
    double eff = d->efficiency;
    if ((lowp == SIM_COST_ATTN || lowp == SIM_COST_ATTN_TRITON) && d->attn_efficiency > 0)
        eff = d->attn_efficiency;
    if (lowp == SIM_COST_ATTN_TRITON)
        eff *= SIM_COST_TRITON_SHARE;
    double t_math = flops > 0 ? flops / peak : 0.0;
    double t_mem = bytes > 0 ? bytes / d->mem_bw_Bps : 0.0;
    double t = t_math > t_mem ? t_math : t_mem;
    return t / eff + d->launch_s;
}
