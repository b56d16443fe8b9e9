// tests/test_gif_util.c: see test_gif_util.h.
#include "test_gif_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef DDPLAB_HAVE_GIF
#include <gif_lib.h>

int tgif_open(TgifAnim *a, const char *path) {
    memset(a, 0, sizeof *a);
    a->shown = -1;
    int code = 0;
    GifFileType *g = DGifOpenFileName(path, &code);
    if (g == NULL) {
        fprintf(stderr, "%s: cannot open: %s\n", path, GifErrorString(code));
        return -1;
    }
    if (DGifSlurp(g) != GIF_OK) {
        fprintf(stderr, "%s: cannot decode: %s\n", path, GifErrorString(g->Error));
        DGifCloseFile(g, &code);
        return -1;
    }
    a->gif = g;
    a->w = g->SWidth;
    a->h = g->SHeight;
    a->frames = g->ImageCount;
    a->rgb = calloc((size_t)a->w * (size_t)a->h, 3);
    if (a->rgb == NULL) {
        tgif_close(a);
        return -1;
    }
    return 0;
}

void tgif_close(TgifAnim *a) {
    int code = 0;
    if (a->gif)
        DGifCloseFile(a->gif, &code);
    free(a->rgb);
    memset(a, 0, sizeof *a);
}

static int transparent_of(GifFileType *g, int k) {
    GraphicsControlBlock gcb;
    if (DGifSavedExtensionToGCB(g, k, &gcb) != GIF_OK)
        return NO_TRANSPARENT_COLOR;
    return gcb.TransparentColor;
}

// Draws frame k over the picture.
static int draw(TgifAnim *a, int k) {
    GifFileType *g = a->gif;
    const SavedImage *im = &g->SavedImages[k];
    const GifImageDesc *d = &im->ImageDesc;
    const ColorMapObject *map = d->ColorMap ? d->ColorMap : g->SColorMap;
    if (map == NULL || d->Left + d->Width > a->w || d->Top + d->Height > a->h) {
        fprintf(stderr, "frame %d: no colour map, or outside the screen\n", k);
        return -1;
    }
    int tr = transparent_of(g, k);
    for (int y = 0; y < d->Height; y++)
        for (int x = 0; x < d->Width; x++) {
            int c = im->RasterBits[(size_t)y * (size_t)d->Width + (size_t)x];
            if (c == tr)
                continue;
            if (c >= map->ColorCount) {
                fprintf(stderr, "frame %d: index %d past the map's %d\n", k, c, map->ColorCount);
                return -1;
            }
            uint8_t *p = a->rgb + 3 * ((size_t)(d->Top + y) * (size_t)a->w + (size_t)(d->Left + x));
            p[0] = map->Colors[c].Red;
            p[1] = map->Colors[c].Green;
            p[2] = map->Colors[c].Blue;
        }
    return 0;
}

int tgif_show(TgifAnim *a, int k) {
    if (k <= a->shown || k >= a->frames)
        return -1;
    while (a->shown < k)
        if (draw(a, ++a->shown) != 0)
            return -1;
    return 0;
}

int tgif_delay(const TgifAnim *a, int k) {
    GraphicsControlBlock gcb;
    if (DGifSavedExtensionToGCB(a->gif, k, &gcb) != GIF_OK)
        return -1;
    return gcb.DelayTime;
}

// The loop count in the blocks b[n], or -1.
static int loops_in(const ExtensionBlock *b, int n) {
    for (int i = 0; i + 1 < n; i++)
        if (b[i].Function == APPLICATION_EXT_FUNC_CODE && b[i].ByteCount == 11 &&
            memcmp(b[i].Bytes, "NETSCAPE2.0", 11) == 0 && b[i + 1].ByteCount == 3 &&
            b[i + 1].Bytes[0] == 1)
            return b[i + 1].Bytes[1] | b[i + 1].Bytes[2] << 8;
    return -1;
}

int tgif_loops(const TgifAnim *a) {
    const GifFileType *g = a->gif;
    int l = loops_in(g->ExtensionBlocks, g->ExtensionBlockCount);
    for (int k = 0; k < g->ImageCount && l < 0; k++)
        l = loops_in(g->SavedImages[k].ExtensionBlocks, g->SavedImages[k].ExtensionBlockCount);
    return l;
}

void tgif_rect(const TgifAnim *a, int k, int r[4]) {
    const GifImageDesc *d = &((const GifFileType *)a->gif)->SavedImages[k].ImageDesc;
    r[0] = d->Left;
    r[1] = d->Top;
    r[2] = d->Width;
    r[3] = d->Height;
}

int tgif_map_size(const TgifAnim *a) {
    const ColorMapObject *m = ((const GifFileType *)a->gif)->SColorMap;
    return m ? m->ColorCount : 0;
}

void tgif_map_entry(const TgifAnim *a, int i, uint8_t rgb[3]) {
    const GifColorType *c = &((const GifFileType *)a->gif)->SColorMap->Colors[i];
    rgb[0] = c->Red;
    rgb[1] = c->Green;
    rgb[2] = c->Blue;
}

long tgif_nearest_d2(const TgifAnim *a, const uint8_t rgb[3]) {
    long best = -1;
    for (int i = 0; i < tgif_map_size(a); i++) {
        uint8_t c[3];
        tgif_map_entry(a, i, c);
        long d = 0;
        for (int j = 0; j < 3; j++)
            d += ((long)rgb[j] - c[j]) * ((long)rgb[j] - c[j]);
        if (best < 0 || d < best)
            best = d;
    }
    return best;
}

#else

int tgif_open(TgifAnim *a, const char *path) {
    memset(a, 0, sizeof *a);
    fprintf(stderr, "%s: this build cannot decode GIF files\n", path);
    return -1;
}
void tgif_close(TgifAnim *a) {
    memset(a, 0, sizeof *a);
}
int tgif_show(TgifAnim *a, int k) {
    (void)a, (void)k;
    return -1;
}
int tgif_delay(const TgifAnim *a, int k) {
    (void)a, (void)k;
    return -1;
}
int tgif_loops(const TgifAnim *a) {
    (void)a;
    return -1;
}
void tgif_rect(const TgifAnim *a, int k, int r[4]) {
    (void)a, (void)k;
    memset(r, 0, 4 * sizeof *r);
}
int tgif_map_size(const TgifAnim *a) {
    (void)a;
    return 0;
}
void tgif_map_entry(const TgifAnim *a, int i, uint8_t rgb[3]) {
    (void)a, (void)i;
    memset(rgb, 0, 3);
}
long tgif_nearest_d2(const TgifAnim *a, const uint8_t rgb[3]) {
    (void)a, (void)rgb;
    return -1;
}

#endif
