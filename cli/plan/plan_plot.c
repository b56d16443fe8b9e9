// cli/plan/plan_plot.c: `ddplab plan --sweep ranks=... --plot FILE`: two
// panels on one ranks axis (log 2): the throughput (tokens/s per GPU) above,
// the peak memory per GPU below with the GPU's capacity as a line; a
// configuration that does not fit is a red cross on both.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "chart.h"     // defines: VizChart, viz_chart_write
#include "core/cli.h"  // defines: CLI_EXIT_*
#include "plan/plan.h"

// The chart's data: x, throughput and memory of each world size planned,
// with NaN where a series leaves the point out. [6][n] in one block.
typedef struct {
    double *x, *tps, *mem, *tps_no, *mem_no;
    int k, nofit;
} Sweep;

static int collect(const PlanResult *r, int n, Sweep *s) {
    double *b = malloc((size_t)(n ? n : 1) * 5 * sizeof *b);
    if (b == NULL)
        return -1;
    *s = (Sweep){b, b + n, b + 2 * n, b + 3 * n, b + 4 * n, 0, 0};
    for (int i = 0; i < n; i++) {
        if (!r[i].ok || r[i].step_s <= 0)
            continue;
        int k = s->k++;
        s->x[k] = r[i].nranks;
        s->tps[k] = r[i].tokens_per_step / r[i].step_s / r[i].nranks;
        s->mem[k] = (double)r[i].mem.peak[SIM_MEM_DEVICE];
        s->tps_no[k] = r[i].fits ? NAN : s->tps[k];
        s->mem_no[k] = r[i].fits ? NAN : s->mem[k];
        s->nofit += !r[i].fits;
    }
    return 0;
}

int plan_plot_sweep(const PlanOptions *o, const PlanResult *r, int n) {
    Sweep s;
    if (collect(r, n, &s) != 0)
        return CLI_EXIT_INTERNAL;
    if (s.k == 0) {
        free(s.x);
        plan_error("--plot: no world size of the sweep was planned; nothing to draw");
        return CLI_EXIT_CHECK;
    }
    uint64_t cap = 0;
    for (int i = 0; i < n; i++)
        cap = r[i].ok && r[i].capacity ? r[i].capacity : cap;
    const size_t k = (size_t)s.k;
    VizChartSeries tput[2] = {
        {.label = "tokens/s per GPU", .kind = VIZ_CHART_LINE, .n = k, .x = s.x, .y = s.tps,
         .dots = 1},
        {.label = "does not fit", .kind = VIZ_CHART_CROSSES, .ink = {VIZ_INK_ALERT, 0}, .n = k,
         .x = s.x, .y = s.tps_no},
    };
    VizChartSeries mem[2] = {
        {.label = "peak memory per GPU", .kind = VIZ_CHART_LINE, .ink = {VIZ_INK_AUTO, 5},
         .n = k, .x = s.x, .y = s.mem, .dots = 1},
        {.label = "does not fit", .kind = VIZ_CHART_CROSSES, .ink = {VIZ_INK_ALERT, 0}, .n = k,
         .x = s.x, .y = s.mem_no},
    };
    char cap_text[64], title[200], sub[160];
    snprintf(cap_text, sizeof cap_text, "%s capacity %.0f GB", o->device.name, cap / 1e9);
    VizChartRule rule = {(double)cap, cap_text, {VIZ_INK_ALERT, 0}, 1};
    VizChartPanel panel[2] = {
        {.title = "throughput", .y = {.label = "tokens/s per GPU", .from_zero = 1},
         .series = tput, .nseries = s.nofit ? 2 : 1},
        {.title = "peak memory", .y = {.label = "per GPU", .unit = VIZ_UNIT_BYTES_SI,
                                       .from_zero = 1},
         .series = mem, .nseries = s.nofit ? 2 : 1, .rules = &rule, .nrules = cap ? 1 : 0},
    };
    snprintf(title, sizeof title, "%s, %s on %s", o->model_text, o->strategy, o->device.name);
    snprintf(sub, sizeof sub, "%d of %d world sizes fit in %.0f GB per GPU", s.k - s.nofit, s.k,
             cap / 1e9);
    VizChart c = {.title = title, .subtitle = sub,
                  .x = {.label = "ranks", .log = 2, .integer = 1},
                  .panels = panel, .npanels = 2};
    char err[512];
    SimStatus st = viz_chart_write(&c, o->plot, err, sizeof err);
    free(s.x);
    if (st != SIM_OK) {
        plan_error("--plot: %s", err);
        return st == SIM_ENOTSUP || st == SIM_EIO ? CLI_EXIT_INTERNAL : CLI_EXIT_USAGE;
    }
    fprintf(stderr, "ddplab plan: wrote %s\n", o->plot);
    return CLI_EXIT_OK;
}
