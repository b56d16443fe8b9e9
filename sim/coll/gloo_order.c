// sim/coll/gloo_order.c: gloo's ring chunks and their order of addition
// (gloo_order.h).
#include "coll/gloo_order.h"

static size_t round_up(size_t x, size_t m) {
    return (x + m - 1) / m * m;
}

size_t sim_gloo_chunk_elems(size_t count, size_t elem_size, int nranks) {
    if (count == 0 || elem_size == 0 || nranks < 1)
        return 0;
    size_t R = (size_t)nranks, bytes = count * elem_size;
    size_t per = SIM_GLOO_MAX_SEGMENT_BYTES / elem_size;
    size_t max_seg = elem_size * (per > 0 ? per : 1);
    size_t by_size = (bytes + max_seg - 1) / max_seg;
    size_t nseg = round_up(by_size > 2 * R ? by_size : 2 * R, R);
    // segmentBytes = roundUp(ceil(bytes / nseg), elem_size): whole elements
    size_t seg_elems = round_up((bytes + nseg - 1) / nseg, elem_size) / elem_size;
    return nseg / R * seg_elems;
}

int sim_gloo_chunk_rank(int nranks, int chunk, int k) {
    return ((chunk - 1 - k) % nranks + nranks) % nranks;
}
