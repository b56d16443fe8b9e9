// cli/bench/bench_calibrate.c: `ddplab bench --calibrate FILE`: turns the measured
// ring all_reduce times into a hardware profile, and adds the device the
// ranks compute on.
//
// Links. The ring all_reduce of S bytes on R ranks costs 2(R-1) steps of
// alpha + S/(R bw) in the cost model, so the measured times over the sweep
// are a straight line in S whose intercept gives alpha and whose slope gives
// bw (sim_cost_fit_ring does the least-squares fit). The in-place times are
// fitted when the sweep measured them: the cost model prices a collective's
// transfers alone, and an out-of-place call on the cpu backend also copies
// the send buffer in and the result out (two more passes over S, which
// would read as a slower link). The profile saved uses the fitted link both
// within and between nodes: everything ran on this one machine, so there is
// only one kind of link to measure.
//
// Device. --gpu's device when given; else the device the ranks compute on,
// as one rank sees it with R ranks computing at once (bench_device.c), its
// product efficiency and launch cost fitted to products of several shapes
// (bench_gemm.c, sim_cost_fit_gemm): this
// machine's CPU on the cpu backend, the GPU on the cuda backend; on a
// backend without math kernels (sym) none (the profile then leaves the
// device to --gpu).
#include "bench/bench.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/cli.h" // defines: CLI_EXIT_*

static void describe(SimSysProfile *p, const BenchOptions *o, const SimLinkProfile *link,
                     int inplace) {
    char host[64] = "this machine";
    if (gethostname(host, sizeof host) != 0)
        snprintf(host, sizeof host, "this machine");
    host[sizeof host - 1] = '\0';
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "calibrated-%.40s", host);
    snprintf(p->description, sizeof p->description,
             "measured by ddplab bench: ring all_reduce, %d ranks, backend %.16s, on %.40s",
             o->nranks, o->backend, host);
    p->intra = *link;
    snprintf(p->intra.name, sizeof p->intra.name, "measured-%.16s", o->backend);
    snprintf(p->intra.source, sizeof p->intra.source,
             "least-squares fit of %s ring all_reduce times, %d ranks, %zu..%zu bytes",
             inplace ? "in-place" : "out-of-place", o->nranks, o->minbytes, o->maxbytes);
    p->inter = p->intra;
    p->ranks_per_node = o->nranks / o->nodes;
}

// The profile's device: --gpu's, or the one measured on w's ranks, or none.
// Returns an exit code.
static int add_device(FILE *out, const BenchOptions *o, SimWorld *w, SimDeviceProfile *dev) {
    memset(dev, 0, sizeof *dev);
    if (o->gpu) {
        *dev = o->device;
        fprintf(out, "# device: %s (--gpu), saved with the links\n", dev->name);
        return CLI_EXIT_OK;
    }
    char err[256];
    SimStatus st = bench_measure_device(w, dev, err, sizeof err);
    if (st == SIM_ENOTSUP) {
        fprintf(out, "# device: not measured (%s); add --gpu NAME to save one\n", err);
        return CLI_EXIT_OK;
    }
    if (st != SIM_OK) {
        fprintf(stderr, "ddplab bench: --calibrate: cannot measure the ranks' device: %s\n",
                err);
        return CLI_EXIT_INTERNAL;
    }
    fprintf(out,
            "# device %s, one rank of %d computing at once: fp32 matmul %.1f GFLOP/s, memory "
            "%.1f GB/s, %.1f ns per op (achieved rates: efficiency 1; the matmul rate and "
            "the cost per op fitted to products of several shapes%s)\n",
            dev->name, o->nranks, dev->peak_fp32_flops / 1e9, dev->mem_bw_Bps / 1e9,
            dev->launch_s * 1e9, dev->sm_count > 0 ? ", in waves of tiles on its SMs" : "");
    return CLI_EXIT_OK;
}

int bench_calibrate(FILE *out, const BenchRun *run, SimWorld *w) {
    const BenchOptions *o = run->opt;
    int n = run->nsizes;
    int inplace = (o->modes & BENCH_IN_PLACE) != 0; // mode 1 in the run's slots
    double *bytes = malloc((size_t)n * sizeof *bytes), *secs = malloc((size_t)n * sizeof *secs);
    if (!bytes || !secs) {
        free(bytes);
        free(secs);
        fprintf(stderr, "ddplab bench: --calibrate: out of memory\n");
        return CLI_EXIT_INTERNAL;
    }
    for (int i = 0; i < n; i++) {
        bytes[i] = (double)run->counts[i] * (double)sim_dtype_size(o->dtype);
        secs[i] = bench_time(run, i, inplace);
    }
    SimLinkProfile link;
    memset(&link, 0, sizeof link);
    SimStatus st = sim_cost_fit_ring(bytes, secs, n, o->nranks, &link);
    free(bytes);
    free(secs);
    if (st != SIM_OK || !(link.bw_Bps > 0)) {
        fprintf(stderr,
                "ddplab bench: --calibrate: the measured times do not grow with size, so no "
                "bandwidth can be fitted; try a wider sweep (e.g. -b 64K -e 64M) on an idle "
                "machine\n");
        return CLI_EXIT_CHECK;
    }
    // A latency too small for the sweep to resolve comes out as a zero or
    // negative intercept; the profile then says zero, and we say why.
    int clamped = !(link.alpha_s > 0);
    if (clamped)
        link.alpha_s = 0;

    SimSysProfile p;
    describe(&p, o, &link, inplace);
    fprintf(out, "# calibrated from ring all_reduce on %d ranks: alpha %.3f us%s, bw %.3f GB/s "
            "(%s times)\n", o->nranks, link.alpha_s * 1e6,
            clamped ? " (too small to resolve: add smaller sizes)" : "", link.bw_Bps / 1e9,
            inplace ? "in-place" : "out-of-place");
    int rc = add_device(out, o, w, &p.device);
    if (rc != CLI_EXIT_OK)
        return rc;
    // On the cpu backend the ranks compute on this machine's CPUs, which are
    // also where CPU offload would step the optimizer: the file states them
    // as its host. A GPU's host is not measured (the DGX H100's stands).
    if (!o->gpu && strcmp(o->backend, "cpu") == 0 && sim_device_valid(&p.device)) {
        p.host = p.device;
        fprintf(out, "# host: the same CPUs (%s), where CPU offload steps the optimizer\n",
                p.host.name);
    }
    st = sim_sys_save(&p, o->calibrate);
    if (st != SIM_OK) {
        fprintf(stderr, "ddplab bench: --calibrate: cannot write '%s': %s\n", o->calibrate,
                sim_strerror(st));
        return CLI_EXIT_INTERNAL;
    }
    fprintf(out, "# saved profile '%s' to %s; use it with: ddplab bench -p %s, or ddplab run -p %s\n",
            p.name, o->calibrate, o->calibrate, o->calibrate);
    return CLI_EXIT_OK;
}
