// tests/test_viz_plot.c: what the charts hold, without drawing them: axis
// ticks and their labels (viz/ticks.h), units (viz/units.h), and the charts
// of a trace as data (viz/plots.h): one memory panel for alike ranks, a
// panel per rank when they differ, the capacity rule, the peak note, whole
// ticks on the loss chart's iteration axis. The drawing is
// tests/test_viz_chart.c.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart.h"
#include "check.h"
#include "plots.h"
#include "scene.h"
#include "test_chart_trace.h"
#include "ticks.h"
#include "units.h"

// Every tick of t, checked against want[0..n-1].
static int check_ticks(const VizTicks *t, const double *want, int n) {
    if (t->n != n) {
        fprintf(stderr, "ticks: %d, want %d:", t->n, n);
        for (int i = 0; i < t->n; i++)
            fprintf(stderr, " %g", t->v[i]);
        fprintf(stderr, "\n");
        return 1;
    }
    for (int i = 0; i < n; i++)
        CHECK_NEAR(t->v[i], want[i], fabs(want[i]) * 1e-12 + 1e-300);
    return 0;
}

static int check_label(const VizTicks *t, double v, const char *want) {
    char buf[48];
    viz_tick_label(t, v, buf, sizeof(buf));
    if (strcmp(buf, want) != 0) {
        fprintf(stderr, "label of %g: \"%s\", want \"%s\"\n", v, buf, want);
        return 1;
    }
    return 0;
}

// ----------------------------------------------------------------------------
// ticks

static int test_ticks_linear(void) {
    VizTicks t;
    CHECK(viz_ticks_linear(0, 1, 6, &t) == SIM_OK);
    CHECK(check_ticks(&t, (const double[]){0, 0.2, 0.4, 0.6, 0.8, 1.0}, 6) == 0);
    CHECK(check_label(&t, t.v[1], "0.2") == 0);
    CHECK(check_label(&t, t.v[0], "0.0") == 0);

    // 0.3..2.7: step 0.5 would need 7 ticks, so 1; the axis widens to 0..3.
    CHECK(viz_ticks_linear(0.3, 2.7, 6, &t) == SIM_OK);
    CHECK(check_ticks(&t, (const double[]){0, 1, 2, 3}, 4) == 0);
    CHECK_NEAR(t.lo, 0, 0);
    CHECK_NEAR(t.hi, 3, 0);
    CHECK_NEAR(t.step, 1, 0);
    CHECK(check_label(&t, 2, "2") == 0);

    CHECK(viz_ticks_linear(-3.7, 12.1, 8, &t) == SIM_OK);
    CHECK(check_ticks(&t, (const double[]){-5, 0, 5, 10, 15}, 5) == 0);
    CHECK(check_label(&t, -5, "-5") == 0);

    // Large values: scientific labels.
    CHECK(viz_ticks_linear(1e6, 5e6, 5, &t) == SIM_OK);
    CHECK(check_ticks(&t, (const double[]){1e6, 2e6, 3e6, 4e6, 5e6}, 5) == 0);
    CHECK(check_label(&t, 2e6, "2e6") == 0);
    CHECK(viz_ticks_linear(1e6, 2e6, 3, &t) == SIM_OK);
    CHECK(check_ticks(&t, (const double[]){1e6, 1.5e6, 2e6}, 3) == 0);
    CHECK(check_label(&t, 1.5e6, "1.5e6") == 0);
    // Small values.
    CHECK(viz_ticks_linear(0, 4e-5, 5, &t) == SIM_OK);
    CHECK(check_ticks(&t, (const double[]){0, 1e-5, 2e-5, 3e-5, 4e-5}, 5) == 0);
    CHECK(check_label(&t, 2e-5, "2e-5") == 0);
    CHECK(check_label(&t, 0, "0") == 0);
    // Decimals as the step needs them, exact decimal values.
    CHECK(viz_ticks_linear(0.001, 0.0015, 5, &t) == SIM_OK);
    CHECK(check_ticks(&t, (const double[]){0.001, 0.0012, 0.0014, 0.0016}, 4) == 0);
    CHECK(check_label(&t, t.v[1], "0.0012") == 0);
    // A loss curve.
    CHECK(viz_ticks_linear(0.31, 2.48, 6, &t) == SIM_OK);
    CHECK(check_ticks(&t, (const double[]){0, 0.5, 1, 1.5, 2, 2.5}, 6) == 0);
    CHECK(check_label(&t, 1.5, "1.5") == 0);
    CHECK(check_label(&t, 1, "1.0") == 0);

    // One value: a range around it, the value on the axis.
    CHECK(viz_ticks_linear(5, 5, 6, &t) == SIM_OK);
    CHECK(check_ticks(&t, (const double[]){4.5, 5, 5.5}, 3) == 0);
    CHECK(viz_ticks_linear(0, 0, 6, &t) == SIM_OK);
    CHECK(t.lo < 0 && t.hi > 0 && t.n >= 2);
    CHECK(viz_ticks_linear(-7, -7, 4, &t) == SIM_OK);
    CHECK(t.lo <= -7 && t.hi >= -7 && t.n >= 2 && t.n <= 4);

    // Every result: at most max ticks, at least 2, covering the data.
    const double ranges[][2] = {{0, 1},     {-1, 1},  {3, 1000}, {0.1, 0.11}, {-5e8, 2e9},
                                {1e-9, 2e-9}, {17, 18}, {0, 1e-3}, {123456, 123457}};
    for (size_t r = 0; r < sizeof(ranges) / sizeof(ranges[0]); r++) {
        for (int m = 2; m <= 12; m++) {
            CHECK(viz_ticks_linear(ranges[r][0], ranges[r][1], m, &t) == SIM_OK);
            int straddles = ranges[r][0] < 0 && ranges[r][1] > 0;
            CHECK(t.n >= 2 && t.n <= (straddles && m < 3 ? 3 : m));
            CHECK(t.lo <= ranges[r][0] && t.hi >= ranges[r][1]);
            for (int i = 1; i < t.n; i++)
                CHECK_NEAR(t.v[i] - t.v[i - 1], t.step, t.step * 1e-6);
        }
    }

    CHECK(viz_ticks_linear(1, 0, 6, &t) == SIM_EINVAL);
    CHECK(viz_ticks_linear(NAN, 1, 6, &t) == SIM_EINVAL);
    CHECK(viz_ticks_linear(0, INFINITY, 6, &t) == SIM_EINVAL);
    CHECK(viz_ticks_linear(0, 1, 1, &t) == SIM_EINVAL);
    CHECK(viz_ticks_linear(0, 1, VIZ_TICKS_MAX + 1, &t) == SIM_EINVAL);
    return 0;
}

static int test_ticks_log(void) {
    VizTicks t;
    // A rank sweep 8..16384: every power of two.
    CHECK(viz_ticks_log(8, 16384, 2, 12, &t) == SIM_OK);
    CHECK(t.log == 1 && t.base == 2 && t.stride == 1);
    CHECK(check_ticks(&t, (const double[]){8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192,
                                            16384},
                      12) == 0);
    CHECK(check_label(&t, 16384, "16384") == 0);
    CHECK(check_label(&t, 1024, "1024") == 0);
    // Less room: every other power, at even exponents.
    CHECK(viz_ticks_log(8, 16384, 2, 6, &t) == SIM_OK);
    CHECK(t.stride == 2);
    CHECK(check_ticks(&t, (const double[]){16, 64, 256, 1024, 4096, 16384}, 6) == 0);
    CHECK_NEAR(t.lo, 8, 0);
    CHECK_NEAR(t.hi, 16384, 0);
    // Auto base: 8..16384 fits in powers of two.
    CHECK(viz_ticks_log(8, 16384, 0, 12, &t) == SIM_OK);
    CHECK(t.base == 2);
    // Not powers: the axis widens to the enclosing powers.
    CHECK(viz_ticks_log(5, 100, 2, 12, &t) == SIM_OK);
    CHECK(check_ticks(&t, (const double[]){4, 8, 16, 32, 64, 128}, 6) == 0);

    // Message sizes 1 KiB..1 GiB: binary suffixes.
    CHECK(viz_ticks_log(1024, 1073741824.0, 2, 12, &t) == SIM_OK);
    CHECK(t.stride == 2 && t.n == 11);
    CHECK_NEAR(t.v[0], 1024, 0);
    CHECK(check_label(&t, 1024, "1K") == 0);
    CHECK(check_label(&t, 262144, "256K") == 0);
    CHECK(check_label(&t, 1048576, "1M") == 0);
    CHECK(check_label(&t, 1073741824.0, "1G") == 0);
    // Fractions on a base-2 axis.
    CHECK(viz_ticks_log(1.0 / 64, 4, 2, 12, &t) == SIM_OK);
    CHECK(check_label(&t, 0.5, "0.5") == 0);
    CHECK(check_label(&t, 0.125, "0.125") == 0);
    CHECK(check_label(&t, 1.0 / 16, "2^-4") == 0);

    // Decades.
    CHECK(viz_ticks_log(1, 1e6, 0, 8, &t) == SIM_OK);
    CHECK(t.base == 10 && t.stride == 1);
    CHECK(check_ticks(&t, (const double[]){1, 10, 100, 1e3, 1e4, 1e5, 1e6}, 7) == 0);
    CHECK(check_label(&t, 1e4, "10000") == 0);
    CHECK(check_label(&t, 1e5, "1e5") == 0);
    CHECK(viz_ticks_log(3.2e-3, 7e8, 10, 5, &t) == SIM_OK);
    CHECK(t.stride == 3);
    CHECK(check_ticks(&t, (const double[]){1e-3, 1, 1e3, 1e6, 1e9}, 5) == 0);
    CHECK(check_label(&t, 1e-3, "0.001") == 0);
    CHECK(check_label(&t, 1e9, "1e9") == 0);
    // Three decades or less: 1-2-5.
    CHECK(viz_ticks_log(20, 300, 10, 8, &t) == SIM_OK);
    CHECK(t.base == 10 && t.stride == 0);
    CHECK(check_ticks(&t, (const double[]){20, 50, 100, 200, 500}, 5) == 0);
    CHECK(viz_ticks_log(3, 400, 10, 12, &t) == SIM_OK);
    CHECK(check_ticks(&t, (const double[]){2, 5, 10, 20, 50, 100, 200, 500}, 8) == 0);
    CHECK(check_label(&t, 200, "200") == 0);
    // Less than a decade: linear ticks on the log axis.
    CHECK(viz_ticks_log(101, 109, 10, 6, &t) == SIM_OK);
    CHECK(t.log == 1 && t.base == 0);
    CHECK(check_ticks(&t, (const double[]){100, 102, 104, 106, 108, 110}, 6) == 0);
    CHECK(check_label(&t, 104, "104") == 0);
    CHECK(viz_ticks_log(20, 80, 10, 8, &t) == SIM_OK);
    CHECK(t.base == 0);
    CHECK(check_ticks(&t, (const double[]){20, 30, 40, 50, 60, 70, 80}, 7) == 0);
    // One value.
    CHECK(viz_ticks_log(64, 64, 2, 12, &t) == SIM_OK);
    CHECK(check_ticks(&t, (const double[]){32, 64, 128}, 3) == 0);
    CHECK(viz_ticks_log(5, 5, 10, 12, &t) == SIM_OK);
    CHECK(t.lo <= 5 && t.hi >= 5 && t.n >= 2);

    // Every result covers the data, within the tick limit, ticks > 0 rising.
    const double ranges[][2] = {{1, 2},      {1e-6, 1},  {8, 16384}, {0.3, 7e9},
                                {1.01, 1.02}, {1e-30, 1},  {2, 1e12},  {0.5, 0.9}};
    for (size_t r = 0; r < sizeof(ranges) / sizeof(ranges[0]); r++) {
        for (int base = 0; base <= 10; base += base == 0 ? 2 : 8) {
            for (int m = 2; m <= 14; m++) {
                CHECK(viz_ticks_log(ranges[r][0], ranges[r][1], base, m, &t) == SIM_OK);
                CHECK(t.n >= 1 && t.n <= m);
                CHECK(t.lo > 0 && t.lo <= ranges[r][0] * (1 + 1e-12));
                CHECK(t.hi >= ranges[r][1] * (1 - 1e-12));
                for (int i = 0; i < t.n; i++) {
                    CHECK(t.v[i] > 0 && t.v[i] >= t.lo * (1 - 1e-12) &&
                          t.v[i] <= t.hi * (1 + 1e-12));
                    if (i > 0)
                        CHECK(t.v[i] > t.v[i - 1]);
                }
            }
        }
    }

    CHECK(viz_ticks_log(0, 10, 10, 6, &t) == SIM_EINVAL);
    CHECK(viz_ticks_log(-1, 10, 10, 6, &t) == SIM_EINVAL);
    CHECK(viz_ticks_log(1, 10, 3, 6, &t) == SIM_EINVAL);
    CHECK(viz_ticks_log(1, NAN, 10, 6, &t) == SIM_EINVAL);
    return 0;
}

// ----------------------------------------------------------------------------
// units

static int check_fmt(VizChartUnit u, double v, const char *want) {
    char buf[32];
    viz_unit_fmt(u, v, buf, sizeof buf);
    if (strcmp(buf, want) != 0) {
        fprintf(stderr, "unit of %g: \"%s\", want \"%s\"\n", v, buf, want);
        return 1;
    }
    return 0;
}

static int test_units(void) {
    CHECK(check_fmt(VIZ_UNIT_BYTES, 3.2 * 1024 * 1024 * 1024, "3.2 GiB") == 0);
    CHECK(check_fmt(VIZ_UNIT_BYTES, 512, "512 bytes") == 0);
    CHECK(check_fmt(VIZ_UNIT_BYTES, 1024, "1 KiB") == 0);
    CHECK(check_fmt(VIZ_UNIT_BYTES_SI, 80e9, "80 GB") == 0);
    CHECK(check_fmt(VIZ_UNIT_SECONDS, 0.41, "410 ms") == 0);
    CHECK(check_fmt(VIZ_UNIT_SECONDS, 190e-6, "190 us") == 0);
    CHECK(check_fmt(VIZ_UNIT_SECONDS, 2.5, "2.5 s") == 0);
    CHECK(check_fmt(VIZ_UNIT_BYTES_S, 12.5e9, "12.5 GB/s") == 0);
    CHECK(check_fmt(VIZ_UNIT_NONE, 0.75, "0.75") == 0);
    VizUnitChoice u = viz_unit_pick(VIZ_UNIT_SECONDS, 5e-4);
    CHECK(strcmp(u.name, "us") == 0 && u.div == 1e-6);
    u = viz_unit_pick(VIZ_UNIT_BYTES, 100.0 * TCT_MIB);
    CHECK(strcmp(u.name, "MiB") == 0 && u.div == TCT_MIB);
    CHECK(viz_chart_format_ok("a/b.png") && viz_chart_format_ok("x.SVG") &&
          viz_chart_format_ok("x.pdf"));
    CHECK(!viz_chart_format_ok("x.gif") && !viz_chart_format_ok("png") &&
          !viz_chart_format_ok("dir.png/x") && !viz_chart_format_ok(NULL));
    return 0;
}

// ----------------------------------------------------------------------------
// the trace's charts as data

// The model of a hand-made memory trace (test_chart_trace.h).
static VizModel *model_of(VizTrace *t, int nranks, int differ, uint64_t capacity) {
    if (tct_memory_trace(t, nranks, differ, capacity) != 0)
        return NULL;
    char err[256];
    VizModel *m = viz_model_new(t, err, sizeof err);
    if (m == NULL)
        fprintf(stderr, "model: %s\n", err);
    return m;
}

static int test_memory_cats(void) {
    VizTrace t;
    VizModel *m = model_of(&t, 2, 1, 0);
    CHECK(m != NULL);
    VizMemCats c;
    CHECK_EQ_INT(viz_model_memory_cats(m, 1, &c), SIM_OK);
    CHECK_EQ_INT(c.n, 2 + 3 * 4);
    // iteration 0 at 1.5 ms: activations 2 MiB and gradients 1 MiB live;
    // at 1.6 ms the activations are freed
    CHECK_NEAR(c.x[3], 1.5e-3, 1e-12);
    CHECK_NEAR(c.bytes[3][SIM_MEM_ACT], 2 * TCT_MIB, 0);
    CHECK_NEAR(c.bytes[3][SIM_MEM_GRAD], TCT_MIB, 0);
    CHECK_NEAR(c.bytes[3][SIM_MEM_PARAM], TCT_MIB, 0);
    CHECK_NEAR(c.bytes[3][SIM_MEM_OPTIM], 2 * TCT_MIB, 0);
    CHECK_NEAR(c.bytes[4][SIM_MEM_ACT], 0, 0);
    CHECK_NEAR(c.bytes[4][SIM_MEM_GRAD], TCT_MIB, 0);
    CHECK_NEAR(c.bytes[c.n - 1][SIM_MEM_GRAD], 0, 0);
    viz_mem_cats_free(&c);
    CHECK_EQ_INT(viz_model_memory_cats(m, 2, &c), SIM_EINVAL);
    viz_model_free(m);
    viz_trace_free(&t);
    return 0;
}

// Every panel of p stacks areas coloured by category, params at the bottom.
static int check_stacks(const VizPlot *p) {
    for (int k = 0; k < p->chart.npanels; k++) {
        const VizChartPanel *pn = &p->panel[k];
        CHECK_EQ_INT(pn->nseries, 4); // params, optimizer, grads, activations
        CHECK_EQ_INT(pn->series[0].ink.kind, VIZ_INK_MEMCAT);
        CHECK_EQ_INT(pn->series[0].ink.index, SIM_MEM_PARAM);
        for (int s = 0; s < pn->nseries; s++) {
            CHECK_EQ_INT(pn->series[s].kind, VIZ_CHART_AREA);
            CHECK(pn->series[s].n == pn->series[0].n && pn->series[s].x == pn->series[0].x);
        }
        CHECK_EQ_INT(pn->y.unit, VIZ_UNIT_BYTES);
        CHECK_EQ_INT(pn->nnotes, 1);
        CHECK_STR_CONTAINS(pn->notes[0].text, "peak");
    }
    return 0;
}

static int test_memory_alike(void) {
    VizTrace t;
    VizModel *m = model_of(&t, 4, 0, 0);
    CHECK(m != NULL);
    VizPlot p;
    char err[256];
    CHECK_EQ_INT(viz_plot_memory(m, &p, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(p.chart.npanels, 1);
    CHECK(check_stacks(&p) == 0);
    CHECK_NEAR(p.note[0].y, 5 * TCT_MIB, 0); // 1 + 2 + 1 + 1 MiB
    CHECK_NEAR(p.note[0].x, 1.5e-3, 1e-12);
    CHECK_STR_CONTAINS(p.note[0].text, "peak 5 MiB at 1.5 ms");
    CHECK_STR_CONTAINS(p.subtitle, "one panel");
    CHECK_EQ_INT(p.chart.x.unit, VIZ_UNIT_SECONDS);
    CHECK_EQ_INT(p.panel[0].nrules, 0); // no capacity in the trace
    viz_plot_free(&p);
    viz_model_free(m);
    viz_trace_free(&t);
    return 0;
}

static int test_memory_differ(void) {
    VizTrace t;
    VizModel *m = model_of(&t, 4, 1, 0);
    CHECK(m != NULL);
    VizPlot p;
    char err[256];
    CHECK_EQ_INT(viz_plot_memory(m, &p, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(p.chart.npanels, 4);
    CHECK_EQ_INT(p.chart.share_y, 1);
    CHECK(check_stacks(&p) == 0);
    for (int r = 0; r < 4; r++) {
        CHECK_EQ_INT(p.panel_rank[r], r);
        CHECK(p.panel[r].marked);
        CHECK_EQ_INT(p.panel[r].mark.kind, VIZ_INK_RANKOF);
        CHECK_EQ_INT(p.panel[r].mark.index, r);
        CHECK_NEAR(p.note[r].y, (5 + r) * TCT_MIB, 0);
    }
    CHECK_STR_CONTAINS(p.subtitle, "differ");
    viz_plot_free(&p);
    viz_model_free(m);
    viz_trace_free(&t);
    return 0;
}

static int test_memory_capacity(void) {
    VizTrace t;
    VizModel *m = model_of(&t, 2, 0, (uint64_t)(8 * TCT_MIB));
    CHECK(m != NULL);
    VizPlot p;
    char err[256];
    CHECK_EQ_INT(viz_plot_memory(m, &p, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(p.panel[0].nrules, 1);
    CHECK_NEAR(p.panel[0].rules[0].y, 8 * TCT_MIB, 0);
    CHECK_STR_CONTAINS(p.panel[0].rules[0].label, "8 MiB");
    viz_plot_free(&p);
    viz_model_free(m);
    viz_trace_free(&t);
    // a capacity far above the peak would squash the data: said, not drawn
    m = model_of(&t, 2, 0, (uint64_t)(80.0 * 1024 * TCT_MIB));
    CHECK(m != NULL);
    CHECK_EQ_INT(viz_plot_memory(m, &p, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(p.panel[0].nrules, 0);
    CHECK_STR_CONTAINS(p.subtitle, "capacity 80 GiB");
    viz_plot_free(&p);
    viz_model_free(m);
    viz_trace_free(&t);
    return 0;
}

// A long trace is thinned to VIZ_PLOT_MAX_POINTS a series, and the peak
// stays in it.
static int test_memory_thinned(void) {
    VizTrace t;
    CHECK_EQ_INT(tct_long_trace(&t, 5000), 0);
    char err[256];
    VizModel *m = viz_model_new(&t, err, sizeof err);
    CHECK(m != NULL);
    VizPlot p;
    CHECK_EQ_INT(viz_plot_memory(m, &p, err, sizeof err), SIM_OK);
    const VizChartPanel *pn = &p.panel[0];
    CHECK_EQ_INT(pn->nseries, 2); // params, activations
    CHECK(pn->series[0].n <= VIZ_PLOT_MAX_POINTS && pn->series[0].n > VIZ_PLOT_MAX_POINTS / 2);
    double top = 0;
    for (size_t i = 0; i < pn->series[0].n; i++) {
        double sum = pn->series[0].y[i] + pn->series[1].y[i];
        top = sum > top ? sum : top;
    }
    CHECK_NEAR(top, 11 * TCT_MIB, 0);
    CHECK_NEAR(p.note[0].y, 11 * TCT_MIB, 0);
    CHECK_NEAR(p.note[0].x, (2 * 2500 + 1) * 1e-6, 1e-12);
    viz_plot_free(&p);
    viz_model_free(m);
    viz_trace_free(&t);
    return 0;
}

static int test_loss(void) {
    VizTrace t;
    VizModel *m = model_of(&t, 2, 0, 0);
    CHECK(m != NULL);
    VizPlot p;
    char err[256];
    CHECK_EQ_INT(viz_plot_loss(m, &p, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(p.chart.npanels, 1);
    CHECK_EQ_INT(p.chart.x.integer, 1);
    CHECK_EQ_INT(p.series[0].n, 3);
    CHECK_NEAR(p.series[0].y[2], 2.0 / 3, 1e-12);
    CHECK_EQ_INT(p.panel[0].y.log, 0); // falls by 3x: linear
    CHECK_STR_CONTAINS(p.note[0].text, "at iteration 2");
    CHECK_STR_CONTAINS(p.chart.title, "loss");
    viz_plot_free(&p);
    viz_model_free(m);
    viz_trace_free(&t);
    return 0;
}

static int test_plot_errors(void) {
    VizPlot p;
    char err[256];
    CHECK_EQ_INT(viz_plot_loss(NULL, &p, err, sizeof err), SIM_EINVAL);
    CHECK_EQ_INT(viz_plot_memory(NULL, &p, err, sizeof err), SIM_EINVAL);
    return 0;
}

int main(void) {
    int failures = 0;
    RUN(test_ticks_linear);
    RUN(test_ticks_log);
    RUN(test_units);
    RUN(test_memory_cats);
    RUN(test_memory_alike);
    RUN(test_memory_differ);
    RUN(test_memory_capacity);
    RUN(test_memory_thinned);
    RUN(test_loss);
    RUN(test_plot_errors);
    return failures != 0;
}
