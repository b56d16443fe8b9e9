// tests/test_viz_scene_train.c: the scene model on training runs of the
// real engine: a DDP iteration (buckets go empty -> filling -> reducing ->
// done in launch order, gradients counted ready as the events say), a
// FULL_SHARD iteration (a unit is gathered for its forward and sharded
// again after, reducing then reduced in backward), memory per category
// equal to the ledger's, and the jumps.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "scene.h"
#include "test_env.h"
#include "test_viz_scene_util.h"

static int streq(const char *a, const char *b) {
    return a != NULL && b != NULL && strcmp(a, b) == 0;
}

static int is_marker(const SimEvent *e, const char *name, const char *label, int rank) {
    return e->kind == SIM_EV_MARKER && streq(e->name, name) && streq(e->label, label) &&
           e->rank == rank;
}

// The first event at or after `from` that is rank's marker name/label.
static size_t find_marker(const VizTrace *t, size_t from, const char *name, const char *label,
                          int rank) {
    for (size_t i = from; i < t->n; i++)
        if (is_marker(&t->ev[i], name, label, rank))
            return i;
    return SIZE_MAX;
}

// ----------------------------------------------------------------------------
// DDP

// What the caption of the bucket launch at event l must say, found in the
// trace: compute of its rank that runs while the all_reduce is in flight,
// else a backward op of that rank still to come in this backward pass,
// else neither.
static const char *launch_words(const VizTrace *t, size_t l) {
    const SimEvent *e = &t->ev[l];
    int later_bwd = 0;
    for (size_t j = 0; j < t->n; j++) {
        const SimEvent *op = &t->ev[j];
        if (op->kind != SIM_EV_COMPUTE || op->rank != e->rank || op->stream != SIM_STREAM_COMPUTE)
            continue;
        if (op->sim_start < e->sim_end && op->sim_end > e->sim_start)
            return "while backward goes on";
        if (op->sim_start < e->sim_start)
            continue;
        if (op->name && (strstr(op->name, "_fwd") || strstr(op->name, "_step")))
            break; // the next forward or the optimizer: this backward is over
        later_bwd |= op->name && strstr(op->name, "_bwd") != NULL;
    }
    return later_bwd ? "backward resumes only when it ends (exposed)"
                     : "after backward's last gradient: nothing left to hide it behind";
}

static int test_ddp_iteration(void) {
    const int R = 4;
    TvsRun run;
    CHECK(tvs_train(&run, R, 0, 3) == 0);
    char err[256];
    VizModel *m = viz_model_new(&run.t, err, sizeof err);
    CHECK(m != NULL);
    VizScene *s = viz_scene_new(m);
    VizSceneOpts o = viz_scene_opts_default();
    o.timeline_cols = 200;
    CHECK_EQ_INT(viz_model_iterations(m), 3);
    // the last iteration, with the rebuilt plan: from the moment every rank
    // has begun it to its last rank's end
    size_t a = find_marker(&run.t, viz_model_iteration_start(m, 2), "iteration", "begin", R - 1);
    size_t b = find_marker(&run.t, a, "iteration", "end", R - 1);
    CHECK(a != SIZE_MAX && b != SIZE_MAX);
    CHECK_EQ_INT(viz_scene_at(m, a, &o, s), SIM_OK);
    int nb = s->nbuckets, np = s->nparams;
    CHECK(nb >= 2);
    CHECK_EQ_INT(np, 6);
    for (int k = 0; k < nb; k++) {
        CHECK_EQ_INT(s->buckets[k].state, VIZ_BUCKET_EMPTY);
        CHECK_EQ_INT(s->buckets[k].nready, 0);
    }
    for (int k = 0; k < np; k++)
        CHECK_EQ_INT(s->params[k].ready, 0);
    // the plan: buckets partition the parameters, in reverse order of the
    // layers (the last layer's gradients come first)
    int covered = 0;
    for (int k = 0; k < nb; k++) {
        CHECK_EQ_INT(s->buckets[k].first, covered);
        covered += s->buckets[k].nparams;
        for (int q = 0; q < s->buckets[k].nparams; q++)
            CHECK_EQ_INT(s->params[s->buckets[k].first + q].bucket, k);
    }
    CHECK_EQ_INT(covered, np);
    CHECK(streq(s->params[0].name, "4.bias") || streq(s->params[0].name, "4.weight"));
    VizBucketState last[16];
    int filling_seen[16] = {0};
    size_t reducing_at[16];
    for (int k = 0; k < nb; k++)
        last[k] = VIZ_BUCKET_EMPTY, reducing_at[k] = SIZE_MAX;
    int ready_sum = 0, launches = 0;
    int phases[VIZ_PHASE_COUNT] = {0};
    for (size_t i = a; i <= b; i++) {
        CHECK_EQ_INT(viz_scene_at(m, i, &o, s), SIM_OK);
        const SimEvent *e = s->event;
        phases[s->ranks[0].phase]++;
        if (s->ranks[0].phase == VIZ_PHASE_WAIT)
            CHECK(streq(s->ranks[0].coll, "AllReduce"));
        CHECK_EQ_INT(s->nbuckets, nb);
        for (int k = 0; k < nb; k++) {
            VizBucketState st = s->buckets[k].state;
            CHECK(st >= last[k]); // never goes back within the iteration
            if (st == VIZ_BUCKET_FILLING)
                filling_seen[k] = 1;
            if (st == VIZ_BUCKET_REDUCING && reducing_at[k] == SIZE_MAX)
                reducing_at[k] = i;
            last[k] = st;
        }
        // a ready event makes exactly one more gradient ready
        int sum = 0;
        for (int k = 0; k < np; k++)
            sum += s->params[k].ready;
        int ready = e->kind == SIM_EV_BUCKET && streq(e->label, "ready");
        CHECK_EQ_INT(sum, ready_sum + ready);
        ready_sum = sum;
        if (e->kind == SIM_EV_BUCKET && streq(e->label, "launch")) {
            char want[64];
            snprintf(want, sizeof want, "rank %d: bucket #%d launched: all_reduce of", e->rank,
                     e->step);
            CHECK_STR_CONTAINS(s->caption, want);
            // a CPU rank's cores run the all_reduce: backward waits for it
            CHECK_STR_CONTAINS(s->caption, launch_words(&run.t, i));
            if (e->rank == 0) {
                // launched strictly in bucket order; the collective is that bucket's
                CHECK_EQ_INT(e->step, launches);
                launches++;
                CHECK(s->coll.active);
                CHECK_EQ_INT(s->coll.seq, e->seq);
                CHECK_EQ_INT(s->coll.bucket, e->step);
                CHECK_EQ_INT(s->coll.topo, VIZ_TOPO_RING);
            }
        }
    }
    CHECK_EQ_INT(launches, nb);
    // rank 0 computed forward, backward and the optimizer step, and waited
    // for an all_reduce (a CPU rank's cores run it: compute stops meanwhile)
    CHECK(phases[VIZ_PHASE_FORWARD] > 0 && phases[VIZ_PHASE_BACKWARD] > 0);
    CHECK(phases[VIZ_PHASE_OPTIMIZER] > 0 && phases[VIZ_PHASE_WAIT] > 0);
    for (int k = 0; k < nb; k++) {
        CHECK_EQ_INT(last[k], VIZ_BUCKET_DONE);
        CHECK(reducing_at[k] != SIZE_MAX);
        if (k > 0)
            CHECK(reducing_at[k] > reducing_at[k - 1]);
        if (s->buckets[k].nparams >= 2)
            CHECK(filling_seen[k]);
        CHECK_EQ_INT(s->buckets[k].nready, s->buckets[k].nparams);
        CHECK(s->buckets[k].progress == 1.0);
        CHECK_EQ_INT(s->buckets[k].ndiffer, 0); // every rank has reduced it
        CHECK_EQ_INT(s->buckets[k].other_n, 0);
    }
    CHECK_EQ_INT(ready_sum, np * R);
    for (int k = 0; k < np; k++)
        CHECK_EQ_INT(s->params[k].ready, R);
    // the loss of this iteration, as rank 0 logged it
    size_t e0 = find_marker(&run.t, a > 64 ? a - 64 : 0, "iteration", "end", 0);
    while (e0 != SIZE_MAX && run.t.ev[e0].step != 2)
        e0 = find_marker(&run.t, e0 + 1, "iteration", "end", 0);
    CHECK(e0 != SIZE_MAX && e0 <= b);
    CHECK(s->loss == run.t.ev[e0].value);
    const double *lx, *ly;
    CHECK_EQ_INT(viz_model_loss(m, &lx, &ly), 3);
    CHECK(lx[2] == 2.0 && ly[2] == s->loss);
    // the timeline of the iteration: forward, backward, optimizer; every
    // all_reduce is exposed on a CPU rank (its cores run it)
    int kinds[VIZ_CELL_KIND_COUNT] = {0};
    for (int c = 0; c < s->timeline.ncols; c++) {
        kinds[s->timeline.compute[c]]++;
        kinds[s->timeline.comm[c]]++;
    }
    CHECK(kinds[VIZ_CELL_FORWARD] > 0 && kinds[VIZ_CELL_BACKWARD] > 0);
    CHECK(kinds[VIZ_CELL_OPTIMIZER] > 0 && kinds[VIZ_CELL_EXPOSED] > 0);
    CHECK(s->timeline.exposed_s > 0 && s->timeline.exposed_s < s->timeline.t1 - s->timeline.t0);
    viz_scene_free(s);
    viz_model_free(m);
    tvs_free(&run);
    return 0;
}

// On a GPU's clock the buckets' all_reduces run beside backward: the
// timeline shows overlapped communication, and a rank computes while its
// collective is in flight.
static int test_ddp_overlap(void) {
    const int R = 4;
    TvsRun run;
    CHECK(tvs_train_on(&run, R, 0, 2, "h100") == 0);
    char err[256];
    VizModel *m = viz_model_new(&run.t, err, sizeof err);
    CHECK(m != NULL);
    VizScene *s = viz_scene_new(m);
    VizSceneOpts o = viz_scene_opts_default();
    o.timeline_cols = 400;
    size_t a = viz_model_iteration_start(m, 1);
    CHECK_EQ_INT(viz_scene_at(m, a, &o, s), SIM_OK);
    int kinds[VIZ_CELL_KIND_COUNT] = {0};
    for (int c = 0; c < s->timeline.ncols; c++)
        kinds[s->timeline.comm[c]]++;
    CHECK(kinds[VIZ_CELL_COMM] > 0);
    // some event finds rank 0 computing backward with an all_reduce in flight
    int overlapped = 0;
    for (size_t i = a; i < run.t.n && !overlapped; i++) {
        CHECK_EQ_INT(viz_scene_at(m, i, NULL, s), SIM_OK);
        overlapped = s->ranks[0].phase == VIZ_PHASE_BACKWARD && s->ranks[0].coll != NULL;
    }
    CHECK(overlapped);
    viz_scene_free(s);
    viz_model_free(m);
    tvs_free(&run);
    return 0;
}

// A trace as an engine without the loop's markers and the DDP plan events
// wrote it: iterations are collectives, phases come from the ops' names,
// the bucket plan is made up from the "ready" events.
static int test_ddp_bare_trace(void) {
    const int R = 4;
    TvsRun run;
    CHECK(tvs_train(&run, R, 0, 3) == 0);
    SimEvent *ev = malloc(run.t.n * sizeof *ev);
    CHECK(ev != NULL);
    size_t n = 0;
    int colls = 0;
    for (size_t i = 0; i < run.t.n; i++) {
        const SimEvent *e = &run.t.ev[i];
        if ((e->kind == SIM_EV_BUCKET && (streq(e->label, "plan-begin") || streq(e->label, "plan"))) ||
            (e->kind == SIM_EV_MARKER && (streq(e->name, "iteration") || streq(e->name, "phase"))))
            continue;
        colls += e->kind == SIM_EV_COLL && e->rank == 0 && e->label == NULL;
        ev[n++] = *e;
    }
    VizTrace t;
    CHECK(tvs_trace_by_hand(&t, ev, n, R) == 0);
    free(ev);
    char err[256];
    VizModel *m = viz_model_new(&t, err, sizeof err);
    CHECK(m != NULL);
    CHECK_EQ_INT(viz_model_iterations(m), colls);
    VizScene *s = viz_scene_new(m);
    CHECK_EQ_INT(viz_scene_at(m, n - 1, NULL, s), SIM_OK);
    CHECK_EQ_INT(s->nparams, 6);
    CHECK(s->nbuckets >= 2);
    int covered = 0;
    for (int b = 0; b < s->nbuckets; b++) {
        CHECK_EQ_INT(s->buckets[b].state, VIZ_BUCKET_DONE);
        CHECK_EQ_INT(s->buckets[b].nready, s->buckets[b].nparams);
        CHECK(s->buckets[b].bytes > 0);
        covered += s->buckets[b].nparams;
    }
    CHECK_EQ_INT(covered, 6);
    for (int k = 0; k < 6; k++) {
        CHECK(strncmp(s->params[k].name, "param ", 6) == 0);
        CHECK_EQ_INT(s->params[k].ready, R);
    }
    CHECK(s->loss != s->loss); // no loss without the loop's markers
    // phases from the ops: forward, backward, optimizer
    size_t p = viz_model_next(m, SIZE_MAX, VIZ_JUMP_PHASE, 1);
    const char *want[3] = {"_fwd", "_bwd", "_step"};
    for (int k = 0; k < 3; k++) {
        CHECK(p != SIZE_MAX);
        CHECK(t.ev[p].kind == SIM_EV_COMPUTE && t.ev[p].rank == 0);
        CHECK(strstr(t.ev[p].name, want[k]) != NULL);
        CHECK_EQ_INT(viz_scene_at(m, p, NULL, s), SIM_OK);
        CHECK_EQ_INT(s->ranks[0].phase, k == 0   ? VIZ_PHASE_FORWARD
                                        : k == 1 ? VIZ_PHASE_BACKWARD
                                                 : VIZ_PHASE_OPTIMIZER);
        p = viz_model_next(m, p, VIZ_JUMP_PHASE, 1);
    }
    viz_scene_free(s);
    viz_model_free(m);
    tvs_trace_by_hand_free(&t);
    tvs_free(&run);
    return 0;
}

// ----------------------------------------------------------------------------
// FSDP

static int test_fsdp_iteration(void) {
    const int R = 4;
    TvsRun run;
    CHECK(tvs_train(&run, R, 1, 2) == 0);
    char err[256];
    VizModel *m = viz_model_new(&run.t, err, sizeof err);
    CHECK(m != NULL);
    VizScene *s = viz_scene_new(m);
    VizSceneOpts o = viz_scene_opts_default();
    CHECK_EQ_INT(viz_model_iterations(m), 2);
    size_t a = viz_model_iteration_start(m, 1), b = run.t.n;
    CHECK_EQ_INT(viz_scene_at(m, a, &o, s), SIM_OK);
    int U = s->shards.nunits;
    CHECK(U >= 4);
    CHECK_EQ_INT(s->shards.group, R);
    CHECK_EQ_INT(s->nbuckets, 0);
    int fwd_gathered = 0, reduced = 0;
    int phase = 0; // 1 forward, 2 backward
    for (size_t i = a; i < b; i++) {
        const SimEvent *e = &run.t.ev[i];
        if (is_marker(e, "phase", "forward", 0))
            phase = 1;
        if (is_marker(e, "phase", "backward", 0))
            phase = 2;
        if (is_marker(e, "phase", "optimizer", 0))
            break;
        if (e->kind != SIM_EV_SHARD || e->rank != 0 || phase == 0)
            continue;
        CHECK_EQ_INT(viz_scene_at(m, i, &o, s), SIM_OK);
        int u = e->step;
        CHECK_EQ_INT(s->shards.current, u);
        const uint8_t *st = s->shards.state;
        VizShardState here = (VizShardState)st[u * R + 0];
        char want[160];
        if (streq(e->label, "gather")) {
            CHECK_EQ_INT(here, VIZ_SHARD_GATHERING);
        } else if (streq(e->label, "gathered")) {
            CHECK_EQ_INT(here, VIZ_SHARD_GATHERED);
            const char *name = s->shards.units[u].name;
            CHECK(name != NULL);
            snprintf(want, sizeof want, "gathered on rank 0: all %d shards present for its %s", R,
                     phase == 1 ? "forward" : "backward");
            CHECK_STR_CONTAINS(s->caption, want);
            snprintf(want, sizeof want, "unit %d (", u);
            CHECK_STR_CONTAINS(s->caption, want);
            if (phase == 1) {
                fwd_gathered++;
                // FULL_SHARD in forward: only this unit is whole on rank 0
                for (int v = 0; v < U; v++)
                    if (v != u)
                        CHECK(st[v * R] == VIZ_SHARD_SHARDED || st[v * R] == VIZ_SHARD_GATHERING);
                // the all-gather that brought it was this unit's
                CHECK_EQ_INT(s->coll.coll, SIM_COLL_ALL_GATHER);
                CHECK_EQ_INT(s->coll.unit, u);
            }
        } else if (streq(e->label, "free")) {
            // in backward too: the unit is freed before its gradient is
            // reduce-scattered, as PyTorch's post-backward hook does
            CHECK_EQ_INT(here, VIZ_SHARD_SHARDED);
        } else if (streq(e->label, "reduce")) {
            CHECK_EQ_INT(phase, 2);
            CHECK_EQ_INT(here, VIZ_SHARD_REDUCING);
            CHECK_STR_CONTAINS(s->caption, "reduce-scattered");
        } else if (streq(e->label, "reduced")) {
            CHECK_EQ_INT(here, VIZ_SHARD_REDUCED);
            reduced++;
        }
    }
    CHECK(fwd_gathered >= 3);
    CHECK_EQ_INT(reduced, fwd_gathered);
    // every rank saw the same: at the optimizer, the units with parameters
    // are reduced on every rank
    size_t opt = find_marker(&run.t, a, "phase", "optimizer", R - 1);
    CHECK(opt != SIZE_MAX);
    CHECK_EQ_INT(viz_scene_at(m, opt, &o, s), SIM_OK);
    int nred = 0;
    for (int u = 0; u < U; u++) {
        for (int r = 1; r < R; r++)
            CHECK_EQ_INT(s->shards.state[u * R + r], s->shards.state[u * R]);
        nred += s->shards.state[u * R] == VIZ_SHARD_REDUCED;
    }
    CHECK_EQ_INT(nred, reduced);
    viz_scene_free(s);
    viz_model_free(m);
    tvs_free(&run);
    return 0;
}

// ----------------------------------------------------------------------------
// memory

// The scene at a trace's last event holds what the ledgers hold.
static int check_memory(const VizTrace *t, const SimMemLedger *led, int R) {
    char err[256];
    VizModel *m = viz_model_new(t, err, sizeof err);
    CHECK(m != NULL);
    VizScene *s = viz_scene_new(m);
    CHECK_EQ_INT(viz_scene_at(m, t->n - 1, NULL, s), SIM_OK);
    for (int r = 0; r < R; r++) {
        const VizRankBox *b = &s->ranks[r];
        for (int c = 0; c < SIM_MEM_CAT_COUNT; c++)
            if (c != SIM_MEM_BACKING)
                CHECK_EQ_INT(b->mem[c], led[r].cur[SIM_MEM_DEVICE][c]);
        CHECK_EQ_INT(b->mem[SIM_MEM_BACKING], 0);
        CHECK_EQ_INT(b->mem_total, led[r].total[SIM_MEM_DEVICE]);
        CHECK_EQ_INT(b->host_total, led[r].total[SIM_MEM_HOST]);
        CHECK(b->mem_peak >= led[r].peak[SIM_MEM_DEVICE]); // the ledger may restart its peak
        // the memory plot ends at the same total
        const double *x, *y;
        size_t n = viz_model_memory(m, r, &x, &y);
        CHECK(n > 0);
        CHECK_EQ_INT((int64_t)y[n - 1], led[r].total[SIM_MEM_DEVICE]);
    }
    viz_scene_free(s);
    viz_model_free(m);
    return 0;
}

static int test_memory(void) {
    for (int fsdp = 0; fsdp <= 1; fsdp++) {
        TvsRun run;
        CHECK(tvs_train(&run, 4, fsdp, 2) == 0);
        // when training ended (parameters, gradients, shards, optimizer
        // state still held), and after everything was freed
        CHECK(check_memory(&run.prefix, run.at_end, 4) == 0);
        int64_t held = 0;
        for (int c = 0; c < SIM_MEM_CAT_COUNT; c++)
            held += c != SIM_MEM_BACKING ? run.at_end[0].cur[SIM_MEM_DEVICE][c] : 0;
        CHECK(held > 0);
        CHECK(check_memory(&run.t, run.final_mem, 4) == 0);
        tvs_free(&run);
    }
    return 0;
}

// ----------------------------------------------------------------------------
// jumps

static int test_jumps(void) {
    for (int k = 0; k < VIZ_JUMP_COUNT; k++)
        CHECK_EQ_INT(viz_jump_parse(viz_jump_name((VizJump)k)), k);
    CHECK_EQ_INT(viz_jump_parse("bucket-launch"), VIZ_JUMP_BUCKET_LAUNCH);
    CHECK_EQ_INT(viz_jump_parse("nope"), -1);
    TvsRun run;
    CHECK(tvs_train(&run, 2, 0, 3) == 0);
    char err[256];
    VizModel *m = viz_model_new(&run.t, err, sizeof err);
    CHECK(m != NULL);
    const SimEvent *ev = run.t.ev;
    size_t n = viz_model_count(m);
    size_t i0 = viz_model_iteration_start(m, 0), i1 = viz_model_iteration_start(m, 1);
    size_t i2 = viz_model_iteration_start(m, 2);
    CHECK(i0 < i1 && i1 < i2 && i2 < n);
    CHECK_EQ_INT(viz_model_iteration_start(m, 3), SIZE_MAX);
    CHECK(is_marker(&ev[i1], "iteration", "begin", 0));
    CHECK_EQ_INT(viz_model_iteration_of(m, i1), 1);
    CHECK_EQ_INT(viz_model_iteration_of(m, i1 - 1), 0);
    CHECK_EQ_INT(viz_model_iteration_of(m, 0), -1);
    // next / previous iteration
    CHECK_EQ_INT(viz_model_next(m, SIZE_MAX, VIZ_JUMP_ITERATION, 1), i0);
    CHECK_EQ_INT(viz_model_next(m, i0, VIZ_JUMP_ITERATION, 1), i1);
    CHECK_EQ_INT(viz_model_next(m, i1 + 5, VIZ_JUMP_ITERATION, 1), i2);
    CHECK_EQ_INT(viz_model_next(m, i2, VIZ_JUMP_ITERATION, 1), SIZE_MAX);
    CHECK_EQ_INT(viz_model_next(m, i1, VIZ_JUMP_ITERATION, -1), i0);
    CHECK_EQ_INT(viz_model_next(m, i1 + 5, VIZ_JUMP_ITERATION, -1), i1);
    CHECK_EQ_INT(viz_model_next(m, i0, VIZ_JUMP_ITERATION, -1), SIZE_MAX);
    CHECK(viz_model_is(m, i1, VIZ_JUMP_ITERATION) && !viz_model_is(m, i1 + 1, VIZ_JUMP_ITERATION));
    // every event
    CHECK_EQ_INT(viz_model_next(m, 5, VIZ_JUMP_ANY, 1), 6);
    CHECK_EQ_INT(viz_model_next(m, 5, VIZ_JUMP_ANY, -1), 4);
    CHECK_EQ_INT(viz_model_next(m, n - 1, VIZ_JUMP_ANY, 1), SIZE_MAX);
    CHECK_EQ_INT(viz_model_next(m, 0, VIZ_JUMP_ANY, -1), SIZE_MAX);
    // bucket launches: any rank's, in order
    size_t l = viz_model_next(m, i1, VIZ_JUMP_BUCKET_LAUNCH, 1);
    CHECK(l != SIZE_MAX && l < i2);
    CHECK(ev[l].kind == SIM_EV_BUCKET && streq(ev[l].label, "launch"));
    CHECK(viz_model_is(m, l, VIZ_JUMP_BUCKET_LAUNCH));
    for (size_t i = i1; i < l; i++)
        CHECK(!(ev[i].kind == SIM_EV_BUCKET && streq(ev[i].label, "launch")));
    size_t back = viz_model_next(m, l, VIZ_JUMP_BUCKET_LAUNCH, -1);
    CHECK(back < i1 && ev[back].kind == SIM_EV_BUCKET && streq(ev[back].label, "launch"));
    size_t d = viz_model_next(m, l, VIZ_JUMP_BUCKET_DONE, 1);
    CHECK(d != SIZE_MAX && streq(ev[d].label, "done"));
    // phases begin on rank 0; the first after an iteration begins is forward
    size_t p = viz_model_next(m, i1, VIZ_JUMP_PHASE, 1);
    CHECK(p != SIZE_MAX && is_marker(&ev[p], "phase", "forward", 0));
    p = viz_model_next(m, p, VIZ_JUMP_PHASE, 1);
    CHECK(is_marker(&ev[p], "phase", "backward", 0));
    // a collective starts at its first rank's whole-collective event
    size_t c = viz_model_next(m, i1, VIZ_JUMP_COLL, 1);
    CHECK(c != SIZE_MAX && ev[c].kind == SIM_EV_COLL);
    for (size_t i = 0; i < c; i++)
        CHECK(!(ev[i].kind == SIM_EV_COLL && ev[i].seq == ev[c].seq && ev[i].label == NULL));
    size_t cs = viz_model_next(m, c, VIZ_JUMP_COLL_STEP, 1);
    CHECK(cs != SIZE_MAX && ev[cs].kind == SIM_EV_COLL_STEP && ev[cs].rank == 0);
    // a new device memory peak
    size_t mp = viz_model_next(m, SIZE_MAX, VIZ_JUMP_MEMORY_PEAK, 1);
    CHECK(mp != SIZE_MAX && ev[mp].kind == SIM_EV_MEMORY);
    VizScene *s = viz_scene_new(m);
    size_t q = mp;
    for (int k = 0; k < 5 && q != SIZE_MAX; k++, q = viz_model_next(m, q, VIZ_JUMP_MEMORY_PEAK, 1)) {
        CHECK_EQ_INT(viz_scene_at(m, q, NULL, s), SIM_OK);
        const VizRankBox *b = &s->ranks[ev[q].rank];
        CHECK_EQ_INT(b->mem_total, b->mem_peak);
    }
    viz_scene_free(s);
    viz_model_free(m);
    tvs_free(&run);
    // FSDP: gathers, frees and reductions on rank 0
    CHECK(tvs_train(&run, 2, 1, 1) == 0);
    m = viz_model_new(&run.t, err, sizeof err);
    CHECK(m != NULL);
    ev = run.t.ev;
    const char *labels[3] = {"gather", "free", "reduce"};
    const VizJump kinds[3] = {VIZ_JUMP_GATHER, VIZ_JUMP_FREE, VIZ_JUMP_REDUCE};
    for (int k = 0; k < 3; k++) {
        size_t i = SIZE_MAX;
        int seen = 0;
        while ((i = viz_model_next(m, i, kinds[k], 1)) != SIZE_MAX) {
            CHECK(ev[i].kind == SIM_EV_SHARD && ev[i].rank == 0 && streq(ev[i].label, labels[k]));
            seen++;
        }
        int want = 0;
        for (size_t j = 0; j < run.t.n; j++)
            want += ev[j].kind == SIM_EV_SHARD && ev[j].rank == 0 && streq(ev[j].label, labels[k]);
        CHECK(seen > 0);
        CHECK_EQ_INT(seen, want);
    }
    viz_model_free(m);
    tvs_free(&run);
    return 0;
}

int main(void) {
    int failures = 0;
    RUN(test_ddp_iteration);
    RUN(test_ddp_overlap);
    RUN(test_ddp_bare_trace);
    RUN(test_fsdp_iteration);
    RUN(test_memory);
    RUN(test_jumps);
    return failures != 0;
}
