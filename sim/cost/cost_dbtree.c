// sim/cost/cost_dbtree.c: the double binary tree's cost without asking the
// schedule for every rank's transfers at every step.
//
// A rank's transfers at step t depend only on its place in each tree (level,
// depth, its parent's level, its number of children) and on the link class
// of each of its tree edges. Those places are worked out once (one walk of
// each tree, O(R)), and ranks with the same places in both trees (a few
// hundred kinds even at 16384 ranks) are kept once, found by hashing, O(R),
// since the step's cost is the largest over them, whatever their order.
// Each kind's load is the same integer byte total the general path
// builds from the transfer lists, fed to the same sim_cost_rank_time(), and
// the steps are added in order, so the result is the same to the bit
// (test_cost and test_phantom_scale compare them).
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cost/cost_internal.h" // defines: SimRankLoad, sim_cost_rank_time

// One rank's place in one tree, as the loads need it; memcmp-able.
typedef struct {
    signed char level, depth, parent_level, nchild;
    signed char up;      // link class to the parent (-1: the root)
    signed char down[2]; // link class to each child (-1: none)
    signed char pad;
} DbPlace;

typedef struct {
    DbPlace t[2]; // tree 0, tree 1
} DbKind;

static void place_of(const SimCost *c, const SimTreeNode *node, int r, DbPlace *p) {
    SimTreeNode v = *node;
    memset(p, 0, sizeof *p);
    p->level = (signed char)v.level;
    p->depth = (signed char)v.depth;
    p->parent_level = (signed char)v.parent_level;
    p->nchild = (signed char)v.nchild;
    p->up = (signed char)(v.parent >= 0 ? sim_cost_link_class(c, r, v.parent) : -1);
    for (int k = 0; k < 2; k++)
        p->down[k] = (signed char)(k < v.nchild ? sim_cost_link_class(c, r, v.child[k]) : -1);
}

// FNV-1a over a kind's bytes.
static uint32_t kind_hash(const DbKind *k) {
    const unsigned char *b = (const unsigned char *)k;
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < sizeof *k; i++)
        h = (h ^ b[i]) * 16777619u;
    return h;
}

// Keeps the first of each kind at the front of kinds[0..n), in place;
// returns how many there are, or 0 without memory for the table (the caller
// then takes every rank in turn).
static size_t kinds_unique(DbKind *kinds, size_t n) {
    size_t cap = 16;
    while (cap < 2 * n)
        cap *= 2;
    uint32_t *slot = calloc(cap, sizeof *slot); // index + 1 of a kept kind; 0: empty
    if (slot == NULL)
        return 0;
    size_t nk = 0;
    for (size_t r = 0; r < n; r++) {
        size_t i = kind_hash(&kinds[r]) & (cap - 1);
        while (slot[i] != 0 && memcmp(&kinds[slot[i] - 1], &kinds[r], sizeof *kinds) != 0)
            i = (i + 1) & (cap - 1);
        if (slot[i] == 0) {
            kinds[nk] = kinds[r];
            slot[i] = (uint32_t)++nk;
        }
    }
    free(slot);
    return nk;
}

// Bytes of chunk c (0 outside the tree's K chunks).
static uint64_t at(const uint64_t *bytes, int K, int c) {
    return c >= 0 && c < K ? bytes[c] : 0;
}

// Adds the place's transfers at step t: in, its children's chunk
// t - level + 1 and its parent's t - H - depth + 1; out, its chunk
// t - parent_level + 1 to the parent and t - H - depth to its children.
static void add_place(const DbPlace *p, const uint64_t *bytes, int K, int t, int H,
                      SimRankLoad *l) {
    for (int k = 0; k < p->nchild; k++) {
        if (p->level > 0)
            l->in[p->down[k]] += at(bytes, K, t - p->level + 1);
        l->out[p->down[k]] += at(bytes, K, t - H - p->depth);
    }
    if (p->up >= 0) {
        l->in[p->up] += at(bytes, K, t - H - p->depth + 1);
        l->out[p->up] += at(bytes, K, t - p->parent_level + 1);
    }
}

double sim_cost_dbtree(const SimCost *c, const SimSched *s, size_t es, int first, int last) {
    int R = s->nranks, H = sim_dbtree_height(R), K = s->nchunks / 2;
    uint64_t bytes[2][SIM_DBTREE_MAX_CHUNKS];
    for (int tree = 0; tree < 2; tree++)
        for (int k = 0; k < K; k++)
            bytes[tree][k] = (uint64_t)sim_part_size(s->count, s->nchunks, tree * K + k) * es;
    DbKind one, *kinds = malloc((size_t)R * sizeof *kinds); // NULL: each rank in turn
    SimTreeNode *nodes = kinds ? malloc(2 * (size_t)R * sizeof *nodes) : NULL; // [2][R]
    size_t nk = 0;
    if (nodes == NULL) {
        free(kinds);
        kinds = NULL;
    }
    if (kinds != NULL) {
        sim_dbtree_nodes(R, 0, nodes);
        sim_dbtree_nodes(R, 1, nodes + R);
        for (int r = 0; r < R; r++)
            for (int tree = 0; tree < 2; tree++)
                place_of(c, &nodes[(size_t)tree * (size_t)R + (size_t)r], r, &kinds[r].t[tree]);
        free(nodes);
        nk = kinds_unique(kinds, (size_t)R);
        if (nk == 0) {
            free(kinds);
            kinds = NULL;
        }
    }
    double total = 0.0;
    int rails = sim_cost_sched_rails(c, s); // a node's NICs (cost.h, "Rails")
    for (int t = first; t < last; t++) {
        double worst = 0.0;
        SimAlphaMode md = sim_cost_step_alpha(c, s, t); // only the first chunk's path pays
        for (size_t i = 0; i < (kinds ? nk : (size_t)R); i++) {
            const DbKind *k = kinds ? &kinds[i] : &one;
            if (kinds == NULL) {
                SimTreeNode v;
                for (int tree = 0; tree < 2; tree++) {
                    sim_dbtree_node(R, tree, (int)i, &v);
                    place_of(c, &v, (int)i, &one.t[tree]);
                }
            }
            SimRankLoad l = {{0, 0}, {0, 0}};
            add_place(&k->t[0], bytes[0], K, t, H, &l);
            add_place(&k->t[1], bytes[1], K, t, H, &l);
            double w = sim_cost_rank_time_rails(c, &l, md, rails);
            worst = w > worst ? w : worst;
        }
        total += worst;
    }
    free(kinds);
    return total;
}
