// viz/view_sdl_font.c: the SDL2 view's glyphs. A monospaced TTF font (DejaVu
// Sans Mono unless told otherwise) and a cache of one texture per (code
// point, style), with the style's colour baked in: a frame copies cached
// textures and never rasterises text. The cache is an open-addressing hash
// table that doubles at half load; a scene uses a few hundred entries.
#include "view_sdl_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errbuf.h"

static uint64_t glyph_key(uint32_t cp, int st) {
    return (((uint64_t)cp << 8) | (uint64_t)(st & 0xff)) + 1;
}

static size_t slot_of(uint64_t key, size_t cap) {
    uint64_t h = key * 0x9E3779B97F4A7C15ull; // Fibonacci hashing
    return (size_t)(h >> 32) & (cap - 1);
}

// The bold file beside path: "DejaVuSansMono.ttf" -> "DejaVuSansMono-Bold.ttf".
static TTF_Font *open_bold(const char *path, int pt) {
    const char *dot = strrchr(path, '.');
    size_t n = dot ? (size_t)(dot - path) : strlen(path);
    char bold[1024];
    if (n + 16 < sizeof bold) {
        snprintf(bold, sizeof bold, "%.*s-Bold%s", (int)n, path, dot ? dot : "");
        TTF_Font *f = TTF_OpenFont(bold, pt);
        if (f != NULL)
            return f;
    }
    TTF_Font *f = TTF_OpenFont(path, pt);
    if (f != NULL)
        TTF_SetFontStyle(f, TTF_STYLE_BOLD);
    return f;
}

SimStatus viz_sdl_font_open(VizSdlFont *f, SDL_Renderer *ren, const char *path, int pt,
                            char *err, size_t errlen) {
    memset(f, 0, sizeof *f);
    if (path == NULL)
        path = VIZ_SDL_FONT_FILE;
    f->regular = TTF_OpenFont(path, pt);
    if (f->regular == NULL)
        return sim_errbuf_fail(err, errlen, SIM_ENOTSUP,
                               "cannot open the font %s (%s): install the package "
                               "fonts-dejavu-core, or name a monospaced TTF font",
                               path, TTF_GetError());
    f->bold = open_bold(path, pt);
    if (f->bold == NULL) {
        TTF_CloseFont(f->regular);
        f->regular = NULL;
        return sim_errbuf_fail(err, errlen, SIM_ENOTSUP, "cannot open the font %s: %s", path,
                               TTF_GetError());
    }
    int minx, maxx, miny, maxy, adv = 0;
    if (TTF_GlyphMetrics32(f->regular, 'M', &minx, &maxx, &miny, &maxy, &adv) != 0 || adv <= 0)
        adv = (pt * 3 + 4) / 5;
    f->cell_w = adv;
    f->cell_h = TTF_FontHeight(f->regular);
    if (f->cell_h <= 0)
        f->cell_h = pt + pt / 5;
    f->ren = ren;
    f->cap = 512;
    f->slot = calloc(f->cap, sizeof *f->slot);
    if (f->slot == NULL) {
        viz_sdl_font_close(f);
        return sim_errbuf_fail(err, errlen, SIM_ENOMEM, "out of memory for the glyph cache");
    }
    return SIM_OK;
}

void viz_sdl_font_close(VizSdlFont *f) {
    for (size_t i = 0; i < f->cap && f->slot; i++)
        if (f->slot[i].tex)
            SDL_DestroyTexture(f->slot[i].tex);
    free(f->slot);
    if (f->bold)
        TTF_CloseFont(f->bold);
    if (f->regular)
        TTF_CloseFont(f->regular);
    memset(f, 0, sizeof *f);
}

static int grow(VizSdlFont *f) {
    size_t cap = f->cap * 2;
    VizSdlGlyph *s = calloc(cap, sizeof *s);
    if (s == NULL)
        return -1;
    for (size_t i = 0; i < f->cap; i++) {
        if (f->slot[i].key == 0)
            continue;
        size_t j = slot_of(f->slot[i].key, cap);
        while (s[j].key != 0)
            j = (j + 1) & (cap - 1);
        s[j] = f->slot[i];
    }
    free(f->slot);
    f->slot = s;
    f->cap = cap;
    return 0;
}

// Rasterises cp in the style's colour and face; '?' when the font lacks it.
static void make(VizSdlFont *f, VizSdlGlyph *g, uint32_t cp, int st) {
    const VizSdlLook *look = viz_sdl_look(st);
    TTF_Font *font = look->bold ? f->bold : f->regular;
    if (!TTF_GlyphIsProvided32(font, cp))
        cp = '?';
    SDL_Color c = {look->fg.r, look->fg.g, look->fg.b, 255};
    SDL_Surface *s = TTF_RenderGlyph32_Blended(font, cp, c);
    if (s == NULL)
        return;
    g->tex = SDL_CreateTextureFromSurface(f->ren, s);
    g->w = s->w;
    g->h = s->h;
    SDL_FreeSurface(s);
    if (g->tex)
        SDL_SetTextureBlendMode(g->tex, SDL_BLENDMODE_BLEND);
    f->made++;
}

const VizSdlGlyph *viz_sdl_glyph(VizSdlFont *f, uint32_t cp, int st) {
    uint64_t key = glyph_key(cp, st);
    size_t i = slot_of(key, f->cap);
    while (f->slot[i].key != 0) {
        if (f->slot[i].key == key)
            return f->slot[i].tex ? &f->slot[i] : NULL;
        i = (i + 1) & (f->cap - 1);
    }
    if (2 * (f->used + 1) > f->cap) {
        if (grow(f) != 0)
            return NULL;
        return viz_sdl_glyph(f, cp, st);
    }
    VizSdlGlyph *g = &f->slot[i];
    g->key = key; // remembered even when it renders as nothing: tried once
    f->used++;
    make(f, g, cp, st);
    return g->tex ? g : NULL;
}

void viz_sdl_draw_glyph(VizSdlFont *f, int x, int y, uint32_t cp, int st) {
    if (cp == ' ' || cp == 0)
        return;
    const VizSdlLook *look = viz_sdl_look(st);
    SDL_Rect cell = {x, y, f->cell_w, f->cell_h};
    if (viz_sdl_draw_shape(f->ren, cell, cp, look->fg, look->bg))
        return;
    const VizSdlGlyph *g = viz_sdl_glyph(f, cp, st);
    if (g == NULL)
        return;
    // Glyph surfaces are the font's height tall; centre any difference.
    SDL_Rect dst = {x, y + (f->cell_h - g->h) / 2, g->w, g->h};
    SDL_RenderCopy(f->ren, g->tex, NULL, &dst);
}
