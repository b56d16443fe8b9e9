// tests/test_viz_scene_ddp.c: what the bucket panel, the header and the
// captions say at chosen events of a DDP run on an H100's clock (4 ranks,
// mlp:16,32,32,4, ring all_reduce, buckets of about 1 KiB), so that one
// frame tells one story:
//   - iteration 0 runs PyTorch's initial plan, one bucket in parameter
//     order; the plan rebuilt in iteration 1 is in gradient-ready order,
//     and the panel's title says which of the two it shows;
//   - a bucket row is one rank's view (the selected rank), and the ranks
//     that are elsewhere with that bucket are named beside it, never the
//     least advanced rank's state passed off as the bucket's;
//   - the header counts iterations from 0, as the captions and --at iN do,
//     and the collective's title counts a ring's steps in their phase, as
//     the step captions do (and in the whole collective, as the rows do);
//   - a launch's caption says "while backward goes on" only where compute
//     really runs beside the all_reduce, and "nothing left to hide it
//     behind" only once backward has computed its last gradient, and the
//     launching rank's box says the same (computing, or waiting).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "scene.h"
#include "test_viz_scene_util.h"
#include "views.h"

enum { R = 4 };

#define CHECK_STR_EQ(got, want)                                                \
    do {                                                                       \
        const char *check_g_ = (got), *check_w_ = (want);                      \
        if (check_g_ == NULL || strcmp(check_g_, check_w_) != 0) {             \
            fprintf(stderr, "%s:%d: `%s` is \"%s\", not \"%s\"\n", __FILE__,   \
                    __LINE__, #got, check_g_ ? check_g_ : "(null)", check_w_);  \
            return 1;                                                          \
        }                                                                      \
    } while (0)

static const char *const k_param_order[6] = {"0.weight", "0.bias", "2.weight",
                                             "2.bias",   "4.weight", "4.bias"};

// The K-th bucket launch (from 0) of rank r in iteration it; SIZE_MAX if none.
static size_t launch_of(const VizModel *m, const VizTrace *t, int it, int r, int k) {
    size_t i = SIZE_MAX;
    while ((i = viz_model_next(m, i, VIZ_JUMP_BUCKET_LAUNCH, 1)) != SIZE_MAX)
        if (t->ev[i].rank == r && viz_model_iteration_of(m, i) == it && k-- == 0)
            return i;
    return SIZE_MAX;
}

// The text frame of event i at `width` columns, ASCII (caller frees).
static char *frame_text(VizModel *m, size_t i, int width) {
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    if (f == NULL)
        return NULL;
    SimStatus st = viz_text_frame(m, i, width, 0, NULL, f);
    fclose(f);
    if (st != SIM_OK) {
        free(buf);
        return NULL;
    }
    return buf;
}

static int frame_has(VizModel *m, size_t i, int width, const char *const *want, int nwant,
                     const char *never) {
    char *t = frame_text(m, i, width);
    CHECK(t != NULL);
    int bad = 0;
    for (int k = 0; k < nwant; k++)
        if (strstr(t, want[k]) == NULL) {
            fprintf(stderr, "the frame of event %zu at %d columns lacks \"%s\"\n", i, width,
                    want[k]);
            bad = 1;
        }
    if (never && strstr(t, never)) {
        fprintf(stderr, "the frame of event %zu at %d columns has \"%s\"\n", i, width, never);
        bad = 1;
    }
    if (bad)
        fprintf(stderr, "%s", t);
    free(t);
    return bad;
}

// Iteration 0: rank 0 launches the single bucket the moment its last
// gradient is in; ranks 1-3, listed after it in the trace, have 5 of 6.
static int test_iteration0_launch(VizModel *m, const VizTrace *t, VizScene *s) {
    size_t l = viz_model_next(m, SIZE_MAX, VIZ_JUMP_BUCKET_LAUNCH, 1);
    CHECK(l != SIZE_MAX);
    CHECK_EQ_INT(l, launch_of(m, t, 0, 0, 0));
    CHECK_EQ_INT(viz_scene_at(m, l, NULL, s), SIM_OK);
    CHECK_EQ_INT(s->iteration, 0);
    CHECK_EQ_INT(s->bucket_rank, 0);
    CHECK_EQ_INT(s->plan_kind, VIZ_PLAN_INITIAL);
    CHECK_EQ_INT(s->plan_order, VIZ_ORDER_PARAMS);
    CHECK_EQ_INT(s->plan_iteration, -1);
    CHECK_EQ_INT(s->nbuckets, 1);
    CHECK_EQ_INT(s->nparams, 6);
    for (int k = 0; k < 6; k++)
        CHECK_STR_EQ(s->params[k].name, k_param_order[k]);
    const VizBucket *b = &s->buckets[0];
    CHECK_EQ_INT(b->state, VIZ_BUCKET_REDUCING);
    CHECK_EQ_INT(b->nready, 6);
    CHECK_EQ_INT(b->bytes, 6928);
    CHECK_EQ_INT(b->ndiffer, 3);
    CHECK_EQ_INT(b->other_n, 3);
    CHECK_EQ_INT(b->other_lo, 1);
    CHECK_EQ_INT(b->other_hi, 3);
    CHECK_EQ_INT(b->other_state, VIZ_BUCKET_FILLING);
    CHECK_EQ_INT(b->other_ready, 5);
    CHECK_EQ_INT(b->behind, 1);
    CHECK_STR_EQ(s->caption, "rank 0: bucket #0 launched: all_reduce of 6.77 KiB after "
                             "backward's last gradient: nothing left to hide it behind");
    // rank 0's box agrees: it waits for that all_reduce; rank 1 is still in
    // its backward, its last gradient listed after rank 0's launch
    CHECK_EQ_INT(s->ranks[0].phase, VIZ_PHASE_WAIT);
    CHECK_STR_EQ(s->ranks[0].coll, "AllReduce");
    CHECK_EQ_INT(s->ranks[1].phase, VIZ_PHASE_BACKWARD);
    CHECK(s->ranks[1].coll == NULL);
    const char *const want80[] = {
        "iter 0 (0-2)  event 243/1056",
        " Buckets on rank 0 (initial plan, parameter order; launched in index order)",
        " >#0  0.weight +5       6.77 KiB [..........] reducing 0%; r1-3 filling 5/6",
        "> rank 0: bucket #0 launched: all_reduce of 6.77 KiB after backward's last"};
    CHECK_EQ_INT(frame_has(m, l, 80, want80, 4, "lags"), 0);
    const char *const want140[] = {
        "iter 0 (0-2)  event 243/1056",
        "Buckets on rank 0 (initial plan, parameter order; all_reduce launched in index order)",
        "reducing 0%; r1-3 filling 5/6",
        "> rank 0: bucket #0 launched: all_reduce of 6.77 KiB after backward's last gradient: "
        "nothing left to hide it behind"};
    CHECK_EQ_INT(frame_has(m, l, 140, want140, 4, "reverse layer order"), 0);

    // the same event seen from rank 2: still filling, rank 0 ahead of it
    VizSceneOpts o = viz_scene_opts_default();
    o.selected_rank = 2;
    CHECK_EQ_INT(viz_scene_at(m, l, &o, s), SIM_OK);
    CHECK_EQ_INT(s->bucket_rank, 2);
    CHECK_EQ_INT(b->state, VIZ_BUCKET_FILLING);
    CHECK_EQ_INT(b->nready, 5);
    CHECK_EQ_INT(b->ndiffer, 1);
    CHECK_EQ_INT(b->other_n, 1);
    CHECK_EQ_INT(b->other_lo, 0);
    CHECK_EQ_INT(b->other_hi, 0);
    CHECK_EQ_INT(b->other_state, VIZ_BUCKET_REDUCING);
    CHECK_EQ_INT(b->behind, 0);

    // once rank 3 has launched too, every rank agrees
    size_t l3 = launch_of(m, t, 0, 3, 0);
    CHECK(l3 != SIZE_MAX && l3 > l);
    CHECK_EQ_INT(viz_scene_at(m, l3, NULL, s), SIM_OK);
    CHECK_EQ_INT(b->state, VIZ_BUCKET_REDUCING);
    CHECK_EQ_INT(b->ndiffer, 0);
    CHECK_EQ_INT(b->other_lo, -1);
    CHECK_STR_EQ(s->caption, "rank 3: bucket #0 launched: all_reduce of 6.77 KiB after "
                             "backward's last gradient: nothing left to hide it behind");
    return 0;
}

// Iteration 1 runs the rebuilt plan: the last layer's gradients first, the
// first bucket launched while backward still computes, the last one after
// the last gradient.
static int test_rebuilt_launches(VizModel *m, const VizTrace *t, VizScene *s) {
    size_t a = launch_of(m, t, 1, 0, 0), z = launch_of(m, t, 1, 0, 1);
    CHECK(a != SIZE_MAX && z != SIZE_MAX);
    CHECK_EQ_INT(launch_of(m, t, 1, 0, 2), SIZE_MAX);
    CHECK_EQ_INT(viz_scene_at(m, a, NULL, s), SIM_OK);
    CHECK_EQ_INT(s->iteration, 1);
    CHECK_EQ_INT(s->plan_kind, VIZ_PLAN_REBUILT);
    CHECK_EQ_INT(s->plan_order, VIZ_ORDER_READY);
    CHECK_EQ_INT(s->plan_iteration, 1);
    CHECK_EQ_INT(s->nbuckets, 2);
    CHECK_STR_EQ(s->params[0].name, "4.bias"); // the last layer's gradient is ready first
    CHECK_EQ_INT(s->buckets[0].state, VIZ_BUCKET_REDUCING);
    CHECK_EQ_INT(s->buckets[1].state, VIZ_BUCKET_EMPTY);
    CHECK_STR_EQ(s->caption,
                 "rank 0: bucket #0 launched: all_reduce of 4.64 KiB while backward goes on");
    CHECK_EQ_INT(s->ranks[0].phase, VIZ_PHASE_BACKWARD); // computing, the all_reduce beside
    CHECK_STR_EQ(s->ranks[0].coll, "AllReduce");
    const char *const want[] = {
        "iter 1 (0-2)",
        " Buckets on rank 0 (rebuilt in iteration 1, gradient-ready order)",
        "> rank 0: bucket #0 launched: all_reduce of 4.64 KiB while backward goes on"};
    CHECK_EQ_INT(frame_has(m, a, 80, want, 3, "initial plan"), 0);
    CHECK_EQ_INT(viz_scene_at(m, z, NULL, s), SIM_OK);
    CHECK_EQ_INT(s->buckets[0].state, VIZ_BUCKET_DONE);
    CHECK_EQ_INT(s->buckets[1].state, VIZ_BUCKET_REDUCING);
    CHECK_STR_EQ(s->caption, "rank 0: bucket #1 launched: all_reduce of 2.12 KiB after "
                             "backward's last gradient: nothing left to hide it behind");
    CHECK_EQ_INT(s->ranks[0].phase, VIZ_PHASE_WAIT);
    return 0;
}

// The ring's steps are counted in their phase, as the step captions count
// them, and in the whole collective: the 4th step of iteration 0's
// all_reduce is the all-gather's first.
static int test_ring_steps(VizModel *m, const VizTrace *t, VizScene *s) {
    size_t l = viz_model_next(m, SIZE_MAX, VIZ_JUMP_BUCKET_LAUNCH, 1), i = SIZE_MAX;
    CHECK(l != SIZE_MAX);
    do
        i = viz_model_next(m, i, VIZ_JUMP_COLL_STEP, 1); // rank 0's steps
    while (i != SIZE_MAX && !(t->ev[i].seq == t->ev[l].seq && t->ev[i].step == 3));
    CHECK(i != SIZE_MAX);
    CHECK_EQ_INT(viz_scene_at(m, i, NULL, s), SIM_OK);
    CHECK_EQ_INT(s->coll.step, 3);
    CHECK_EQ_INT(s->coll.nsteps, 6);
    CHECK_STR_EQ(s->coll.step_label, "all-gather");
    CHECK_EQ_INT(s->coll.phase_step, 0);
    CHECK_EQ_INT(s->coll.phase_steps, 3);
    CHECK_STR_CONTAINS(s->caption, "all-gather step 1 of 3: ");
    const char *const want[] = {
        " AllReduce (ring) of bucket #0, 6.77 KiB: all-gather step 1 of 3 (step 4 of 6 in all)",
        "reducing 50%, step 4/6"};
    CHECK_EQ_INT(frame_has(m, i, 100, want, 2, NULL), 0);
    return 0;
}

// When rank 0 begins iteration 1, ranks 1-3 still hold iteration 0's
// reduced bucket: they are not "elsewhere" with rank 0's empty one. Before
// the first iteration the header says there is none yet.
static int test_iteration_edges(VizModel *m, VizScene *s) {
    size_t b1 = viz_model_iteration_start(m, 1);
    CHECK(b1 != SIZE_MAX);
    CHECK_EQ_INT(viz_scene_at(m, b1, NULL, s), SIM_OK);
    CHECK_STR_EQ(s->caption, "rank 0: iteration 1 begins");
    CHECK_EQ_INT(s->buckets[0].state, VIZ_BUCKET_EMPTY);
    CHECK_EQ_INT(s->buckets[0].ndiffer, 0);
    const char *const want[] = {"iter 1 (0-2)", "] empty\n"};
    CHECK_EQ_INT(frame_has(m, b1, 80, want, 2, "r1-3 done"), 0);
    const char *const first[] = {"iter - (0-2)  event 0/1056"};
    CHECK_EQ_INT(frame_has(m, 0, 80, first, 1, NULL), 0);
    return 0;
}

int main(void) {
    TvsRun run;
    if (tvs_train_on(&run, R, 0, 3, "h100") != 0)
        return 1;
    char err[256];
    VizModel *m = viz_model_new(&run.t, err, sizeof err);
    VizScene *s = m ? viz_scene_new(m) : NULL;
    int failures = m == NULL || s == NULL;
    if (!failures) {
        int rc = test_iteration0_launch(m, &run.t, s);
        printf("%s test_iteration0_launch\n", rc ? "FAILED" : "ok    ");
        failures += rc != 0;
        rc = test_rebuilt_launches(m, &run.t, s);
        printf("%s test_rebuilt_launches\n", rc ? "FAILED" : "ok    ");
        failures += rc != 0;
        rc = test_ring_steps(m, &run.t, s);
        printf("%s test_ring_steps\n", rc ? "FAILED" : "ok    ");
        failures += rc != 0;
        rc = test_iteration_edges(m, s);
        printf("%s test_iteration_edges\n", rc ? "FAILED" : "ok    ");
        failures += rc != 0;
    }
    viz_scene_free(s);
    viz_model_free(m);
    tvs_free(&run);
    return failures != 0;
}
