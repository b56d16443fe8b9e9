// tests/test_viz_embed.c: the embedded layout (viz_layout_embed) on
// hand-built scenes (tests/test_viz_hand.h): DDP between two launches (the
// buckets are the focus), FSDP between two collectives (the shards), a ring
// all_reduce in flight (the collective diagram) and DataParallel (the hub),
// at the sizes a lesson player gives the view and at the minimum.
//
//   test_viz_embed layout   rectangles inside the area and apart, no
//                           narrative and no status line, the focus panel
//                           there; the full layout's panels where it fits;
//                           too small an area refused with its message
//   test_viz_embed draw     nothing drawn outside the area, the expected
//                           text (the header's iteration, a bucket row, a
//                           ring node, the shard grid, the hub, rank lines)
//
// DDPLAB_TEST_SHOW=1 prints every canvas drawn.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "layout.h"
#include "test_viz_hand.h"

static int failures = 0;

// The four scenes with a focus panel, then two odd ones: no strategy panel
// at all, and every panel at once.
typedef enum {
    SC_DDP = 0, SC_FSDP, SC_RING, SC_DP, SC_COUNT,
    SC_BARE = SC_COUNT, SC_EVERY, SC_ALL
} Scene;
static const char *const scene_name[SC_ALL] = {"ddp", "fsdp", "ring", "dp", "bare", "every"};

// Builds scene k on R ranks into h.
static void build(THand *h, Scene k, int R) {
    switch (k) {
    case SC_DDP:
        // Between two launches: bucket #1's all_reduce is over, #2 fills.
        thand_ddp(h, R);
        h->s.coll.running = 0;
        h->buckets[1].state = VIZ_BUCKET_DONE;
        h->buckets[1].progress = 1;
        break;
    case SC_FSDP:
        // Between two all-gathers: the grid is what the scene is about.
        thand_fsdp(h, R);
        h->s.coll.running = 0;
        break;
    case SC_RING: thand_ddp(h, R); break;
    case SC_DP: thand_dp(h, R); break;
    case SC_BARE:
        thand_ddp(h, R);
        h->s.nbuckets = 0;
        h->s.coll.active = 0;
        break;
    default: {
        // FSDP's grid and DataParallel's hub added to a DDP scene.
        static THand f;
        thand_fsdp(&f, R);
        thand_ddp(h, R);
        h->s.shards = f.s.shards;
        memcpy(h->state, f.state, sizeof h->state);
        h->s.shards.state = h->state;
        h->s.shards.units = f.units;
        h->s.hub.active = 1;
        h->s.hub.step = "dp.reduce";
        break;
    }
    }
}

// The panel each scene is about (the odd ones: the ranks).
static const VizRect *focus_of(const VizLayout *l, Scene k) {
    switch (k) {
    case SC_DDP: return &l->buckets;
    case SC_FSDP: return &l->shards;
    case SC_RING:
    case SC_EVERY: return &l->coll;
    case SC_DP: return &l->hub;
    default: return &l->ranks;
    }
}

static const int sizes[][2] = {{80, 11}, {80, 12},  {80, 13}, {140, 22}, {100, 14},
                               {70, 12}, {75, 40},  {60, 8},  {60, 12},  {200, 10}};
enum { NSIZES = sizeof sizes / sizeof sizes[0] };

static int empty(VizRect r) { return r.w <= 0 || r.h <= 0; }

static int inside(VizRect r, int w, int h) {
    return empty(r) || (r.x >= 0 && r.y >= 0 && r.x + r.w <= w && r.y + r.h <= h);
}

static int apart(VizRect a, VizRect b) {
    if (empty(a) || empty(b))
        return 1;
    return a.x + a.w <= b.x || b.x + b.w <= a.x || a.y + a.h <= b.y || b.y + b.h <= a.y;
}

static int within(VizRect in, VizRect out) {
    return in.x >= out.x && in.y >= out.y && in.x + in.w <= out.x + out.w &&
           in.y + in.h <= out.y + out.h;
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

// Every property one embedded layout must have.
static int check_layout(const VizLayout *l, const VizScene *s, Scene k, int W, int H, int sel) {
    CHECK(l->ok);
    CHECK_EQ_INT(l->w, W);
    CHECK_EQ_INT(l->h, H);
    CHECK(empty(l->narrative));
    CHECK(empty(l->status));
    const VizRect *p[] = {&l->header, &l->ranks, &l->buckets, &l->coll,
                          &l->shards, &l->hub,   &l->timeline};
    const char *names[] = {"header", "ranks", "buckets", "coll", "shards", "hub", "timeline"};
    int n = (int)(sizeof p / sizeof p[0]);
    for (int i = 0; i < n; i++) {
        if (!inside(*p[i], W, H)) {
            fprintf(stderr, "%s {%d,%d,%d,%d} outside %dx%d\n", names[i], p[i]->x, p[i]->y,
                    p[i]->w, p[i]->h, W, H);
            return 1;
        }
        for (int j = i + 1; j < n; j++)
            if (!apart(*p[i], *p[j])) {
                fprintf(stderr, "%s overlaps %s\n", names[i], names[j]);
                return 1;
            }
    }
    CHECK_EQ_INT(l->header.h, 1);
    CHECK(!empty(*focus_of(l, k)));
    // The ranks: some shown, the selected one among them, each slot in the
    // panel and apart from the others (and from the note).
    CHECK(l->nboxes >= 1);
    CHECK(l->first_box <= sel && sel < l->first_box + l->nboxes);
    CHECK(l->first_box + l->nboxes <= s->nranks);
    for (int b = 0; b < l->nboxes; b++) {
        CHECK(within(l->box[b], l->ranks));
        CHECK(l->compact_ranks ? l->box[b].h == 1 : l->box[b].h >= 4);
        CHECK(apart(l->box[b], l->rank_note));
        for (int j = b + 1; j < l->nboxes; j++)
            CHECK(apart(l->box[b], l->box[j]));
    }
    if (l->compact_ranks && l->nboxes < s->nranks)
        CHECK(!empty(l->rank_note) && within(l->rank_note, l->ranks));
    if (!empty(l->coll)) {
        CHECK(l->nnodes >= 1);
        CHECK(l->first_node <= sel && sel < l->first_node + l->nnodes);
        for (int j = 0; j < l->nnodes; j++)
            CHECK(within(l->node[j], l->coll));
    }
    if (!empty(l->timeline)) {
        CHECK(l->timeline.h >= 3);
        CHECK(l->timeline_cols >= 20);
        CHECK(l->timeline_x + l->timeline_cols <= W);
    }
    return 0;
}

static int test_layout_sizes(void) {
    THand *h = malloc(sizeof *h);
    CHECK(h);
    const int Rs[] = {1, 2, 4, 8, 64};
    int rc = 0;
    for (int k = 0; k < SC_ALL && !rc; k++)
        for (int z = 0; z < NSIZES && !rc; z++)
            for (size_t r = 0; r < sizeof Rs / sizeof Rs[0] && !rc; r++) {
                int R = Rs[r];
                if (k == SC_DP && R == 1)
                    continue; // DataParallel needs a device besides device 0
                build(h, (Scene)k, R);
                const int sels[] = {0, R / 2, R - 1};
                for (int i = 0; i < 3 && !rc; i++) {
                    VizLayout l;
                    viz_layout_embed(&h->s, sizes[z][0], sizes[z][1], sels[i], &l);
                    rc = check_layout(&l, &h->s, (Scene)k, sizes[z][0], sizes[z][1], sels[i]);
                    if (rc)
                        fprintf(stderr, "in %s %dx%d R=%d sel=%d\n", scene_name[k], sizes[z][0],
                                sizes[z][1], R, sels[i]);
                }
            }
    free(h);
    return rc;
}

// Where viz_layout fits, the same panels in the same places, each at least
// as tall (the narrative's and the status line's lines go to them).
static int test_layout_full(void) {
    THand *h = malloc(sizeof *h);
    CHECK(h);
    const int big[][2] = {{80, 24}, {120, 40}, {140, 45}, {200, 60}};
    int rc = 0;
    for (int k = 0; k < SC_COUNT && !rc; k++)
        for (int z = 0; z < 4 && !rc; z++) {
            build(h, (Scene)k, 4);
            VizLayout e, f;
            CHECK(viz_layout_embed(&h->s, big[z][0], big[z][1], 1, &e));
            CHECK(viz_layout(&h->s, big[z][0], big[z][1], 1, &f));
            rc = check_layout(&e, &h->s, (Scene)k, big[z][0], big[z][1], 1);
            const VizRect *pe[] = {&e.header, &e.ranks, &e.buckets, &e.coll,
                                   &e.shards, &e.hub,   &e.timeline};
            const VizRect *pf[] = {&f.header, &f.ranks, &f.buckets, &f.coll,
                                   &f.shards, &f.hub,   &f.timeline};
            for (int i = 0; i < 7 && !rc; i++) {
                if (empty(*pe[i]) != empty(*pf[i]) ||
                    (!empty(*pf[i]) && (pe[i]->x != pf[i]->x || pe[i]->w != pf[i]->w ||
                                        pe[i]->h < pf[i]->h))) {
                    fprintf(stderr, "%s %dx%d: panel %d {%d,%d,%d,%d} vs full {%d,%d,%d,%d}\n",
                            scene_name[k], big[z][0], big[z][1], i, pe[i]->x, pe[i]->y, pe[i]->w,
                            pe[i]->h, pf[i]->x, pf[i]->y, pf[i]->w, pf[i]->h);
                    rc = 1;
                }
            }
            if (!rc && (e.compact_ranks || e.nboxes < f.nboxes || e.nnodes != f.nnodes))
                rc = 1;
        }
    // Short but wide enough for the full layout's smallest panels: still it.
    build(h, SC_RING, 4);
    VizLayout l;
    CHECK(viz_layout_embed(&h->s, 140, 22, 0, &l));
    CHECK_EQ_INT(l.compact_ranks, 0);
    CHECK(l.box[0].h >= 4);
    // Too short for them: compact rank lines.
    CHECK(viz_layout_embed(&h->s, 80, 12, 0, &l));
    CHECK_EQ_INT(l.compact_ranks, 1);
    free(h);
    return rc;
}

static int test_layout_rules(void) {
    THand *h = malloc(sizeof *h);
    CHECK(h);
    VizLayout l;
    // 80x12, a ring in flight: the header, the four ranks two to a line,
    // the diagram, one timeline lane; the buckets (the scene is not about
    // them now) give way.
    build(h, SC_RING, 4);
    CHECK(viz_layout_embed(&h->s, 80, 12, 2, &l));
    CHECK_EQ_INT(l.compact_ranks, 1);
    CHECK_EQ_INT(l.ranks.y, 1);
    CHECK_EQ_INT(l.nboxes, 4);
    CHECK(l.box[1].y == l.box[0].y && l.box[1].x == 40);
    CHECK_EQ_INT(l.coll.h, 5);
    CHECK_EQ_INT(l.node[0].h, 1);
    CHECK_EQ_INT(l.timeline.h, 3);
    CHECK(empty(l.buckets));
    // At the minimum: the header, one rank and the note, the diagram.
    CHECK(viz_layout_embed(&h->s, VIZ_EMBED_MIN_W, VIZ_EMBED_MIN_H, 0, &l));
    CHECK_EQ_INT(l.ranks.h, 2);
    CHECK_EQ_INT(l.nboxes, 1);
    CHECK(!empty(l.rank_note) && l.rank_note.y == 2);
    CHECK_EQ_INT(l.coll.h, 5);
    CHECK(empty(l.buckets) && empty(l.timeline));
    // A few lines more: a line per rank, then the buckets come in.
    CHECK(viz_layout_embed(&h->s, 80, 13, 0, &l));
    CHECK_EQ_INT(l.nboxes, 4);
    CHECK(l.box[1].y == l.box[0].y + 1);
    CHECK(viz_layout_embed(&h->s, 70, 24, 0, &l));
    CHECK(!empty(l.buckets) && l.buckets.y < l.coll.y);
    CHECK(l.node[0].h == 3);
    // Wide and short: the rank lines side by side on one line.
    CHECK(viz_layout_embed(&h->s, 200, 10, 0, &l));
    CHECK_EQ_INT(l.ranks.h, 1);
    CHECK_EQ_INT(l.nboxes, 4);
    CHECK(l.box[3].y == l.box[0].y && l.box[3].x == 150);
    // A page of many ranks holds the selected one; the note follows them.
    build(h, SC_DDP, 64);
    CHECK(viz_layout_embed(&h->s, 80, 12, 40, &l));
    CHECK(l.nboxes < 64 && l.first_box <= 40 && 40 < l.first_box + l.nboxes);
    CHECK(!empty(l.rank_note));
    // What is kept, in order: the focus, the rank lines, the timeline, the
    // other panels; a line more never gives the buckets fewer rows (a
    // finished collective waits for them to grow a step).
    for (int k = 0; k < SC_COUNT; k++) {
        build(h, (Scene)k, 4);
        for (int H = VIZ_EMBED_MIN_H; H <= 40; H++) {
            CHECK(viz_layout_embed(&h->s, 70, H, 0, &l));
            int others = 0;
            const VizRect *f = focus_of(&l, (Scene)k);
            const VizRect *p[] = {&l.buckets, &l.coll, &l.shards, &l.hub};
            for (int i = 0; i < 4; i++)
                others |= p[i] != f && !empty(*p[i]);
            if (empty(*f) || empty(l.ranks) || (!empty(l.timeline) && empty(l.ranks)) ||
                (others && empty(l.timeline))) {
                fprintf(stderr, "%s 70x%d: the panels kept out of order\n", scene_name[k], H);
                return 1;
            }
        }
    }
    build(h, SC_DDP, 4);
    VizLayout m;
    CHECK(viz_layout_embed(&h->s, 80, 12, 0, &l));
    CHECK(viz_layout_embed(&h->s, 80, 13, 0, &m));
    CHECK(m.buckets.h >= l.buckets.h);
    // Too small: refused, and the message is what is drawn.
    CHECK(!viz_layout_embed(&h->s, 59, 8, 0, &l));
    CHECK(strcmp(l.why, "the area is 59x8; the view needs at least 60x8") == 0);
    CHECK(!viz_layout_embed(&h->s, 80, 7, 0, &l));
    CHECK(strcmp(l.why, "the area is 80x7; the view needs at least 60x8") == 0);
    CHECK(!viz_layout_embed(&h->s, 80, 0, 0, &l));
    VizCanvas c;
    CHECK_EQ_INT(viz_canvas_init(&c, 59, 8, 0), SIM_OK);
    CHECK(!viz_layout_embed(&h->s, 59, 8, 0, &l));
    viz_draw(&c, &l, &h->s, NULL);
    char *t = canvas_text(&c);
    CHECK_STR_CONTAINS(t, "the area is 59x8; the view needs at least 60x8");
    free(t);
    viz_canvas_free(&c);
    free(h);
    return 0;
}

// ---------------------------------------------------------------------------
// drawing

// Draws the layout on a canvas larger than the area by `pad` cells each
// way; 0 when nothing landed outside the area.
static int draw_padded(const VizLayout *l, const VizScene *s, int sel, int unicode, int pad,
                       VizCanvas *c) {
    if (viz_canvas_init(c, l->w + pad, l->h + pad, unicode) != SIM_OK)
        return 1;
    viz_draw(c, l, s, &(VizDrawOpts){.selected_rank = sel});
    for (int y = 0; y < c->h; y++)
        for (int x = 0; x < c->w; x++)
            if ((x >= l->w || y >= l->h) && viz_canvas_at(c, x, y)->ch != ' ') {
                fprintf(stderr, "drawn outside %dx%d at (%d,%d)\n", l->w, l->h, x, y);
                return 1;
            }
    return 0;
}

// The strings each scene's frame holds at every embedded size: the
// header's iteration, the focus panel's title and one of its rows, the
// selected rank. A framed diagram names its nodes in full.
static const char *want_text(Scene k, int i, const VizLayout *l) {
    static const char *const w[SC_COUNT][4] = {
        {"iter 1 (0-2)", "Buckets", "#2 ", ">r0 backward"},
        {"iter 1 (0-2)", "Ownership", "rank 0    [", ">r0 forward"},
        {"iter 1 (0-2)", "AllReduce (ring)", "[r0 c2:", ">r0 backward"},
        {"iter 1 (0-2)", "DataParallel: dp.scatter", "[dev0 hub", ">r0 comm"},
    };
    if (i == 3 && !l->compact_ranks)
        return " rank 0 ";
    if (i == 2 && k == SC_RING && l->nnodes > 0 && l->node[0].h >= 3)
        return " rank 0 ";
    if (i == 2 && k == SC_DP && l->hub.h >= 9)
        return " device 0 ";
    return w[k][i];
}

static int test_draw_sizes(void) {
    THand *h = malloc(sizeof *h);
    CHECK(h);
    int show = getenv("DDPLAB_TEST_SHOW") != NULL;
    int rc = 0;
    // Every case, so that a failure shows all the frames that are wrong.
    for (int k = 0; k < SC_ALL; k++)
        for (int z = 0; z < NSIZES; z++)
            for (int unicode = 0; unicode <= 1; unicode++) {
                int W = sizes[z][0], H = sizes[z][1];
                build(h, (Scene)k, 4);
                VizLayout l;
                VizCanvas c;
                CHECK(viz_layout_embed(&h->s, W, H, 0, &l));
                int bad = draw_padded(&l, &h->s, 0, unicode, 3, &c);
                char *t = canvas_text(&c);
                CHECK(t);
                for (int i = 0; i < (k < SC_COUNT ? 4 : 1); i++) {
                    const char *w = want_text((Scene)(k < SC_COUNT ? k : SC_DDP), i, &l);
                    if (!strstr(t, w)) {
                        fprintf(stderr, "%s %dx%d lacks \"%s\"\n", scene_name[k], W, H, w);
                        bad = 1;
                    }
                }
                rc |= bad;
                if (show || bad)
                    fprintf(stderr, "--- %s %dx%d%s\n%s", scene_name[k], W, H,
                            unicode ? " unicode" : "", t);
                free(t);
                viz_canvas_free(&c);
            }
    free(h);
    return rc;
}

// The text of row y from column x, n cells, as UTF-8.
static const char *row(const VizCanvas *c, int x, int y, int n) {
    static char buf[4096];
    size_t o = 0;
    for (int k = 0; k < n && x + k < c->w && o < sizeof buf - 8; k++)
        o += (size_t)viz_utf8_encode(viz_canvas_at(c, x + k, y)->ch, buf + o);
    buf[o] = '\0';
    return buf;
}

static int line_is(const VizCanvas *c, VizRect r, const char *want) {
    const char *got = row(c, r.x, r.y, r.w);
    if (strcmp(got, want) != 0) {
        fprintf(stderr, "want \"%s\"\n got \"%s\"\n", want, got);
        return 0;
    }
    return 1;
}

// Draws h's scene embedded at w x hh with rank sel selected into c.
static int draw_embed(THand *h, int w, int hh, int sel, VizCanvas *c, VizLayout *l) {
    CHECK(viz_layout_embed(&h->s, w, hh, sel, l));
    CHECK_EQ_INT(viz_canvas_init(c, w, hh, 0), SIM_OK);
    viz_draw(c, l, &h->s, &(VizDrawOpts){.selected_rank = sel});
    if (getenv("DDPLAB_TEST_SHOW")) {
        char *t = canvas_text(c);
        fprintf(stderr, "%s", t ? t : "");
        free(t);
    }
    return 0;
}

// The compact rank line itself, cell by cell, in its three widths.
static int test_draw_lines(void) {
    THand *h = malloc(sizeof *h);
    CHECK(h);
    build(h, SC_RING, 4);
    h->ranks[3].mem_total = 2048ll * 1024 * 1024; // over the 1 GiB capacity
    VizLayout l;
    VizCanvas c;
    int rc = 1;
    // A line per rank on 80 columns: a long bar, every number.
    CHECK_EQ_INT(draw_embed(h, 80, 13, 1, &c, &l), 0);
    do {
        if (!line_is(&c, l.box[0], " r0 backward  [PPPGGGGOOOOOOOAAAAA..|.............]  "
                                   "558 MiB pk  658 MiB   54%  ") ||
            !line_is(&c, l.box[1], ">r1 backward  [PPPGGGGOOOOOOOAAAAA..|.............]  "
                                   "558 MiB pk  658 MiB   54%  "))
            break;
        // The selected rank's label and the phase in their styles; more
        // than the capacity in the warning style.
        if (viz_canvas_at(&c, 1, l.box[1].y)->style != VIZ_STYLE_SELECTED ||
            viz_canvas_at(&c, 4, l.box[0].y)->style != VIZ_STYLE_BACKWARD ||
            !strstr(row(&c, 0, l.box[3].y, 80), "2.00 GiB pk  658 MiB  200%") ||
            viz_canvas_at(&c, 74, l.box[3].y)->style != VIZ_STYLE_WARN)
            break;
        rc = 0;
    } while (0);
    viz_canvas_free(&c);
    // Two to a line on 80 columns: no op, the bytes and the share.
    if (!rc) {
        rc = 1;
        CHECK_EQ_INT(draw_embed(h, 80, 12, 1, &c, &l), 0);
        if (line_is(&c, l.box[0], " r0 backward  [PGOA|...]  558 MiB  54%  ") &&
            line_is(&c, l.box[1], ">r1 backward  [PGOA|...]  558 MiB  54%  ") &&
            strstr(row(&c, 0, l.ranks.y + 2, 80), "memory:  P params  G grads"))
            rc = 0;
        viz_canvas_free(&c);
    }
    // Two to a line on 70 columns with 16 ranks: the shortest numbers (the
    // labels are wider); a page of them with the note, the selected rank on it.
    if (!rc) {
        rc = 1;
        build(h, SC_DDP, 16);
        CHECK_EQ_INT(draw_embed(h, 70, 12, 9, &c, &l), 0);
        char note[64];
        snprintf(note, sizeof note, " ranks %d..%d of 16 (r / R)", l.first_box,
                 l.first_box + l.nboxes - 1);
        int k9 = 9 - l.first_box;
        if (l.nboxes == 7 && k9 >= 0 && k9 < l.nboxes &&
            line_is(&c, l.box[k9], ">r9  backward  [PGOOAA|....] 558M  ") &&
            strncmp(row(&c, l.rank_note.x, l.rank_note.y, l.rank_note.w), note, strlen(note)) == 0)
            rc = 0;
        else
            fprintf(stderr, "note \"%s\" at {%d,%d}: %s\n", note, l.rank_note.x, l.rank_note.y,
                    row(&c, l.rank_note.x, l.rank_note.y, l.rank_note.w));
        viz_canvas_free(&c);
    }
    free(h);
    return rc;
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "all";
    int all = strcmp(mode, "all") == 0;
    if (all || strcmp(mode, "layout") == 0) {
        RUN(test_layout_rules);
        RUN(test_layout_full);
        RUN(test_layout_sizes);
    }
    if (all || strcmp(mode, "draw") == 0) {
        RUN(test_draw_lines);
        RUN(test_draw_sizes);
    }
    return failures ? 1 : 0;
}
