// sim/engine/comm_price.c: the memo of sim/engine/comm_price.h.
//
// A direct-mapped table of PRICE_SLOTS entries: a key's hash picks its slot,
// a different key there is replaced. A run has few shapes of collective
// (a bucket size or two, a layer's gather, the logged loss), so a small
// table holds them all; a miss only costs the cost model's own call.
#include "engine/comm_price.h"

#include <stdint.h>
#include <stdlib.h>

#define PRICE_SLOTS 64

typedef enum { PRICE_EMPTY = 0, PRICE_ALGO, PRICE_COLL } PriceWhat;

typedef struct {
    int what; // PriceWhat
    int kind, algo, nranks, root;
    size_t count, es;
    double value; // the algorithm (PRICE_ALGO) or seconds (PRICE_COLL)
} PriceEntry;

struct SimPriceMemo {
    PriceEntry slot[PRICE_SLOTS];
};

static PriceEntry *slot_of(SimRank *r, const PriceEntry *key) {
    if (r->prices == NULL && (r->prices = calloc(1, sizeof *r->prices)) == NULL)
        return NULL; // out of memory: every call goes to the cost model
    // multiply-xorshift over the fields: counts differ in their high bits
    // (sizes in MiB), and each round carries them down to the slot's bits
    uint64_t h = 0;
    const uint64_t f[] = {(uint64_t)key->what, (uint64_t)key->kind,  (uint64_t)key->algo,
                          (uint64_t)key->nranks, (uint64_t)key->root, key->count, key->es};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        h = (h ^ f[i]) * 0x9E3779B97F4A7C15ULL;
        h ^= h >> 29;
    }
    return &r->prices->slot[h % PRICE_SLOTS];
}

static int same_key(const PriceEntry *a, const PriceEntry *b) {
    return a->what == b->what && a->kind == b->kind && a->algo == b->algo &&
           a->nranks == b->nranks && a->root == b->root && a->count == b->count && a->es == b->es;
}

SimAlgo sim_price_algo(SimRank *r, SimCollKind k, SimAlgo a, int nranks, size_t count,
                       size_t es) {
    PriceEntry key = {PRICE_ALGO, (int)k, (int)a, nranks, 0, count, es, 0.0};
    PriceEntry *e = slot_of(r, &key);
    if (e != NULL && same_key(e, &key))
        return (SimAlgo)(int)e->value;
    SimAlgo got = sim_cost_resolve_algo(&r->world->cost, k, a, nranks, count, es);
    if (e != NULL)
        *e = key, e->value = (double)got;
    return got;
}

double sim_price_coll(SimRank *r, const SimSched *s, size_t es) {
    PriceEntry key = {PRICE_COLL, (int)s->kind, (int)s->algo, s->nranks, s->root, s->count, es,
                      0.0};
    PriceEntry *e = slot_of(r, &key);
    if (e != NULL && same_key(e, &key))
        return e->value;
    double t = sim_cost_coll(&r->world->cost, s, es);
    if (e != NULL)
        *e = key, e->value = t;
    return t;
}

void sim_price_free(SimRank *r) {
    free(r->prices);
    r->prices = NULL;
}
