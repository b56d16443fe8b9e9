// tests/test_viz_scene.c: the scene model on collectives: a ring all_reduce
// at R = 2, 3, 4, 8 from the real engine (each step's transfers, the
// contribution bitmasks after every step, the captions); scenes computed
// forwards, backwards and by a fresh model agree across keyframes; a live
// trace synced in pieces, with an event inserted out of order, indexes to
// the same scenes; a synthetic million-event trace indexes in under a
// second and any scene costs at most one keyframe interval.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "coll/schedule.h" // defines: sim_dbtree_height
#include "scene.h"
#include "test_env.h"
#include "test_viz_scene_util.h"

static int mod(int a, int n) {
    return ((a % n) + n) % n;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t bit(int r) {
    return (uint64_t)1 << r;
}

// ----------------------------------------------------------------------------
// ring all_reduce

// What every rank holds after ring step `done` (-1: before the first):
// reduce-scatter step k leaves in the chunk rank d received, (d-2-k) mod R,
// the k+2 contributions of ranks d, d-1, ..., d-k-1; all-gather step k
// copies a fully reduced chunk into (d-1-k) mod R.
static int check_held(const VizScene *s, int R, int done) {
    const VizColl *c = &s->coll;
    CHECK_EQ_INT(c->nchunks, R);
    for (int d = 0; d < R; d++) {
        if (done < 0) {
            for (int ch = 0; ch < R; ch++) {
                CHECK_EQ_INT(c->held[d * R + ch], bit(d));
                CHECK_EQ_INT(c->nheld[d * R + ch], 1);
            }
            continue;
        }
        if (done < R - 1) {
            int ch = mod(d - 2 - done, R);
            uint64_t want = 0;
            for (int j = 0; j <= done + 1; j++)
                want |= bit(mod(d - j, R));
            CHECK_EQ_INT(c->nheld[d * R + ch], done + 2);
            CHECK_EQ_INT(c->held[d * R + ch], want);
        } else {
            int ch = mod(d - 1 - (done - (R - 1)), R);
            CHECK_EQ_INT(c->nheld[d * R + ch], R);
            CHECK_EQ_INT(c->held[d * R + ch], bit(R) - 1);
        }
    }
    return 0;
}

// NCCL's double binary tree: a tree on the screen, one phase whose steps
// say what moves, and at the end every rank holds every rank's part of
// both trees' chunks.
static int check_dbtree(int R) {
    TvsRun run;
    CHECK(tvs_all_reduce(&run, R, 1, 1000, SIM_ALGO_DBTREE) == 0);
    char err[256];
    VizModel *m = viz_model_new(&run.t, err, sizeof err);
    CHECK(m != NULL);
    VizScene *s = viz_scene_new(m);
    CHECK(s != NULL);
    VizSceneOpts o = viz_scene_opts_default();
    size_t i = SIZE_MAX;
    int steps = 0, H = sim_dbtree_height(R);
    while ((i = viz_model_next(m, i, VIZ_JUMP_COLL_STEP, 1)) != SIZE_MAX) {
        CHECK_EQ_INT(viz_scene_at(m, i, &o, s), SIM_OK);
        CHECK_EQ_INT(s->coll.topo, VIZ_TOPO_TREE);
        CHECK_EQ_INT(s->coll.nsteps, 1 + 2 * H - 1); // one chunk per tree
        CHECK(strcmp(s->coll.step_label, "reduce+broadcast") == 0);
        CHECK_STR_CONTAINS(s->caption, "in each of the two trees, chunks of partial sums move "
                                       "one level up");
        CHECK_STR_CONTAINS(s->caption, "dbtree");
        steps++;
    }
    CHECK_EQ_INT(steps, 2 * H);
    CHECK_EQ_INT(viz_scene_at(m, viz_model_count(m) - 1, &o, s), SIM_OK);
    CHECK_EQ_INT(s->coll.nchunks, 2);
    for (int x = 0; x < R * s->coll.nchunks; x++)
        CHECK_EQ_INT(s->coll.held[x], bit(R) - 1);
    viz_scene_free(s);
    viz_model_free(m);
    tvs_free(&run);
    return 0;
}

static int check_ring(int R) {
    TvsRun run;
    CHECK(tvs_ring(&run, R, 1, (size_t)(16 * R + 3)) == 0);
    char err[256];
    VizModel *m = viz_model_new(&run.t, err, sizeof err);
    CHECK(m != NULL);
    VizScene *s = viz_scene_new(m);
    CHECK(s != NULL);
    VizSceneOpts o = viz_scene_opts_default();
    o.timeline_cols = 40;
    size_t n = viz_model_count(m);
    CHECK_EQ_INT(n, run.t.n);
    // a benchmark-like trace: one iteration per collective
    CHECK_EQ_INT(viz_model_iterations(m), 1);
    size_t i = SIZE_MAX;
    int step = 0;
    while ((i = viz_model_next(m, i, VIZ_JUMP_COLL_STEP, 1)) != SIZE_MAX) {
        CHECK_EQ_INT(viz_scene_at(m, i, &o, s), SIM_OK);
        const SimEvent *e = s->event;
        CHECK_EQ_INT(e->kind, SIM_EV_COLL_STEP);
        CHECK_EQ_INT(e->rank, 0);
        CHECK_EQ_INT(e->step, step);
        const VizColl *c = &s->coll;
        CHECK(c->active && c->running);
        CHECK(strcmp(c->name, "AllReduce") == 0);
        CHECK_EQ_INT(c->topo, VIZ_TOPO_RING);
        CHECK_EQ_INT(c->step, step);
        CHECK_EQ_INT(c->nsteps, 2 * (R - 1));
        CHECK_EQ_INT(c->bucket, -1);
        CHECK(c->progress >= 0 && c->progress < 1);
        int rs = step < R - 1, k = rs ? step : step - (R - 1);
        CHECK(strcmp(c->step_label, rs ? "reduce-scatter" : "all-gather") == 0);
        // every rank sends one chunk to the next rank
        CHECK_EQ_INT(c->nxfer, R);
        int seen[TVS_MAX_RANKS] = {0};
        for (int x = 0; x < c->nxfer; x++) {
            const VizXfer *v = &c->xfer[x];
            CHECK(v->src >= 0 && v->src < R);
            seen[v->src]++;
            CHECK_EQ_INT(v->dst, (v->src + 1) % R);
            CHECK_EQ_INT(v->chunk, rs ? mod(v->src - 1 - k, R) : mod(v->src - k, R));
            CHECK_EQ_INT(v->reduce, rs);
        }
        for (int r = 0; r < R; r++)
            CHECK_EQ_INT(seen[r], 1);
        char want[96];
        snprintf(want, sizeof want, "%s step %d of %d: ", rs ? "reduce-scatter" : "all-gather",
                 k + 1, R - 1);
        CHECK_STR_CONTAINS(s->caption, want);
        CHECK_STR_CONTAINS(s->caption, rs ? "each rank adds the chunk it received"
                                          : "each rank copies the finished chunk it received");
        // the bitmasks hold every transfer of the steps before this one
        CHECK(check_held(s, R, step - 1) == 0);
        step++;
    }
    CHECK_EQ_INT(step, 2 * (R - 1));
    // after the last step every rank holds all R contributions in every chunk
    CHECK_EQ_INT(viz_scene_at(m, n - 1, &o, s), SIM_OK);
    CHECK(check_held(s, R, 2 * (R - 1) - 1) == 0);
    for (int x = 0; x < R * R; x++) {
        CHECK_EQ_INT(s->coll.held[x], bit(R) - 1);
        CHECK_EQ_INT(s->coll.nheld[x], R);
    }
    // (the trace ends when the last step starts: a collective's events
    // are ordered by their start)
    CHECK_EQ_INT(s->coll.step, 2 * (R - 1) - 1);
    // a transfer and the whole collective, in words
    i = SIZE_MAX;
    while ((i = viz_model_next(m, i, VIZ_JUMP_ANY, 1)) != SIZE_MAX && run.t.ev[i].kind != SIM_EV_XFER)
        ;
    CHECK(i != SIZE_MAX);
    char cap[VIZ_CAPTION_MAX];
    viz_caption(m, i, cap, sizeof cap);
    char want[64];
    snprintf(want, sizeof want, "rank %d -> rank %d: chunk %d", mod(run.t.ev[i].dst - 1, R),
             run.t.ev[i].dst, run.t.ev[i].chunk);
    CHECK_STR_CONTAINS(cap, want);
    CHECK_STR_CONTAINS(cap, "added to");
    i = viz_model_next(m, SIZE_MAX, VIZ_JUMP_COLL, 1);
    CHECK(i != SIZE_MAX);
    CHECK_EQ_INT(run.t.ev[i].kind, SIM_EV_COLL);
    viz_caption(m, i, cap, sizeof cap);
    CHECK_STR_CONTAINS(cap, "all_reduce #0");
    CHECK_STR_CONTAINS(cap, "every rank ends with the sum of all ranks' buffers");
    CHECK_EQ_INT(viz_model_next(m, i, VIZ_JUMP_COLL, 1), SIZE_MAX); // one collective
    // the timeline of rank 0 shows the collective as exposed communication
    CHECK_EQ_INT(viz_scene_at(m, n / 2, &o, s), SIM_OK);
    CHECK_EQ_INT(s->timeline.ncols, 40);
    CHECK_EQ_INT(s->timeline.nranks, R < 4 ? R : 4);
    int exposed = 0;
    for (int x = 0; x < 40; x++)
        exposed += s->timeline.comm[x] == VIZ_CELL_EXPOSED;
    CHECK(exposed > 30);
    CHECK(s->timeline.exposed_s > 0);
    CHECK(s->timeline.cursor_col >= 0);
    viz_scene_free(s);
    viz_model_free(m);
    tvs_free(&run);
    return 0;
}

static int test_ring_all_reduce(void) {
    const int Rs[] = {2, 3, 4, 8};
    for (size_t k = 0; k < sizeof Rs / sizeof Rs[0]; k++)
        if (check_ring(Rs[k]) != 0) {
            fprintf(stderr, "  (ring all_reduce on %d ranks)\n", Rs[k]);
            return 1;
        }
    for (size_t k = 0; k < sizeof Rs / sizeof Rs[0]; k++)
        if (check_dbtree(Rs[k]) != 0) {
            fprintf(stderr, "  (dbtree all_reduce on %d ranks)\n", Rs[k]);
            return 1;
        }
    return 0;
}

// ----------------------------------------------------------------------------
// forwards, backwards, fresh

// Scenes at every event computed forwards and backwards by one model and at
// scattered events by a fresh model are the same scenes.
static int check_directions(const VizTrace *t, int stride) {
    char err[256];
    VizModel *m = viz_model_new(t, err, sizeof err);
    CHECK(m != NULL);
    size_t n = viz_model_count(m);
    uint64_t *h = malloc(n * sizeof *h);
    VizScene *s = viz_scene_new(m);
    CHECK(h != NULL && s != NULL);
    VizSceneOpts o = viz_scene_opts_default();
    o.timeline_cols = 64;
    for (size_t i = 0; i < n; i++) {
        CHECK_EQ_INT(viz_scene_at(m, i, &o, s), SIM_OK);
        h[i] = tvs_scene_hash(s);
    }
    for (size_t i = n; i-- > 0;) {
        CHECK_EQ_INT(viz_scene_at(m, i, &o, s), SIM_OK);
        if (tvs_scene_hash(s) != h[i]) {
            fprintf(stderr, "backwards: scene %zu differs\n", i);
            return 1;
        }
    }
    VizModel *fresh = viz_model_new(t, err, sizeof err);
    VizScene *s2 = viz_scene_new(fresh);
    CHECK(fresh != NULL && s2 != NULL);
    unsigned x = 12345;
    for (size_t k = 0; k < n; k += (size_t)stride) {
        x = x * 1103515245u + 12345u;
        size_t i = (size_t)(x >> 8) % n;
        CHECK_EQ_INT(viz_scene_at(fresh, i, &o, s2), SIM_OK);
        CHECK_EQ_INT(viz_scene_at(m, i, &o, s), SIM_OK);
        CHECK(tvs_scene_diff(s, s2) == 0);
        CHECK(tvs_scene_hash(s2) == h[i]);
    }
    // the wall clock, a window around the cursor, chosen lanes
    VizSceneOpts w = o;
    w.use_wall = 1;
    w.window = (t->ev[n - 1].wall_start - t->ev[0].wall_start) / 4;
    w.ntimeline_ranks = 2;
    w.timeline_ranks[0] = t->nranks - 1;
    w.timeline_ranks[1] = 1;
    for (size_t i = 0; i < n; i += n / 16 + 1) {
        CHECK_EQ_INT(viz_scene_at(m, i, &w, s), SIM_OK);
        CHECK_EQ_INT(viz_scene_at(fresh, i, &w, s2), SIM_OK);
        CHECK(tvs_scene_diff(s, s2) == 0);
        CHECK(s->now == t->ev[i].wall_start);
        CHECK_EQ_INT(s->timeline.nranks, 2);
        CHECK_EQ_INT(s->timeline.ranks[0], t->nranks - 1);
        CHECK_NEAR(s->timeline.t1 - s->timeline.t0, w.window, 1e-12 + 1e-9 * w.window);
        CHECK(s->timeline.cursor_col >= 0 && s->timeline.cursor_col < 64);
    }
    viz_scene_free(s2);
    viz_model_free(fresh);
    viz_scene_free(s);
    viz_model_free(m);
    free(h);
    return 0;
}

static int test_directions(void) {
    TvsRun run;
    int colls = 40; // 8 ranks: 232 events each
    CHECK(tvs_ring(&run, 8, colls, 100) == 0);
    CHECK(run.t.n > 2 * VIZ_KEYFRAME_EVERY); // several keyframes
    int rc = check_directions(&run.t, 7);
    tvs_free(&run);
    CHECK(rc == 0);
    CHECK(tvs_train(&run, 4, 1, 3) == 0);
    rc = check_directions(&run.t, 3);
    tvs_free(&run);
    return rc;
}

// ----------------------------------------------------------------------------
// a live trace

// Grows a copy of full in pieces, with one event held back and inserted
// later before events already indexed; after each sync the scenes are those
// of a model of the whole trace.
static int check_live(const VizTrace *full) {
    size_t N = full->n;
    char err[256];
    VizModel *ref = viz_model_new(full, err, sizeof err);
    CHECK(ref != NULL);
    VizTrace live;
    CHECK(tvs_trace_by_hand(&live, full->ev, N, full->nranks) == 0);
    live.n = 100;
    VizModel *m = viz_model_new(&live, err, sizeof err);
    CHECK(m != NULL);
    VizScene *a = viz_scene_new(ref), *b = viz_scene_new(m);
    VizSceneOpts o = viz_scene_opts_default();
    o.timeline_cols = 32;
    size_t held = N / 2; // held back until the trace has gone well past it
    size_t have = 100;   // events of full[] in live (one fewer once held is skipped)
    int inserted = 0;
    while (have < N) {
        size_t upto = have + 777 < N ? have + 777 : N;
        for (; have < upto; have++)
            if (have != held)
                live.ev[live.n++] = full->ev[have];
        if ((have > held + 3000 || have == N) && live.n < have) {
            // insert the held event at its place (events from it on shift)
            memmove(&live.ev[held + 1], &live.ev[held], (live.n - held) * sizeof *live.ev);
            live.ev[held] = full->ev[held];
            live.n++;
            inserted = 1;
        }
        CHECK_EQ_INT(viz_model_sync(m), SIM_OK);
        CHECK_EQ_INT(viz_model_count(m), live.n);
        if (live.n == have) {
            // the same events as full[0..have): the state at event i is the
            // same (what lies past the end still differs: the launch that
            // names a step's bucket, a step's later transfers, the next op,
            // the window)
            size_t probe[4] = {0, have / 3, have - 2, have - 1};
            for (int k = 0; k < 4; k++) {
                CHECK_EQ_INT(viz_scene_at(ref, probe[k], &o, a), SIM_OK);
                CHECK_EQ_INT(viz_scene_at(m, probe[k], &o, b), SIM_OK);
                if (k < 2) // near the end a step may not know its bucket yet
                    CHECK(strcmp(a->caption, b->caption) == 0);
                CHECK(a->coll.nchunks == b->coll.nchunks);
                CHECK(a->coll.nchunks == 0 ||
                      memcmp(a->coll.held, b->coll.held,
                             (size_t)a->nranks * (size_t)a->coll.nchunks * sizeof *a->coll.held) == 0);
                for (int r = 0; r < a->nranks; r++) {
                    CHECK(memcmp(a->ranks[r].mem, b->ranks[r].mem, sizeof a->ranks[r].mem) == 0);
                    CHECK_EQ_INT(a->ranks[r].mem_peak, b->ranks[r].mem_peak);
                }
                CHECK_EQ_INT(a->nbuckets, b->nbuckets);
                for (int q = 0; q < a->nbuckets; q++)
                    CHECK_EQ_INT(a->buckets[q].state, b->buckets[q].state);
            }
        }
    }
    CHECK(inserted);
    CHECK_EQ_INT(live.n, N);
    // in full: every scene equal
    for (size_t i = 0; i < N; i += 5) {
        CHECK_EQ_INT(viz_scene_at(ref, i, &o, a), SIM_OK);
        CHECK_EQ_INT(viz_scene_at(m, i, &o, b), SIM_OK);
        CHECK(tvs_scene_diff(a, b) == 0);
    }
    CHECK_EQ_INT(viz_model_iterations(m), viz_model_iterations(ref));
    viz_scene_free(a);
    viz_scene_free(b);
    viz_model_free(m);
    viz_model_free(ref);
    tvs_trace_by_hand_free(&live);
    return 0;
}

static int test_live_sync(void) {
    TvsRun run;
    CHECK(tvs_ring(&run, 8, 40, 64) == 0); // 40 * 8 * 29 events: 3 keyframes
    int rc = check_live(&run.t);
    tvs_free(&run);
    CHECK(rc == 0);
    CHECK(tvs_train(&run, 4, 0, 24) == 0); // DDP: plans, buckets, memory
    CHECK(run.t.n > VIZ_KEYFRAME_EVERY + 3000);
    rc = check_live(&run.t);
    tvs_free(&run);
    return rc;
}

// ----------------------------------------------------------------------------
// a million events

static void put_ev(SimEvent *ev, size_t *n, size_t cap, SimEvent e) {
    if (*n < cap)
        ev[(*n)++] = e;
}

static SimEvent mk(int rank, int kind, int stream, double t0, double t1, const char *name,
                   const char *label) {
    SimEvent e;
    memset(&e, 0, sizeof e);
    e.rank = rank;
    e.kind = (int16_t)kind;
    e.stream = (int16_t)stream;
    e.sim_start = e.wall_start = t0;
    e.sim_end = e.wall_end = t1;
    e.name = name;
    e.label = label;
    e.step = e.nsteps = e.chunk = e.src = e.dst = -1;
    return e;
}

// Training-like iterations on R ranks (markers, ops, memory, buckets, ring
// all_reduces with their steps and transfers), in time order, until cap.
static size_t synth_trace(SimEvent *ev, size_t cap, int R) {
    size_t n = 0;
    double t = 0, dt = 1e-6;
    uint64_t seq = 0;
    for (int it = 0; n < cap; it++) {
        for (int r = 0; r < R; r++) {
            SimEvent e = mk(r, SIM_EV_MARKER, SIM_STREAM_COMPUTE, t, t, "iteration", "begin");
            e.step = it;
            put_ev(ev, &n, cap, e);
            e = mk(r, SIM_EV_MARKER, SIM_STREAM_COMPUTE, t, t, "phase", "forward");
            e.step = it;
            put_ev(ev, &n, cap, e);
        }
        for (int l = 0; l < 8; l++, t += dt)
            for (int r = 0; r < R; r++) {
                SimEvent e = mk(r, SIM_EV_MEMORY, SIM_STREAM_COMPUTE, t, t, "alloc", "alloc");
                e.bytes = 4096;
                e.mem_cat = SIM_MEM_ACT;
                put_ev(ev, &n, cap, e);
                put_ev(ev, &n, cap, mk(r, SIM_EV_COMPUTE, 0, t, t + dt, "linear_fwd", NULL));
            }
        for (int r = 0; r < R; r++)
            put_ev(ev, &n, cap, mk(r, SIM_EV_MARKER, 0, t, t, "phase", "backward"));
        for (int l = 0; l < 8; l++, t += dt)
            for (int r = 0; r < R; r++) {
                SimEvent e = mk(r, SIM_EV_MEMORY, SIM_STREAM_COMPUTE, t, t, "free", "free");
                e.bytes = 4096;
                e.mem_cat = SIM_MEM_ACT;
                put_ev(ev, &n, cap, e);
                put_ev(ev, &n, cap, mk(r, SIM_EV_COMPUTE, 0, t, t + dt, "linear_bwd", NULL));
                if (l % 2 == 1) {
                    e = mk(r, SIM_EV_BUCKET, SIM_STREAM_COMPUTE, t, t, "bucket", "ready");
                    e.step = 0;
                    e.chunk = l / 2;
                    e.bytes = 4096;
                    put_ev(ev, &n, cap, e);
                }
            }
        // a ring all_reduce: 2(R-1) steps of one transfer per rank
        int S = 2 * (R - 1);
        for (int s = 0; s < S; s++, t += dt)
            for (int r = 0; r < R; r++) {
                SimEvent e = mk(r, SIM_EV_COLL_STEP, SIM_STREAM_COMM, t, t + dt, "AllReduce",
                                s < R - 1 ? "reduce-scatter" : "all-gather");
                e.coll = SIM_COLL_ALL_REDUCE;
                e.algo = SIM_ALGO_RING;
                e.seq = seq;
                e.step = s;
                e.nsteps = S;
                e.count = 1024;
                put_ev(ev, &n, cap, e);
                if (s == 0) {
                    SimEvent c = e;
                    c.kind = SIM_EV_COLL;
                    c.label = NULL;
                    c.step = -1;
                    c.sim_end = c.wall_end = t + S * dt;
                    put_ev(ev, &n, cap, c);
                }
                SimEvent x = e;
                x.kind = SIM_EV_XFER;
                x.src = (r + R - 1) % R;
                x.dst = r;
                x.chunk = s < R - 1 ? (r - 2 - s + 2 * R) % R : (r - 1 - (s - R + 1) + 2 * R) % R;
                x.label = s < R - 1 ? "reduce" : "copy";
                put_ev(ev, &n, cap, x);
            }
        seq++;
        for (int r = 0; r < R; r++) {
            put_ev(ev, &n, cap, mk(r, SIM_EV_MARKER, 0, t, t, "phase", "optimizer"));
            put_ev(ev, &n, cap, mk(r, SIM_EV_COMPUTE, 0, t, t + dt, "sgd_step", NULL));
        }
        t += dt;
        for (int r = 0; r < R; r++) {
            SimEvent e = mk(r, SIM_EV_MARKER, SIM_STREAM_COMPUTE, t, t, "iteration", "end");
            e.step = it;
            e.value = 1.0 / (it + 1);
            put_ev(ev, &n, cap, e);
        }
    }
    return n;
}

static int test_million(void) {
    int quick = tenv_quick();
    size_t cap = quick ? 200000 : 1000000;
    SimEvent *ev = malloc(cap * sizeof *ev);
    CHECK(ev != NULL);
    size_t n = synth_trace(ev, cap, 8);
    CHECK_EQ_INT(n, cap);
    VizTrace t;
    memset(&t, 0, sizeof t);
    t.ev = ev;
    t.n = t.cap = n;
    t.nranks = 8;
    t.info.nodes = 1;
    char err[256];
    double t0 = now_s();
    VizModel *m = viz_model_new(&t, err, sizeof err);
    double index_s = now_s() - t0;
    CHECK(m != NULL);
    CHECK_EQ_INT(viz_model_count(m), n);
    CHECK(viz_model_iterations(m) > 100);
    VizScene *s = viz_scene_new(m);
    VizSceneOpts o = viz_scene_opts_default();
    o.timeline_cols = 120;
    // scenes anywhere, in random order
    unsigned x = 777;
    double worst = 0, sum = 0;
    int probes = 200;
    for (int k = 0; k < probes; k++) {
        x = x * 1103515245u + 12345u;
        size_t i = (size_t)x % n;
        double a = now_s();
        CHECK_EQ_INT(viz_scene_at(m, i, &o, s), SIM_OK);
        double d = now_s() - a;
        sum += d;
        worst = d > worst ? d : worst;
    }
    // the loss plot has every iteration
    const double *lx, *ly;
    size_t nl = viz_model_loss(m, &lx, &ly);
    CHECK(nl + 1 >= (size_t)viz_model_iterations(m) && nl <= (size_t)viz_model_iterations(m));
    CHECK(ly[0] == 1.0 && lx[1] == 1.0);
    printf("  %zu events on 8 ranks: indexed in %.3f s; scene_at mean %.1f us, worst %.1f us\n",
           n, index_s, 1e6 * sum / probes, 1e6 * worst);
    // the times are printed, never asserted: bench/viz_replay_load measures them
    viz_scene_free(s);
    viz_model_free(m);
    free(ev);
    return 0;
}

int main(void) {
    int failures = 0;
    RUN(test_ring_all_reduce);
    RUN(test_directions);
    RUN(test_live_sync);
    RUN(test_million);
    return failures != 0;
}
