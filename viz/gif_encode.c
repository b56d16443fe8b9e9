// viz/gif_encode.c: the GIF stream itself, through giflib's encoder
// writing to a stdio file (EGifOpen with an output function): the screen
// with its global palette, the NETSCAPE2.0 loop, and each frame as a
// graphic control block (delay, transparency, leave in place) and an image
// of its changed rectangle. Built with giflib only.
#include "gif_encode.h"

#include <gif_lib.h>
#include <stdlib.h>
#include <string.h>

#include "base/errbuf.h"

struct VizGifEnc {
    GifFileType *g;
    uint8_t *row; // [screen width] one row of a rectangle
};

static int put_bytes(GifFileType *g, const GifByteType *b, int n) {
    return (int)fwrite(b, 1, (size_t)n, (FILE *)g->UserData);
}

static SimStatus gif_fail(const char *what, int code, char *err, size_t errlen) {
    const char *why = GifErrorString(code);
    return sim_errbuf_fail(err, errlen, code == E_GIF_ERR_NOT_ENOUGH_MEM ? SIM_ENOMEM : SIM_EIO,
                           "giflib: %s: %s", what, why ? why : "failed");
}

// The smallest power of two from 2 to 256 holding n colours and, below
// 256, one spare index for transparency.
static int map_size(int n) {
    int want = n < VIZ_GIF_MAX_COLOURS ? n + 1 : n;
    int size = 2;
    while (size < want)
        size *= 2;
    return size;
}

// Loop forever: the application extension "NETSCAPE2.0" with sub-block
// {1, loop count 0 (little-endian)}.
static int put_loop(GifFileType *g) {
    static const GifByteType loop[3] = {1, 0, 0};
    return EGifPutExtensionLeader(g, APPLICATION_EXT_FUNC_CODE) == GIF_OK &&
           EGifPutExtensionBlock(g, 11, "NETSCAPE2.0") == GIF_OK &&
           EGifPutExtensionBlock(g, 3, loop) == GIF_OK && EGifPutExtensionTrailer(g) == GIF_OK;
}

SimStatus viz_gif_enc_open(VizGifEnc **out, FILE *f, int w, int h, const VizGifPalette *p,
                           char *err, size_t errlen) {
    *out = NULL;
    VizGifEnc *e = calloc(1, sizeof *e);
    uint8_t *row = malloc((size_t)w);
    // The map's entries past the palette (a power of two's padding, the
    // spare index) repeat its first colour, so that a reader looking for a
    // pixel's nearest entry in the whole map finds a palette colour.
    GifColorType colours[VIZ_GIF_MAX_COLOURS];
    for (int i = 0; i < VIZ_GIF_MAX_COLOURS; i++) {
        const uint8_t *c = p->rgb[i < p->n ? i : 0];
        colours[i] = (GifColorType){c[0], c[1], c[2]};
    }
    ColorMapObject *map = GifMakeMapObject(map_size(p->n), colours);
    if (e == NULL || row == NULL || map == NULL) {
        free(e);
        free(row);
        GifFreeMapObject(map);
        return sim_errbuf_fail(err, errlen, SIM_ENOMEM, "out of memory for the GIF encoder");
    }
    int code = 0;
    e->row = row;
    e->g = EGifOpen(f, put_bytes, &code);
    if (e->g == NULL) {
        GifFreeMapObject(map);
        free(row);
        free(e);
        return gif_fail("cannot start the encoder", code, err, errlen);
    }
    EGifSetGifVersion(e->g, true); // transparency, delays and the loop are GIF89a's
    int ok = EGifPutScreenDesc(e->g, w, h, 8, 0, map) == GIF_OK && put_loop(e->g);
    GifFreeMapObject(map); // the encoder keeps its own copy
    *out = e;
    if (!ok)
        return gif_fail("cannot write the GIF's header", e->g->Error, err, errlen);
    return SIM_OK;
}

SimStatus viz_gif_enc_frame(VizGifEnc *e, const VizGifRect *r, const uint8_t *prev,
                            const uint8_t *cur, int w, int delay_cs, char *err, size_t errlen) {
    GraphicsControlBlock gcb = {
        .DisposalMode = DISPOSE_DO_NOT, // the next frame draws over this one
        .UserInputFlag = false,
        .DelayTime = delay_cs,
        .TransparentColor = prev != NULL ? r->transparent : NO_TRANSPARENT_COLOR,
    };
    GifByteType ext[4];
    size_t n = EGifGCBToExtension(&gcb, ext);
    if (EGifPutExtension(e->g, GRAPHICS_EXT_FUNC_CODE, (int)n, ext) != GIF_OK ||
        EGifPutImageDesc(e->g, r->x, r->y, r->w, r->h, false, NULL) != GIF_OK)
        return gif_fail("cannot write a frame", e->g->Error, err, errlen);
    for (int y = r->y; y < r->y + r->h; y++) {
        if (prev != NULL)
            viz_gif_rect_row(r, prev, cur, w, y, e->row);
        else
            memcpy(e->row, cur + (size_t)y * (size_t)w + r->x, (size_t)r->w);
        if (EGifPutLine(e->g, e->row, r->w) != GIF_OK)
            return gif_fail("cannot write a frame", e->g->Error, err, errlen);
    }
    return SIM_OK;
}

SimStatus viz_gif_enc_close(VizGifEnc *e, char *err, size_t errlen) {
    if (e == NULL)
        return SIM_OK;
    int code = 0;
    int ok = e->g == NULL || EGifCloseFile(e->g, &code) == GIF_OK;
    free(e->row);
    free(e);
    if (!ok)
        return gif_fail("cannot finish the GIF", code, err, errlen);
    return SIM_OK;
}
