// viz/plots_memory.c: the memory chart of a trace (plots.h): each rank's
// device memory stacked by category over simulated time, one panel when
// the ranks are alike, a panel per rank when they differ.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errbuf.h"
#include "plots.h"
#include "units.h"

enum { SAMPLES = 256 }; // instants at which ranks are compared

// Bottom to top: what stays for the whole run, then what comes and goes.
static const int stack_order[] = {SIM_MEM_PARAM, SIM_MEM_PARAM_SHARD, SIM_MEM_PARAM_LOWP,
                                  SIM_MEM_OPTIM, SIM_MEM_GRAD,        SIM_MEM_GRAD_SHARD,
                                  SIM_MEM_ACT,   SIM_MEM_COMM,        SIM_MEM_OTHER};
enum { NSTACK = sizeof stack_order / sizeof stack_order[0] };

static double total_of(const double *b) {
    double s = 0;
    for (int c = 0; c < SIM_MEM_CAT_COUNT; c++)
        s += c == SIM_MEM_BACKING ? 0 : b[c];
    return s;
}

// The point of mc in force at time t (the last at or before it), from *k on
// (times only grow); -1 before the first.
static long at_time(const VizMemCats *mc, double t, size_t *k) {
    while (*k < mc->n && mc->x[*k] <= t)
        (*k)++;
    return (long)*k - 1;
}

// Whether every rank holds every category within tol bytes of rank 0's at
// each of SAMPLES instants over [0, tmax].
static int alike(const VizMemCats *mc, int nranks, double tmax, double tol) {
    for (int r = 1; r < nranks; r++) {
        size_t k0 = 0, kr = 0;
        for (int j = 0; j < SAMPLES; j++) {
            double t = tmax * j / (SAMPLES - 1);
            long a = at_time(&mc[0], t, &k0), b = at_time(&mc[r], t, &kr);
            for (int c = 0; c < SIM_MEM_CAT_COUNT; c++) {
                double va = a < 0 ? 0 : mc[0].bytes[a][c], vb = b < 0 ? 0 : mc[r].bytes[b][c];
                if (fabs(va - vb) > tol)
                    return 0;
            }
        }
    }
    return 1;
}

// The points a panel keeps of mc: all, or at most VIZ_PLOT_MAX_POINTS time
// bins each keeping its point of the highest total (so the peak stays).
// pick[] gets the indices; returns how many.
static size_t thin(const VizMemCats *mc, double tmax, size_t *pick) {
    if (mc->n <= VIZ_PLOT_MAX_POINTS) {
        for (size_t i = 0; i < mc->n; i++)
            pick[i] = i;
        return mc->n;
    }
    size_t k = 0;
    long bin = -1;
    for (size_t i = 0; i < mc->n; i++) {
        long b = tmax > 0 ? (long)(mc->x[i] / tmax * (VIZ_PLOT_MAX_POINTS - 1)) : 0;
        if (b != bin) {
            pick[k++] = i, bin = b;
        } else if (total_of(mc->bytes[i]) > total_of(mc->bytes[pick[k - 1]])) {
            pick[k - 1] = i;
        }
    }
    return k;
}

typedef struct {
    VizMemCats mc[VIZ_CHART_MAX_PANELS];
    int shown;
    double tmax, peak, peak_t[VIZ_CHART_MAX_PANELS], peak_v[VIZ_CHART_MAX_PANELS];
    int used[SIM_MEM_CAT_COUNT];
} MemData;

static SimStatus load(const VizModel *m, MemData *d) {
    int nranks = viz_model_trace(m)->nranks;
    d->shown = nranks < VIZ_CHART_MAX_PANELS ? nranks : VIZ_CHART_MAX_PANELS;
    for (int r = 0; r < d->shown; r++) {
        SimStatus st = viz_model_memory_cats(m, r, &d->mc[r]);
        if (st != SIM_OK)
            return st;
        const VizMemCats *mc = &d->mc[r];
        for (size_t i = 0; i < mc->n; i++) {
            double tot = total_of(mc->bytes[i]);
            d->tmax = mc->x[i] > d->tmax ? mc->x[i] : d->tmax;
            if (tot > d->peak_v[r] || i == 0)
                d->peak_v[r] = tot, d->peak_t[r] = mc->x[i];
            for (int c = 0; c < SIM_MEM_CAT_COUNT; c++)
                d->used[c] |= mc->bytes[i][c] > 0;
        }
        d->peak = d->peak_v[r] > d->peak ? d->peak_v[r] : d->peak;
    }
    return SIM_OK;
}

static void unload(MemData *d) {
    for (int r = 0; r < d->shown; r++)
        viz_mem_cats_free(&d->mc[r]);
}

// Panel `slot` shows rank r: its series point into p->buf from *next on.
static void fill_panel(VizPlot *p, const MemData *d, int slot, int r, const size_t *pick,
                       size_t k, double **next) {
    const VizMemCats *mc = &d->mc[r];
    double *x = *next;
    for (size_t i = 0; i < k; i++)
        x[i] = mc->x[pick[i]];
    *next += k;
    VizChartSeries *s0 = &p->series[slot * VIZ_PLOT_MAX_CATS];
    int ns = 0;
    for (int o = 0; o < NSTACK; o++) {
        int c = stack_order[o];
        if (!d->used[c])
            continue;
        double *y = *next;
        *next += k;
        for (size_t i = 0; i < k; i++)
            y[i] = mc->bytes[pick[i]][c];
        s0[ns++] = (VizChartSeries){.label = sim_mem_cat_name((SimMemCat)c),
                                    .kind = VIZ_CHART_AREA,
                                    .ink = {VIZ_INK_MEMCAT, (unsigned)c}, .n = k, .x = x,
                                    .y = y};
    }
    char peak[24], when[24];
    viz_unit_fmt(VIZ_UNIT_BYTES, d->peak_v[r], peak, sizeof peak);
    viz_unit_fmt(VIZ_UNIT_SECONDS, d->peak_t[r], when, sizeof when);
    snprintf(p->note_text[slot], sizeof p->note_text[slot], "peak %s at %s", peak, when);
    p->note[slot] = (VizChartNote){d->peak_t[r], d->peak_v[r], p->note_text[slot]};
    p->panel_rank[slot] = r;
    p->panel[slot] = (VizChartPanel){
        .marked = 1, .mark = {VIZ_INK_RANKOF, (unsigned)r},
        .y = {.label = "device memory", .unit = VIZ_UNIT_BYTES, .from_zero = 1},
        .series = s0, .nseries = ns, .notes = &p->note[slot], .nnotes = 1};
}

// The capacity as a line when the peak reaches a quarter of it (above, the
// data would be squashed under it), else said in the subtitle.
static void capacity(VizPlot *p, const VizModel *m, const MemData *d, char *said, size_t len) {
    uint64_t cap = viz_model_trace(m)->info.device_capacity;
    said[0] = '\0';
    if (cap == 0)
        return;
    char cs[32];
    viz_unit_fmt(VIZ_UNIT_BYTES, (double)cap, cs, sizeof cs);
    if (d->peak < 0.25 * (double)cap) {
        snprintf(said, len, "; capacity %s (the peak is %.2g%% of it)", cs,
                 100 * d->peak / (double)cap);
        return;
    }
    snprintf(p->rule_text, sizeof p->rule_text, "device capacity %s", cs);
    for (int s = 0; s < p->chart.npanels; s++) {
        p->rule[s] = (VizChartRule){(double)cap, p->rule_text, {VIZ_INK_ALERT, 0}, 1};
        p->panel[s].rules = &p->rule[s];
        p->panel[s].nrules = 1;
    }
}

// The subtitle: one panel or a panel each, which ranks, the capacity.
static void write_subtitle(VizPlot *p, int same, int shown, int nranks, const char *cap) {
    char compared[48] = "";
    if (shown < nranks)
        snprintf(compared, sizeof compared, " (ranks 0-%d of %d compared)", shown - 1, nranks);
    if (same && nranks > 1)
        snprintf(p->subtitle, sizeof p->subtitle, "the ranks hold the same memory (within "
                 "1%% of the peak): one panel%s%s", compared, cap);
    else if (same)
        snprintf(p->subtitle, sizeof p->subtitle, "one rank%s", cap);
    else if (shown < nranks)
        snprintf(p->subtitle, sizeof p->subtitle, "the ranks differ: a panel each, ranks "
                 "0-%d of %d shown%s", shown - 1, nranks, cap);
    else
        snprintf(p->subtitle, sizeof p->subtitle, "the ranks differ: a panel each, one "
                 "scale%s", cap);
}

// The panels, rank s in panel s: each series' points into p->buf, [npanels]
// blocks of x and one y per category used, at most VIZ_PLOT_MAX_POINTS each.
static SimStatus fill_panels(VizPlot *p, const MemData *d, int npanels, int same, int nranks) {
    int ncats = 0;
    for (int c = 0; c < SIM_MEM_CAT_COUNT; c++)
        ncats += d->used[c];
    size_t most = 0;
    for (int r = 0; r < npanels; r++)
        most = d->mc[r].n > most ? d->mc[r].n : most;
    size_t kept = most < VIZ_PLOT_MAX_POINTS ? most : VIZ_PLOT_MAX_POINTS;
    size_t *pick = malloc((most ? most : 1) * sizeof *pick);
    p->buf = malloc(((size_t)npanels * (1 + (size_t)ncats) * kept + 1) * sizeof *p->buf);
    if (pick == NULL || p->buf == NULL) {
        free(pick);
        return SIM_ENOMEM;
    }
    double *next = p->buf;
    for (int s = 0; s < npanels; s++) {
        size_t k = thin(&d->mc[s], d->tmax, pick);
        fill_panel(p, d, s, s, pick, k, &next);
        snprintf(p->panel_title[s], sizeof p->panel_title[s], same && nranks > 1 ?
                 "rank 0 (every rank alike)" : "rank %d", s);
        p->panel[s].title = p->panel_title[s];
    }
    free(pick);
    return SIM_OK;
}

static SimStatus build(VizPlot *p, const VizModel *m, const MemData *d, char *err,
                       size_t errlen) {
    int nranks = viz_model_trace(m)->nranks, same = d->shown == 1;
    if (!same)
        same = alike(d->mc, d->shown, d->tmax, VIZ_PLOT_ALIKE * d->peak);
    int npanels = same ? 1 : d->shown;
    if (fill_panels(p, d, npanels, same, nranks) != SIM_OK)
        return sim_errbuf_fail(err, errlen, SIM_ENOMEM, "out of memory for the memory chart");
    char name[64], cap[96];
    viz_plot_run_name(m, name, sizeof name);
    snprintf(p->title, sizeof p->title, "device memory by category (%s)", name);
    // small multiples: two columns of about 200 pixels a row
    int h = npanels > 2 ? 200 * ((npanels + 1) / 2) + 240 : 0;
    p->chart = (VizChart){.title = p->title, .subtitle = p->subtitle,
                          .x = {.label = "simulated time", .unit = VIZ_UNIT_SECONDS,
                                .from_zero = 1},
                          .panels = p->panel, .npanels = npanels, .share_y = 1,
                          .columns = npanels > 2 ? 2 : 1,
                          .height = h < VIZ_CHART_MAX_SIDE ? h : VIZ_CHART_MAX_SIDE};
    capacity(p, m, d, cap, sizeof cap);
    write_subtitle(p, same, d->shown, nranks, cap);
    return SIM_OK;
}

SimStatus viz_plot_memory(const VizModel *m, VizPlot *p, char *err, size_t errlen) {
    memset(p, 0, sizeof *p);
    if (m == NULL)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL, "no trace to plot");
    MemData *d = calloc(1, sizeof *d);
    if (d == NULL)
        return sim_errbuf_fail(err, errlen, SIM_ENOMEM, "out of memory for the memory chart");
    SimStatus st = load(m, d);
    if (st != SIM_OK)
        sim_errbuf_fail(err, errlen, st, "out of memory for the memory chart");
    else if (d->peak <= 0)
        st = sim_errbuf_fail(err, errlen, SIM_EINVAL, "the trace has no device memory events");
    else
        st = build(p, m, d, err, errlen);
    unload(d);
    free(d);
    return st;
}
