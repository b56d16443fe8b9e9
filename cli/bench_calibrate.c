// cli/bench_calibrate.c: `ddplab bench --calibrate FILE`: turns the measured
// out-of-place ring all_reduce times into a hardware profile.
//
// The ring all_reduce of S bytes on R ranks costs 2(R-1) steps of
// alpha + S/(R bw) in the cost model, so the measured times over the sweep
// are a straight line in S whose intercept gives alpha and whose slope gives
// bw (sim_cost_fit_ring does the least-squares fit). The profile saved uses
// the fitted link both within and between nodes: everything ran on this one
// machine, so there is only one kind of link to measure.
#include "bench.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h" // defines: CLI_EXIT_*

static void describe(SimSysProfile *p, const BenchOptions *o, const SimLinkProfile *link) {
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
             "least-squares fit of ring all_reduce times, %d ranks, %zu..%zu bytes",
             o->nranks, o->minbytes, o->maxbytes);
    p->inter = p->intra;
    p->ranks_per_node = o->nranks / o->nodes;
}

int bench_calibrate(FILE *out, const BenchRun *run) {
    const BenchOptions *o = run->opt;
    int n = run->nsizes;
    double *bytes = malloc((size_t)n * sizeof *bytes), *secs = malloc((size_t)n * sizeof *secs);
    if (!bytes || !secs) {
        free(bytes);
        free(secs);
        fprintf(stderr, "ddplab bench: --calibrate: out of memory\n");
        return CLI_EXIT_INTERNAL;
    }
    for (int i = 0; i < n; i++) {
        bytes[i] = (double)run->counts[i] * (double)sim_dtype_size(o->dtype);
        secs[i] = bench_time(run, i, 0);
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
    describe(&p, o, &link);
    st = sim_sys_save(&p, o->calibrate);
    if (st != SIM_OK) {
        fprintf(stderr, "ddplab bench: --calibrate: cannot write '%s': %s\n", o->calibrate,
                sim_strerror(st));
        return CLI_EXIT_INTERNAL;
    }
    fprintf(out, "# calibrated from ring all_reduce on %d ranks: alpha %.3f us%s, bw %.3f GB/s\n",
            o->nranks, link.alpha_s * 1e6, clamped ? " (too small to resolve: add smaller sizes)" : "",
            link.bw_Bps / 1e9);
    fprintf(out, "# saved profile '%s' to %s; use it with: ddplab bench -p %s\n", p.name,
            o->calibrate, o->calibrate);
    return CLI_EXIT_OK;
}
