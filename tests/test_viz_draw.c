// tests/test_viz_draw.c: the canvas, the layout and the panel drawers, on
// hand-built scenes (tests/test_viz_hand.h); no terminal, no trace.
//
//   test_viz_draw canvas   clipping, UTF-8, text, wrap, bars, boxes and
//                          arrows in both modes, writing lines out
//   test_viz_draw layout   80x24, 120x40, 200x60 (and natural height) for
//                          1, 2, 4, 16, 64 ranks and DDP / FSDP / DP scenes:
//                          rectangles inside the grid and apart, the
//                          selected rank shown, more room shows more; too
//                          small a grid refused with its message
//   test_viz_draw draw     a DDP scene, a ring at R = 4, FSDP, DP, other
//                          topologies and the help overlay drawn, with the
//                          expected strings where the layout put them; the
//                          header and the timeline legend on narrow views
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "draw_internal.h"
#include "layout.h"
#include "test_viz_hand.h"

static int failures = 0;

// Row y of c from column x, n cells (n < 0: to the end), as UTF-8.
static const char *row(const VizCanvas *c, int x, int y, int n) {
    static char buf[8192];
    size_t o = 0;
    if (n < 0)
        n = c->w - x;
    for (int k = 0; k < n && x + k < c->w; k++) {
        const VizCell *cell = viz_canvas_at(c, x + k, y);
        if (!cell)
            break;
        o += (size_t)viz_utf8_encode(cell->ch, buf + o);
        if (o > sizeof buf - 8)
            break;
    }
    buf[o] = '\0';
    return buf;
}

// The canvas as text (as viz_canvas_write writes it), into a malloc'd string.
static char *canvas_text(const VizCanvas *c) {
    char *s = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&s, &n);
    if (!f)
        return NULL;
    viz_canvas_write(c, f);
    fclose(f);
    return s;
}

static void dump(const VizCanvas *c) {
    char *t = canvas_text(c);
    fprintf(stderr, "%s", t ? t : "(no memory)\n");
    free(t);
}

// ---------------------------------------------------------------------------
// canvas

static int test_utf8(void) {
    const uint32_t cps[] = {0x41, 0xE9, 0x2500, 0x1F600};
    const int lens[] = {1, 2, 3, 4};
    for (int i = 0; i < 4; i++) {
        char buf[8];
        CHECK_EQ_INT(viz_utf8_encode(cps[i], buf), lens[i]);
        const char *p = buf;
        CHECK_EQ_INT(viz_utf8_next(&p), cps[i]);
        CHECK(p == buf + lens[i]);
    }
    const char *bad = "\xff" "A";
    CHECK_EQ_INT(viz_utf8_next(&bad), 0xFFFD);
    CHECK_EQ_INT(viz_utf8_next(&bad), 'A');
    const char *trunc = "\xe2\x94";
    CHECK_EQ_INT(viz_utf8_next(&trunc), 0xFFFD);
    CHECK_EQ_INT(*trunc, (char)0x94);
    const char *overlong = "\xc0\x80";
    CHECK_EQ_INT(viz_utf8_next(&overlong), 0xFFFD);
    CHECK_EQ_INT(viz_utf8_cells("h\xc3\xa9llo\nx"), 5);
    char e[32];
    CHECK_EQ_INT(viz_elide("abcdefgh", 6, e, sizeof e), 6);
    CHECK(strcmp(e, "abc...") == 0);
    CHECK_EQ_INT(viz_elide("abc", 6, e, sizeof e), 3);
    CHECK(strcmp(e, "abc") == 0);
    CHECK_EQ_INT(viz_elide("abcdef", 2, e, sizeof e), 2);
    CHECK(strcmp(e, "..") == 0);
    char by[32];
    viz_fmt_bytes(4198400, by, sizeof by);
    CHECK(strcmp(by, "4.00 MiB") == 0);
    viz_fmt_bytes(512, by, sizeof by);
    CHECK(strcmp(by, "512 B") == 0);
    viz_fmt_bytes(1023 * 1024 + 1000, by, sizeof by);
    CHECK(strcmp(by, "1.00 MiB") == 0);
    viz_fmt_time(2.5e-3, by, sizeof by);
    CHECK(strcmp(by, "2.50 ms") == 0);
    return 0;
}

static int test_clip_text(void) {
    VizCanvas c;
    CHECK_EQ_INT(viz_canvas_init(&c, 10, 3, 0), SIM_OK);
    CHECK_EQ_INT(viz_canvas_init(&(VizCanvas){0}, 0, 3, 0), SIM_EINVAL);
    viz_canvas_put(&c, -1, 0, 'x', VIZ_STYLE_NORMAL);
    viz_canvas_put(&c, 10, 0, 'x', VIZ_STYLE_NORMAL);
    viz_canvas_put(&c, 0, 3, 'x', VIZ_STYLE_NORMAL);
    viz_canvas_put(&c, 0, -1, 'x', VIZ_STYLE_NORMAL);
    CHECK(viz_canvas_at(&c, -1, 0) == NULL);
    CHECK(viz_canvas_at(&c, 10, 0) == NULL);
    CHECK(viz_canvas_at(&c, 0, 3) == NULL);
    for (int y = 0; y < 3; y++)
        CHECK(strcmp(row(&c, 0, y, -1), "          ") == 0);
    // ASCII canvas: non-ASCII text becomes '?', drawing glyphs their stand-ins.
    CHECK_EQ_INT(viz_canvas_text(&c, 0, 0, -1, VIZ_STYLE_TITLE, "h\xc3\xa9llo"), 5);
    CHECK(strcmp(row(&c, 0, 0, 5), "h?llo") == 0);
    CHECK_EQ_INT(viz_canvas_at(&c, 0, 0)->style, VIZ_STYLE_TITLE);
    viz_canvas_put(&c, 9, 0, 0x2500, VIZ_STYLE_NORMAL);
    CHECK_EQ_INT(viz_canvas_at(&c, 9, 0)->ch, '-');
    // Clipped at the right edge and at maxw; a newline ends the text.
    CHECK_EQ_INT(viz_canvas_text(&c, 7, 1, -1, VIZ_STYLE_NORMAL, "abcdef"), 3);
    CHECK(strcmp(row(&c, 0, 1, -1), "       abc") == 0);
    CHECK_EQ_INT(viz_canvas_text(&c, 0, 2, 2, VIZ_STYLE_NORMAL, "xyz"), 2);
    CHECK_EQ_INT(viz_canvas_text(&c, 4, 2, -1, VIZ_STYLE_NORMAL, "ab\ncd"), 2);
    CHECK_EQ_INT(viz_canvas_printf(&c, -2, 2, -1, VIZ_STYLE_NORMAL, "%d", 1234), 4);
    CHECK(strcmp(row(&c, 0, 2, -1), "34  ab    ") == 0);
    // Unicode canvas keeps the code point; control characters never land.
    VizCanvas u;
    CHECK_EQ_INT(viz_canvas_init(&u, 8, 2, 1), SIM_OK);
    viz_canvas_text(&u, 0, 0, -1, VIZ_STYLE_NORMAL, "h\xc3\xa9\xe2\x94\x80\t!");
    CHECK_EQ_INT(viz_canvas_at(&u, 1, 0)->ch, 0xE9);
    CHECK_EQ_INT(viz_canvas_at(&u, 2, 0)->ch, 0x2500);
    CHECK_EQ_INT(viz_canvas_at(&u, 3, 0)->ch, '?');
    CHECK_EQ_INT(viz_canvas_at(&u, 4, 0)->ch, '!');
    // Resize blanks; write trims trailing blanks and blank lines.
    CHECK_EQ_INT(viz_canvas_resize(&c, 6, 4), SIM_OK);
    CHECK_EQ_INT(c.w, 6);
    viz_canvas_text(&c, 1, 1, -1, VIZ_STYLE_NORMAL, "hi");
    char *t = canvas_text(&c);
    CHECK(t && strcmp(t, "\n hi\n") == 0);
    free(t);
    char *tu = canvas_text(&u);
    CHECK(tu && strcmp(tu, "h\xc3\xa9\xe2\x94\x80?!\n") == 0);
    free(tu);
    viz_canvas_free(&c);
    viz_canvas_free(&u);
    CHECK(c.cells == NULL);
    return 0;
}

static int test_wrap(void) {
    VizCanvas c;
    CHECK_EQ_INT(viz_canvas_init(&c, 12, 4, 0), SIM_OK);
    CHECK_EQ_INT(viz_wrap_lines("a b c", 3), 2);
    CHECK_EQ_INT(viz_wrap_lines("abcdefghij", 4), 3);
    CHECK_EQ_INT(viz_wrap_lines("one\n\ntwo", 10), 3);
    CHECK_EQ_INT(viz_wrap_lines("", 10), 0);
    VizRect r = {1, 0, 10, 2};
    CHECK_EQ_INT(viz_canvas_wrap(&c, r, VIZ_STYLE_CAPTION, "the quick brown fox jumps"), 2);
    CHECK(strcmp(row(&c, 1, 0, 10), "the quick ") == 0);
    CHECK(strcmp(row(&c, 1, 1, 10), "brown f...") == 0);
    CHECK_EQ_INT(viz_canvas_at(&c, 1, 0)->style, VIZ_STYLE_CAPTION);
    CHECK(strcmp(row(&c, 0, 2, -1), "            ") == 0);
    viz_canvas_clear(&c);
    // A cut line with room left gets the dots right after its last word.
    CHECK_EQ_INT(viz_canvas_wrap(&c, (VizRect){0, 0, 12, 1}, VIZ_STYLE_NORMAL, "ab cdefghijkl"), 1);
    CHECK(strcmp(row(&c, 0, 0, -1), "ab...       ") == 0);
    viz_canvas_clear(&c);
    CHECK_EQ_INT(viz_canvas_wrap(&c, (VizRect){0, 0, 4, 4}, VIZ_STYLE_NORMAL, "abcdefghij"), 3);
    CHECK(strcmp(row(&c, 0, 2, 4), "ij  ") == 0);
    viz_canvas_free(&c);
    return 0;
}

static int test_bars_boxes(void) {
    VizCanvas a, u;
    CHECK_EQ_INT(viz_canvas_init(&a, 8, 4, 0), SIM_OK);
    CHECK_EQ_INT(viz_canvas_init(&u, 8, 4, 1), SIM_OK);
    viz_canvas_fill(&a, (VizRect){0, 0, 8, 1}, '.', VIZ_STYLE_DIM);
    viz_canvas_bar(&a, 0, 0, 4, 0.5, VIZ_STYLE_DONE);
    CHECK(strcmp(row(&a, 0, 0, -1), "##......") == 0);
    viz_canvas_bar(&a, 0, 1, 4, 1.7, VIZ_STYLE_DONE);
    CHECK(strcmp(row(&a, 0, 1, -1), "####    ") == 0);
    viz_canvas_bar(&a, 0, 2, 4, -1, VIZ_STYLE_DONE);
    CHECK(strcmp(row(&a, 0, 2, -1), "        ") == 0);
    // Eighths: 17/32 of 4 cells = 17 eighths = 2 full + 1/8.
    viz_canvas_bar(&u, 0, 0, 4, 17.0 / 32, VIZ_STYLE_DONE);
    CHECK_EQ_INT(viz_canvas_at(&u, 0, 0)->ch, 0x2588);
    CHECK_EQ_INT(viz_canvas_at(&u, 1, 0)->ch, 0x2588);
    CHECK_EQ_INT(viz_canvas_at(&u, 2, 0)->ch, 0x258F);
    CHECK_EQ_INT(viz_canvas_at(&u, 3, 0)->ch, ' ');
    viz_canvas_bar(&u, 0, 1, 4, 7.0 / 32, VIZ_STYLE_DONE);
    CHECK_EQ_INT(viz_canvas_at(&u, 0, 1)->ch, 0x2589);
    CHECK_EQ_INT(viz_canvas_at(&u, 0, 1)->style, VIZ_STYLE_DONE);
    viz_canvas_free(&a);
    viz_canvas_free(&u);

    CHECK_EQ_INT(viz_canvas_init(&a, 10, 4, 0), SIM_OK);
    CHECK_EQ_INT(viz_canvas_init(&u, 10, 4, 1), SIM_OK);
    viz_canvas_box(&a, (VizRect){0, 0, 8, 3}, VIZ_STYLE_DIM, "ab");
    CHECK(strcmp(row(&a, 0, 0, 8), "+- ab -+") == 0);
    CHECK(strcmp(row(&a, 0, 1, 8), "|      |") == 0);
    CHECK(strcmp(row(&a, 0, 2, 8), "+------+") == 0);
    CHECK_EQ_INT(viz_canvas_at(&a, 3, 0)->style, VIZ_STYLE_TITLE);
    // A long title is elided inside the frame.
    viz_canvas_box(&a, (VizRect){0, 0, 10, 3}, VIZ_STYLE_DIM, "a long title");
    CHECK(strcmp(row(&a, 0, 0, 10), "+- a... -+") == 0);
    viz_canvas_box(&u, (VizRect){1, 0, 6, 3}, VIZ_STYLE_DIM, NULL);
    CHECK(strcmp(row(&u, 1, 0, 6), "\xe2\x94\x8c\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80"
                                   "\xe2\x94\x90") == 0);
    CHECK_EQ_INT(viz_canvas_at(&u, 1, 2)->ch, 0x2514);
    CHECK_EQ_INT(viz_canvas_at(&u, 6, 2)->ch, 0x2518);
    CHECK_EQ_INT(viz_canvas_at(&u, 6, 1)->ch, 0x2502);
    viz_canvas_hline(&a, 0, 3, 3, VIZ_STYLE_DIM);
    CHECK(strcmp(row(&a, 0, 3, 4), "--- ") == 0);
    // Clipped box partly outside.
    viz_canvas_box(&a, (VizRect){7, 2, 6, 4}, VIZ_STYLE_DIM, "x");
    CHECK_EQ_INT(viz_canvas_at(&a, 7, 2)->ch, '+');
    viz_canvas_free(&a);
    viz_canvas_free(&u);

    // Arrows: an L (right, then down), a straight one to the left, up.
    CHECK_EQ_INT(viz_canvas_init(&a, 8, 4, 0), SIM_OK);
    viz_canvas_arrow(&a, 0, 0, 4, 2, VIZ_STYLE_CHUNK);
    CHECK(strcmp(row(&a, 0, 0, 6), "----+ ") == 0);
    CHECK(strcmp(row(&a, 0, 1, 6), "    | ") == 0);
    CHECK(strcmp(row(&a, 0, 2, 6), "    v ") == 0);
    viz_canvas_clear(&a);
    viz_canvas_arrow(&a, 6, 1, 1, 1, VIZ_STYLE_CHUNK);
    CHECK(strcmp(row(&a, 0, 1, -1), " <----- ") == 0);
    viz_canvas_arrow(&a, 7, 3, 7, 0, VIZ_STYLE_CHUNK);
    CHECK_EQ_INT(viz_canvas_at(&a, 7, 0)->ch, '^');
    CHECK_EQ_INT(viz_canvas_at(&a, 7, 2)->ch, '|');
    viz_canvas_free(&a);
    CHECK_EQ_INT(viz_canvas_init(&u, 8, 4, 1), SIM_OK);
    viz_canvas_arrow(&u, 0, 0, 4, 2, VIZ_STYLE_CHUNK);
    CHECK_EQ_INT(viz_canvas_at(&u, 4, 0)->ch, 0x2510);
    CHECK_EQ_INT(viz_canvas_at(&u, 4, 2)->ch, 0x25BC);
    viz_canvas_free(&u);
    return 0;
}

// ---------------------------------------------------------------------------
// layout

static int inside(VizRect r, int w, int h) {
    if (r.w <= 0 || r.h <= 0)
        return 1;
    return r.x >= 0 && r.y >= 0 && r.x + r.w <= w && r.y + r.h <= h;
}

static int apart(VizRect a, VizRect b) {
    if (a.w <= 0 || a.h <= 0 || b.w <= 0 || b.h <= 0)
        return 1;
    return a.x + a.w <= b.x || b.x + b.w <= a.x || a.y + a.h <= b.y || b.y + b.h <= a.y;
}

static int within(VizRect in, VizRect out) {
    return in.x >= out.x && in.y >= out.y && in.x + in.w <= out.x + out.w &&
           in.y + in.h <= out.y + out.h;
}

typedef void (*SceneFn)(THand *h, int R);

// Every property one layout must have.
static int check_layout(const VizLayout *l, const VizScene *s, int W, int H, int sel,
                        const char *what) {
    int gh = H ? H : l->h;
    const VizRect *p[] = {&l->header, &l->ranks,    &l->buckets,   &l->coll,  &l->shards,
                          &l->hub,    &l->timeline, &l->narrative, &l->status};
    const char *names[] = {"header", "ranks", "buckets", "coll", "shards",
                           "hub", "timeline", "narrative", "status"};
    int n = (int)(sizeof p / sizeof p[0]);
    for (int i = 0; i < n; i++) {
        if (!inside(*p[i], W, gh)) {
            fprintf(stderr, "%s: %s {%d,%d,%d,%d} outside %dx%d\n", what, names[i], p[i]->x,
                    p[i]->y, p[i]->w, p[i]->h, W, gh);
            return 1;
        }
        for (int j = i + 1; j < n; j++)
            if (!apart(*p[i], *p[j])) {
                fprintf(stderr, "%s: %s overlaps %s\n", what, names[i], names[j]);
                return 1;
            }
    }
    // The essential panels.
    CHECK_EQ_INT(l->header.h, 1);
    CHECK(l->ranks.h >= 4);
    CHECK(l->timeline.h >= 3);
    CHECK(l->narrative.h >= 1);
    CHECK_EQ_INT(l->status.h, H ? 1 : 0);
    if (s->nbuckets)
        CHECK(l->buckets.h >= 3);
    if (s->coll.active)
        CHECK(l->coll.h >= 5);
    if (s->shards.nunits)
        CHECK(l->shards.h >= 3 + (s->nranks < 2 ? s->nranks : 2));
    if (s->hub.active)
        CHECK(l->hub.h >= 5);
    CHECK(l->timeline_cols >= 60);
    CHECK(l->timeline_x + l->timeline_cols <= W);
    // Rank boxes: inside the panel, apart, the selected one among them.
    CHECK(l->nboxes >= 1 && l->nboxes <= VIZ_LAYOUT_MAX_BOXES);
    CHECK(l->first_box <= sel && sel < l->first_box + l->nboxes);
    CHECK(l->first_box + l->nboxes <= s->nranks);
    for (int k = 0; k < l->nboxes; k++) {
        CHECK(l->box[k].w >= 20 && l->box[k].h >= 4);
        CHECK(within(l->box[k], l->ranks));
        for (int j = k + 1; j < l->nboxes; j++)
            CHECK(apart(l->box[k], l->box[j]));
    }
    if (l->nboxes < s->nranks)
        CHECK(l->box[0].y == l->ranks.y + 1); // the "ranks a..b of R" line
    // Diagram nodes likewise.
    if (s->coll.active) {
        CHECK(l->nnodes >= 1);
        CHECK(l->first_node <= sel && sel < l->first_node + l->nnodes);
        for (int k = 0; k < l->nnodes; k++) {
            if (!within(l->node[k], l->coll)) {
                fprintf(stderr, "%s: node %d {%d,%d,%d,%d} outside coll {%d,%d,%d,%d}\n", what, k,
                        l->node[k].x, l->node[k].y, l->node[k].w, l->node[k].h, l->coll.x,
                        l->coll.y, l->coll.w, l->coll.h);
                return 1;
            }
            for (int j = k + 1; j < l->nnodes; j++)
                CHECK(apart(l->node[k], l->node[j]));
        }
    }
    return 0;
}

static int test_layout_grid(void) {
    const int sizes[][2] = {{80, 24}, {120, 40}, {200, 60}, {80, 0}, {100, 0}, {200, 0}};
    const int Rs[] = {1, 2, 4, 16, 64};
    SceneFn fns[] = {thand_ddp, thand_fsdp, thand_dp};
    const char *fnames[] = {"ddp", "fsdp", "dp"};
    THand *h = malloc(sizeof *h);
    CHECK(h);
    int rc = 0;
    for (size_t f = 0; f < 3 && !rc; f++)
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0] && !rc; z++)
            for (size_t k = 0; k < sizeof Rs / sizeof Rs[0] && !rc; k++) {
                int R = Rs[k];
                fns[f](h, R);
                const int sels[] = {0, R / 2, R - 1};
                for (int i = 0; i < 3 && !rc; i++) {
                    VizLayout l;
                    char what[96];
                    snprintf(what, sizeof what, "%s %dx%d R=%d sel=%d", fnames[f], sizes[z][0],
                             sizes[z][1], R, sels[i]);
                    if (!viz_layout(&h->s, sizes[z][0], sizes[z][1], sels[i], &l)) {
                        fprintf(stderr, "%s: refused: %s\n", what, l.why);
                        rc = 1;
                        break;
                    }
                    rc = check_layout(&l, &h->s, sizes[z][0], sizes[z][1], sels[i], what);
                    if (rc)
                        fprintf(stderr, "in %s\n", what);
                    // Drawing it stays inside the canvas (ASan would tell).
                    VizCanvas c;
                    if (!rc && viz_canvas_init(&c, l.w, l.h, (int)(k & 1)) == SIM_OK) {
                        VizDrawOpts o = {.selected_rank = sels[i], .help = (int)(i == 1)};
                        viz_draw(&c, &l, &h->s, &o);
                        viz_canvas_free(&c);
                    }
                }
            }
    free(h);
    return rc;
}

static int test_layout_rules(void) {
    THand *h = malloc(sizeof *h);
    CHECK(h);
    VizLayout l, big;
    // 80x24, 4 ranks: all four boxes in one row, every essential panel.
    thand_ddp(h, 4);
    CHECK(viz_layout(&h->s, 80, 24, 0, &l));
    CHECK_EQ_INT(l.nboxes, 4);
    CHECK_EQ_INT(l.box[0].w, 20);
    CHECK_EQ_INT(l.status.y, 23);
    CHECK_EQ_INT(l.nnodes, 4);
    // More room, more of everything; side by side at 200 columns.
    CHECK(viz_layout(&h->s, 200, 60, 0, &big));
    CHECK(big.coll.x > 0 && big.coll.y == big.buckets.y);
    CHECK(big.node[0].h == 3);
    CHECK(big.timeline.h > l.timeline.h);
    CHECK(big.timeline_cols > l.timeline_cols);
    thand_ddp(h, 64);
    CHECK(viz_layout(&h->s, 80, 24, 63, &l));
    CHECK(viz_layout(&h->s, 200, 60, 63, &big));
    CHECK(big.nboxes > l.nboxes);
    CHECK_EQ_INT(l.first_box + l.nboxes, 64);
    VizLayout mid;
    CHECK(viz_layout(&h->s, 120, 40, 17, &mid));
    CHECK(mid.nboxes > l.nboxes);
    CHECK(mid.first_box <= 17 && 17 < mid.first_box + mid.nboxes);
    // Natural height shows every rank.
    CHECK(viz_layout(&h->s, 100, 0, 5, &l));
    CHECK_EQ_INT(l.nboxes, 64);
    CHECK_EQ_INT(l.first_box, 0);
    CHECK(l.h == l.narrative.y + l.narrative.h);
    thand_ddp(h, 16);
    CHECK(viz_layout(&h->s, 120, 40, 9, &l));
    CHECK_EQ_INT(l.nboxes, 16);
    // A scene with every panel at once still fits the grid.
    THand *f = malloc(sizeof *f);
    CHECK(f);
    thand_fsdp(f, 4);
    thand_ddp(h, 4);
    h->s.shards = f->s.shards;
    h->s.hub.active = 1;
    h->s.hub.step = "dp.reduce";
    const int every[][2] = {{80, 24}, {120, 40}, {200, 60}, {100, 0}};
    for (int k = 0; k < 4; k++) {
        CHECK(viz_layout(&h->s, every[k][0], every[k][1], 3, &l));
        int H = every[k][1] ? every[k][1] : l.h;
        const VizRect *p[] = {&l.header, &l.ranks,    &l.buckets,   &l.coll, &l.shards,
                              &l.hub,    &l.timeline, &l.narrative, &l.status};
        for (int i = 0; i < 9; i++) {
            CHECK(inside(*p[i], every[k][0], H));
            for (int j = i + 1; j < 9; j++)
                CHECK(apart(*p[i], *p[j]));
        }
        VizCanvas c;
        CHECK_EQ_INT(viz_canvas_init(&c, l.w, l.h, 0), SIM_OK);
        viz_draw(&c, &l, &h->s, &(VizDrawOpts){.selected_rank = 3});
        viz_canvas_free(&c);
    }
    free(f);
    thand_ddp(h, 16);
    // Too small.
    CHECK(!viz_layout(&h->s, 79, 24, 0, &l));
    CHECK(strcmp(l.why, "the terminal is 79x24; ddplab needs at least 80x24") == 0);
    CHECK(!viz_layout(&h->s, 80, 23, 0, &l));
    CHECK(strcmp(l.why, "the terminal is 80x23; ddplab needs at least 80x24") == 0);
    CHECK(!viz_layout(&h->s, 70, 0, 0, &l));
    CHECK_STR_CONTAINS(l.why, "at least 80 columns");
    // The message is what gets drawn.
    VizCanvas c;
    CHECK_EQ_INT(viz_canvas_init(&c, 79, 24, 0), SIM_OK);
    CHECK(!viz_layout(&h->s, 79, 24, 0, &l));
    viz_draw(&c, &l, &h->s, NULL);
    char *t = canvas_text(&c);
    CHECK_STR_CONTAINS(t, "the terminal is 79x24; ddplab needs at least 80x24");
    free(t);
    viz_canvas_free(&c);
    free(h);
    return 0;
}

// ---------------------------------------------------------------------------
// drawing

static int contains_at(const VizCanvas *c, int x, int y, const char *want) {
    const char *got = row(c, x, y, viz_utf8_cells(want));
    if (strcmp(got, want) != 0) {
        fprintf(stderr, "at (%d,%d): want \"%s\", got \"%s\"; row: \"%s\"\n", x, y, want, got,
                row(c, 0, y, -1));
        return 0;
    }
    return 1;
}

static int row_has(const VizCanvas *c, int y, const char *want) {
    if (!strstr(row(c, 0, y, -1), want)) {
        fprintf(stderr, "row %d lacks \"%s\": \"%s\"\n", y, want, row(c, 0, y, -1));
        return 0;
    }
    return 1;
}

static int rect_has(const VizCanvas *c, VizRect r, const char *want) {
    for (int y = r.y; y < r.y + r.h; y++)
        if (strstr(row(c, r.x, y, r.w), want))
            return 1;
    fprintf(stderr, "rect {%d,%d,%d,%d} lacks \"%s\"\n", r.x, r.y, r.w, r.h, want);
    return 0;
}

static int draw_at(THand *h, int w, int hh, int unicode, int sel, VizCanvas *c, VizLayout *l) {
    if (!viz_layout(&h->s, w, hh, sel, l))
        return 1;
    if (viz_canvas_init(c, l->w, l->h, unicode) != SIM_OK)
        return 1;
    VizDrawOpts o = {.selected_rank = sel};
    viz_draw(c, l, &h->s, &o);
    return 0;
}

static int test_draw_ddp(void) {
    THand *h = malloc(sizeof *h);
    CHECK(h);
    thand_ddp(h, 4);
    VizCanvas c;
    VizLayout l;
    CHECK_EQ_INT(draw_at(h, 120, 40, 0, 0, &c, &l), 0);
    if (getenv("DDPLAB_TEST_SHOW"))
        dump(&c);
    int rc = 1;
    do {
        if (!row_has(&c, 0, "ddplab") || !row_has(&c, 0, "iter 1 (0-2)") ||
            !row_has(&c, 0, "event 120/590") || !row_has(&c, 0, "t=2.50 ms") ||
            !row_has(&c, 0, "loss 0.6931") || !row_has(&c, 0, "[dgx-a100]"))
            break;
        int bad = 0;
        for (int k = 0; k < l.nboxes && !bad; k++) {
            VizRect b = l.box[k];
            char t[32];
            snprintf(t, sizeof t, "rank %d", k);
            bad |= !contains_at(&c, b.x + 3, b.y, t);
            bad |= !contains_at(&c, b.x + 2, b.y + 1, "backward");
            // 558 MiB of 1 GiB: 54%, params first.
            bad |= !contains_at(&c, b.x + 2, b.y + 2, "PP");
            bad |= !contains_at(&c, b.x + b.w - 6, b.y + 2, " 54%");
            bad |= !contains_at(&c, b.x + 2, b.y + 3, "558 MiB  peak 658 MiB");
        }
        // The selected box is drawn with '=' edges.
        bad |= !contains_at(&c, l.box[0].x, l.box[0].y, "+= rank 0 =");
        bad |= !contains_at(&c, l.box[1].x, l.box[1].y, "+- rank 1 -");
        bad |= !contains_at(&c, l.box[3].x + 2, l.box[3].y + 1, "backward linear (slow) ...");
        bad |= !row_has(&c, l.ranks.y + l.ranks.h - 1, "memory:  P params  G grads");
        if (bad)
            break;
        VizRect bk = l.buckets;
        if (!contains_at(&c, bk.x + 1, bk.y,
                         "Buckets on rank 0 (rebuilt in iteration 1, gradient-ready order; "
                         "all_reduce launched in index order)") ||
            !contains_at(&c, bk.x + 1, bk.y + 1, " #0  6.bias 6.weight 4.bias 4.weight") ||
            !row_has(&c, bk.y + 1, "4.04 MiB [########################] done") ||
            !contains_at(&c, bk.x + 1, bk.y + 2, ">#1  2.bias 2.weight") ||
            !row_has(&c, bk.y + 2, "4.00 MiB [############............] reducing 50%, step 3/6") ||
            !row_has(&c, bk.y + 3, "3.07 MiB [........................] reducing 0%; r3 filling 1/2"))
            break;
        VizRect co = l.coll;
        if (!contains_at(&c, co.x + 1, co.y,
                         "AllReduce (ring) of bucket #1, 4.00 MiB: reduce-scatter step 3 of 3 (step 3 of "
                         "6 in all)"))
            break;
        // Ring at step 2: rank r sends chunk (r - 2) mod 4, holding r-2..r.
        for (int q = 0; q < 4 && !bad; q++) {
            VizRect nd = l.node[q];
            char t[32], held[32];
            snprintf(t, sizeof t, "rank %d", q);
            int ch = (q + 2) % 4;
            snprintf(held, sizeof held, "c%d:r%d+r%d+r%d", ch, (q + 2) % 4, (q + 3) % 4, q);
            // contributions print in rank order
            int a[3] = {(q + 2) % 4, (q + 3) % 4, q};
            for (int i = 0; i < 3; i++)
                for (int j = i + 1; j < 3; j++)
                    if (a[j] < a[i]) {
                        int x = a[i];
                        a[i] = a[j];
                        a[j] = x;
                    }
            snprintf(held, sizeof held, "c%d:r%d+r%d+r%d", ch, a[0], a[1], a[2]);
            bad |= !contains_at(&c, nd.x + 3, nd.y, t);
            bad |= !contains_at(&c, nd.x + 2, nd.y + 1, held);
        }
        // Arrows: 0 -> 1 on the top row (chunk 2), 2 -> 3 on the bottom (chunk 0),
        // 1 -> 2 down the right side, 3 -> 0 up the left.
        bad |= !contains_at(&c, l.node[0].x + l.node[0].w, l.node[0].y + 1, "--");
        bad |= !rect_has(&c, (VizRect){l.node[0].x + l.node[0].w, l.node[0].y + 1,
                                       l.node[1].x - l.node[0].x - l.node[0].w, 1},
                         " c2 ");
        bad |= !contains_at(&c, l.node[1].x - 1, l.node[1].y + 1, ">");
        bad |= !contains_at(&c, l.node[3].x + l.node[3].w, l.node[3].y + 1, "<");
        bad |= !rect_has(&c, (VizRect){l.node[3].x + l.node[3].w, l.node[3].y + 1,
                                       l.node[2].x - l.node[3].x - l.node[3].w, 1},
                         " c0 ");
        bad |= !contains_at(&c, l.node[1].x + l.node[1].w - 3, l.node[2].y - 2, "| c3");
        bad |= !contains_at(&c, l.node[1].x + l.node[1].w - 3, l.node[2].y - 1, "v");
        bad |= !contains_at(&c, l.node[3].x - 1, l.node[0].y + 3, "c1 ^");
        bad |= !contains_at(&c, l.node[3].x + 2, l.node[0].y + 4, "|");
        bad |= !row_has(&c, co.y + co.h - 1, "4 transfers of one chunk each; receivers add them in (node: chunk:ranks summed so far)");
        if (bad)
            break;
        VizRect tl = l.timeline;
        int x = l.timeline_x;
        if (!contains_at(&c, 0, tl.y, "time (ms) 0") ||
            !contains_at(&c, 0, tl.y + 1, "r0   comp FFFFF") ||
            !contains_at(&c, 0, tl.y + 2, "     comm") ||
            !contains_at(&c, x + l.timeline_cols / 2, tl.y, "v") ||
            !contains_at(&c, x + l.timeline_cols / 2 - 1, tl.y + 1, "BBB"))
            break;
        // cols 80..94 of 120 are exposed communication
        if (!contains_at(&c, x + 81 * l.timeline_cols / 120, tl.y + 2, "!!!!") ||
            !row_has(&c, tl.y + 2 * 4 + 1, "F fwd  B bwd  O optim  x other  = comm  ! exposed comm") ||
            !row_has(&c, tl.y + 2 * 4 + 1, "exposed comm r0: 400 us"))
            break;
        if (!contains_at(&c, 0, l.narrative.y, "> rank 0: bucket #1 launched") ||
            !row_has(&c, l.status.y, "q quit"))
            break;
        CHECK_EQ_INT(viz_canvas_at(&c, 1, l.status.y)->style, VIZ_STYLE_STATUS);
        rc = 0;
    } while (0);
    if (rc)
        dump(&c);
    viz_canvas_free(&c);

    // The same in Unicode: box drawing and blocks.
    if (!rc) {
        CHECK_EQ_INT(draw_at(h, 120, 40, 1, 1, &c, &l), 0);
        rc = 1;
        do {
            if (viz_canvas_at(&c, l.box[0].x, l.box[0].y)->ch != 0x250C ||
                viz_canvas_at(&c, l.box[1].x + 1, l.box[1].y)->ch != 0x2550 ||
                viz_canvas_at(&c, l.box[0].x + 2, l.box[0].y + 2)->ch != 0x2588 ||
                viz_canvas_at(&c, l.box[0].x + 2, l.box[0].y + 2)->style !=
                    VIZ_STYLE_MEM_FIRST + SIM_MEM_PARAM)
                break;
            if (!row_has(&c, l.buckets.y + 1, "\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88"))
                break;
            rc = 0;
        } while (0);
        if (rc)
            dump(&c);
        viz_canvas_free(&c);
    }
    free(h);
    return rc;
}

static int test_draw_ring_80(void) {
    THand *h = malloc(sizeof *h);
    CHECK(h);
    thand_ddp(h, 4);
    VizCanvas c;
    VizLayout l;
    CHECK_EQ_INT(draw_at(h, 80, 24, 0, 2, &c, &l), 0);
    if (getenv("DDPLAB_TEST_SHOW"))
        dump(&c);
    int rc = 1;
    do {
        // Compact nodes: "[r0 c2:r0+r2+r3]" with the arrows between them.
        if (l.node[0].h != 1 || !contains_at(&c, l.node[0].x, l.node[0].y, "[r0 c2:r0+r2+r3") ||
            !contains_at(&c, l.node[2].x, l.node[2].y, "[r2 c0:r0+r1+r2") ||
            !rect_has(&c, (VizRect){l.node[0].x + l.node[0].w, l.node[0].y,
                                    l.node[1].x - l.node[0].x - l.node[0].w, 1},
                      " c2 "))
            break;
        // Down the right: one cell between the rows.
        if (!contains_at(&c, l.node[1].x + l.node[1].w - 3, l.node[1].y + 1, "v c3"))
            break;
        if (!row_has(&c, l.ranks.y, "+- rank 0") || !row_has(&c, l.ranks.y, "+= rank 2 =") ||
            !row_has(&c, l.ranks.y + 2, "54%") || !row_has(&c, 23, "space play"))
            break;
        rc = 0;
    } while (0);
    if (rc)
        dump(&c);
    viz_canvas_free(&c);
    free(h);
    return rc;
}

// What a shard is, as the ownership titles say: fsdp2 has no flat parameter.
static int test_shards_whole(void) {
    VizScene s;
    SimTraceInfo info;
    memset(&s, 0, sizeof s);
    memset(&info, 0, sizeof info);
    CHECK(strcmp(viz_shards_whole(&s), "each unit's flat parameter in ") == 0);
    s.info = &info;
    snprintf(info.strategy, sizeof info.strategy, "fsdp2");
    CHECK(strcmp(viz_shards_whole(&s), "each parameter's rows (dim 0) in ") == 0);
    snprintf(info.strategy, sizeof info.strategy, "zero3");
    CHECK(strcmp(viz_shards_whole(&s), "each unit's flat parameter in ") == 0);
    return 0;
}

static int test_draw_fsdp(void) {
    THand *h = malloc(sizeof *h);
    CHECK(h);
    thand_fsdp(h, 4);
    VizCanvas c;
    VizLayout l;
    // The text view's way: natural height, no status line.
    CHECK_EQ_INT(viz_layout(&h->s, 100, 0, 0, &l), 1);
    CHECK_EQ_INT(viz_canvas_init(&c, l.w, l.h, 0), SIM_OK);
    VizDrawOpts o = {.text_mode = 1};
    viz_draw(&c, &l, &h->s, &o);
    if (getenv("DDPLAB_TEST_SHOW"))
        dump(&c);
    int rc = 1;
    do {
        VizRect r = l.shards;
        int x0 = r.x + 11;
        if (r.h != 3 + 4 || !contains_at(&c, r.x + 1, r.y, "Ownership: unit x rank") ||
            !contains_at(&c, x0, r.y + 1, "u0 root") ||
            !contains_at(&c, x0 + 2 * 13, r.y + 1, ">u2 blocks.1"))
            break;
        int bad = 0;
        static const char *const want[4][5] = {
            {"[+...]", "[0...]", "[****]", "[0~~~]", "[0...]"},
            {"[.+..]", "[.1..]", "[****]", "[~1~~]", "[.1..]"},
            {"[..+.]", "[..2.]", "[****]", "[~~2~]", "[..2.]"},
            {"[...+]", "[...3]", "[****]", "[~~~3]", "[...3]"},
        };
        for (int q = 0; q < 4 && !bad; q++) {
            char t[16];
            snprintf(t, sizeof t, "rank %d", q);
            bad |= !contains_at(&c, r.x + 1, r.y + 2 + q, t);
            for (int u = 0; u < 5; u++)
                bad |= !contains_at(&c, x0 + 13 * u, r.y + 2 + q, want[q][u]);
        }
        if (bad || !contains_at(&c, r.x + 1, r.y + 6, "0-3 own shard  * gathered  ~ arriving"))
            break;
        // The all-gather: copies, chunk r - 1 goes from r to r + 1.
        if (!contains_at(&c, l.coll.x + 1, l.coll.y, "AllGather (ring) of unit 3, 4.00 MiB: all-gather, step 2 of 3") ||
            !contains_at(&c, l.node[1].x + 2, l.node[1].y + 1, "c0:r0") ||
            !row_has(&c, l.coll.y + l.coll.h - 1, "receivers store them (node: chunk:rank it came from)"))
            break;
        if (!row_has(&c, l.ranks.y + 1, "forward attention") || l.status.h != 0 ||
            !row_has(&c, l.h - 1, "> rank 0: unit 2 (blocks.1) gathered"))
            break;
        rc = 0;
    } while (0);
    if (rc)
        dump(&c);
    viz_canvas_free(&c);

    // Many shards: one character per unit.
    if (!rc) {
        thand_fsdp(h, 64);
        CHECK_EQ_INT(draw_at(h, 80, 24, 0, 40, &c, &l), 0);
        rc = 1;
        do {
            VizRect r = l.shards;
            char note[64];
            snprintf(note, sizeof note, " ranks %d..%d of 64 (r / R: next / previous rank)",
                     l.first_box, l.first_box + l.nboxes - 1);
            if (l.first_box > 40 || l.first_box + l.nboxes <= 40 ||
                !contains_at(&c, 0, l.ranks.y, note))
                break;
            if (!row_has(&c, r.y, "Ownership, 64 shards per unit: units 0..4 of 5, ranks") ||
                !rect_has(&c, r, "rank 40") ||
                !row_has(&c, r.y + r.h - 1, ". sharded  ~ gathering  * gathered"))
                break;
            // rank 40's row: "+ . * ~ ." at 4 columns per unit
            int y = -1;
            for (int k = r.y; k < r.y + r.h; k++)
                if (strstr(row(&c, r.x, k, 10), "rank 40"))
                    y = k;
            if (y < 0 || !contains_at(&c, r.x + 11, y, " +   .   *   ~   ."))
                break;
            rc = 0;
        } while (0);
        if (rc)
            dump(&c);
        viz_canvas_free(&c);
    }
    free(h);
    return rc;
}

static int test_draw_dp_topos(void) {
    THand *h = malloc(sizeof *h);
    CHECK(h);
    thand_dp(h, 4);
    VizCanvas c;
    VizLayout l;
    CHECK_EQ_INT(draw_at(h, 120, 40, 0, 0, &c, &l), 0);
    if (getenv("DDPLAB_TEST_SHOW"))
        dump(&c);
    int rc = 1;
    do {
        VizRect r = l.hub;
        if (r.h != 9 ||
            !contains_at(&c, r.x + 1, r.y, "DataParallel: dp.scatter - device 0 splits the batch") ||
            !rect_has(&c, (VizRect){r.x, r.y + 1, r.w, 1}, "+= device 0 =") ||
            !rect_has(&c, (VizRect){r.x, r.y + 2, r.w, 1}, "| dp.scatter") ||
            !rect_has(&c, (VizRect){r.x, r.y + 6, r.w, 1}, "+- device 3 -") ||
            !rect_has(&c, (VizRect){r.x, r.y + 7, r.w, 1}, "waiting"))
            break;
        // Three arrows down from the bus.
        int heads = 0;
        for (int x = 0; x < r.w; x++)
            heads += viz_canvas_at(&c, r.x + x, r.y + 5)->ch == 'v';
        if (heads != 3 || !row_has(&c, l.ranks.y + 1, "comm"))
            break;
        rc = 0;
    } while (0);
    if (rc)
        dump(&c);
    viz_canvas_free(&c);

    // Star, tree, direct: nodes in a row, transfers on lanes.
    static const VizTopo topos[] = {VIZ_TOPO_STAR, VIZ_TOPO_TREE, VIZ_TOPO_DIRECT};
    for (int t = 0; t < 3 && !rc; t++) {
        thand_ddp(h, 4);
        thand_topo(h, topos[t]);
        CHECK_EQ_INT(draw_at(h, 120, 40, 0, 0, &c, &l), 0);
        if (getenv("DDPLAB_TEST_SHOW"))
            dump(&c);
        rc = 1;
        do {
            VizRect n0 = l.node[0], n1 = l.node[1];
            if (l.nnodes != 4 || n0.y != n1.y)
                break;
            int lane = n0.y + n0.h;
            int cx0 = n0.x + n0.w / 2, cx1 = n1.x + n1.w / 2;
            // 0 -> 1 (star, tree, direct): 'o' under rank 0, '>' under rank 1.
            if (!contains_at(&c, cx0, lane, "o-") || !contains_at(&c, cx1, lane, ">"))
                break;
            if (topos[t] != VIZ_TOPO_DIRECT && !contains_at(&c, n0.x + 3, n0.y, "rank 0 root"))
                break;
            if (topos[t] == VIZ_TOPO_DIRECT &&
                !row_has(&c, l.coll.y + l.coll.h - 1, "12 transfers of one chunk each") )
                break;
            if (topos[t] == VIZ_TOPO_DIRECT && !row_has(&c, l.coll.y + l.coll.h - 1, "not drawn)"))
                break;
            rc = 0;
        } while (0);
        if (rc)
            dump(&c);
        viz_canvas_free(&c);
    }
    free(h);
    return rc;
}

static int test_draw_help(void) {
    THand *h = malloc(sizeof *h);
    CHECK(h);
    thand_ddp(h, 4);
    VizLayout l;
    CHECK(viz_layout(&h->s, 80, 24, 0, &l));
    VizCanvas c;
    CHECK_EQ_INT(viz_canvas_init(&c, 80, 24, 0), SIM_OK);
    VizDrawOpts o = {.help = 1, .status = "paused  event 120/590"};
    viz_draw(&c, &l, &h->s, &o);
    char *t = canvas_text(&c);
    int rc = 1;
    if (t && strstr(t, "ddplab keys") && strstr(t, "space        play / pause") &&
        strstr(t, "q            quit") && strstr(t, "go to: an event number") &&
        strstr(row(&c, 0, 23, -1), "paused  event 120/590"))
        rc = 0;
    if (rc)
        fprintf(stderr, "%s", t ? t : "");
    free(t);
    // Text mode draws neither the status line nor the help.
    viz_draw(&c, &l, &h->s, &(VizDrawOpts){.help = 1, .text_mode = 1});
    t = canvas_text(&c);
    if (!t || strstr(t, "ddplab keys") || strstr(t, "q quit"))
        rc = 1;
    free(t);
    viz_canvas_free(&c);
    free(h);
    return rc;
}

// The lesson text above the caption; at natural height the text view's
// way (the narrative grown by the lesson's lines).
static int test_draw_narrative(void) {
    THand *h = malloc(sizeof *h);
    CHECK(h);
    thand_ddp(h, 4);
    const char *lesson = "DDP keeps a full replica on every rank and overlaps the gradient "
                         "all_reduce with the backward pass, bucket by bucket.\nWatch bucket #1.";
    VizLayout l;
    CHECK(viz_layout(&h->s, 120, 40, 0, &l));
    VizCanvas c;
    CHECK_EQ_INT(viz_canvas_init(&c, 120, 40, 0), SIM_OK);
    viz_draw(&c, &l, &h->s, &(VizDrawOpts){.lesson = lesson});
    int rc = 1;
    do {
        VizRect n = l.narrative;
        if (n.h < 4 || !contains_at(&c, 1, n.y, "DDP keeps a full replica on every rank") ||
            !contains_at(&c, 1, n.y + 1, "Watch bucket #1.") ||
            !contains_at(&c, 0, n.y + 2, "> rank 0: bucket #1 launched"))
            break;
        rc = 0;
    } while (0);
    if (rc)
        dump(&c);
    viz_canvas_free(&c);
    // Natural height: the caption alone decides the narrative's lines.
    CHECK(viz_layout(&h->s, 80, 0, 0, &l));
    CHECK_EQ_INT(l.narrative.h, viz_narrative_lines(&h->s, NULL, 80));
    CHECK_EQ_INT(viz_narrative_lines(&h->s, lesson, 80),
                 l.narrative.h + viz_wrap_lines(lesson, 78));
    free(h);
    return rc;
}

// Time axes: labels in the window's unit, none over the cursor; odd
// windows (thin, far from 0, empty, NaN) draw without hanging.
static int test_timeline_axis(void) {
    THand *h = malloc(sizeof *h);
    CHECK(h);
    thand_ddp(h, 4);
    VizLayout l;
    CHECK(viz_layout(&h->s, 120, 40, 0, &l));
    VizCanvas c;
    CHECK_EQ_INT(viz_canvas_init(&c, 120, 40, 0), SIM_OK);
    const double win[][2] = {{0, 5e-3}, {0, 2.5}, {0, 40e-6}, {1e3, 1e3 + 1e-12},
                             {1e9, 1e9 + 1e-3}, {1, 1}, {0, NAN}, {-1e-3, 1e-3}};
    const char *want[] = {"time (ms) 0.0", "time (s)  0.0", "time (us) 0", NULL, NULL, NULL,
                          NULL, "time (ms) -1.0"};
    int rc = 0;
    for (int k = 0; k < 8 && !rc; k++) {
        h->s.timeline.t0 = win[k][0];
        h->s.timeline.t1 = win[k][1];
        h->s.timeline.cursor_col = -1;
        viz_canvas_clear(&c);
        viz_draw(&c, &l, &h->s, NULL);
        if (want[k] && !contains_at(&c, 0, l.timeline.y, want[k]))
            rc = 1;
    }
    // The cursor's 'v' keeps its column clear of labels.
    h->s.timeline.t0 = 0;
    h->s.timeline.t1 = 5e-3;
    h->s.timeline.cursor_col = 0;
    viz_canvas_clear(&c);
    viz_draw(&c, &l, &h->s, NULL);
    if (!rc && !contains_at(&c, 0, l.timeline.y, "time (ms) v   "))
        rc = 1;
    if (rc)
        dump(&c);
    viz_canvas_free(&c);
    free(h);
    return rc;
}

// A narrow view (an embedded one) keeps the header's iteration and the
// timeline legend's names: the header's right part sheds the loss, the
// clock and the event in that order; the legend its exposed figure, then
// its spaces.
static int test_draw_narrow(void) {
    THand *h = malloc(sizeof *h);
    CHECK(h);
    thand_ddp(h, 4);
    VizCanvas c;
    CHECK_EQ_INT(viz_canvas_init(&c, 104, 1, 0), SIM_OK);
    static const struct {
        int w;
        const char *right;
    } forms[] = {
        {104, "iter 1 (0-2)  event 120/590  t=2.50 ms  loss 0.6931"},
        {68, "iter 1 (0-2)  event 120/590  t=2.50 ms"},
        {56, "iter 1 (0-2)  event 120/590"},
        {44, "iter 1 (0-2)"},
    };
    int rc = 0;
    for (size_t k = 0; k < sizeof forms / sizeof forms[0] && !rc; k++) {
        VizLayout l = {.ok = 1, .w = forms[k].w, .h = 1, .header = {0, 0, forms[k].w, 1}};
        viz_canvas_clear(&c);
        viz_draw_header(&c, &l, &h->s);
        const char *got = row(&c, 0, 0, forms[k].w);
        int n = (int)strlen(forms[k].right);
        // the right part ends one cell in; the title keeps at least 12
        if (strncmp(got + forms[k].w - 1 - n, forms[k].right, (size_t)n) != 0 ||
            got[forms[k].w - 2 - n] != ' ' || strncmp(got, " ddplab  ddp  ", 14) != 0) {
            fprintf(stderr, "%d columns: \"%s\"\n", forms[k].w, got);
            rc = 1;
        }
    }
    viz_canvas_free(&c);
    // The timeline's legend at 72 columns: every name, no figure; at 60 tighter.
    VizLayout l;
    CHECK(viz_layout(&h->s, 80, 40, 0, &l));
    l.timeline.w = 72;
    l.timeline_cols = 72 - l.timeline_x - 1;
    CHECK_EQ_INT(viz_canvas_init(&c, 80, 40, 0), SIM_OK);
    viz_draw_timeline(&c, &l, &h->s, 0);
    if (!rc && !row_has(&c, l.timeline.y + l.timeline.h - 1,
                        " F fwd  B bwd  O optim  x other  = comm  ! exposed comm  h host  v now"))
        rc = 1;
    l.timeline.w = 60;
    l.timeline_cols = 60 - l.timeline_x - 1;
    viz_canvas_clear(&c);
    viz_draw_timeline(&c, &l, &h->s, 0);
    if (!rc && !row_has(&c, l.timeline.y + l.timeline.h - 1,
                        " F fwd B bwd O opt x other = comm ! exposed h host v now"))
        rc = 1;
    viz_canvas_free(&c);
    free(h);
    return rc;
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "all";
    int all = strcmp(mode, "all") == 0;
    if (all || strcmp(mode, "canvas") == 0) {
        RUN(test_utf8);
        RUN(test_clip_text);
        RUN(test_wrap);
        RUN(test_bars_boxes);
    }
    if (all || strcmp(mode, "layout") == 0) {
        RUN(test_layout_rules);
        RUN(test_layout_grid);
    }
    if (all || strcmp(mode, "draw") == 0) {
        RUN(test_draw_ddp);
        RUN(test_draw_ring_80);
        RUN(test_draw_fsdp);
        RUN(test_shards_whole);
        RUN(test_draw_dp_topos);
        RUN(test_draw_help);
        RUN(test_draw_narrative);
        RUN(test_timeline_axis);
        RUN(test_draw_narrow);
    }
    return failures ? 1 : 0;
}
