// tests/test_viz_paint_canvas.c: see test_viz_paint_canvas.h.
#include "test_viz_paint_canvas.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_viz_paint_util.h"

// What the sanitizers leave out (the runtimes call these, when linked in):
// pango reads fontconfig's configuration on a thread of its own, which
// ThreadSanitizer, not seeing inside those libraries, reports as races with
// the first text laid out; and fontconfig's caches live as long as the
// process, which LeakSanitizer reports at exit. Neither is the panels'.
const char *__tsan_default_suppressions(void);
const char *__lsan_default_suppressions(void);

const char *__tsan_default_suppressions(void) {
    return "race:libfontconfig.so\nrace:libpangoft2-1.0.so\nrace:libglib-2.0.so\n";
}

const char *__lsan_default_suppressions(void) {
    return "leak:libfontconfig.so\n";
}

int tpc_canvas_open(TpcCanvas *c, int w, int h) {
    memset(c, 0, sizeof *c);
    c->w = w;
    c->h = h;
    c->sf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
    c->cr = cairo_create(c->sf);
    if (cairo_status(c->cr) != CAIRO_STATUS_SUCCESS || viz_gfx_init(&c->p.g, c->cr) != SIM_OK)
        return 1;
    c->p.cell_w = TPC_CELL_W;
    c->p.cell_h = TPC_CELL_H;
    c->p.font_px = TPC_FONT_PX;
    viz_gfx_set(c->cr, viz_ink(VIZ_INK_BACKGROUND));
    cairo_paint(c->cr);
    return 0;
}

void tpc_canvas_close(TpcCanvas *c) {
    viz_gfx_done(&c->p.g);
    if (c->cr)
        cairo_destroy(c->cr);
    if (c->sf)
        cairo_surface_destroy(c->sf);
    memset(c, 0, sizeof *c);
}

void tpc_canvas_save(TpcCanvas *c, const char *name) {
    const char *dir = getenv("DDPLAB_PAINT_OUT");
    if (dir == NULL || dir[0] == '\0')
        return;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.png", dir, name);
    cairo_surface_flush(c->sf);
    if (cairo_surface_write_to_png(c->sf, path) != CAIRO_STATUS_SUCCESS)
        fprintf(stderr, "cannot write %s\n", path);
}

uint32_t tpc_pixel(TpcCanvas *c, int x, int y) {
    if (x < 0 || y < 0 || x >= c->w || y >= c->h)
        return 0;
    cairo_surface_flush(c->sf);
    const unsigned char *d = cairo_image_surface_get_data(c->sf);
    int stride = cairo_image_surface_get_stride(c->sf);
    uint32_t v; // RGB24: one native-endian 32-bit word per pixel, xRGB
    memcpy(&v, d + (size_t)y * (size_t)stride + 4 * (size_t)x, sizeof v);
    return v & 0xffffff;
}

static uint32_t hex_of(VizRgba k) {
    return (uint32_t)lround(k.r * 255) << 16 | (uint32_t)lround(k.g * 255) << 8 |
           (uint32_t)lround(k.b * 255);
}

int tpc_is(uint32_t v, VizRgba k) {
    uint32_t h = hex_of(k);
    for (int sh = 0; sh <= 16; sh += 8) {
        int a = (int)(v >> sh & 0xff), b = (int)(h >> sh & 0xff);
        if (abs(a - b) > 2)
            return 0;
    }
    return 1;
}

int tpc_count_row(TpcCanvas *c, int y, int x0, int x1, VizRgba k) {
    int n = 0;
    for (int x = x0; x < x1; x++)
        n += tpc_is(tpc_pixel(c, x, y), k);
    return n;
}

int tpc_shot_at(TpcShot *sh, const VizTrace *t, size_t i, int selected, int W, int H,
                int embed) {
    memset(sh, 0, sizeof *sh);
    char err[256];
    sh->m = viz_model_new(t, err, sizeof err);
    if (sh->m == NULL) {
        fprintf(stderr, "model: %s\n", err);
        return 1;
    }
    sh->s = viz_scene_new(sh->m);
    sh->next = viz_scene_new(sh->m);
    size_t n = viz_model_count(sh->m);
    if (sh->s == NULL || sh->next == NULL || i >= n) {
        fprintf(stderr, "no scene at event %zu of %zu\n", i, n);
        return 1;
    }
    VizSceneOpts o = viz_scene_opts_default();
    o.selected_rank = selected;
    if (viz_scene_at(sh->m, i, &o, sh->s) != SIM_OK ||
        viz_scene_at(sh->m, i + 1 < n ? i + 1 : i, &o, sh->next) != SIM_OK)
        return 1;
    int ok = embed ? viz_layout_embed(sh->s, W, H, selected, &sh->l)
                   : viz_layout(sh->s, W, H, selected, &sh->l);
    if (!ok)
        fprintf(stderr, "layout %dx%d: %s\n", W, H, sh->l.why);
    return !ok;
}

void tpc_shot_free(TpcShot *sh) {
    viz_scene_free(sh->s);
    viz_scene_free(sh->next);
    viz_model_free(sh->m);
    memset(sh, 0, sizeof *sh);
}

void tpc_paint_panels(TpcCanvas *c, const TpcShot *sh, int selected, double u) {
    c->p.selected_rank = selected;
    c->p.next = u > 0 ? sh->next : NULL;
    c->p.u = u;
    viz_paint_ranks(&c->p, sh->s, &sh->l);
    viz_paint_shards(&c->p, sh->s, viz_paint_box(&c->p, sh->l.shards));
    viz_paint_hub(&c->p, sh->s, viz_paint_box(&c->p, sh->l.hub));
}

int tpc_paint_shot(const TpcShot *sh, int selected, double u, const char *name) {
    TpcCanvas c;
    int rc = tpc_canvas_open(&c, sh->l.w * TPC_CELL_W, sh->l.h * TPC_CELL_H);
    if (rc == 0) {
        tpc_paint_panels(&c, sh, selected, u);
        tpc_canvas_save(&c, name);
    }
    tpc_canvas_close(&c);
    return rc;
}

// The nth event of kind k from iteration it's start (nth = 0: the start),
// or the last one there is when there are fewer (SIZE_MAX: none).
size_t tpc_jump(const VizTrace *t, int it, VizJump k, int nth) {
    char err[256];
    VizModel *m = viz_model_new(t, err, sizeof err);
    if (m == NULL)
        return SIZE_MAX;
    size_t i = viz_model_iteration_start(m, it);
    for (int n = 0; n < nth && i != SIZE_MAX; n++) {
        size_t j = viz_model_next(m, i, k, +1);
        if (j == SIZE_MAX)
            break;
        i = j;
    }
    viz_model_free(m);
    return i;
}

// The largest device peak over the whole trace (its memory events' ledger).
double tpc_largest_peak(const VizTrace *t) {
    TpcShot sh;
    double big = 0;
    if (tpc_shot_at(&sh, t, t->n - 1, 0, 160, 50, 0) == 0)
        for (int q = 0; q < sh.s->nranks; q++)
            if ((double)sh.s->ranks[q].mem_peak > big)
                big = (double)sh.s->ranks[q].mem_peak;
    tpc_shot_free(&sh);
    return big;
}

// A DDP run on R ranks whose devices hold `times` their largest peak.
int tpc_ddp_trace(VizTrace *t, int R, double times) {
    if (tpaint_run(t, "ddp", R, TPC_MLP, 2, 0) != SIM_OK)
        return 1;
    t->info.device_capacity = (uint64_t)(tpc_largest_peak(t) * times);
    return 0;
}

// The nth event of kind (a collective's call or step) on rank 0 after
// event i, or the last before rank 0's next marker.
size_t tpc_coll_after(const VizTrace *t, size_t i, int kind, int nth) {
    if (i == SIZE_MAX)
        return i;
    size_t stop = tpaint_find_from(t, i + 1, SIM_EV_MARKER, NULL, NULL, 0), j = i;
    for (int n = 0; n < nth; n++) {
        size_t k = tpaint_find_from(t, j + 1, kind, NULL, NULL, 0);
        if (k == SIZE_MAX || (stop != SIZE_MAX && k > stop))
            break;
        j = k;
    }
    return j;
}
