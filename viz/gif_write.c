// viz/gif_write.c: viz_gif_write (gif.h): two passes over the frames, the
// first counting their colours for the palette, the second mapping each to
// palette indices and storing what changed since the one before, into a
// file replaced atomically (sim/base/outfile.h). Built with giflib only
// (gif_stub.c otherwise).
//
// Buffers: one RGBA frame (w * h * 4 bytes) and two index frames (w * h
// each, this one and the one before), whatever the number of frames.
#include "gif.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/errbuf.h"
#include "base/outfile.h"
#include "gif_encode.h"

int viz_gif_available(void) {
    return 1;
}

static SimStatus check_spec(const char *path, const VizGifSpec *s, char *err, size_t errlen) {
    if (path == NULL || path[0] == '\0')
        return sim_errbuf_fail(err, errlen, SIM_EINVAL, "no GIF file name given");
    if (s == NULL || s->draw == NULL || s->frames == 0)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL, "cannot write %s: no frames", path);
    if (s->w < 1 || s->h < 1 || s->w > VIZ_GIF_MAX_SIDE || s->h > VIZ_GIF_MAX_SIDE)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL, "cannot write %s: a %d x %d animation "
                               "(allowed: 1 to %d pixels a side)", path, s->w, s->h,
                               VIZ_GIF_MAX_SIDE);
    for (size_t k = 0; k < s->frames; k++) {
        int d = s->delays ? s->delays[k] : s->delay_cs;
        if (d < 0 || d > 65535)
            return sim_errbuf_fail(err, errlen, SIM_EINVAL, "cannot write %s: frame %zu's "
                                   "delay %d is not 0 to 65535 hundredths of a second", path,
                                   k, d);
    }
    return SIM_OK;
}

static SimStatus draw(const VizGifSpec *s, size_t k, uint8_t *rgba, char *err, size_t errlen) {
    char why[400] = "";
    SimStatus st = s->draw(s->ctx, k, rgba, why, sizeof why);
    if (st != SIM_OK)
        return sim_errbuf_fail(err, errlen, st, "frame %zu of %zu: %s", k + 1, s->frames,
                               why[0] ? why : sim_strerror(st));
    return SIM_OK;
}

// Pass 1: every frame's colours into c.
static SimStatus count_frames(const VizGifSpec *s, VizGifCount *c, uint8_t *rgba, char *err,
                              size_t errlen) {
    size_t npix = (size_t)s->w * (size_t)s->h;
    for (size_t k = 0; k < s->frames; k++) {
        SimStatus st = draw(s, k, rgba, err, errlen);
        if (st != SIM_OK)
            return st;
        if (viz_gif_count_add(c, rgba, npix) != SIM_OK)
            return sim_errbuf_fail(err, errlen, SIM_ENOMEM, "out of memory counting the "
                                   "frames' colours");
        if (s->progress)
            s->progress(s->ctx, 1, k, s->frames);
    }
    return SIM_OK;
}

// The buffers of pass 2.
typedef struct {
    uint8_t *rgba; // [w * h * 4]
    uint8_t *prev; // [w * h] the frame before, as palette indices
    uint8_t *cur;  // [w * h] this frame
} Frames;

// Pass 2: every frame mapped to the palette and stored.
static SimStatus encode_frames(const VizGifSpec *s, const VizGifCount *c,
                               const VizGifPalette *p, VizGifEnc *e, Frames *f, char *err,
                               size_t errlen) {
    size_t npix = (size_t)s->w * (size_t)s->h;
    int spare = p->n < VIZ_GIF_MAX_COLOURS ? p->n : -1;
    for (size_t k = 0; k < s->frames; k++) {
        SimStatus st = draw(s, k, f->rgba, err, errlen);
        if (st != SIM_OK)
            return st;
        viz_gif_map(c, p, f->rgba, npix, f->cur);
        VizGifRect r = {0, 0, s->w, s->h, -1};
        if (k > 0)
            r = viz_gif_changed(f->prev, f->cur, s->w, s->h, spare);
        int delay = s->delays ? s->delays[k] : s->delay_cs;
        st = viz_gif_enc_frame(e, &r, k > 0 ? f->prev : NULL, f->cur, s->w, delay, err,
                               errlen);
        if (st != SIM_OK)
            return st;
        uint8_t *t = f->prev;
        f->prev = f->cur;
        f->cur = t;
        if (s->progress)
            s->progress(s->ctx, 2, k, s->frames);
    }
    return SIM_OK;
}

static SimStatus open_file(SimOutFile *o, const char *path, char *err, size_t errlen) {
    errno = 0;
    SimStatus st = sim_outfile_open(o, path);
    if (st == SIM_OK)
        return SIM_OK;
    int e = errno;
    return sim_errbuf_fail(err, errlen, st, "cannot write %s: %s", path,
                           st == SIM_ENOMEM ? "out of memory"
                           : e != 0        ? strerror(e)
                                           : "cannot create a temporary file beside it");
}

static SimStatus commit_file(SimOutFile *o, const char *path, char *err, size_t errlen) {
    errno = 0;
    SimStatus st = sim_outfile_commit(o);
    if (st == SIM_OK)
        return SIM_OK;
    int e = errno;
    return sim_errbuf_fail(err, errlen, st, "cannot write %s: %s", path,
                           e != 0 ? strerror(e) : "writing or renaming the file failed");
}

// Both passes into the open file: the palette from the first, the frames
// from the second. The caller commits or aborts the file.
static SimStatus write_to(FILE *out, const VizGifSpec *s, VizGifCount *c, Frames *f,
                          char *err, size_t errlen) {
    VizGifPalette p;
    SimStatus st = count_frames(s, c, f->rgba, err, errlen);
    if (st != SIM_OK)
        return st;
    if ((st = viz_gif_palette_choose(c, &p)) != SIM_OK)
        return sim_errbuf_fail(err, errlen, st, "out of memory choosing the palette");
    VizGifEnc *e = NULL;
    st = viz_gif_enc_open(&e, out, s->w, s->h, &p, err, errlen);
    if (st == SIM_OK)
        st = encode_frames(s, c, &p, e, f, err, errlen);
    // after a failure, its message stays the one to tell
    SimStatus cl = viz_gif_enc_close(e, st == SIM_OK ? err : NULL, st == SIM_OK ? errlen : 0);
    return st != SIM_OK ? st : cl;
}

SimStatus viz_gif_write(const char *path, const VizGifSpec *s, char *err, size_t errlen) {
    SimStatus st = check_spec(path, s, err, errlen);
    if (st != SIM_OK)
        return st;
    size_t npix = (size_t)s->w * (size_t)s->h;
    Frames f = {malloc(npix * 4), malloc(npix), malloc(npix)};
    VizGifCount *c = viz_gif_count_new();
    if (f.rgba == NULL || f.prev == NULL || f.cur == NULL || c == NULL) {
        st = sim_errbuf_fail(err, errlen, SIM_ENOMEM, "out of memory for %d x %d frames",
                             s->w, s->h);
    } else {
        // opened first, so that a path that cannot be written fails before
        // any frame is drawn
        SimOutFile o;
        st = open_file(&o, path, err, errlen);
        if (st == SIM_OK && (st = write_to(o.f, s, c, &f, err, errlen)) != SIM_OK)
            sim_outfile_abort(&o);
        else if (st == SIM_OK)
            st = commit_file(&o, path, err, errlen);
    }
    viz_gif_count_free(c);
    free(f.rgba);
    free(f.prev);
    free(f.cur);
    return st;
}
