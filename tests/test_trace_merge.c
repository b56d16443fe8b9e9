// tests/test_trace_merge.c: merging per-rank traces (cli/report/merge_traces.h,
// sim/trace/trace_merge.h), as `ddplab run --rendezvous` writes them, one file per
// process with its rank's events.
//
// A 4-rank DDP run on the cpu backend writes a whole trace; a split helper
// of this test writes each rank's events to a file of its own (as a process
// of a world would); merging the 4 files gives the whole trace back, event
// for event and field for field, strings and run info included, in any
// order of the inputs, in every output format, in process and through
// `ddplab merge-traces`. Then what is refused (a rank in two files, an input
// that is not a trace, the output among the inputs, traces of two runs),
// what is only noted (ranks without a file), and that the dropped counts of
// the inputs add up in the merged file's header.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "coll/coll.h"           // defines: SIM_COLL_*
#include "report/merge_traces.h" // defines: merge_traces_files
#include "test_cli_run.h"        // defines: TCLI_RUN, tcli_path
#include "test_files.h"          // defines: tfile_mkdtemp, tfile_rmtree
#include "trace/trace_merge.h"   // defines: sim_trace_absorb, sim_trace_add_dropped
#include "vtrace.h"              // defines: VizTrace, viz_trace_load

#define NR 4

static const char *exe, *dir;
static char rank_file[NR][600];
static char whole[512];

// ----------------------------------------------------------------------------
// Helpers

static int same_str(const char *a, const char *b) {
    return (a == NULL && b == NULL) || (a && b && strcmp(a, b) == 0);
}

// Every field of every event, the ranks and the info. 0 when a equals b.
static int same_trace(const VizTrace *a, const VizTrace *b) {
    CHECK_EQ_INT(a->n, b->n);
    CHECK_EQ_INT(a->nranks, b->nranks);
    CHECK(strcmp(a->info.title, b->info.title) == 0);
    CHECK(strcmp(a->info.strategy, b->info.strategy) == 0);
    CHECK(strcmp(a->info.profile, b->info.profile) == 0);
    CHECK_EQ_INT(a->info.device_capacity, b->info.device_capacity);
    CHECK_EQ_INT(a->info.nodes, b->info.nodes);
    for (size_t i = 0; i < a->n; i++) {
        const SimEvent *x = &a->ev[i], *y = &b->ev[i];
        int ok = x->sim_start == y->sim_start && x->sim_end == y->sim_end &&
                 x->wall_start == y->wall_start && x->wall_end == y->wall_end &&
                 x->bytes == y->bytes && x->count == y->count && x->seq == y->seq &&
                 x->value == y->value && x->rank == y->rank && x->stream == y->stream &&
                 x->kind == y->kind && x->coll == y->coll && x->algo == y->algo &&
                 x->dtype == y->dtype && x->redop == y->redop && x->mem_cat == y->mem_cat &&
                 x->mem_space == y->mem_space && x->step == y->step && x->nsteps == y->nsteps &&
                 x->chunk == y->chunk && x->src == y->src && x->dst == y->dst &&
                 same_str(x->name, y->name) && same_str(x->label, y->label);
        if (!ok) {
            fprintf(stderr, "event %zu differs: rank %d/%d kind %d/%d '%s'/'%s' at %.9g/%.9g\n",
                    i, x->rank, y->rank, x->kind, y->kind, x->name ? x->name : "-",
                    y->name ? y->name : "-", x->sim_start, y->sim_start);
            return 1;
        }
    }
    return 0;
}

static int load(const char *path, VizTrace *t) {
    char err[512] = "";
    if (viz_trace_load(path, t, err, sizeof err) != SIM_OK) {
        fprintf(stderr, "load %s: %s\n", path, err);
        return -1;
    }
    return 0;
}

// The split helper: rank r's events of a loaded trace, with its info, as a
// trace of the same rank count written to path (what process r writes).
static int write_rank(const VizTrace *src, int r, const char *path) {
    SimTrace *t = sim_trace_new(src->nranks, 0);
    SimEvent *mine = malloc((src->n ? src->n : 1) * sizeof *mine);
    size_t k = 0;
    for (size_t i = 0; mine && i < src->n; i++)
        if (src->ev[i].rank == r)
            mine[k++] = src->ev[i];
    int rc = t && mine ? 0 : -1;
    if (rc == 0) {
        sim_trace_set_info(t, &src->info);
        rc = sim_trace_absorb(t, mine, k) == SIM_OK &&
                     sim_trace_write_bin(t, path) == SIM_OK
                 ? 0
                 : -1;
    }
    free(mine);
    sim_trace_free(t);
    return rc;
}

// The u64 `dropped` of a .ddptrace file's header (byte 32, sim/trace/trace_bin.c).
static long long header_dropped(const char *path) {
    size_t len = 0;
    unsigned char *b = (unsigned char *)tfile_read(path, &len);
    long long v = -1;
    if (b && len >= 40) {
        v = 0;
        for (int i = 7; i >= 0; i--)
            v = v << 8 | b[32 + i];
    }
    free(b);
    return v;
}

// ----------------------------------------------------------------------------
// Tests

static int test_split_and_merge(void) {
    VizTrace full, merged;
    CHECK(load(whole, &full) == 0);
    CHECK_EQ_INT(full.nranks, NR);
    CHECK(full.n > 100);
    for (int r = 0; r < NR; r++) {
        CHECK(write_rank(&full, r, rank_file[r]) == 0);
        VizTrace one;
        CHECK(load(rank_file[r], &one) == 0);
        CHECK_EQ_INT(one.nranks, NR); // the world's rank count, one rank's events
        for (size_t i = 0; i < one.n; i++)
            CHECK_EQ_INT(one.ev[i].rank, r);
        CHECK(one.n > 10);
        viz_trace_free(&one);
    }
    // in rank order and in reverse: the same trace
    const char *in[NR] = {rank_file[0], rank_file[1], rank_file[2], rank_file[3]};
    const char *rev[NR] = {rank_file[3], rank_file[2], rank_file[1], rank_file[0]};
    const char *const *orders[2] = {in, rev};
    for (int o = 0; o < 2; o++) {
        const char *out = tcli_path(dir, o ? "merged-rev.ddptrace" : "merged.ddptrace");
        MergeTracesResult res;
        char err[1024] = "";
        CHECK_EQ_INT(merge_traces_files(out, orders[o], NR, &res, err, sizeof err), SIM_OK);
        CHECK_EQ_INT(res.events, full.n);
        CHECK_EQ_INT(res.nranks, NR);
        CHECK_EQ_INT(res.missing, 0);
        CHECK_EQ_INT(res.dropped, 0);
        CHECK(load(out, &merged) == 0);
        CHECK(same_trace(&full, &merged) == 0);
        viz_trace_free(&merged);
    }
    // JSON lines out (then back in) and Chrome trace JSON out
    const char *jl = tcli_path(dir, "merged.jsonl");
    char err[1024] = "";
    CHECK_EQ_INT(merge_traces_files(jl, in, NR, NULL, err, sizeof err), SIM_OK);
    CHECK(load(jl, &merged) == 0);
    CHECK_EQ_INT(merged.n, full.n);
    CHECK_EQ_INT(merged.nranks, NR);
    viz_trace_free(&merged);
    const char *chrome = tcli_path(dir, "merged.json");
    CHECK_EQ_INT(merge_traces_files(chrome, in, NR, NULL, err, sizeof err), SIM_OK);
    char *text = tfile_read(chrome, NULL);
    CHECK(text != NULL && strstr(text, "traceEvents") != NULL);
    free(text);
    viz_trace_free(&full);
    return 0;
}

static int test_refused(void) {
    char err[1024] = "";
    const char *out = tcli_path(dir, "bad.ddptrace");
    const char *twice[3] = {rank_file[0], rank_file[1], rank_file[1]};
    CHECK_EQ_INT(merge_traces_files(out, twice, 3, NULL, err, sizeof err), SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "rank 1's events are in both");
    const char *self[2] = {rank_file[0], out};
    CHECK_EQ_INT(merge_traces_files(out, self, 2, NULL, err, sizeof err), SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "both an input and the output");
    const char *absent[1] = {tcli_path(dir, "no-such.ddptrace")};
    CHECK(merge_traces_files(out, absent, 1, NULL, err, sizeof err) != SIM_OK);
    CHECK_STR_CONTAINS(err, "no-such.ddptrace");
    const char *chrome[1] = {tcli_path(dir, "merged.json")};
    CHECK(merge_traces_files(out, chrome, 1, NULL, err, sizeof err) != SIM_OK);
    CHECK_EQ_INT(merge_traces_files(out, NULL, 0, NULL, err, sizeof err), SIM_EINVAL);
    CHECK(!tfile_exists(out)); // nothing written by a refused merge

    // a trace of another run (another title)
    VizTrace t;
    CHECK(load(rank_file[2], &t) == 0);
    snprintf(t.info.title, sizeof t.info.title, "another run");
    SimTrace *s = sim_trace_new(NR, 0);
    CHECK(s != NULL);
    sim_trace_set_info(s, &t.info);
    CHECK_EQ_INT(sim_trace_absorb(s, t.ev, t.n), SIM_OK);
    const char *other = tcli_path(dir, "other.ddptrace");
    CHECK_EQ_INT(sim_trace_write_bin(s, other), SIM_OK);
    sim_trace_free(s);
    viz_trace_free(&t);
    const char *mixed[2] = {rank_file[0], other};
    CHECK_EQ_INT(merge_traces_files(out, mixed, 2, NULL, err, sizeof err), SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "different runs");

    // missing ranks are only noted
    MergeTracesResult res;
    const char *two[2] = {rank_file[3], rank_file[1]};
    CHECK_EQ_INT(merge_traces_files(out, two, 2, &res, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(res.nranks, NR);
    CHECK_EQ_INT(res.missing, 2);
    CHECK(strcmp(res.missing_list, "0, 2") == 0);
    // an event of a rank outside the trace is refused by absorb
    SimTrace *small = sim_trace_new(2, 0);
    SimEvent ev;
    memset(&ev, 0, sizeof ev);
    ev.rank = 2;
    CHECK_EQ_INT(sim_trace_absorb(small, &ev, 1), SIM_EINVAL);
    CHECK_EQ_INT(sim_trace_rank_count(small, 0) + sim_trace_rank_count(small, 1), 0);
    sim_trace_free(small);
    return 0;
}

// Ranks that dropped events beyond their limit: the merged header says so.
static int test_dropped(void) {
    const char *f[2] = {tcli_path(dir, "drop.rank0"), tcli_path(dir, "drop.rank1")};
    for (int r = 0; r < 2; r++) {
        SimTrace *t = sim_trace_new(2, 5); // 5 events per rank at most
        CHECK(t != NULL);
        for (int k = 0; k < (r ? 8 : 3); k++) {
            SimEvent ev;
            memset(&ev, 0, sizeof ev);
            ev.rank = r;
            ev.kind = SIM_EV_MARKER;
            ev.name = "mark";
            ev.sim_start = ev.sim_end = k;
            ev.step = ev.nsteps = ev.chunk = ev.src = ev.dst = -1;
            CHECK_EQ_INT(sim_trace_append(t, &ev), SIM_OK);
        }
        CHECK_EQ_INT(sim_trace_dropped(t), r ? 3 : 0);
        CHECK_EQ_INT(sim_trace_write_bin(t, f[r]), SIM_OK);
        sim_trace_free(t);
    }
    const char *out = tcli_path(dir, "drop.ddptrace");
    MergeTracesResult res;
    char err[512] = "";
    CHECK_EQ_INT(merge_traces_files(out, f, 2, &res, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(res.events, 8);
    CHECK_EQ_INT(res.dropped, 3);
    CHECK_EQ_INT(header_dropped(out), 3);
    SimTrace *t = sim_trace_new(2, 0);
    sim_trace_add_dropped(t, 1, 4);
    sim_trace_add_dropped(t, 7, 9); // no such rank: ignored
    CHECK_EQ_INT(sim_trace_dropped(t), 4);
    sim_trace_free(t);
    return 0;
}

static int symmetric_coll(const SimEvent *e) {
    return e->kind == SIM_EV_COLL &&
           (e->coll == SIM_COLL_ALL_REDUCE || e->coll == SIM_COLL_ALL_GATHER ||
            e->coll == SIM_COLL_REDUCE_SCATTER || e->coll == SIM_COLL_BARRIER);
}

// rank's symmetric collective number seq in t (any: the lowest number), or NULL.
static const SimEvent *coll_of(const VizTrace *t, int rank, int any, uint64_t seq) {
    const SimEvent *best = NULL;
    for (size_t i = 0; i < t->n; i++) {
        const SimEvent *e = &t->ev[i];
        if (e->rank == rank && symmetric_coll(e) &&
            (any ? best == NULL || e->seq < best->seq : e->seq == seq))
            best = e;
    }
    return best;
}

// Each process's wall clock starts when the process does. The ranks' files
// with rank r's wall times moved by 10 r + 3 seconds (processes started 10 s
// apart), merged with alignment: the end of the first all-reduce falls at one
// instant on every rank, each rank's shift is one constant that undoes the
// 10 s steps (to within how far apart the ranks really left that
// all-reduce), no wall time is negative, and the simulated times are
// untouched.
static int test_align(void) {
    VizTrace full, w0, m;
    CHECK(load(whole, &full) == 0 && load(whole, &w0) == 0);
    const char *sh[NR];
    for (size_t i = 0; i < full.n; i++) {
        full.ev[i].wall_start += 10.0 * full.ev[i].rank + 3;
        full.ev[i].wall_end += 10.0 * full.ev[i].rank + 3;
    }
    static char names[NR][600];
    for (int r = 0; r < NR; r++) {
        snprintf(names[r], sizeof names[r], "%s/shifted.rank%d", dir, r);
        sh[r] = names[r];
        CHECK(write_rank(&full, r, sh[r]) == 0);
    }
    viz_trace_free(&full);
    const char *out = tcli_path(dir, "aligned.ddptrace");
    MergeTracesResult res;
    char err[512] = "";
    CHECK_EQ_INT(merge_traces_files_ex(out, sh, NR, 1, &res, err, sizeof err), SIM_OK);
    const SimEvent *a0 = coll_of(&w0, 0, 1, 0);
    CHECK(a0 != NULL);
    CHECK_EQ_INT(res.aligned, 1);
    CHECK_EQ_INT(res.align_seq, a0->seq);
    CHECK(res.align_max_s > 29 && res.align_max_s < 31); // rank 0 moved by ~30 s
    CHECK(load(out, &m) == 0);
    CHECK_EQ_INT(m.n, w0.n);
    double shift[NR], end0 = coll_of(&m, 0, 0, a0->seq)->wall_end;
    int have[NR] = {0}, bad = 0;
    for (size_t i = 0; i < m.n; i++) {
        const SimEvent *x = &m.ev[i], *y = &w0.ev[i];
        bad |= x->rank != y->rank || x->sim_start != y->sim_start || x->sim_end != y->sim_end;
        bad |= x->wall_start < 0;
        double d = x->wall_start - y->wall_start;
        if (!have[x->rank])
            shift[x->rank] = d, have[x->rank] = 1;
        bad |= fabs(d - shift[x->rank]) > 1e-6 ||
               fabs((x->wall_end - y->wall_end) - shift[x->rank]) > 1e-6;
    }
    CHECK(!bad);
    for (int r = 0; r < NR; r++) {
        CHECK(have[r]);
        CHECK_NEAR(coll_of(&m, r, 0, a0->seq)->wall_end, end0, 1e-6);
        CHECK(fabs(shift[r] - shift[0]) < 0.1); // the 10 s steps undone
    }
    viz_trace_free(&m);
    viz_trace_free(&w0);
    // inputs with no collective to align on: left alone, and said why
    const char *marks[2] = {tcli_path(dir, "drop.rank0"), tcli_path(dir, "drop.rank1")};
    CHECK_EQ_INT(merge_traces_files_ex(tcli_path(dir, "marks.ddptrace"), marks, 2, 1, &res, err,
                                       sizeof err), SIM_OK);
    CHECK_EQ_INT(res.aligned, 0);
    CHECK_STR_CONTAINS(res.align_note, "has no all_reduce, all_gather, reduce_scatter or barrier");
    return 0;
}

// `ddplab merge-traces` as a user runs it.
static int test_command(void) {
    const char *out = tcli_path(dir, "cli.ddptrace");
    TcliResult r;
    TCLI_RUN(r, exe, 60, "merge-traces", out, rank_file[0], rank_file[1], rank_file[2],
             rank_file[3]);
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "events of 4 ranks from 4 files");
    CHECK_STR_CONTAINS(r.out, "wall clocks: aligned on the end of collective #");
    tcli_result_free(&r);
    // --no-align: each file's wall times as recorded, so the whole trace again
    TCLI_RUN(r, exe, 60, "merge-traces", "--no-align", out, rank_file[0], rank_file[1],
             rank_file[2], rank_file[3]);
    CHECK_EQ_INT(r.rc, 0);
    CHECK(strstr(r.out, "wall clocks") == NULL);
    tcli_result_free(&r);
    VizTrace a, b;
    CHECK(load(whole, &a) == 0 && load(out, &b) == 0);
    CHECK(same_trace(&a, &b) == 0);
    viz_trace_free(&a);
    viz_trace_free(&b);

    TCLI_RUN(r, exe, 60, "merge-traces", out, rank_file[2]);
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.err, "note: 3 ranks (0, 1, 3) had no events");
    tcli_result_free(&r);

    TCLI_RUN(r, exe, 60, "merge-traces", out, rank_file[0], rank_file[0]);
    CHECK_EQ_INT(r.rc, 2); // a file given twice holds its ranks twice
    CHECK_STR_CONTAINS(r.err, "rank 0's events are in both");
    tcli_result_free(&r);

    static const struct {
        const char *args[4];
        const char *says;
    } bad[] = {
        {{NULL}, "no output and no input"},
        {{"x.ddptrace", NULL}, "no input trace"},
        {{"--frob", NULL}, "'--frob' is not an option"},
        {{"out.ddptrace", "no-such.ddptrace", NULL}, "no-such.ddptrace"},
        {{"/no/such/dir/out.ddptrace", "in", NULL}, "OUT"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *args[6] = {"merge-traces"};
        int n = 1;
        for (int k = 0; bad[i].args[k]; k++)
            args[n++] = bad[i].args[k];
        args[n] = NULL;
        tcli_run(&r, exe, args, 60);
        CHECK_EQ_INT(r.rc, 2);
        CHECK_EQ_INT(tcli_lines(r.err), 1);
        CHECK_STR_CONTAINS(r.err, "ddplab merge-traces: ");
        CHECK_STR_CONTAINS(r.err, bad[i].says);
        tcli_result_free(&r);
    }
    TCLI_RUN(r, exe, 60, "merge-traces", "--help");
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "usage: ddplab merge-traces OUT IN...");
    tcli_result_free(&r);
    TCLI_RUN(r, exe, 60, "--help");
    CHECK_STR_CONTAINS(r.out, "merge-traces");
    tcli_result_free(&r);
    return 0;
}

int main(int argc, char **argv) {
    exe = tcli_exe_arg(argc, argv);
    if (exe == NULL)
        return 2;
    static char tmp[256];
    if (tfile_mkdtemp(tmp, sizeof tmp, "merge") != 0)
        return 1;
    dir = tmp;
    snprintf(whole, sizeof whole, "%s/whole.ddptrace", dir);
    for (int r = 0; r < NR; r++)
        snprintf(rank_file[r], sizeof rank_file[r], "%s.rank%d", whole, r);
    TcliResult r;
    TCLI_RUN(r, exe, 120, "run", "--strategy", "ddp", "-n", "4", "--steps", "3", "--batch", "8",
             "--trace", whole);
    int failures = r.rc != 0;
    if (failures)
        fprintf(stderr, "ddplab run failed (%d): %s\n", r.rc, r.err);
    tcli_result_free(&r);
    if (!failures) {
        RUN(test_split_and_merge);
        RUN(test_refused);
        RUN(test_dropped);
        RUN(test_command);
        RUN(test_align);
    }
    tfile_rmtree(dir);
    return failures ? 1 : 0;
}
