// tests/test_viz_paint_panels.c: the painted rank, shard and hub panels
// (viz/paint_ranks*.c, paint_shards*.c, paint_hub.c) on a cairo image
// surface, at the pixel boxes of a layout with cells of 9 x 18 pixels,
// from traces of the real engine (DDP, DataParallel, FSDP, ZeRO) and
// hand-made FSDP traces of many units and ranks.
//
//   test_viz_paint_panels ranks     a 4-rank DDP frame: each category's
//                                   colour takes its share of the bar, the
//                                   capacity mark where the capacity is (at
//                                   the end; inside the bar when the ranks
//                                   are past it); bars tweened half way
//   test_viz_paint_panels compact   compact rank lines: bars in proportion,
//                                   the phase chips
//   test_viz_paint_panels shards    after an FSDP all-gather (4 ranks, and
//                                   24 units on 16 ranks by hand): a
//                                   gathered unit shows every owner's colour
//                                   in every rank's bar, a sharded one the
//                                   rank's own colour alone
//   test_viz_paint_panels hub       DataParallel: device 0's frame, and a
//                                   packet per device in its colour while
//                                   the scatter runs, gradients in the reduce
//   test_viz_paint_panels gallery   every panel of every strategy painted
//                                   (DDP, FSDP at 4 and 16 ranks, FSDP with
//                                   CPU offload, ZeRO 1-3, DataParallel at 4
//                                   and 12, many units, compact lines)
//
// With DDPLAB_PAINT_OUT=DIR each frame is also written there as a PNG.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "paint_ranks_internal.h"
#include "paint_shards_internal.h"
#include "scene.h"
#include "test_viz_paint_canvas.h"
#include "test_viz_paint_util.h"

// ---------------------------------------------------------------------------
// ranks

// The runs of colour along row y from x0 to x1 - 1, to stderr (why a bar
// check failed).
static void dump_row(TpcCanvas *c, int y, int x0, int x1) {
    int start = x0;
    for (int x = x0 + 1; x <= x1; x++)
        if (x == x1 || tpc_pixel(c, x, y) != tpc_pixel(c, start, y)) {
            fprintf(stderr, "  x %d..%d: %06x\n", start, x - 1, (unsigned)tpc_pixel(c, start, y));
            start = x;
        }
}

// 1 when the pixel at (x, y) is a mark drawn over a bar (the peak's tick,
// the capacity line).
static int is_mark(TpcCanvas *c, int x, int y) {
    uint32_t v = tpc_pixel(c, x, y);
    return tpc_is(v, viz_ink(VIZ_INK_WARN)) || tpc_is(v, viz_ink(VIZ_INK_TEXT));
}

// Pixels on row y from x0 to x1 - 1 of colour k, of a mark or of the dark
// edge beside a mark.
static int count_with_marks(TpcCanvas *c, int y, int x0, int x1, VizRgba k) {
    int n = 0;
    for (int x = x0; x < x1; x++)
        n += tpc_is(tpc_pixel(c, x, y), k) || is_mark(c, x, y) || is_mark(c, x - 1, y) ||
             is_mark(c, x + 1, y);
    return n;
}

// Rank q's bar in shot sh painted on c, memory m: each category's colour
// over the bar's middle row is its bytes over the scale wide (within two
// pixels; marks drawn over it counted as its), where the categories before
// it end, and nowhere else.
static int check_bar(TpcCanvas *c, VizBox bar, const VizPaintMem *m, int q, double scale) {
    int y = (int)(bar.y + bar.h / 2), n, cats = 0;
    const int *order = viz_paint_mem_order(&n);
    double cum = 0;
    for (int i = 0; i < n; i++) {
        int cat = order[i];
        double want = m->mem[cat] / scale * bar.w;
        double x0 = bar.x + cum / scale * bar.w, x1 = x0 + want;
        cum += m->mem[cat];
        int in = count_with_marks(c, y, (int)round(x0), (int)round(x1), viz_mem_colour(cat));
        int all = tpc_count_row(c, y, (int)bar.x, (int)(bar.x + bar.w), viz_mem_colour(cat));
        int near = tpc_count_row(c, y, (int)round(x0) - 1, (int)round(x1) + 1,
                                 viz_mem_colour(cat));
        if (fabs(in - want) > 2 || all != near) {
            fprintf(stderr, "rank %d category %d: %d pixels (%d in all), want %.1f at %.1f\n",
                    q, cat, in, all, want, x0);
            dump_row(c, y, (int)bar.x, (int)(bar.x + bar.w));
        }
        CHECK(fabs(in - want) <= 2);
        CHECK_EQ_INT(all, near);
        cats += want >= 3;
    }
    CHECK(cats >= 2); // a frame where the bar is stacked
    return 0;
}

// check_bar for rank q as the scene (not tweened) has it.
static int check_rank_bar(TpcCanvas *c, const VizScene *s, VizBox bar, int q, double scale) {
    VizPaintMem m;
    memset(&m, 0, sizeof m);
    for (int cat = 0; cat < SIM_MEM_CAT_COUNT; cat++)
        m.mem[cat] = cat == SIM_MEM_BACKING ? 0 : (double)s->ranks[q].mem[cat];
    return check_bar(c, bar, &m, q, scale);
}

// The capacity mark: the warning ink just above the bar at x.
static int check_cap_mark(TpcCanvas *c, VizBox bar, double x) {
    int y = (int)bar.y - 2, hit = 0;
    for (int dx = -1; dx <= 2; dx++)
        hit |= tpc_is(tpc_pixel(c, (int)x + dx, y), viz_ink(VIZ_INK_WARN));
    CHECK(hit);
    return 0;
}

static int ranks_frame(const VizTrace *t, size_t i, int past, const char *name) {
    TpcShot sh;
    TpcCanvas c;
    int rc = tpc_shot_at(&sh, t, i, 0, 160, 50, 0) || tpc_canvas_open(&c, 1440, 900);
    CHECK(rc == 0);
    tpc_paint_panels(&c, &sh, 0, 0);
    tpc_canvas_save(&c, name);
    double scale = viz_paint_ranks_scale(&c.p, sh.s);
    double cap = (double)t->info.device_capacity;
    CHECK_EQ_INT(sh.l.nboxes, 4);
    for (int k = 0; k < sh.l.nboxes && rc == 0; k++) {
        VizBox box = viz_paint_rank_box(&c.p, viz_paint_box(&c.p, sh.l.box[k]));
        VizBox bar = viz_paint_rank_bar(&c.p, box, 1);
        rc = check_rank_bar(&c, sh.s, bar, k, scale);
        if (rc == 0)
            rc = check_cap_mark(&c, bar, past ? viz_paint_bar_x(bar, cap, scale) : bar.x + bar.w - 2);
    }
    tpc_canvas_close(&c);
    tpc_shot_free(&sh);
    return rc;
}

// Half way to the next instant the param segment is half way between the
// two instants' widths.
static int ranks_tween(const VizTrace *t) {
    // an event where rank 0's parameters or grads change: its gradient alloc
    size_t i = tpaint_find_from(t, tpc_jump(t, 1, VIZ_JUMP_ANY, 0), SIM_EV_MEMORY, NULL, "alloc", 0);
    CHECK(i != SIZE_MAX && i > 0);
    TpcShot sh;
    TpcCanvas c;
    int rc = tpc_shot_at(&sh, t, i - 1, 0, 160, 50, 0) || tpc_canvas_open(&c, 1440, 900);
    CHECK(rc == 0);
    tpc_paint_panels(&c, &sh, 0, 0.5);
    CHECK(sh.next->ranks[0].mem_total != sh.s->ranks[0].mem_total); // something to tween
    VizPaintMem m;
    viz_paint_rank_mem(&c.p, sh.s, 0, &m);
    double scale = viz_paint_ranks_scale(&c.p, sh.s);
    VizBox bar = viz_paint_rank_bar(&c.p, viz_paint_rank_box(&c.p, viz_paint_box(&c.p, sh.l.box[0])), 1);
    double mid = 0;
    for (int cat = 0; cat < SIM_MEM_CAT_COUNT; cat++)
        mid += fabs(m.mem[cat] - ((double)sh.s->ranks[0].mem[cat] + sh.next->ranks[0].mem[cat]) / 2);
    CHECK(mid < 1);
    rc = check_bar(&c, bar, &m, 0, scale);
    tpc_canvas_close(&c);
    tpc_shot_free(&sh);
    return rc;
}

static int test_ranks(void) {
    VizTrace t;
    CHECK(tpc_ddp_trace(&t, 4, 1.6) == 0);
    size_t i = tpc_jump(&t, 1, VIZ_JUMP_BUCKET_LAUNCH, 2);
    int rc = i == SIZE_MAX || ranks_frame(&t, i, 0, "ranks_ddp4");
    // past the capacity: the mark inside the bar, at capacity / largest peak
    t.info.device_capacity /= 3;
    rc |= rc == 0 && ranks_frame(&t, i, 1, "ranks_ddp4_over");
    rc |= rc == 0 && ranks_tween(&t);
    viz_trace_free(&t);
    return rc;
}

// ---------------------------------------------------------------------------
// compact lines

static int test_compact(void) {
    VizTrace t;
    CHECK(tpc_ddp_trace(&t, 4, 1.6) == 0);
    size_t i = tpc_jump(&t, 1, VIZ_JUMP_BUCKET_LAUNCH, 2);
    TpcShot sh;
    TpcCanvas c;
    int rc = i == SIZE_MAX || tpc_shot_at(&sh, &t, i, 1, 90, 12, 1) ||
             tpc_canvas_open(&c, 90 * TPC_CELL_W, 12 * TPC_CELL_H);
    CHECK(rc == 0);
    CHECK(sh.l.compact_ranks);
    CHECK_EQ_INT(sh.l.nboxes, 4);
    tpc_paint_panels(&c, &sh, 1, 0);
    tpc_canvas_save(&c, "compact_ddp4");
    double scale = viz_paint_ranks_scale(&c.p, sh.s);
    for (int k = 0; k < sh.l.nboxes && rc == 0; k++) {
        VizBox slot = viz_paint_box(&c.p, sh.l.box[k]);
        VizBox bar = viz_paint_line_bar(&c.p, slot, sh.s->nranks, 1);
        CHECK(bar.w >= 40);
        rc = check_rank_bar(&c, sh.s, bar, k, scale);
        int y = (int)(slot.y + slot.h / 2);
        CHECK(tpc_count_row(&c, y, (int)slot.x, (int)bar.x,
                            viz_phase_colour(sh.s->ranks[k].phase)) >= 10);
    }
    tpc_canvas_close(&c);
    tpc_shot_free(&sh);
    viz_trace_free(&t);
    return rc;
}

// ---------------------------------------------------------------------------
// shards

// Every shard's middle in rank q's bar of unit u: owner k's colour where
// want_all (or k is the rank's own), and no other owner's colour anywhere in
// the bar otherwise.
static int check_unit_row(TpcCanvas *c, const VizScene *s, VizBox panel, int u, int q,
                          int want_all) {
    VizBox cell;
    int strip;
    CHECK(viz_paint_shards_where(&c->p, s, panel, u, q, &cell, &strip));
    VizBox pb = viz_shard_param_box(cell, strip);
    int g = s->shards.group, own = q % g, y = (int)(pb.y + pb.h / 2);
    for (int k = 0; k < g; k++) {
        double x0 = round(pb.x + pb.w * k / g), x1 = round(pb.x + pb.w * (k + 1) / g);
        uint32_t v = tpc_pixel(c, (int)((x0 + x1) / 2), y);
        if (want_all || k == own)
            CHECK(tpc_is(v, viz_rank_colour(k)));
        // (the palette's 12 hues repeat: owner k + 12 looks like owner k)
        int same = k % 12 == own % 12;
        for (int x = (int)pb.x; !want_all && !same && x < (int)(pb.x + pb.w); x++) {
            if (tpc_is(tpc_pixel(c, x, y), viz_rank_colour(k)))
                fprintf(stderr, "unit %d rank %d: owner %d's colour at x %d (bar %g..%g)\n", u,
                        q, k, x, pb.x, pb.x + pb.w);
            CHECK(!tpc_is(tpc_pixel(c, x, y), viz_rank_colour(k)));
        }
    }
    return 0;
}

// A unit that is sharded on every rank, or -1.
static int sharded_unit(const VizScene *s) {
    const VizShards *sd = &s->shards;
    for (int v = 0; v < sd->nunits; v++) {
        int all = 1;
        for (int q = 0; q < s->nranks; q++)
            all &= sd->state[(size_t)v * (size_t)s->nranks + (size_t)q] == VIZ_SHARD_SHARDED;
        if (all)
            return v;
    }
    return -1;
}

// At event i of t unit u is gathered on every rank: its bar on each shows
// every owner's colour, and a sharded unit's the rank's own alone.
static int shards_frame(const VizTrace *t, size_t i, int u, const char *name) {
    TpcShot sh;
    TpcCanvas c;
    int rc = tpc_shot_at(&sh, t, i, 0, 160, 50, 0) || tpc_canvas_open(&c, 1440, 900);
    CHECK(rc == 0);
    const VizShards *sd = &sh.s->shards;
    int R = sh.s->nranks;
    CHECK(sd->nunits >= 2 && sd->group == R);
    tpc_paint_panels(&c, &sh, 0, 0);
    tpc_canvas_save(&c, name);
    VizBox panel = viz_paint_box(&c.p, sh.l.shards);
    for (int q = 0; q < R && rc == 0; q++) {
        CHECK_EQ_INT(sd->state[(size_t)u * (size_t)R + (size_t)q], VIZ_SHARD_GATHERED);
        rc = check_unit_row(&c, sh.s, panel, u, q, 1);
    }
    int v = sharded_unit(sh.s);
    CHECK(v >= 0);
    for (int q = 0; q < R && rc == 0; q++)
        rc = check_unit_row(&c, sh.s, panel, v, q, 0);
    tpc_canvas_close(&c);
    tpc_shot_free(&sh);
    return rc;
}

static int test_shards(void) {
    VizTrace t;
    CHECK(tpaint_run(&t, "fsdp", 4, TPC_MLP, 2, 1u << 30) == SIM_OK);
    // unit u gathered on every rank: the last rank's "gathered" after the
    // first gather of iteration 1
    size_t g = tpc_jump(&t, 1, VIZ_JUMP_GATHER, 1);
    CHECK(g != SIZE_MAX);
    int u = t.ev[g].step;
    size_t i = tpaint_find_from(&t, g, SIM_EV_SHARD, NULL, "gathered", 3);
    CHECK(i != SIZE_MAX && t.ev[i].step == u);
    int rc = shards_frame(&t, i, u, "shards_fsdp4_gathered");
    viz_trace_free(&t);
    // 24 units on 16 ranks, shards of 3 pixels: unit 10 ends gathered
    CHECK(tpaint_shard_trace(&t, 16, 24, 10) == SIM_OK);
    rc |= rc == 0 && shards_frame(&t, t.n - 1, 10, "shards_24x16_gathered");
    viz_trace_free(&t);
    return rc;
}

// ---------------------------------------------------------------------------
// hub

// Pixels of colour k in box b of c.
static int count_box(TpcCanvas *c, VizBox b, VizRgba k) {
    int n = 0;
    for (int y = (int)b.y; y < (int)(b.y + b.h); y++)
        n += tpc_count_row(c, y, (int)b.x, (int)(b.x + b.w), k);
    return n;
}

// DataParallel at rank 0's first send of step `mark` in iteration 1, half
// way to the next instant: the hub panel has each packet colour it should.
static int hub_frame(const VizTrace *t, const char *mark, const int *ranks, int n, int grad) {
    size_t m = tpaint_find_from(t, tpc_jump(t, 1, VIZ_JUMP_ANY, 0), SIM_EV_MARKER, mark, NULL, 0);
    size_t i = tpc_coll_after(t, m, SIM_EV_COLL, 3);
    CHECK(m != SIZE_MAX && i != m);
    TpcShot sh;
    TpcCanvas c;
    int rc = tpc_shot_at(&sh, t, i, 0, 160, 50, 0) || tpc_canvas_open(&c, 1440, 900);
    CHECK(rc == 0);
    CHECK(sh.s->hub.active && sh.s->coll.running);
    tpc_paint_panels(&c, &sh, 0, 0.5);
    VizBox hub = viz_paint_box(&c.p, sh.l.hub);
    CHECK(hub.w > 0 && hub.h > 0);
    CHECK(count_box(&c, hub, viz_ink(VIZ_INK_SELECTED)) > 100); // device 0's frame
    for (int k = 0; k < n; k++)
        CHECK(count_box(&c, hub, viz_rank_colour(ranks[k])) >= 20); // a packet each
    if (grad)
        CHECK(count_box(&c, hub, viz_mem_colour(SIM_MEM_GRAD)) >= 20 * n);
    tpc_canvas_close(&c);
    tpc_shot_free(&sh);
    return rc;
}

static int test_hub(void) {
    VizTrace t;
    CHECK(tpaint_run(&t, "dp", 4, TPC_MLP, 2, 0) == SIM_OK);
    static const int slices[] = {1, 2, 3};
    int rc = hub_frame(&t, "dp.scatter", slices, 3, 0);   // each device's slice
    rc |= rc == 0 && hub_frame(&t, "dp.reduce", NULL, 0, 1); // gradients
    viz_trace_free(&t);
    return rc;
}

int main(int argc, char **argv) {
    const char *part = argc > 1 ? argv[1] : "all";
    int all = strcmp(part, "all") == 0, rc = 0, known = all;
    static const struct {
        const char *name;
        int (*fn)(void);
    } parts[] = {
        {"ranks", test_ranks},
        {"compact", test_compact},
        {"shards", test_shards},
        {"hub", test_hub},
        {"gallery", tpc_gallery},
    };
    for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++) {
        if (!all && strcmp(part, parts[k].name) != 0)
            continue;
        known = 1;
        int r = parts[k].fn();
        fprintf(stderr, "%s: %s\n", parts[k].name, r ? "FAILED" : "ok");
        rc |= r;
    }
    if (!known) {
        fprintf(stderr, "no part %s\n", part);
        return 2;
    }
    return rc;
}
