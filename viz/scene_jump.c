// viz/scene_jump.c: the kinds of events the views jump between, from the
// sorted index lists the model keeps per kind (binary search both ways).
#include <string.h>

#include "scene_internal.h"

static const char *const jump_names[VIZ_JUMP_COUNT] = {
    [VIZ_JUMP_ANY] = "any",
    [VIZ_JUMP_ITERATION] = "iteration",
    [VIZ_JUMP_PHASE] = "phase",
    [VIZ_JUMP_BUCKET_LAUNCH] = "bucket-launch",
    [VIZ_JUMP_BUCKET_DONE] = "bucket-done",
    [VIZ_JUMP_COLL] = "coll",
    [VIZ_JUMP_COLL_STEP] = "coll-step",
    [VIZ_JUMP_GATHER] = "gather",
    [VIZ_JUMP_FREE] = "free",
    [VIZ_JUMP_REDUCE] = "reduce",
    [VIZ_JUMP_MEMORY_PEAK] = "memory-peak",
    [VIZ_JUMP_MARKER] = "marker",
    [VIZ_JUMP_FAULT] = "fault",
};

const char *viz_jump_name(VizJump k) {
    return k >= 0 && k < VIZ_JUMP_COUNT ? jump_names[k] : "?";
}

int viz_jump_parse(const char *name) {
    if (name == NULL)
        return -1;
    for (int k = 0; k < VIZ_JUMP_COUNT; k++)
        if (strcmp(name, jump_names[k]) == 0)
            return k;
    return -1;
}

// The list of event indices of kind k (NULL for ANY).
static const VizIdxList *jump_list(const VizModel *m, VizJump k) {
    switch (k) {
    case VIZ_JUMP_ITERATION:
        return m->it_mark.n > 0 ? &m->it_mark : &m->it_coll;
    case VIZ_JUMP_PHASE:
        // the training loop's markers; without them, where rank 0's ops
        // change between forward, backward and optimizer
        return m->phase_mark.n > 0 ? &m->phase_mark : &m->phase_ops;
    default:
        return k > VIZ_JUMP_ANY && k < VIZ_JUMP_COUNT ? &m->jump[k] : NULL;
    }
}

int viz_model_is(const VizModel *m, size_t i, VizJump k) {
    if (m == NULL || i >= m->n || k < 0 || k >= VIZ_JUMP_COUNT)
        return 0;
    const VizIdxList *l = jump_list(m, k);
    if (l == NULL)
        return 1;
    size_t p = viz_idx_lower(l, (uint32_t)i);
    return p < l->n && l->v[p] == (uint32_t)i;
}

size_t viz_model_next(const VizModel *m, size_t i, VizJump k, int dir) {
    if (m == NULL || m->n == 0 || k < 0 || k >= VIZ_JUMP_COUNT || dir == 0)
        return SIZE_MAX;
    const VizIdxList *l = jump_list(m, k);
    if (dir > 0) {
        size_t from = i == SIZE_MAX ? 0 : i + 1; // the first index that counts
        if (from >= m->n)
            return SIZE_MAX;
        if (l == NULL)
            return from;
        size_t p = viz_idx_lower(l, (uint32_t)from);
        return p < l->n ? l->v[p] : SIZE_MAX;
    }
    size_t below = i == SIZE_MAX || i > m->n ? m->n : i; // indices < below count
    if (below == 0)
        return SIZE_MAX;
    if (l == NULL)
        return below - 1;
    size_t p = viz_idx_lower(l, (uint32_t)below);
    return p > 0 ? l->v[p - 1] : SIZE_MAX;
}
