// tests/test_memory_events.c: allocations through sim_tensor_alloc are
// counted per rank (live bytes and peak of real storage; the ledger, which
// also charges phantom tensors) and traced as memory events whose count is
// the ledger's device total.
#include <string.h>

#include "check.h"
#include "engine/ops.h"
#include "test_world.h"

static SimStatus alloc_and_free(SimRank *r, void *arg) {
    (void)arg;
    SimTensor a, b, c;
    int64_t sa[2] = {4, 8}, sb[1] = {100};
    sim_tensor_init(&a, "a", SIM_FP32, 2, sa);   // 128 bytes
    sim_tensor_init(&b, "b", SIM_FP16, 1, sb);   // 200 bytes
    sim_tensor_init(&c, "c", SIM_FP32, 1, sb);   // phantom: no storage, 400 bytes charged
    SIM_CHECK(sim_tensor_alloc(r, &a, 0));
    SIM_CHECK(sim_tensor_alloc(r, &b, 0));
    SIM_CHECK(sim_tensor_alloc(r, &c, 1));
    sim_tensor_free(r, &a);
    sim_tensor_free(r, &b);
    sim_tensor_free(r, &c);
    return SIM_OK;
}

static int test_memory_events(void) {
    SimWorld w;
    SimStatus st = tworld_init_cpu(&w, 2, 1, 10.0);
    if (st == SIM_OK)
        st = sim_world_run(&w, alloc_and_free, NULL);
    if (st != SIM_OK)
        fprintf(stderr, "%s\n", sim_world_error(&w));
    CHECK_EQ_INT(st, SIM_OK);
    for (int rank = 0; rank < 2; rank++) {
        CHECK_EQ_INT(w.ranks[rank].mem_bytes, 0);
        CHECK_EQ_INT(w.ranks[rank].mem_peak, 328); // real storage only
        CHECK_EQ_INT(w.ranks[rank].mem.total[SIM_MEM_DEVICE], 0);
        CHECK_EQ_INT(w.ranks[rank].mem.peak[SIM_MEM_DEVICE], 728); // the phantom too
        const SimEvent *ev = sim_trace_rank_events(w.trace, rank);
        size_t n = sim_trace_rank_count(w.trace, rank);
        const long long want_bytes[6] = {128, 200, 400, 128, 200, 400};
        const long long want_total[6] = {128, 328, 728, 600, 400, 0};
        const char *want_name[6] = {"alloc", "alloc", "alloc", "free", "free", "free"};
        int seen = 0;
        for (size_t i = 0; i < n; i++) {
            if (ev[i].kind != SIM_EV_MEMORY)
                continue;
            CHECK(seen < 6);
            CHECK(strcmp(ev[i].name, want_name[seen]) == 0);
            CHECK(strcmp(ev[i].label, want_name[seen]) == 0);
            CHECK_EQ_INT(ev[i].bytes, want_bytes[seen]);
            CHECK_EQ_INT(ev[i].count, want_total[seen]);
            CHECK_EQ_INT(ev[i].mem_cat, SIM_MEM_OTHER);
            CHECK_EQ_INT(ev[i].mem_space, SIM_MEM_DEVICE);
            seen++;
        }
        CHECK_EQ_INT(seen, 6);
    }
    CHECK(strcmp(sim_event_kind_name(SIM_EV_MEMORY), "memory") == 0);
    sim_world_free(&w);
    return 0;
}

int main(void) {
    int failures = 0;
    RUN(test_memory_events);
    return failures ? 1 : 0;
}
