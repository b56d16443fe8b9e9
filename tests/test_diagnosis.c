// tests/test_diagnosis.c: the watchdog's diagnosis (backend_cpu/cpu_diagnosis.h)
//   - the history ring of the flight recorder: the last 8 collectives a rank
//     entered, oldest first, with their state; send/recv left out; an entry
//     rewritten while it is read is dropped;
//   - "diverge at #N": the first sequence number where the histories
//     disagree or a rank is missing, on hand-made recorder states;
//   - every probable-cause rule, on hand-made states, and their order;
//   - the whole text: its parts in order, bounded at 128 to 4096 ranks;
//   - real worlds: a rank that leaves early and a count mismatch, with the
//     diagnosis in the world's error and as one event in the trace.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cpu_diagnosis.h"
#include "engine/comm.h"
#include "test_world.h"

#define MAXR 4096

// ----------------------------------------------------------------------------
// hand-made recorder states

static CpuHistEntry entry(uint64_t seq, SimCollKind k, uint64_t count, int done) {
    CpuHistEntry e = {seq, count, k, SIM_FP32, SIM_ALGO_RING, SIM_SUM, 0, done};
    return e;
}

// A rank that entered AllReduce #first..#last of `count` elements, all done.
static void did(CpuFrView *v, uint64_t first, uint64_t last, uint64_t count) {
    memset(v, 0, sizeof *v);
    v->state = CPU_FR_DONE;
    v->kind = SIM_COLL_ALL_REDUCE;
    v->algo = SIM_ALGO_RING;
    v->dtype = SIM_FP32;
    v->step = v->peer = -1;
    v->seq = last;
    v->count = count;
    v->last_done = (int64_t)last;
    if (last - first + 1 > CPU_FR_HISTORY)
        first = last + 1 - CPU_FR_HISTORY;
    for (uint64_t s = first; s <= last; s++)
        v->hist[v->nhist++] = entry(s, SIM_COLL_ALL_REDUCE, count, 1);
}

// Then enters collective #seq and waits in its rendezvous.
static void enters(CpuFrView *v, uint64_t seq, SimCollKind k, uint64_t count) {
    if (v->nhist == CPU_FR_HISTORY) {
        memmove(v->hist, v->hist + 1, (CPU_FR_HISTORY - 1) * sizeof v->hist[0]);
        v->nhist--;
    }
    v->hist[v->nhist++] = entry(seq, k, count, 0);
    v->state = CPU_FR_RENDEZVOUS;
    v->kind = k;
    v->seq = seq;
    v->count = count;
    v->nsteps = 6;
}

// R ranks that did #0..#(seq-1) of 1024 elements and wait in AllReduce #seq.
static void all_wait(CpuFrView *v, int R, uint64_t seq) {
    for (int r = 0; r < R; r++) {
        did(&v[r], 0, seq - 1, 1024);
        enters(&v[r], seq, SIM_COLL_ALL_REDUCE, 1024);
    }
}

static CpuFrView *views(int R) {
    return calloc((size_t)R, sizeof(CpuFrView));
}

// ----------------------------------------------------------------------------
// the history ring, written by the recorder

static SimCollCall call_of(SimCollKind k, uint64_t seq, size_t count) {
    SimCollCall c;
    memset(&c, 0, sizeof c);
    c.args.kind = k;
    c.args.algo = SIM_ALGO_RING;
    c.args.dtype = SIM_BF16;
    c.args.op = SIM_MAX;
    c.args.count = count;
    c.args.root = 2;
    c.args.peer = k == SIM_COLL_SEND ? 1 : -1;
    c.seq = seq;
    c.sched.nsteps = 6;
    return c;
}

static int test_history_ring(void) {
    CpuRank *r = aligned_alloc(CPU_CACHE_LINE, sizeof *r);
    CHECK(r != NULL);
    memset(r, 0, sizeof *r);
    CpuFrView v;
    cpu_fr_read(r, &v);
    CHECK_EQ_INT(v.nhist, 0);
    for (uint64_t s = 0; s < 11; s++) {
        SimCollCall c = call_of(s % 2 ? SIM_COLL_BROADCAST : SIM_COLL_ALL_REDUCE, s, 100 + s);
        cpu_fr_enter(r, &c);
        if (s == 4) { // a send in between: its own sequence, not kept
            SimCollCall p = call_of(SIM_COLL_SEND, 0, 7);
            cpu_fr_enter(r, &p);
            cpu_fr_done(r, &p);
        }
        if (s < 10)
            cpu_fr_done(r, &c);
    }
    cpu_fr_read(r, &v);
    CHECK_EQ_INT(v.nhist, CPU_FR_HISTORY);
    for (int k = 0; k < v.nhist; k++) {
        const CpuHistEntry *e = &v.hist[k];
        uint64_t s = 3 + (uint64_t)k; // the oldest kept is #3, the newest #10
        CHECK_EQ_INT(e->seq, s);
        CHECK_EQ_INT(e->count, 100 + s);
        CHECK_EQ_INT(e->kind, s % 2 ? SIM_COLL_BROADCAST : SIM_COLL_ALL_REDUCE);
        CHECK_EQ_INT(e->dtype, SIM_BF16);
        CHECK_EQ_INT(e->algo, SIM_ALGO_RING);
        CHECK_EQ_INT(e->op, SIM_MAX);
        CHECK_EQ_INT(e->root, 2);
        CHECK_EQ_INT(e->done, s < 10);
    }
    CHECK_EQ_INT(v.seq, 10);
    CHECK_EQ_INT(v.last_done, 9);
    CHECK_EQ_INT(v.state, CPU_FR_RUNNING);
    // a slot being rewritten (stamp 0) is left out, the others stay
    atomic_store(&r->fr.hist[5 % CPU_FR_HISTORY].stamp, 0);
    cpu_fr_read(r, &v);
    CHECK_EQ_INT(v.nhist, CPU_FR_HISTORY - 1);
    CHECK_EQ_INT(v.hist[1].seq, 4);
    CHECK_EQ_INT(v.hist[2].seq, 6);
    free(r);
    return 0;
}

// ----------------------------------------------------------------------------
// the divergence

static int test_diverge_missing(void) {
    CpuFrView v[4];
    all_wait(v, 3, 5);
    did(&v[3], 0, 4, 1024);
    v[3].exited = CPU_EXITED_RETURNED;
    char out[512];
    CHECK_EQ_INT(cpu_diag_diverge(v, 4, out, sizeof out), 1);
    CHECK(strcmp(out, "diverge at #5: ranks 0,1,2 called AllReduce 1024 x fp32, rank 3 never "
                      "called #5 (last entered #4)") == 0);
    did(&v[3], 0, 0, 1024);
    v[3].nhist = 0; // a rank that entered nothing
    v[3].last_done = -1;
    CHECK_EQ_INT(cpu_diag_diverge(v, 4, out, sizeof out), 1);
    CHECK_STR_CONTAINS(out, "diverge at #0: ranks 0,1,2 called AllReduce 1024 x fp32, rank 3 "
                            "never called #0 (entered no collective)");
    return 0;
}

static int test_diverge_count(void) {
    CpuFrView v[3];
    for (int r = 0; r < 3; r++) {
        did(&v[r], 0, 4, 1024);
        enters(&v[r], 5, SIM_COLL_ALL_REDUCE, r == 2 ? 511 : 512);
    }
    char out[512];
    CHECK_EQ_INT(cpu_diag_diverge(v, 3, out, sizeof out), 1);
    CHECK(strcmp(out, "diverge at #5: ranks 0,1 called AllReduce 512 x fp32, rank 2 called "
                      "AllReduce 511 x fp32") == 0);
    return 0;
}

static int test_diverge_skip_and_args(void) {
    CpuFrView v[4];
    all_wait(v, 4, 6);
    did(&v[1], 0, 4, 1024); // #4, then #6: it skipped #5
    enters(&v[1], 6, SIM_COLL_ALL_REDUCE, 1024);
    char out[512];
    CHECK_EQ_INT(cpu_diag_diverge(v, 4, out, sizeof out), 1);
    CHECK_STR_CONTAINS(out, "diverge at #5: ranks 0,2,3 called AllReduce 1024 x fp32, rank 1 "
                            "skipped #5 (went on to #6)");
    // the same call but another reduction: the op is named
    all_wait(v, 4, 6);
    v[3].hist[v[3].nhist - 1].op = SIM_MAX;
    CHECK_EQ_INT(cpu_diag_diverge(v, 4, out, sizeof out), 1);
    CHECK(strcmp(out, "diverge at #6: ranks 0,1,2 called AllReduce 1024 x fp32 op sum, rank 3 "
                      "called AllReduce 1024 x fp32 op max") == 0);
    // agreeing histories: nothing
    all_wait(v, 4, 20);
    CHECK_EQ_INT(cpu_diag_diverge(v, 4, out, sizeof out), 0);
    CHECK_EQ_INT(strlen(out), 0);
    return 0;
}

// Histories longer than the ring: only numbers every rank still holds count.
static int test_diverge_window(void) {
    CpuFrView v[2];
    did(&v[0], 0, 40, 8);
    did(&v[1], 0, 43, 8);
    v[1].hist[2].count = 9; // #38 differs
    char out[512];
    CHECK_EQ_INT(cpu_diag_diverge(v, 2, out, sizeof out), 1);
    CHECK(strcmp(out, "diverge at #38: rank 0 called AllReduce 8 x fp32, rank 1 called "
                      "AllReduce 9 x fp32") == 0);
    v[1].hist[2].count = 8;
    CHECK_EQ_INT(cpu_diag_diverge(v, 2, out, sizeof out), 1);
    CHECK(strcmp(out, "diverge at #41: rank 1 called AllReduce 8 x fp32, rank 0 never called "
                      "#41 (last entered #40)") == 0);
    return 0;
}

// ----------------------------------------------------------------------------
// the probable cause, rule by rule (the watchdog of rank 0 unless said)

static int cause_is(const CpuFrView *v, int R, int me, const char *want) {
    char out[1024];
    cpu_diag_cause(v, R, me, out, sizeof out);
    if (strcmp(out, want) != 0) {
        fprintf(stderr, "cause:\n  got  %s\n  want %s\n", out, want);
        return 1;
    }
    return 0;
}

static int test_cause_crashed(void) {
    CpuFrView v[4];
    all_wait(v, 3, 7);
    did(&v[3], 0, 6, 1024);
    v[3].exited = CPU_EXITED_CRASHED;
    CHECK(cause_is(v, 4, 0, "probable cause: rank 3 crashed (the process died) while the others "
                            "waited for it in AllReduce #7") == 0);
    // crashed comes before returned
    v[2] = v[3];
    v[2].exited = CPU_EXITED_RETURNED;
    CHECK(cause_is(v, 4, 0, "probable cause: rank 3 crashed (the process died) while ranks 0,1 "
                            "waited for it in AllReduce #7") == 0);
    return 0;
}

static int test_cause_returned(void) {
    CpuFrView v[4];
    all_wait(v, 3, 7);
    did(&v[3], 0, 6, 1024);
    v[3].exited = CPU_EXITED_RETURNED;
    CHECK(cause_is(v, 4, 1, "probable cause: rank 3 left the training loop early (fewer batches, "
                            "a return inside a rank-dependent branch) while the others waited "
                            "for it in AllReduce #7") == 0);
    // more ranks gone than waiting: the waiting rank made a call of its own
    for (int r = 1; r < 4; r++) {
        did(&v[r], 0, 39, 272);
        v[r].exited = CPU_EXITED_RETURNED;
    }
    did(&v[0], 0, 39, 272);
    enters(&v[0], 40, SIM_COLL_ALL_GATHER, 272);
    CHECK(cause_is(v, 4, 0, "probable cause: rank 0 called AllGather #40 after ranks 1,2,3 had "
                            "finished: a collective the other ranks never call (inside a "
                            "rank-dependent branch, e.g. an evaluation or a state_dict() on rank "
                            "0 only)") == 0);
    return 0;
}

static int test_cause_other_call(void) {
    CpuFrView v[4];
    all_wait(v, 4, 5);
    v[2].kind = SIM_COLL_BROADCAST;
    v[2].count = 64;
    did(&v[3], 0, 4, 1024); // computing: a weaker sign than rank 2's call
    CHECK(cause_is(v, 4, 0, "probable cause: rank 2 called a different collective at #5 "
                            "(Broadcast 64 x fp32 instead of AllReduce 1024 x fp32): a "
                            "collective skipped or added in a rank-dependent branch, or "
                            "buckets in a different order") == 0);
    return 0;
}

static int test_cause_behind_and_ahead(void) {
    CpuFrView v[4];
    all_wait(v, 4, 5);
    did(&v[1], 0, 4, 1024); // not in any collective, last entered #4
    CHECK(cause_is(v, 4, 0, "probable cause: rank 1 has not reached #5: it is still computing "
                            "(a straggler, or stuck outside collectives) or skipped a collective "
                            "earlier") == 0);
    all_wait(v, 4, 5);
    did(&v[1], 0, 4, 1024);
    enters(&v[1], 6, SIM_COLL_ALL_REDUCE, 1024);
    CHECK(cause_is(v, 4, 0, "probable cause: rank 1 is one collective ahead (at #6 while the "
                            "others are at #5): it skipped one") == 0);
    v[1].seq = 8;
    CHECK(cause_is(v, 4, 0, "probable cause: rank 1 is 3 collectives ahead (at #8 while the "
                            "others are at #5): it skipped 3") == 0);
    v[1].seq = 3;
    CHECK(cause_is(v, 4, 0, "probable cause: rank 1 is 2 collectives behind (at #3 while the "
                            "others are at #5): the ranks made different numbers of collective "
                            "calls (a collective skipped by the others, or an extra one on it)") ==
          0);
    return 0;
}

static int test_cause_none_missing(void) {
    CpuFrView v[4];
    all_wait(v, 4, 5);
    for (int r = 0; r < 4; r++) {
        v[r].state = CPU_FR_STEP_WAIT;
        v[r].step = 1;
        v[r].peer = (r + 3) % 4;
    }
    CHECK(cause_is(v, 4, 0, "probable cause: every rank is in AllReduce #5, none is missing: the "
                            "collective itself is slow or stuck (a slow link or a slow rank), or "
                            "the watchdog's limit is too short for this run") == 0);
    return 0;
}

static int test_cause_p2p(void) {
    CpuFrView v[3];
    did(&v[0], 0, 0, 1024);
    did(&v[1], 0, 0, 1024);
    did(&v[2], 0, 3, 1024);
    enters(&v[2], 4, SIM_COLL_ALL_REDUCE, 1024); // not involved
    v[0].state = CPU_FR_P2P_WAIT;
    v[0].kind = SIM_COLL_RECV;
    v[0].seq = 0;
    v[0].count = 10;
    v[0].peer = 1;
    v[1].exited = CPU_EXITED_RETURNED;
    CHECK(cause_is(v, 3, 0, "probable cause: rank 1 left the training loop early (fewer batches, "
                            "a return inside a rank-dependent branch) while rank 0 waited for it "
                            "in Recv #0 from rank 1") == 0);
    v[1].exited = CPU_EXITED_NO;
    CHECK(cause_is(v, 3, 0, "probable cause: rank 1 has not reached the matching call of Recv #0 "
                            "from rank 1: it is still computing (a straggler, or stuck outside "
                            "collectives) or skipped a collective earlier") == 0);
    enters(&v[1], 1, SIM_COLL_ALL_REDUCE, 1024);
    CHECK(cause_is(v, 3, 0, "probable cause: rank 1 is in AllReduce #1 (1024 x fp32) while rank 0 "
                            "waited in Recv #0 from rank 1: the ranks issue their collectives and "
                            "sends/receives in different orders") == 0);
    return 0;
}

// The protocol check: every rank in one rendezvous, compared with the
// largest group of equal calls.
static int test_cause_protocol(void) {
    CpuFrView v[4];
    for (int r = 0; r < 4; r++) {
        did(&v[r], 0, 2, 1024);
        if (r == 0)
            enters(&v[r], 3, SIM_COLL_ALL_REDUCE, 5);
        else
            enters(&v[r], 3, SIM_COLL_BROADCAST, 7);
        v[r].hist[v[r].nhist - 1].dtype = r == 0 ? SIM_FP32 : SIM_INT32;
    }
    CHECK(cause_is(v, 4, -1, "probable cause: rank 0 called a different collective at #3 "
                             "(AllReduce 5 x fp32 instead of Broadcast 7 x int32): a collective "
                             "skipped or added in a rank-dependent branch, or buckets in a "
                             "different order") == 0);
    all_wait(v, 4, 1);
    v[3].hist[v[3].nhist - 1].op = SIM_MAX;
    CHECK(cause_is(v, 4, -1, "probable cause: rank 3 called AllReduce #1 with other arguments "
                             "(AllReduce 1024 x fp32 op max instead of AllReduce 1024 x fp32 op "
                             "sum): an argument that depends on the rank") == 0);
    all_wait(v, 4, 5);
    did(&v[1], 0, 4, 1024);
    enters(&v[1], 6, SIM_COLL_ALL_REDUCE, 1024);
    CHECK(cause_is(v, 4, -1, "probable cause: rank 1 is one collective ahead (at #6 while the "
                             "others are at #5): it skipped one") == 0);
    did(&v[1], 0, 3, 1024);
    enters(&v[1], 4, SIM_COLL_ALL_REDUCE, 1024);
    CHECK(cause_is(v, 4, -1, "probable cause: rank 1 is one collective behind (at #4 while the "
                             "others are at #5): the ranks made different numbers of collective "
                             "calls (a collective skipped by the others, or an extra one on it)") ==
          0);
    // the protocol check's message gains the divergence and the cause
    char msg[2048] = "AllReduce #5: rank 1 is at #4, rank 0 at #5";
    cpu_diag_protocol(v, 4, msg, sizeof msg);
    CHECK(strcmp(msg, "AllReduce #5: rank 1 is at #4, rank 0 at #5\n"
                      "diverge at #5: ranks 0,2,3 called AllReduce 1024 x fp32, rank 1 never "
                      "called #5 (last entered #4)\n"
                      "probable cause: rank 1 is one collective behind (at #4 while the others "
                      "are at #5): the ranks made different numbers of collective calls (a "
                      "collective skipped by the others, or an extra one on it)") == 0);
    return 0;
}

// ----------------------------------------------------------------------------
// the whole text

static int test_whole_text(void) {
    CpuFrView v[4];
    for (int r = 0; r < 3; r++) {
        did(&v[r], 3, 4, 1024);
        v[r].hist[1].count = 2048;
        enters(&v[r], 5, SIM_COLL_ALL_REDUCE, 512);
    }
    v[0].state = CPU_FR_STEP_WAIT;
    v[0].step = 1;
    v[0].peer = 3;
    did(&v[3], 3, 4, 1024);
    v[3].hist[1].count = 2048;
    char out[CPU_ERROR_MAX];
    cpu_diag_watchdog(v, 4, 0, 5.02, 5.0, out, sizeof out);
    printf("%s", out);
    const char *parts[] = {
        "watchdog: rank 0 waited 5.02 s (limit 5 s) in AllReduce #5 (512 x fp32); ",
        "\n  rank 0: #3 AllReduce 1024 x fp32 done, #4 AllReduce 2048 x fp32 done, #5 AllReduce "
        "512 x fp32 waiting in step 2 of 6 for rank 3; waiting (algo ring)\n",
        "\n  ranks 1,2: #3 AllReduce 1024 x fp32 done, #4 AllReduce 2048 x fp32 done, #5 "
        "AllReduce 512 x fp32 waiting in rendezvous; waiting (algo ring)\n",
        "\n  rank 3: #3 AllReduce 1024 x fp32 done, #4 AllReduce 2048 x fp32 done; not in a "
        "collective\n",
        "\ndiverge at #5: ranks 0,1,2 called AllReduce 512 x fp32, rank 3 never called #5 (last "
        "entered #4)\n",
        "\nranks 0,1,2 wait in AllReduce #5 (512 x fp32); rank 3 never arrived (last completed "
        "#4)\n",
        "\nprobable cause: rank 3 has not reached #5: it is still computing (a straggler, or "
        "stuck outside collectives) or skipped a collective earlier\n",
    };
    const char *at = out;
    for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++) {
        const char *p = strstr(at, parts[k]);
        if (p == NULL)
            fprintf(stderr, "part %zu missing or out of order: %s\n", k, parts[k]);
        CHECK(p != NULL);
        at = p + 1;
    }
    CHECK(out[strlen(out) - 1] == '\n');
    // a crashed rank in the rank lines and the summary
    v[3].exited = CPU_EXITED_CRASHED;
    cpu_diag_watchdog(v, 4, 0, 5.02, 5.0, out, sizeof out);
    CHECK_STR_CONTAINS(out, "\n  rank 3: #3 AllReduce 1024 x fp32 done, #4 AllReduce 2048 x fp32 "
                            "done; crashed\n");
    CHECK_STR_CONTAINS(out, "; rank 3 crashed and never arrived (last completed #4)\n");
    CHECK_STR_CONTAINS(out, "\nprobable cause: rank 3 crashed (the process died) while the "
                            "others waited for it in AllReduce #5\n");
    // a small buffer: cut, still a string
    char small[100];
    cpu_diag_watchdog(v, 4, 0, 5.02, 5.0, small, sizeof small);
    CHECK(strlen(small) == sizeof small - 1);
    return 0;
}

// The example in docs/collectives.md's "Ranks and collectives": two ranks never
// arrive at the first collective.
static int test_readme_example(void) {
    CpuFrView v[4];
    for (int r = 0; r < 4; r++) {
        did(&v[r], 0, 0, 0);
        v[r].nhist = 0;
        v[r].last_done = -1;
        v[r].state = CPU_FR_IDLE;
        if (r % 2) {
            enters(&v[r], 0, SIM_COLL_ALL_REDUCE, 262144);
            v[r].algo = SIM_ALGO_DIRECT;
            v[r].hist[0].algo = SIM_ALGO_DIRECT;
        }
    }
    char out[CPU_ERROR_MAX];
    cpu_diag_watchdog(v, 4, 3, 5.0, 5.0, out, sizeof out);
    printf("%s", out);
    CHECK(strcmp(out,
                 "watchdog: rank 3 waited 5 s (limit 5 s) in AllReduce #0 (262144 x fp32); each "
                 "rank's last collectives (newest last) and its state:\n"
                 "  ranks 0,2: no collective entered yet; not in a collective\n"
                 "  ranks 1,3: #0 AllReduce 262144 x fp32 waiting in rendezvous; waiting (algo "
                 "direct)\n"
                 "diverge at #0: ranks 1,3 called AllReduce 262144 x fp32, ranks 0,2 never "
                 "called #0 (entered no collective)\n"
                 "ranks 1,3 wait in AllReduce #0 (262144 x fp32); ranks 0,2 never arrived (no "
                 "collective completed)\n"
                 "probable cause: ranks 0,2 have not reached #0: they are still computing (a "
                 "straggler, or stuck outside collectives) or skipped a collective earlier\n") ==
          0);
    return 0;
}

// Every rank different from its neighbours, histories full, counts all
// different: the text stays within CPU_ERROR_MAX and keeps its last parts.
static int bounded(int R) {
    CpuFrView *v = views(R);
    CHECK(v != NULL);
    for (int r = 0; r < R; r++) {
        did(&v[r], 0, 30, 1000);
        if (r % 3 != 2) {
            enters(&v[r], 31, SIM_COLL_ALL_REDUCE, 1000 + (uint64_t)r % 7);
            v[r].state = CPU_FR_STEP_WAIT;
            v[r].step = r % 5;
            v[r].peer = (r + 1) % R;
        } else if (r % 2) {
            v[r].exited = CPU_EXITED_RETURNED;
        }
    }
    char *out = malloc(CPU_ERROR_MAX);
    CHECK(out != NULL);
    cpu_diag_watchdog(v, R, 0, 1.0, 1.0, out, CPU_ERROR_MAX);
    size_t n = strlen(out);
    if (R == 128)
        printf("%s", out);
    int ok = n < CPU_ERROR_MAX && n > 1000 && out[n - 1] == '\n' &&
             strstr(out, "more ranks)\n") != NULL && strstr(out, "\ndiverge at #31: ") != NULL &&
             strstr(out, "more ranks otherwise\n") != NULL &&
             strstr(out, "more ranks elsewhere\n") != NULL &&
             strstr(out, "\nprobable cause: ranks 0,7,21,") != NULL &&
             strstr(out, " had finished: a collective the other ranks never call") != NULL;
    if (!ok)
        fprintf(stderr, "%d ranks: %zu bytes:\n%s\n", R, n, out);
    free(out);
    free(v);
    CHECK(ok);
    return 0;
}

static int test_bounded(void) {
    return bounded(128) || bounded(1000) || bounded(MAXR);
}

// ----------------------------------------------------------------------------
// real worlds

typedef enum { LEAVES, COUNT } Scenario;

static SimStatus scenario_rank(SimRank *r, void *arg) {
    Scenario s = *(Scenario *)arg;
    float buf[1024] = {0};
    for (int k = 0; k < 10; k++)
        SIM_CHECK(sim_all_reduce(r, buf, buf, 256, SIM_FP32, SIM_SUM, SIM_ALGO_RING));
    if (s == LEAVES && r->rank == 2)
        return SIM_OK;
    size_t n = s == COUNT && r->rank == 1 ? 255 : 256;
    return sim_all_reduce(r, buf, buf, n, SIM_FP32, SIM_SUM, SIM_ALGO_RING);
}

// The diagnosis event of the trace, or NULL; *count: how many there are.
static const SimEvent *diagnosis_event(const SimTrace *t, int *count) {
    const SimEvent *found = NULL;
    *count = 0;
    for (int r = 0; r < sim_trace_nranks(t); r++) {
        const SimEvent *ev = sim_trace_rank_events(t, r);
        for (size_t i = 0; i < sim_trace_rank_count(t, r); i++)
            if (ev[i].kind == SIM_EV_FAULT && ev[i].label &&
                strcmp(ev[i].label, SIM_EV_DIAGNOSIS_LABEL) == 0) {
                found = &ev[i];
                ++*count;
            }
    }
    return found;
}

static int run_scenario(Scenario s, SimStatus want, const char *const *parts, int nparts) {
    SimWorld w;
    CHECK_EQ_INT(tworld_init_cpu(&w, 4, 1, 0.3), SIM_OK);
    SimStatus st = sim_world_run(&w, scenario_rank, &s);
    const char *d = sim_world_diagnosis(&w);
    printf("%s\n", d);
    int fails = 0, count = 0;
    if (st != want) {
        fprintf(stderr, "status %s, wanted %s\n", sim_status_name(st), sim_status_name(want));
        fails++;
    }
    if (strcmp(sim_world_error(&w), d) != 0)
        fails++;
    for (int k = 0; k < nparts; k++)
        if (strstr(d, parts[k]) == NULL) {
            fprintf(stderr, "missing: %s\n", parts[k]);
            fails++;
        }
    const SimEvent *ev = diagnosis_event(w.trace, &count);
    if (count != 1 || ev == NULL || strcmp(ev->name, d) != 0 || ev->stream != SIM_STREAM_COMM) {
        fprintf(stderr, "%d diagnosis events in the trace\n", count);
        fails++;
    } else if (ev->sim_start != sim_rank_now(&w.ranks[ev->rank])) {
        fprintf(stderr, "the diagnosis is not at rank %d's time\n", ev->rank);
        fails++;
    } else if (s == LEAVES && ev->rank == 2) {
        fprintf(stderr, "the rank that left cannot have diagnosed\n");
        fails++;
    }
    sim_world_free(&w);
    return fails;
}

static int test_world_leaves(void) {
    const char *parts[] = {
        "watchdog: rank ",
        ": #3-#9 AllReduce 256 x fp32 done, #10 AllReduce 256 x fp32 ",
        "\n  rank 2: #2-#9 AllReduce 256 x fp32 done; rank function returned\n",
        "\ndiverge at #10: ranks 0,1,3 called AllReduce 256 x fp32, rank 2 never called #10 "
        "(last entered #9)\n",
        "\nranks 0,1,3 wait in AllReduce #10 (256 x fp32); rank 2 never arrived (last completed "
        "#9)\n",
        "\nprobable cause: rank 2 left the training loop early (fewer batches, a return inside a "
        "rank-dependent branch) while the others waited for it in AllReduce #10\n",
    };
    return run_scenario(LEAVES, SIM_ETIMEDOUT, parts, (int)(sizeof parts / sizeof parts[0]));
}

static int test_world_count(void) {
    const char *parts[] = {
        "AllReduce #10: rank 1 count 255 != rank 0 count 256\n"
        "diverge at #10: ranks 0,2,3 called AllReduce 256 x fp32, rank 1 called AllReduce 255 x "
        "fp32\n"
        "probable cause: rank 1 called a different collective at #10 (AllReduce 255 x fp32 "
        "instead of AllReduce 256 x fp32): a collective skipped or added in a rank-dependent "
        "branch, or buckets in a different order",
    };
    return run_scenario(COUNT, SIM_EPROTO, parts, 1);
}

int main(void) {
    int failures = 0;
    RUN(test_history_ring);
    RUN(test_diverge_missing);
    RUN(test_diverge_count);
    RUN(test_diverge_skip_and_args);
    RUN(test_diverge_window);
    RUN(test_cause_crashed);
    RUN(test_cause_returned);
    RUN(test_cause_other_call);
    RUN(test_cause_behind_and_ahead);
    RUN(test_cause_none_missing);
    RUN(test_cause_p2p);
    RUN(test_cause_protocol);
    RUN(test_whole_text);
    RUN(test_readme_example);
    RUN(test_bounded);
    RUN(test_world_leaves);
    RUN(test_world_count);
    return failures != 0;
}
