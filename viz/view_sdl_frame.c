// viz/view_sdl_frame.c: one frame of the SDL2 view. The scene at the
// cursor is laid out on the cell grid that fits the output and drawn onto
// a canvas (the same canvas the text and ncurses views print); the canvas
// is rendered into a texture one row at a time, and only the rows whose
// cells changed since the last frame are rendered again. The frame is that
// texture plus the overlays of view_sdl_anim.c. The canvas of the next
// instant of simulated time is kept beside it as the target of the tweens.
#include "view_sdl_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errbuf.h"

// A white rounded square side x side, anti-aliased through its alpha, to be
// tinted per chunk with SDL_SetTextureColorMod.
static SDL_Texture *make_chunk_texture(SDL_Renderer *ren, int side) {
    SDL_Surface *s = SDL_CreateRGBSurfaceWithFormat(0, side, side, 32, SDL_PIXELFORMAT_ARGB8888);
    if (s == NULL)
        return NULL;
    double rad = side / 4.0, half = side / 2.0;
    for (int y = 0; y < side; y++) {
        uint32_t *row = (uint32_t *)((uint8_t *)s->pixels + (size_t)y * (size_t)s->pitch);
        for (int x = 0; x < side; x++) {
            // Signed distance from the pixel centre to the rounded square.
            double qx = fabs(x + 0.5 - half) - (half - rad);
            double qy = fabs(y + 0.5 - half) - (half - rad);
            double ox = qx > 0 ? qx : 0, oy = qy > 0 ? qy : 0;
            double in = qx > qy ? qx : qy;
            double d = sqrt(ox * ox + oy * oy) + (in < 0 ? in : 0) - rad;
            double cover = 0.5 - d;
            cover = cover < 0 ? 0 : cover > 1 ? 1 : cover;
            row[x] = ((uint32_t)(cover * 255.0 + 0.5) << 24) | 0x00ffffffu;
        }
    }
    SDL_Texture *t = SDL_CreateTextureFromSurface(ren, s);
    SDL_FreeSurface(s);
    if (t != NULL)
        SDL_SetTextureBlendMode(t, SDL_BLENDMODE_BLEND);
    return t;
}

SimStatus viz_sdl_view_init(VizSdlView *v, SDL_Renderer *ren, const char *font, int pt,
                            char *err, size_t errlen) {
    memset(v, 0, sizeof *v);
    v->ren = ren;
    SimStatus st = viz_sdl_font_open(&v->font, ren, font, pt, err, errlen);
    if (st != SIM_OK)
        return st;
    v->chunk_px = v->font.cell_h + v->font.cell_h / 3;
    v->chunk_tex = make_chunk_texture(ren, v->chunk_px);
    v->scene = NULL;
    v->next_scene = NULL;
    if (v->chunk_tex == NULL) {
        viz_sdl_view_free(v);
        return sim_errbuf_fail(err, errlen, SIM_ENOMEM, "cannot make a texture: %s",
                               SDL_GetError());
    }
    return SIM_OK;
}

void viz_sdl_view_free(VizSdlView *v) {
    if (v->scene)
        viz_scene_free(v->scene);
    if (v->next_scene)
        viz_scene_free(v->next_scene);
    if (v->cells_tex)
        SDL_DestroyTexture(v->cells_tex);
    if (v->chunk_tex)
        SDL_DestroyTexture(v->chunk_tex);
    viz_canvas_free(&v->canvas);
    viz_canvas_free(&v->next);
    free(v->shown);
    free(v->ways);
    viz_sdl_font_close(&v->font);
    memset(v, 0, sizeof *v);
}

static SimStatus size_canvas(VizCanvas *c, int w, int h) {
    if (c->cells == NULL)
        return viz_canvas_init(c, w, h, 1);
    if (c->w == w && c->h == h)
        return SIM_OK;
    return viz_canvas_resize(c, w, h);
}

SimStatus viz_sdl_view_resize(VizSdlView *v, int w, int h) {
    int cols = w / v->font.cell_w, rows = h / v->font.cell_h;
    cols = cols < 1 ? 1 : cols;
    rows = rows < 1 ? 1 : rows;
    v->px_w = w;
    v->px_h = h;
    v->fits = cols >= VIZ_MIN_W && rows >= VIZ_MIN_H;
    v->have_frame = v->have_next = 0;
    v->cells_ok = 0;
    v->canvas_gen++;
    if (cols == v->cols && rows == v->rows && v->shown != NULL)
        return SIM_OK;
    SimStatus st = size_canvas(&v->canvas, cols, rows);
    if (st == SIM_OK)
        st = size_canvas(&v->next, cols, rows);
    if (st != SIM_OK)
        return st;
    VizCell *shown = realloc(v->shown, (size_t)cols * (size_t)rows * sizeof *shown);
    if (shown == NULL)
        return SIM_ENOMEM;
    v->shown = shown;
    v->cols = cols;
    v->rows = rows;
    if (v->cells_tex)
        SDL_DestroyTexture(v->cells_tex);
    v->cells_tex = NULL;
    if (SDL_RenderTargetSupported(v->ren))
        v->cells_tex = SDL_CreateTexture(v->ren, SDL_PIXELFORMAT_ARGB8888,
                                         SDL_TEXTUREACCESS_TARGET, cols * v->font.cell_w,
                                         rows * v->font.cell_h);
    // Without a target texture every frame draws every cell: slower, same picture.
    if (v->timeline_cols <= 0 || v->timeline_cols > cols)
        v->timeline_cols = cols > 40 ? cols - 24 : cols;
    return SIM_OK;
}

int viz_sdl_view_cell_at(const VizSdlView *v, int x, int y, int *cx, int *cy) {
    if (x < 0 || y < 0 || v->font.cell_w <= 0 || v->font.cell_h <= 0)
        return 0;
    int c = x / v->font.cell_w, r = y / v->font.cell_h;
    if (c >= v->cols || r >= v->rows)
        return 0;
    *cx = c;
    *cy = r;
    return 1;
}

static int same_look(const VizSdlLook *a, const VizSdlLook *b) {
    return a->bg.r == b->bg.r && a->bg.g == b->bg.g && a->bg.b == b->bg.b;
}

void viz_sdl_draw_cells(VizSdlView *v, const VizCanvas *c, int y, int x0, int x1) {
    int cw = v->font.cell_w, ch = v->font.cell_h;
    x0 = x0 < 0 ? 0 : x0;
    x1 = x1 > c->w ? c->w : x1;
    if (y < 0 || y >= c->h || x0 >= x1)
        return;
    const VizCell *row = c->cells + (size_t)y * (size_t)c->w;
    // Backgrounds in runs of one colour: a few rectangles per row.
    for (int x = x0; x < x1;) {
        const VizSdlLook *look = viz_sdl_look(row[x].style);
        int e = x + 1;
        while (e < x1 && same_look(viz_sdl_look(row[e].style), look))
            e++;
        SDL_SetRenderDrawColor(v->ren, look->bg.r, look->bg.g, look->bg.b, 255);
        SDL_RenderFillRect(v->ren, &(SDL_Rect){x * cw, y * ch, (e - x) * cw, ch});
        x = e;
    }
    for (int x = x0; x < x1; x++)
        viz_sdl_draw_glyph(&v->font, x * cw, y * ch, row[x].ch, row[x].style);
}

static int same_cells(const VizCell *a, const VizCell *b, int n) {
    for (int i = 0; i < n; i++) // field by field: VizCell has padding
        if (a[i].ch != b[i].ch || a[i].style != b[i].style)
            return 0;
    return 1;
}

// The canvas onto the output: changed rows into the cached texture, then
// the texture (or, without render targets, every cell straight).
static void render_canvas(VizSdlView *v) {
    int cols = v->canvas.w, rows = v->canvas.h;
    if (v->cells_tex == NULL) {
        for (int y = 0; y < rows; y++)
            viz_sdl_draw_cells(v, &v->canvas, y, 0, cols);
        v->rows_drawn += (unsigned long)rows;
        return;
    }
    SDL_Texture *prev = SDL_GetRenderTarget(v->ren);
    int switched = 0;
    for (int y = 0; y < rows; y++) {
        const VizCell *row = v->canvas.cells + (size_t)y * (size_t)cols;
        VizCell *old = v->shown + (size_t)y * (size_t)cols;
        if (v->cells_ok && same_cells(row, old, cols))
            continue;
        if (!switched) {
            if (SDL_SetRenderTarget(v->ren, v->cells_tex) != 0) {
                // The target cannot be drawn to: fall back to drawing straight.
                SDL_DestroyTexture(v->cells_tex);
                v->cells_tex = NULL;
                render_canvas(v);
                return;
            }
            switched = 1;
        }
        viz_sdl_draw_cells(v, &v->canvas, y, 0, cols);
        memcpy(old, row, (size_t)cols * sizeof *row);
        v->rows_drawn++;
    }
    if (switched)
        SDL_SetRenderTarget(v->ren, prev);
    v->cells_ok = 1;
    SDL_Rect dst = {0, 0, cols * v->font.cell_w, rows * v->font.cell_h};
    SDL_RenderCopy(v->ren, v->cells_tex, NULL, &dst);
}

// A message in place of the scene (window too small, nothing to show yet).
static void show_message(VizSdlView *v, const char *msg) {
    viz_canvas_clear(&v->canvas);
    v->canvas_gen++;
    int w = v->canvas.w > 4 ? v->canvas.w - 4 : v->canvas.w;
    int y = v->canvas.h / 2 > 2 ? v->canvas.h / 2 - 2 : 0;
    VizRect r = {(v->canvas.w - w) / 2, y, w, v->canvas.h - y};
    viz_canvas_wrap(&v->canvas, r, VIZ_STYLE_WARN, msg);
    v->have_frame = v->have_next = 0;
}

static int same_scene_inputs(const VizSdlDrawn *a, const VizSdlDrawn *b) {
    return a->index == b->index && a->count == b->count && a->available == b->available &&
           a->selected == b->selected && a->use_wall == b->use_wall && a->zoom == b->zoom &&
           a->cols == b->cols && a->rows == b->rows && a->timeline_cols == b->timeline_cols;
}

static int same_drawn(const VizSdlDrawn *a, const VizSdlDrawn *b) {
    return same_scene_inputs(a, b) && a->help == b->help && a->lesson == b->lesson &&
           strcmp(a->status, b->status) == 0;
}

// Scene, layout and canvas for event index as `want` says, redone only
// when its inputs changed. The layout's timeline width feeds back into the
// scene options once.
static SimStatus build(VizSdlView *v, VizModel *m, const VizPlayer *p, VizSdlDrawn *want,
                       VizSdlDrawn *have, int *have_ok, VizScene **scene, VizLayout *l,
                       VizCanvas *c) {
    if (*have_ok && same_drawn(want, have))
        return SIM_OK;
    if (*scene == NULL && (*scene = viz_scene_new(m)) == NULL)
        return SIM_ENOMEM;
    if (!*have_ok || !same_scene_inputs(want, have)) {
        for (int pass = 0; pass < 2; pass++) {
            VizSceneOpts so;
            viz_player_scene_opts(p, m, want->timeline_cols, &so);
            so.selected_rank = want->selected;
            SimStatus st = viz_scene_at(m, want->index, &so, *scene);
            if (st != SIM_OK)
                return st;
            v->scenes_built++;
            viz_layout(*scene, want->cols, want->rows, want->selected, l);
            if (!l->ok || l->timeline_cols == want->timeline_cols || l->timeline_cols <= 0)
                break;
            want->timeline_cols = l->timeline_cols;
            v->timeline_cols = l->timeline_cols;
        }
    }
    VizDrawOpts d = {want->status, want->lesson, want->selected, want->help, 0};
    viz_canvas_clear(c);
    if (c == &v->canvas)
        v->canvas_gen++;
    if (l->ok)
        viz_draw(c, l, *scene, &d);
    else
        viz_canvas_wrap(c, (VizRect){1, 1, c->w - 2, c->h - 2}, VIZ_STYLE_WARN, l->why);
    *have = *want;
    *have_ok = 1;
    return SIM_OK;
}

SimStatus viz_sdl_view_frame(VizSdlView *v, VizModel *m, const VizPlayer *p,
                             const char *lesson) {
    VizSdlRgb bg = viz_sdl_background();
    v->frames++;
    SDL_SetRenderDrawColor(v->ren, bg.r, bg.g, bg.b, 255);
    SDL_RenderClear(v->ren);
    size_t count = m ? viz_model_count(m) : 0;
    size_t avail = p->available < count ? p->available : count;
    if (!v->fits) {
        char msg[256];
        snprintf(msg, sizeof msg,
                 "The window is %d x %d pixels: %d x %d cells of this font. ddplab needs at "
                 "least %d x %d cells: make the window larger.",
                 v->px_w, v->px_h, v->canvas.w, v->canvas.h, VIZ_MIN_W, VIZ_MIN_H);
        show_message(v, msg);
    } else if (avail == 0) {
        show_message(v, v->message[0] ? v->message : "waiting for the run's first event ...");
    } else {
        VizSdlDrawn want;
        memset(&want, 0, sizeof want);
        size_t i = viz_player_index(p);
        want.index = i < avail ? i : avail - 1;
        want.count = count;
        want.available = avail;
        want.selected = p->selected_rank;
        want.use_wall = p->use_wall;
        want.zoom = p->zoom;
        want.help = p->help;
        want.cols = v->canvas.w;
        want.rows = v->canvas.h;
        want.timeline_cols = v->timeline_cols;
        want.lesson = lesson;
        viz_player_status(p, want.status, sizeof want.status);
        SimStatus st = build(v, m, p, &want, &v->drawn, &v->have_frame, &v->scene, &v->layout,
                             &v->canvas);
        if (st != SIM_OK)
            return st;
        double pos = p->pos < (double)want.index ? (double)want.index : p->pos;
        if (pos > (double)want.index + 1)
            pos = (double)want.index;
        v->instant = viz_sdl_instant(m, avail, pos);
        if (v->instant.next_ok) {
            VizSdlDrawn next = v->drawn;
            next.index = v->instant.b;
            st = build(v, m, p, &next, &v->next_drawn, &v->have_next, &v->next_scene,
                       &v->next_layout, &v->next);
            if (st != SIM_OK)
                return st;
        }
    }
    render_canvas(v);
    if (v->fits && avail > 0)
        viz_sdl_draw_overlays(v);
    return SIM_OK;
}

SimStatus viz_sdl_read_image(SDL_Renderer *ren, int w, int h, VizImage *img, char *err,
                             size_t errlen) {
    img->w = img->h = 0;
    img->rgb = malloc((size_t)w * (size_t)h * 3);
    if (img->rgb == NULL)
        return sim_errbuf_fail(err, errlen, SIM_ENOMEM, "out of memory for a %d x %d image", w,
                               h);
    if (SDL_RenderReadPixels(ren, &(SDL_Rect){0, 0, w, h}, SDL_PIXELFORMAT_RGB24, img->rgb,
                             3 * w) != 0) {
        free(img->rgb);
        img->rgb = NULL;
        return sim_errbuf_fail(err, errlen, SIM_EIO, "cannot read the frame back: %s",
                               SDL_GetError());
    }
    img->w = w;
    img->h = h;
    return SIM_OK;
}
