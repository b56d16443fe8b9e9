// sim/cost/cost_devices.c: the built-in compute devices, as data with sources,
// and their lookup by name (sim/cost/cost.h).
//
// Peaks, bandwidth and capacity are the vendors' datasheet figures: fp32 is
// the rate without tensor cores; lowp is dense fp16/bf16 on tensor cores
// with fp32 accumulation, i.e. half the "with sparsity" figure datasheets
// print first. Units: 1 TFLOPS = 1e12 FLOP/s, 1 GB/s = 1e9 B/s, 1 GB = 1e9 B.
//
// efficiency is what the cost model divides every op's roofline time by
// (sim_cost_compute). It is the fraction of the dense bf16 peak that large
// matrix products reach in public measurements: the Maximum Achievable
// Matmul FLOPS (MAMF) table of Stas Bekman's "Machine Learning Engineering"
// (github.com/stas00/ml-engineering, compute/accelerator/README.md, measured
// with its mamf-finder.py over many shapes, torch 2.6-2.7): A100 SXM 271.2
// of 312 TFLOPS (86.9%), H100 SXM 794.5 of 989 (80.3%, "H200 is the
// same"). The same factor is applied to memory-bound ops; measured copy
// bandwidth is a similar or somewhat higher fraction of the HBM peak (about
// 3.0-3.1 of 3.35 TB/s on H100), so memory-bound ops are priced slightly
// pessimistically.
//
// launch_s is the fixed cost of one kernel: 5 us, the order of one
// eager-mode op seen from the host (framework dispatch plus cudaLaunchKernel,
// a few us each: PyTorch's "Accelerating PyTorch with CUDA Graphs", 2021,
// gives a kernel launch's CPU overhead as a few microseconds); with many
// small ops it is what bounds a step. An op of several kernels pays it for
// each (Linear's backward: two products and the bias reduction).
//
// sm_count and gemm_tile_m/n set how matrix products are quantized into
// waves of output tiles (cost_gemm.c); their sources are in
// cost_device_data.h.
#include "cost/cost.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/errbuf.h"
#include "cost/cost_device_data.h"
#include "cost/cost_internal.h"

// The first entry is the default device (sim_device_default).
static const SimDeviceProfile devices[] = {
    DEVICE_H100, DEVICE_H200, DEVICE_A100_40, DEVICE_A100_80, DEVICE_L40S, DEVICE_RTX4090,
};

enum { NDEVICES = (int)(sizeof(devices) / sizeof(devices[0])) };

// Other spellings people use, lower case (the lookup ignores case). A bare
// "a100" is left out on purpose: the 40 and 80 GB parts differ in memory
// and bandwidth, and a plan that fits one may not fit the other.
static const struct {
    const char *alias, *name;
} aliases[] = {
    {"h100-sxm", "h100"},       {"h100-sxm5", "h100"},      {"h100-80gb", "h100"},
    {"h100-sxm-80gb", "h100"},  {"h200-sxm", "h200"},       {"h200-141gb", "h200"},
    {"a100-40gb", "a100-40"},   {"a100-sxm-40gb", "a100-40"}, {"a100-sxm4-40gb", "a100-40"},
    {"a100-80gb", "a100-80"},   {"a100-sxm-80gb", "a100-80"}, {"a100-sxm4-80gb", "a100-80"},
    {"l40s-48gb", "l40s"},      {"rtx-4090", "rtx4090"},    {"4090", "rtx4090"},
    {"geforce-rtx-4090", "rtx4090"},
};

int sim_device_count(void) { return NDEVICES; }

const SimDeviceProfile *sim_device_at(int i) {
    return i >= 0 && i < NDEVICES ? &devices[i] : NULL;
}

const SimDeviceProfile *sim_device_default(void) { return &devices[0]; }

// The host CPUs' share per GPU where a system does not state its own (see
// cost_device_data.h): a DGX H100 node's.
static const SimDeviceProfile host_default = HOST_DGX_H100;

const SimDeviceProfile *sim_device_host(void) { return &host_default; }

const SimDeviceProfile *sim_sys_host(const SimSysProfile *sys) {
    return sys != NULL && sim_device_valid(&sys->host) ? &sys->host : &host_default;
}

const SimDeviceProfile *sim_device_find(const char *name) {
    if (name == NULL)
        return NULL;
    for (int i = 0; i < NDEVICES; i++)
        if (strcasecmp(devices[i].name, name) == 0)
            return &devices[i];
    for (size_t k = 0; k < sizeof aliases / sizeof aliases[0]; k++)
        if (strcasecmp(aliases[k].alias, name) == 0)
            return sim_device_find(aliases[k].name);
    return NULL;
}

int sim_device_valid(const SimDeviceProfile *d) {
    return d != NULL && d->name[0] != '\0' && isfinite(d->peak_fp32_flops) &&
           d->peak_fp32_flops > 0 && isfinite(d->peak_lowp_flops) && d->peak_lowp_flops > 0 &&
           isfinite(d->mem_bw_Bps) && d->mem_bw_Bps > 0 && isfinite(d->mem_bytes) &&
           d->mem_bytes >= 0 && d->efficiency > 0 && d->efficiency <= 1 &&
           d->attn_efficiency >= 0 && d->attn_efficiency <= 1 &&
           isfinite(d->launch_s) && d->launch_s >= 0;
}

const char *sim_device_names(char *buf, size_t len) {
    size_t n = 0;
    if (len > 0)
        buf[0] = '\0';
    for (int i = 0; i < NDEVICES && n < len; i++) {
        int k = snprintf(buf + n, len - n, "%s%s (%.0f GB)", i ? ", " : "", devices[i].name,
                         devices[i].mem_bytes / DEV_GB);
        if (k < 0)
            break;
        n += (size_t)k;
    }
    return buf;
}

// Writes "unknown device "x": not a built-in device (...) nor a profile file
// with a device" into err, with a hint when x is the start of several names
// ("a100").
static SimStatus unknown(const char *name, char *err, size_t errlen) {
    char names[512], near[128] = "";
    size_t len = strlen(name), m = 0;
    for (int i = 0; i < NDEVICES && m < sizeof near; i++)
        if (len > 0 && strncasecmp(devices[i].name, name, len) == 0) {
            int k = snprintf(near + m, sizeof near - m, "%s%s", m ? " or " : "", devices[i].name);
            m += k > 0 ? (size_t)k : 0;
        }
    return sim_errbuf_fail(err, errlen, SIM_EINVAL, "unknown device \"%s\"%s%s%s: not a "
                           "built-in device (%s) nor a profile file with a device",
                           name, near[0] ? " (did you mean " : "", near, near[0] ? "?)" : "",
                           sim_device_names(names, sizeof names));
}

SimStatus sim_device_resolve(const char *name_or_path, SimDeviceProfile *out, char *err,
                             size_t errlen) {
    SimNamed named;
    SimStatus st = sim_cost_name_or_path(name_or_path, "device", sim_device_find(name_or_path),
                                         out, sizeof *out, &named, err, errlen);
    if (st != SIM_OK || named == SIM_NAMED_BUILTIN)
        return st;
    if (named == SIM_NAMED_NOTHING)
        return unknown(name_or_path, err, errlen);
    SimSysProfile p;
    st = sim_sys_load(name_or_path, &p, err, errlen);
    if (st != SIM_OK)
        return st;
    if (!sim_device_valid(&p.device))
        return sim_errbuf_fail(err, errlen, SIM_EFORMAT,
                               "%s: the profile states no device (no \"device\" object; "
                               "'ddplab bench --calibrate FILE' writes one for this machine)",
                               name_or_path);
    *out = p.device;
    return SIM_OK;
}
