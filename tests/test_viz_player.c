// tests/test_viz_player.c: the player's controls (viz/player.h). First the
// keys that need no trace (play, step, speed, go to, ranks, help, status),
// then the jumps on a hand-built trace of 3 iterations on 2 ranks whose
// indices and times are known: N / P, ] / [, g iN, the zoom windows.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "player.h"
#include "scene.h"
#include "vtrace.h"

static void keys(VizPlayer *p, const VizModel *m, const char *s) {
    for (; *s; s++)
        viz_player_key(p, m, (unsigned char)*s);
}

static int test_init_and_speed(void) {
    VizPlayer p;
    viz_player_init(&p, 100, 4);
    CHECK_EQ_INT(viz_player_index(&p), 0);
    CHECK_NEAR(viz_player_frac(&p), 0, 0);
    CHECK_EQ_INT(p.playing, 0);
    CHECK_EQ_INT(p.live_done, 1);
    CHECK_NEAR(viz_player_speed(&p), 10, 0);
    static const double up[] = {20, 50, 100, 200, 500, 1000, 5000, 5000};
    for (int k = 0; k < 8; k++) {
        CHECK_EQ_INT(viz_player_key(&p, NULL, '+'), 1);
        CHECK_NEAR(viz_player_speed(&p), up[k], 0);
    }
    static const double down[] = {1000, 500, 200, 100, 50, 20, 10, 5, 2, 1, 1};
    for (int k = 0; k < 11; k++) {
        viz_player_key(&p, NULL, '-');
        CHECK_NEAR(viz_player_speed(&p), down[k], 0);
    }
    return 0;
}

static int test_play_and_tick(void) {
    VizPlayer p;
    viz_player_init(&p, 10, 2);
    CHECK_EQ_INT(viz_player_tick(&p, NULL, 1.0), 0); // paused: nothing moves
    CHECK_EQ_INT(viz_player_index(&p), 0);
    CHECK_EQ_INT(viz_player_key(&p, NULL, ' '), 1);
    CHECK_EQ_INT(p.playing, 1);
    CHECK_EQ_INT(viz_player_tick(&p, NULL, 0.25), 1); // 10/s x 0.25 s = 2.5 events
    CHECK_EQ_INT(viz_player_index(&p), 2);
    CHECK_NEAR(viz_player_frac(&p), 0.5, 1e-12);
    CHECK_EQ_INT(viz_player_tick(&p, NULL, 0.02), 0); // 2.7: same event
    CHECK_NEAR(viz_player_frac(&p), 0.7, 1e-9);
    // Past the end of a finished trace: stops on the last event.
    CHECK_EQ_INT(viz_player_tick(&p, NULL, 5.0), 1);
    CHECK_EQ_INT(viz_player_index(&p), 9);
    CHECK_NEAR(viz_player_frac(&p), 0, 0);
    CHECK_EQ_INT(p.playing, 0);
    // Play again from the end starts over.
    viz_player_key(&p, NULL, ' ');
    CHECK_EQ_INT(p.playing, 1);
    CHECK_EQ_INT(viz_player_index(&p), 0);

    // A live run waits at the end for more events, still playing.
    viz_player_init(&p, 5, 2);
    p.live_done = 0;
    viz_player_key(&p, NULL, ' ');
    viz_player_tick(&p, NULL, 10.0);
    CHECK_EQ_INT(viz_player_index(&p), 4);
    CHECK_EQ_INT(p.playing, 1);
    char buf[256];
    viz_player_status(&p, buf, sizeof buf);
    CHECK_STR_CONTAINS(buf, "waiting");
    CHECK_STR_CONTAINS(buf, "event 4/5+");
    p.available = 8; // more arrived
    CHECK_EQ_INT(viz_player_tick(&p, NULL, 0.1), 1);
    CHECK_EQ_INT(viz_player_index(&p), 5);
    return 0;
}

static int test_step(void) {
    VizPlayer p;
    viz_player_init(&p, 3, 2);
    viz_player_key(&p, NULL, ' ');
    viz_player_key(&p, NULL, 'n'); // stepping pauses
    CHECK_EQ_INT(p.playing, 0);
    CHECK_EQ_INT(viz_player_index(&p), 1);
    viz_player_key(&p, NULL, VIZ_KEY_RIGHT);
    CHECK_EQ_INT(viz_player_index(&p), 2);
    viz_player_key(&p, NULL, 'n');
    CHECK_EQ_INT(viz_player_index(&p), 2);
    CHECK_STR_CONTAINS(p.message, "last event");
    viz_player_key(&p, NULL, 'p');
    CHECK_EQ_INT(viz_player_index(&p), 1);
    CHECK_EQ_INT(p.message[0], '\0'); // a key clears the last message
    keys(&p, NULL, "pp");
    CHECK_EQ_INT(viz_player_index(&p), 0);
    CHECK_STR_CONTAINS(p.message, "first event");
    viz_player_key(&p, NULL, VIZ_KEY_END);
    CHECK_EQ_INT(viz_player_index(&p), 2);
    viz_player_key(&p, NULL, VIZ_KEY_HOME);
    CHECK_EQ_INT(viz_player_index(&p), 0);
    // Unknown keys change nothing and ask for no redraw.
    CHECK_EQ_INT(viz_player_key(&p, NULL, 'x'), 0);
    CHECK_EQ_INT(viz_player_key(&p, NULL, VIZ_KEY_ENTER), 0);
    return 0;
}

static int test_goto(void) {
    VizPlayer p;
    viz_player_init(&p, 100, 2);
    keys(&p, NULL, "g42");
    CHECK_EQ_INT(p.goto_mode, 1);
    CHECK(strcmp(p.goto_buf, "42") == 0);
    char buf[256];
    viz_player_status(&p, buf, sizeof buf);
    CHECK_STR_CONTAINS(buf, "go to: 42_");
    viz_player_key(&p, NULL, VIZ_KEY_ENTER);
    CHECK_EQ_INT(p.goto_mode, 0);
    CHECK_EQ_INT(viz_player_index(&p), 42);
    // Out of range: stays, says why.
    keys(&p, NULL, "g100");
    viz_player_key(&p, NULL, '\r');
    CHECK_EQ_INT(viz_player_index(&p), 42);
    CHECK_STR_CONTAINS(p.message, "no event 100 (events 0..99)");
    // Backspace edits; 'i' only leads; letters are refused.
    keys(&p, NULL, "g17");
    viz_player_key(&p, NULL, VIZ_KEY_BACKSPACE);
    CHECK_EQ_INT(viz_player_key(&p, NULL, 'i'), 0);
    CHECK_EQ_INT(viz_player_key(&p, NULL, 'x'), 0);
    viz_player_key(&p, NULL, '5');
    CHECK(strcmp(p.goto_buf, "15") == 0);
    viz_player_key(&p, NULL, VIZ_KEY_ENTER);
    CHECK_EQ_INT(viz_player_index(&p), 15);
    // Escape cancels; an empty target says what to type.
    keys(&p, NULL, "g9");
    viz_player_key(&p, NULL, VIZ_KEY_ESCAPE);
    CHECK_EQ_INT(p.goto_mode, 0);
    CHECK_EQ_INT(viz_player_index(&p), 15);
    viz_player_key(&p, NULL, 'g');
    viz_player_key(&p, NULL, VIZ_KEY_ENTER);
    CHECK_STR_CONTAINS(p.message, "event number or iN");
    // An iteration without a trace: none exists.
    keys(&p, NULL, "gi1");
    viz_player_key(&p, NULL, VIZ_KEY_ENTER);
    CHECK_STR_CONTAINS(p.message, "no iteration 1");
    CHECK_EQ_INT(viz_player_index(&p), 15);
    return 0;
}

static int test_other_keys(void) {
    VizPlayer p;
    viz_player_init(&p, 10, 3);
    keys(&p, NULL, "rr");
    CHECK_EQ_INT(p.selected_rank, 2);
    viz_player_key(&p, NULL, 'r');
    CHECK_EQ_INT(p.selected_rank, 0);
    viz_player_key(&p, NULL, 'R');
    CHECK_EQ_INT(p.selected_rank, 2);
    viz_player_key(&p, NULL, 't');
    CHECK_EQ_INT(p.use_wall, 1);
    CHECK_STR_CONTAINS(p.message, "wall");
    for (int k = 1; k < VIZ_ZOOM_LEVELS; k++) {
        viz_player_key(&p, NULL, 'z');
        CHECK_EQ_INT(p.zoom, k);
    }
    viz_player_key(&p, NULL, 'z');
    CHECK_EQ_INT(p.zoom, 0);
    viz_player_key(&p, NULL, 'Z');
    CHECK_EQ_INT(p.zoom, VIZ_ZOOM_LEVELS - 1);
    CHECK_EQ_INT(p.jump, VIZ_JUMP_BUCKET_LAUNCH);
    viz_player_key(&p, NULL, 'k');
    CHECK_EQ_INT(p.jump, VIZ_JUMP_GATHER);
    CHECK_STR_CONTAINS(p.message, "gather");
    // k comes back round to the first kind.
    int seen_any = 0;
    for (int k = 0; k < VIZ_JUMP_COUNT && p.jump != VIZ_JUMP_BUCKET_LAUNCH; k++) {
        viz_player_key(&p, NULL, 'k');
        seen_any |= p.jump == VIZ_JUMP_ANY;
    }
    CHECK_EQ_INT(p.jump, VIZ_JUMP_BUCKET_LAUNCH);
    CHECK(seen_any);
    // Any key closes the help and does nothing else; q still quits.
    viz_player_key(&p, NULL, '?');
    CHECK_EQ_INT(p.help, 1);
    CHECK_EQ_INT(viz_player_key(&p, NULL, 'n'), 1);
    CHECK_EQ_INT(p.help, 0);
    CHECK_EQ_INT(viz_player_index(&p), 0);
    viz_player_key(&p, NULL, '?');
    viz_player_key(&p, NULL, VIZ_KEY_ESCAPE);
    CHECK_EQ_INT(p.help, 0);
    CHECK_EQ_INT(viz_player_key(&p, NULL, VIZ_KEY_ESCAPE), 0);
    CHECK_EQ_INT(p.quit, 0);
    viz_player_key(&p, NULL, '?');
    viz_player_key(&p, NULL, 'q');
    CHECK_EQ_INT(p.quit, 1);
    return 0;
}

static int test_status_and_opts(void) {
    VizPlayer p;
    viz_player_init(&p, 590, 4);
    keys(&p, NULL, "rz");
    p.pos = 120;
    char buf[300];
    viz_player_status(&p, buf, sizeof buf);
    CHECK(strncmp(buf, "paused  event 120/590  10/s  rank 1  zoom 1/2  ]/[ bucket-launch   "
                       "? help  q quit  space play", 92) == 0);
    viz_player_key(&p, NULL, 't');
    viz_player_status(&p, buf, sizeof buf);
    CHECK_STR_CONTAINS(buf, "rank 1  wall clock  zoom 1/2  ]/[ bucket-launch   "
                            "clock: measured wall time   ? help  q quit");
    viz_player_key(&p, NULL, ' ');
    viz_player_status(&p, buf, sizeof buf);
    CHECK(strncmp(buf, "playing", 7) == 0);
    // A short buffer is cut, never overrun.
    char tiny[12];
    memset(tiny, 'x', sizeof tiny);
    viz_player_status(&p, tiny, 8);
    CHECK_EQ_INT(strlen(tiny), 7);
    CHECK_EQ_INT(tiny[9], 'x');

    VizSceneOpts o;
    viz_player_scene_opts(&p, NULL, 100000, &o);
    CHECK_EQ_INT(o.timeline_cols, VIZ_TIMELINE_MAX_COLS);
    CHECK_EQ_INT(o.selected_rank, 1);
    CHECK_EQ_INT(o.use_wall, 1);
    CHECK_NEAR(o.window, 0, 0); // no trace: no span to zoom into
    viz_player_scene_opts(&p, NULL, -3, &o);
    CHECK_EQ_INT(o.timeline_cols, 0);
    return 0;
}

// ---------------------------------------------------------------------------
// With a model: iteration i (0, 1, 2) runs from 10 i ms to 10 i + 10 ms on
// 2 ranks: its "begin" marker on rank 0, forward (phase marker + compute),
// backward, a DDP bucket launch on each rank, then "end" with the loss.

static SimStatus add_event(VizTrace *t, int rank, int kind, const char *name, const char *label,
                           double t0, double t1, int step) {
    SimEvent e;
    memset(&e, 0, sizeof e);
    e.sim_start = e.wall_start = t0;
    e.sim_end = e.wall_end = t1;
    e.kind = (int16_t)kind;
    e.name = name;
    e.label = label;
    e.rank = rank;
    e.stream = kind == SIM_EV_BUCKET ? SIM_STREAM_COMM : SIM_STREAM_COMPUTE;
    e.step = step;
    e.nsteps = -1;
    e.chunk = e.src = e.dst = -1;
    return viz_trace_add(t, &e, NULL);
}

static int t_kind(const VizModel *m, size_t i) {
    return viz_model_trace(m)->ev[i].kind;
}

static SimStatus build_trace(VizTrace *t) {
    SimTraceInfo info;
    memset(&info, 0, sizeof info);
    info.nodes = 1;
    snprintf(info.title, sizeof info.title, "ddp  hand-built  R=2");
    snprintf(info.strategy, sizeof info.strategy, "ddp");
    SIM_CHECK(viz_trace_init(t, 2, &info, "test"));
    for (int it = 0; it < 3; it++) {
        double b = 0.010 * it;
        for (int r = 0; r < 2; r++) {
            SIM_CHECK(add_event(t, r, SIM_EV_MARKER, "iteration", "begin", b, b, it));
            SIM_CHECK(add_event(t, r, SIM_EV_MARKER, "phase", "forward", b + 0.001, b + 0.001, it));
            SIM_CHECK(add_event(t, r, SIM_EV_COMPUTE, "linear", NULL, b + 0.001, b + 0.004, -1));
            SIM_CHECK(
                add_event(t, r, SIM_EV_MARKER, "phase", "backward", b + 0.004, b + 0.004, it));
            SIM_CHECK(add_event(t, r, SIM_EV_COMPUTE, "linear_bw", NULL, b + 0.004, b + 0.008, -1));
            SIM_CHECK(add_event(t, r, SIM_EV_BUCKET, "bucket", "launch", b + 0.006, b + 0.006, 0));
            SIM_CHECK(add_event(t, r, SIM_EV_MARKER, "iteration", "end", b + 0.010, b + 0.010, it));
        }
    }
    return SIM_OK;
}

static int model_checks(VizModel *m) {
    size_t n = viz_model_count(m);
    CHECK_EQ_INT(n, 42);
    CHECK_EQ_INT(viz_model_iterations(m), 3);
    size_t s1 = viz_model_iteration_start(m, 1), s2 = viz_model_iteration_start(m, 2);
    CHECK_EQ_INT(viz_model_iteration_start(m, 0), 0);
    CHECK(s1 > 0 && s1 < s2 && s2 < n);
    VizPlayer p;
    viz_player_init(&p, n, 2);
    // N / P walk the iteration starts.
    viz_player_key(&p, m, 'N');
    CHECK_EQ_INT(viz_player_index(&p), s1);
    viz_player_key(&p, m, 'N');
    CHECK_EQ_INT(viz_player_index(&p), s2);
    viz_player_key(&p, m, 'N');
    CHECK_EQ_INT(viz_player_index(&p), s2);
    CHECK_STR_CONTAINS(p.message, "no later iteration");
    keys(&p, m, "nnP"); // from inside iteration 2 to iteration 1's start
    CHECK_EQ_INT(viz_player_index(&p), s1);
    viz_player_key(&p, m, 'P');
    CHECK_EQ_INT(viz_player_index(&p), 0);
    viz_player_key(&p, m, 'P');
    CHECK_EQ_INT(viz_player_index(&p), 0);
    CHECK_STR_CONTAINS(p.message, "no earlier iteration");
    // g iN.
    keys(&p, m, "gi2");
    viz_player_key(&p, m, VIZ_KEY_ENTER);
    CHECK_EQ_INT(viz_player_index(&p), s2);
    keys(&p, m, "gi3");
    viz_player_key(&p, m, VIZ_KEY_ENTER);
    CHECK_EQ_INT(viz_player_index(&p), s2);
    CHECK_STR_CONTAINS(p.message, "no iteration 3 (iterations 0..2)");
    // ] / [ follow viz_model_next for the chosen kind: one launch per rank
    // and iteration.
    p.pos = 0;
    size_t want = viz_model_next(m, 0, VIZ_JUMP_BUCKET_LAUNCH, +1);
    CHECK(want != SIZE_MAX && want < s1);
    viz_player_key(&p, m, ']');
    CHECK_EQ_INT(viz_player_index(&p), want);
    CHECK_EQ_INT(t_kind(m, want), SIM_EV_BUCKET);
    viz_player_key(&p, m, '[');
    CHECK_EQ_INT(viz_player_index(&p), want);
    CHECK_STR_CONTAINS(p.message, "no earlier bucket-launch");
    int launches = 1;
    for (int k = 0; k < 10; k++) {
        size_t before = viz_player_index(&p);
        viz_player_key(&p, m, ']');
        if (viz_player_index(&p) == before)
            break;
        CHECK_EQ_INT(t_kind(m, viz_player_index(&p)), SIM_EV_BUCKET);
        launches++;
    }
    CHECK_EQ_INT(launches, 6);
    CHECK_STR_CONTAINS(p.message, "no later bucket-launch");
    // Zoom: 1/2^k of the cursor's iteration (10 ms).
    p.pos = (double)s1 + 1;
    VizSceneOpts o;
    viz_player_scene_opts(&p, m, 80, &o);
    CHECK_NEAR(o.window, 0, 0);
    CHECK_EQ_INT(o.timeline_cols, 80);
    p.zoom = 1;
    viz_player_scene_opts(&p, m, 80, &o);
    CHECK_NEAR(o.window, 0.005, 1e-12);
    p.zoom = 3;
    viz_player_scene_opts(&p, m, 80, &o);
    CHECK_NEAR(o.window, 0.00125, 1e-12);
    // The last iteration runs to the last event's end (30 ms).
    p.pos = (double)(n - 1);
    p.zoom = 2;
    viz_player_scene_opts(&p, m, 80, &o);
    CHECK_NEAR(o.window, 0.0025, 1e-12);
    return 0;
}

static int test_with_model(void) {
    VizTrace t;
    CHECK_EQ_INT(build_trace(&t), SIM_OK);
    char err[256] = "";
    VizModel *m = viz_model_new(&t, err, sizeof err);
    if (m == NULL) {
        fprintf(stderr, "viz_model_new: %s\n", err);
        viz_trace_free(&t);
        return 1;
    }
    int rc = model_checks(m);
    viz_model_free(m);
    viz_trace_free(&t);
    return rc;
}

int main(void) {
    int failures = 0;
    RUN(test_init_and_speed);
    RUN(test_play_and_tick);
    RUN(test_step);
    RUN(test_goto);
    RUN(test_other_keys);
    RUN(test_status_and_opts);
    RUN(test_with_model);
    return failures != 0;
}
