// tests/test_viz_paint_gallery.c: the gallery part of
// test_viz_paint_panels: every painted panel of every strategy at frames
// that show what it is about (a unit half gathered, a reduce-scatter, each
// DataParallel step), from engine runs and hand-made shard traces of many
// units and ranks; written as PNGs under DDPLAB_PAINT_OUT for a reader to
// look at, checked here only to paint.
#include <stdint.h>
#include <stdio.h>

#include "check.h"
#include "test_env.h"
#include "test_viz_paint_canvas.h"
#include "test_viz_paint_util.h"

static int shoot(const VizTrace *t, size_t i, int selected, int W, int H, int embed, double u,
                 const char *name) {
    if (i == SIZE_MAX) {
        fprintf(stderr, "%s: no such event\n", name);
        return 1;
    }
    TpcShot sh;
    int rc = tpc_shot_at(&sh, t, i, selected, W, H, embed) ||
             tpc_paint_shot(&sh, selected, u, name);
    tpc_shot_free(&sh);
    return rc;
}

static int gallery_run(const char *strategy, int R, const char *model) {
    VizTrace t;
    CHECK(tpaint_run(&t, strategy, R, model, 2, 0) == SIM_OK);
    t.info.device_capacity = (uint64_t)(tpc_largest_peak(&t) * 1.25);
    char name[64];
    int rc = 0;
    // the all-gather half way: the last event before the unit is gathered
    snprintf(name, sizeof name, "%s%d_gather", strategy, R);
    size_t g = tpaint_find_from(&t, tpc_jump(&t, 1, VIZ_JUMP_GATHER, 2), SIM_EV_SHARD, NULL,
                                "gathered", 0);
    rc |= shoot(&t, g != SIZE_MAX && g > 0 ? g - 1 : g, 0, 160, 50, 0, 0.5, name);
    snprintf(name, sizeof name, "%s%d_reduce", strategy, R);
    rc |= shoot(&t, tpc_coll_after(&t, tpc_jump(&t, 1, VIZ_JUMP_REDUCE, 1), SIM_EV_COLL_STEP, 2), R - 1, 160, 50, 0, 0.5,
                name);
    snprintf(name, sizeof name, "%s%d_step", strategy, R);
    rc |= shoot(&t, tpc_jump(&t, 1, VIZ_JUMP_COLL_STEP, 6), 1, 120, 40, 0, 0, name);
    viz_trace_free(&t);
    return rc;
}

static int gallery_dp(int R) {
    VizTrace t;
    CHECK(tpaint_run(&t, "dp", R, TPC_MLP, 2, 0) == SIM_OK);
    t.info.device_capacity = (uint64_t)(tpc_largest_peak(&t) * 1.25);
    int rc = 0;
    const char *marks[] = {"dp.replicate", "dp.scatter", "dp.gather", "dp.scatter_grad",
                           "dp.reduce"};
    for (int k = 0; k < 5; k++) {
        size_t m = tpaint_find_from(&t, tpc_jump(&t, 1, VIZ_JUMP_ANY, 0), SIM_EV_MARKER, marks[k],
                                    NULL, 0);
        char name[64];
        snprintf(name, sizeof name, "dp%d_%s", R, marks[k] + 3);
        rc |= shoot(&t, tpc_coll_after(&t, m, SIM_EV_COLL, 3), 0, 160, 50, 0, 0.5, name);
        snprintf(name, sizeof name, "dp%d_%s_small", R, marks[k] + 3);
        rc |= shoot(&t, tpc_coll_after(&t, m, SIM_EV_COLL, 3), 0, 90, 26, 0, 0.5, name);
    }
    viz_trace_free(&t);
    return rc;
}

static int gallery_hand(int R, int U, int stop, int W, int H, const char *name) {
    VizTrace t;
    CHECK(tpaint_shard_trace(&t, R, U, stop) == SIM_OK);
    int rc = shoot(&t, t.n - 1, R / 3, W, H, 0, 0, name);
    viz_trace_free(&t);
    return rc;
}

int tpc_gallery(void) {
    // DDPLAB_TEST_QUICK: the many-rank runs at fewer ranks (still more than
    // the boxes and rows that fit)
    int quick = tenv_quick(), many = quick ? 8 : 16;
    int rc = 0;
    VizTrace t;
    CHECK(tpc_ddp_trace(&t, 4, 1.6) == 0);
    rc |= shoot(&t, tpc_jump(&t, 1, VIZ_JUMP_COLL_STEP, 3), 2, 160, 50, 0, 0.5, "ddp4");
    rc |= shoot(&t, tpc_jump(&t, 1, VIZ_JUMP_COLL_STEP, 3), 2, 90, 12, 1, 0.5, "ddp4_compact");
    rc |= shoot(&t, tpc_jump(&t, 1, VIZ_JUMP_COLL_STEP, 3), 2, 60, 8, 1, 0, "ddp4_compact_small");
    viz_trace_free(&t);
    CHECK(tpaint_run(&t, "ddp", many, TPC_MLP, 2, 0) == SIM_OK);
    rc |= shoot(&t, tpc_jump(&t, 1, VIZ_JUMP_COLL_STEP, 3), 5, 100, 16, 1, 0, "ddp_many_compact");
    rc |= shoot(&t, tpc_jump(&t, 1, VIZ_JUMP_COLL_STEP, 3), 5, 160, 50, 0, 0, "ddp_many");
    viz_trace_free(&t);
    rc |= gallery_run("fsdp", 4, TPC_MLP);
    rc |= gallery_run("fsdp", many, "mlp:16,32,32,32,32,32,4");
    rc |= gallery_run("zero1", 4, TPC_MLP);
    rc |= gallery_run("zero2", 4, TPC_MLP);
    rc |= gallery_run("zero3", 4, TPC_MLP);
    rc |= gallery_dp(4);
    rc |= gallery_dp(quick ? 6 : 12);
    rc |= gallery_run("fsdp-offload", 4, TPC_MLP);
    rc |= gallery_hand(16, 24, 10, 160, 50, "shards_24x16");
    rc |= gallery_hand(64, 80, 30, 160, 50, "shards_80x64");
    rc |= gallery_hand(8, 6, 2, 120, 40, "shards_6x8");
    // more shards than pixels
    rc |= gallery_hand(quick ? 96 : 256, 8, 3, 160, 50, "shards_8_units_many_ranks");
    return rc;
}
