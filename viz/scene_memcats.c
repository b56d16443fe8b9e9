// viz/scene_memcats.c: a rank's device memory by category over time, from
// the memory events the model indexed for viz_model_memory (scene.h).
#include <stdlib.h>
#include <string.h>

#include "scene.h"
#include "scene_internal.h"

static int is_free(const SimEvent *e) {
    const char *l = e->label ? e->label : e->name;
    return l != NULL && strcmp(l, "free") == 0;
}

SimStatus viz_model_memory_cats(const VizModel *m, int rank, VizMemCats *out) {
    memset(out, 0, sizeof *out);
    if (m == NULL || rank < 0 || rank >= m->nranks)
        return SIM_EINVAL;
    size_t n = m->nmem[rank];
    if (n == 0)
        return SIM_OK;
    out->x = malloc(n * sizeof *out->x);
    out->bytes = malloc(n * sizeof *out->bytes);
    if (out->x == NULL || out->bytes == NULL) {
        viz_mem_cats_free(out);
        return SIM_ENOMEM;
    }
    // the running bytes of each category, in double as the plot's totals
    // are (a loaded trace's sizes are any uint64)
    double cur[SIM_MEM_CAT_COUNT] = {0};
    for (size_t k = 0; k < n; k++) {
        const SimEvent *e = &m->t->ev[m->mem_i[rank][k]];
        int cat = e->mem_cat >= 0 && e->mem_cat < SIM_MEM_CAT_COUNT ? e->mem_cat : SIM_MEM_OTHER;
        cur[cat] += is_free(e) ? -(double)e->bytes : (double)e->bytes;
        if (cur[cat] < 0) // a free of what the trace lost: never below empty
            cur[cat] = 0;
        out->x[k] = e->sim_start;
        memcpy(out->bytes[k], cur, sizeof cur);
        out->bytes[k][SIM_MEM_BACKING] = 0; // not the run's memory (engine/memory.h)
    }
    out->n = n;
    return SIM_OK;
}

void viz_mem_cats_free(VizMemCats *c) {
    free(c->x);
    free(c->bytes);
    memset(c, 0, sizeof *c);
}
