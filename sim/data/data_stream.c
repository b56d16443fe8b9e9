// sim/data/data_stream.c: the streaming loader's per-rank draws (see data_stream.h).
#include "data/data_stream.h"

#include <stdlib.h>

uint64_t sim_data_stream_seed_of(SimStreamSeeds seeds, uint64_t seed, int rank) {
    return seeds == SIM_STREAM_RANK_SEEDS ? seed + (uint64_t)rank : seed;
}

SimStatus sim_data_stream_init(SimDataStream *s, SimStreamSeeds seeds, uint64_t seed, int rank, int64_t n,
                          int batch) {
    s->idx = NULL;
    if (seeds == SIM_STREAM_OFF || n < 1 || batch < 1)
        return SIM_EINVAL;
    s->idx = malloc((size_t)batch * sizeof *s->idx);
    if (!s->idx)
        return SIM_ENOMEM;
    sim_splitmix_seed(&s->gen, sim_data_stream_seed_of(seeds, seed, rank));
    s->n = n;
    s->batch = batch;
    return SIM_OK;
}

const int64_t *sim_data_stream_next(SimDataStream *s) {
    for (int i = 0; i < s->batch; i++)
        s->idx[i] = (int64_t)sim_splitmix_below(&s->gen, (uint64_t)s->n);
    return s->idx;
}

void sim_data_stream_free(SimDataStream *s) {
    free(s->idx);
    s->idx = NULL;
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

// Distinct values among v[m] (sorts v).
static int64_t distinct_of(int64_t *v, int64_t m) {
    qsort(v, (size_t)m, sizeof *v, cmp_i64);
    int64_t d = m > 0;
    for (int64_t i = 1; i < m; i++)
        d += v[i] != v[i - 1];
    return d;
}

int64_t sim_data_stream_distinct(SimStreamSeeds seeds, uint64_t seed, int nranks, int64_t n, int batch,
                            int64_t batches) {
    SimDataStream *st = calloc((size_t)nranks, sizeof *st);
    int64_t *all = malloc((size_t)nranks * (size_t)batch * sizeof *all); // [R * B] one micro-batch
    int ok = st && all;
    int made = 0;
    for (; ok && made < nranks; made++)
        ok = sim_data_stream_init(&st[made], seeds, seed, made, n, batch) == SIM_OK;
    int64_t total = 0;
    for (int64_t k = 0; ok && k < batches; k++) {
        for (int r = 0; r < nranks; r++) {
            const int64_t *idx = sim_data_stream_next(&st[r]);
            for (int i = 0; i < batch; i++)
                all[(int64_t)r * batch + i] = idx[i];
        }
        total += distinct_of(all, (int64_t)nranks * batch);
    }
    for (int r = 0; r < made; r++)
        sim_data_stream_free(&st[r]);
    free(st);
    free(all);
    return ok ? total : -1;
}
