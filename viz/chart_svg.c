// viz/chart_svg.c: a chart as SVG. Cairo sets text as glyph outlines, so
// the file would hold no words; the chart's title and subtitle are added as
// the document's <title> and <desc> (what a browser's tab, a search and a
// screen reader read). The drawing goes to memory first, then the file is
// written atomically with the two elements after the <svg> start tag.
#include <cairo-svg.h>
#include <stdlib.h>
#include <string.h>

#include "base/errbuf.h"  // defines: sim_errbuf_fail
#include "base/outfile.h" // defines: SimOutFile
#include "chart_draw.h"

typedef struct {
    char *p;
    size_t n, cap;
    int failed;
} Bytes;

static cairo_status_t put(void *closure, const unsigned char *data, unsigned int len) {
    Bytes *b = closure;
    if (b->n + len > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 1 << 16;
        while (cap < b->n + len)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (p == NULL) {
            b->failed = 1;
            return CAIRO_STATUS_NO_MEMORY;
        }
        b->p = p, b->cap = cap;
    }
    memcpy(b->p + b->n, data, len);
    b->n += len;
    return CAIRO_STATUS_SUCCESS;
}

// text with &, < and > escaped, as XML character data.
static void put_escaped(FILE *f, const char *text) {
    for (const char *s = text; *s; s++) {
        if (*s == '&')
            fputs("&amp;", f);
        else if (*s == '<')
            fputs("&lt;", f);
        else if (*s == '>')
            fputs("&gt;", f);
        else
            fputc(*s, f);
    }
}

static void put_element(FILE *f, const char *tag, const char *text) {
    if (text == NULL)
        return;
    fprintf(f, "<%s>", tag);
    put_escaped(f, text);
    fprintf(f, "</%s>\n", tag);
}

// The <svg start tag in b, or NULL.
static const char *find_svg(const Bytes *b) {
    for (size_t i = 0; i + 4 <= b->n; i++)
        if (memcmp(b->p + i, "<svg", 4) == 0)
            return b->p + i;
    return NULL;
}

// The SVG bytes as a file, the elements after the <svg ...> start tag.
static SimStatus save(const Bytes *b, const VizChart *c, const char *path, char *err,
                      size_t errlen) {
    const char *svg = find_svg(b);
    const char *end = svg ? memchr(svg, '>', b->n - (size_t)(svg - b->p)) : NULL;
    if (end == NULL)
        return sim_errbuf_fail(err, errlen, SIM_EIO, "cannot write %s: no SVG drawn", path);
    size_t head = (size_t)(end + 1 - b->p);
    SimOutFile out;
    if (sim_outfile_open(&out, path) != SIM_OK)
        return sim_errbuf_fail(err, errlen, SIM_EIO, "cannot write %s", path);
    fwrite(b->p, 1, head, out.f);
    fputc('\n', out.f);
    put_element(out.f, "title", c->title);
    put_element(out.f, "desc", c->subtitle);
    fwrite(b->p + head, 1, b->n - head, out.f);
    if (ferror(out.f)) {
        sim_outfile_abort(&out);
        return sim_errbuf_fail(err, errlen, SIM_EIO, "cannot write %s", path);
    }
    if (sim_outfile_commit(&out) != SIM_OK)
        return sim_errbuf_fail(err, errlen, SIM_EIO, "cannot write %s", path);
    return SIM_OK;
}

SimStatus viz_chart_write_svg(const VizChart *c, const char *path, int w, int h, char *err,
                              size_t errlen) {
    Bytes b = {0};
    cairo_surface_t *sf = cairo_svg_surface_create_for_stream(put, &b, w, h);
    cairo_t *cr = cairo_create(sf);
    SimStatus st = cairo_status(cr) == CAIRO_STATUS_SUCCESS
                       ? viz_chart_draw(c, cr, w, h, NULL, err, errlen)
                       : sim_errbuf_fail(err, errlen, SIM_ENOMEM, "out of memory for %s", path);
    cairo_destroy(cr);
    cairo_surface_finish(sf); // the SVG is written out here
    if (st == SIM_OK && (b.failed || cairo_surface_status(sf) != CAIRO_STATUS_SUCCESS))
        st = sim_errbuf_fail(err, errlen, SIM_ENOMEM, "out of memory drawing %s", path);
    cairo_surface_destroy(sf);
    if (st == SIM_OK)
        st = save(&b, c, path, err, errlen);
    free(b.p);
    return st;
}
