// viz/gif_count.c: the exact colours of an animation's frames and how many
// pixels had each (VizGifCount, gif.h): an open-addressing table keyed by
// the 24-bit colour. The view's frames are mostly long runs of one colour,
// so pixels are counted a run at a time.
#include "gif.h"

#include <stdlib.h>

#include "gif_internal.h"

enum { FIRST_CAP = 4096 }; // a power of two

static size_t slot_of(const VizGifCount *c, uint32_t key) {
    size_t mask = c->cap - 1;
    size_t s = (size_t)((key * 2654435761u) & mask);
    while (c->key[s] != 0 && c->key[s] != key)
        s = (s + 1) & mask;
    return s;
}

static SimStatus alloc_table(VizGifCount *c, size_t cap) {
    c->key = calloc(cap, sizeof *c->key);
    c->n = calloc(cap, sizeof *c->n);
    c->index = calloc(cap, sizeof *c->index);
    c->cap = cap;
    c->used = 0;
    if (c->key == NULL || c->n == NULL || c->index == NULL)
        return SIM_ENOMEM;
    return SIM_OK;
}

static void free_table(VizGifCount *c) {
    free(c->key);
    free(c->n);
    free(c->index);
    c->key = NULL;
    c->n = NULL;
    c->index = NULL;
}

// Doubles the table, keeping every colour, its count and index.
static SimStatus grow(VizGifCount *c) {
    VizGifCount old = *c;
    if (alloc_table(c, old.cap * 2) != SIM_OK) {
        free_table(c);
        *c = old;
        return SIM_ENOMEM;
    }
    for (size_t s = 0; s < old.cap; s++) {
        if (old.key[s] == 0)
            continue;
        size_t t = slot_of(c, old.key[s]);
        c->key[t] = old.key[s];
        c->n[t] = old.n[s];
        c->index[t] = old.index[s];
        c->used++;
    }
    free_table(&old);
    return SIM_OK;
}

VizGifCount *viz_gif_count_new(void) {
    VizGifCount *c = calloc(1, sizeof *c);
    if (c == NULL)
        return NULL;
    if (alloc_table(c, FIRST_CAP) != SIM_OK) {
        viz_gif_count_free(c);
        return NULL;
    }
    return c;
}

void viz_gif_count_free(VizGifCount *c) {
    if (c == NULL)
        return;
    free_table(c);
    free(c);
}

// Adds n pixels of colour key (rgb + 1).
static SimStatus add_run(VizGifCount *c, uint32_t key, uint64_t n) {
    size_t s = slot_of(c, key);
    if (c->key[s] == 0) {
        // at most half full, so that probes stay short
        if (2 * (c->used + 1) > c->cap) {
            if (grow(c) != SIM_OK)
                return SIM_ENOMEM;
            s = slot_of(c, key);
        }
        c->key[s] = key;
        c->used++;
    }
    c->n[s] += n;
    return SIM_OK;
}

SimStatus viz_gif_count_add(VizGifCount *c, const uint8_t *rgba, size_t npixels) {
    if (npixels == 0)
        return SIM_OK;
    uint32_t run = viz_gif_key(rgba);
    uint64_t len = 0;
    for (size_t i = 0; i < npixels; i++) {
        uint32_t k = viz_gif_key(rgba + 4 * i);
        if (k != run) {
            if (add_run(c, run, len) != SIM_OK)
                return SIM_ENOMEM;
            run = k;
            len = 0;
        }
        len++;
    }
    return add_run(c, run, len);
}

size_t viz_gif_count_distinct(const VizGifCount *c) {
    return c->used;
}

int viz_gif_count_find(const VizGifCount *c, uint32_t key) {
    size_t s = slot_of(c, key);
    return c->key[s] == key ? c->index[s] : -1;
}
