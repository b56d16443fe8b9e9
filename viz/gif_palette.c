// viz/gif_palette.c: the one palette of an animation, chosen from the
// colours its frames hold (gif.h): every colour when there are 256 or
// fewer; else the 256 most popular 5-bit-per-channel buckets, each as the
// exact colour it holds most often; then each colour's nearest entry.
#include "gif.h"

#include <stdlib.h>
#include <string.h>

#include "gif_internal.h"

enum { BUCKETS = 1 << 15 }; // 5 bits of r, g and b

// A colour (or a bucket, by its best colour) with its pixel count.
typedef struct {
    uint32_t key;
    uint64_t n;
} Entry;

// Most pixels first; among equals the lower key, so the choice does not
// depend on the table's order.
static int by_count(const void *pa, const void *pb) {
    const Entry *a = pa, *b = pb;
    if (a->n != b->n)
        return a->n > b->n ? -1 : 1;
    return a->key < b->key ? -1 : a->key > b->key;
}

static void put(VizGifPalette *p, uint32_t key) {
    uint32_t rgb = key - 1;
    p->rgb[p->n][0] = (uint8_t)(rgb >> 16);
    p->rgb[p->n][1] = (uint8_t)(rgb >> 8);
    p->rgb[p->n][2] = (uint8_t)rgb;
    p->n++;
}

static unsigned bucket_of(uint32_t key) {
    uint32_t rgb = key - 1;
    return (rgb >> 19 & 31) << 10 | (rgb >> 11 & 31) << 5 | (rgb >> 3 & 31);
}

// Every counted colour as an entry, most pixels first: e[c->used].
static Entry *colours_of(const VizGifCount *c) {
    Entry *e = malloc((c->used ? c->used : 1) * sizeof *e);
    if (e == NULL)
        return NULL;
    size_t k = 0;
    for (size_t s = 0; s < c->cap; s++)
        if (c->key[s] != 0)
            e[k++] = (Entry){c->key[s], c->n[s]};
    qsort(e, k, sizeof *e, by_count);
    return e;
}

// The buckets of e[n] (most pixels first, so each bucket's first colour is
// the one it holds most often), most popular first: their count in *nb,
// each named by its best colour's key.
static Entry *buckets_of(const Entry *e, size_t n, size_t *nb) {
    Entry *b = calloc(BUCKETS, sizeof *b);
    if (b == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        Entry *t = &b[bucket_of(e[i].key)];
        if (t->key == 0)
            t->key = e[i].key;
        t->n += e[i].n;
    }
    size_t k = 0;
    for (size_t i = 0; i < BUCKETS; i++)
        if (b[i].key != 0)
            b[k++] = b[i];
    qsort(b, k, sizeof *b, by_count);
    *nb = k;
    return b;
}

// Every counted colour's index: its own entry, or the nearest one.
static void remember_indices(VizGifCount *c, const VizGifPalette *p) {
    for (size_t s = 0; s < c->cap; s++) {
        if (c->key[s] == 0)
            continue;
        uint32_t rgb = c->key[s] - 1;
        const uint8_t px[3] = {(uint8_t)(rgb >> 16), (uint8_t)(rgb >> 8), (uint8_t)rgb};
        c->index[s] = (uint8_t)viz_gif_nearest(p, px);
    }
}

SimStatus viz_gif_palette_choose(VizGifCount *c, VizGifPalette *p) {
    memset(p, 0, sizeof *p);
    if (c->used == 0) {
        p->n = 1; // black, and nothing maps to it
        return SIM_OK;
    }
    Entry *e = colours_of(c);
    if (e == NULL)
        return SIM_ENOMEM;
    if (c->used <= VIZ_GIF_MAX_COLOURS) {
        for (size_t i = 0; i < c->used; i++)
            put(p, e[i].key);
    } else {
        size_t nb = 0;
        Entry *b = buckets_of(e, c->used, &nb);
        if (b == NULL) {
            free(e);
            return SIM_ENOMEM;
        }
        for (size_t i = 0; i < nb && i < VIZ_GIF_MAX_COLOURS; i++)
            put(p, b[i].key);
        free(b);
    }
    free(e);
    remember_indices(c, p);
    return SIM_OK;
}

int viz_gif_nearest(const VizGifPalette *p, const uint8_t rgb[3]) {
    int best = 0;
    long best_d = -1;
    for (int i = 0; i < p->n; i++) {
        long dr = (long)rgb[0] - p->rgb[i][0], dg = (long)rgb[1] - p->rgb[i][1],
             db = (long)rgb[2] - p->rgb[i][2];
        long d = dr * dr + dg * dg + db * db;
        if (best_d < 0 || d < best_d) {
            best = i;
            best_d = d;
            if (d == 0)
                break;
        }
    }
    return best;
}

void viz_gif_map(const VizGifCount *c, const VizGifPalette *p, const uint8_t *rgba,
                 size_t npixels, uint8_t *idx) {
    uint32_t last = 0; // no colour's key
    uint8_t last_index = 0;
    for (size_t i = 0; i < npixels; i++) {
        const uint8_t *px = rgba + 4 * i;
        uint32_t k = viz_gif_key(px);
        if (k != last) {
            int found = viz_gif_count_find(c, k);
            last_index = (uint8_t)(found >= 0 ? found : viz_gif_nearest(p, px));
            last = k;
        }
        idx[i] = last_index;
    }
}
