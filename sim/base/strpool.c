// sim/base/strpool.c: interned strings: one heap copy per distinct content,
// found by an open-addressing hash (FNV-1a over the bytes). Used by the
// engine's trace for names that are not static, and by the views' traces
// for every name they load.
#include "base/strpool.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct SimStrPool {
    char **strs;     // [n] NUL-terminated copies
    size_t *lens;    // [n]
    size_t n, cap;
    size_t *slots;   // [nslots] k+1 for strs[k], 0 = empty; at most half full
    size_t nslots;   // a power of two
};

struct SimStrPool *sim_strpool_new(void) { return calloc(1, sizeof(struct SimStrPool)); }

void sim_strpool_free(struct SimStrPool *p) {
    if (p == NULL)
        return;
    for (size_t k = 0; k < p->n; k++)
        free(p->strs[k]);
    free(p->strs);
    free(p->lens);
    free(p->slots);
    free(p);
}

static uint64_t pool_hash(const char *s, size_t len) {
    uint64_t h = 1469598103934665603ULL; // FNV-1a: short names, no adversary
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    return h;
}

// The slot holding s[0..len), or the empty slot where it belongs.
static size_t pool_slot(const struct SimStrPool *p, const char *s, size_t len) {
    size_t mask = p->nslots - 1, i = (size_t)pool_hash(s, len) & mask;
    while (p->slots[i] != 0) {
        size_t k = p->slots[i] - 1;
        if (p->lens[k] == len && memcmp(p->strs[k], s, len) == 0)
            break;
        i = (i + 1) & mask;
    }
    return i;
}

static int pool_rehash(struct SimStrPool *p) {
    size_t n = p->nslots ? p->nslots * 2 : 64;
    size_t *slots = calloc(n, sizeof *slots);
    if (slots == NULL)
        return -1;
    free(p->slots);
    p->slots = slots;
    p->nslots = n;
    for (size_t k = 0; k < p->n; k++)
        p->slots[pool_slot(p, p->strs[k], p->lens[k])] = k + 1;
    return 0;
}

static int pool_grow(struct SimStrPool *p) {
    size_t cap = p->cap ? p->cap * 2 : 64;
    char **strs = realloc(p->strs, cap * sizeof *strs);
    if (strs == NULL)
        return -1;
    p->strs = strs;
    size_t *lens = realloc(p->lens, cap * sizeof *lens);
    if (lens == NULL)
        return -1;
    p->lens = lens;
    p->cap = cap;
    return 0;
}

const char *sim_strpool_intern(struct SimStrPool *p, const char *s, size_t len) {
    if ((p->n + 1) * 2 > p->nslots && pool_rehash(p) != 0)
        return NULL;
    size_t i = pool_slot(p, s, len);
    if (p->slots[i] != 0)
        return p->strs[p->slots[i] - 1];
    if (p->n == p->cap && pool_grow(p) != 0)
        return NULL;
    char *c = malloc(len + 1);
    if (c == NULL)
        return NULL;
    memcpy(c, s, len);
    c[len] = '\0';
    p->strs[p->n] = c;
    p->lens[p->n] = len;
    p->slots[i] = ++p->n;
    return c;
}
