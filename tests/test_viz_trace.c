// tests/test_viz_trace.c: trace files for replay. An engine trace (CPU ranks
// running collectives, memory charges and markers, plus events with every
// awkward value: a NaN loss, FLOP counts above 2^53, escaped and non-ASCII
// names, -1 "none" enums) written as .ddptrace and as JSON lines loads back
// equal to the merged trace in every field, with its info; the binary
// header holds the documented values; viz_trace_from_sim copies into its own
// pool; viz_trace_add keeps time order; a trace without a pool is valid.
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "engine/comm.h"
#include "engine/memory.h"
#include "test_files.h"
#include "test_vtrace_util.h"
#include "test_world.h"
#include "vtrace.h"

#define R 3
#define COUNT 600

static char tmpdir[256];

static const char *tmp_path(const char *name) {
    static char buf[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", tmpdir, name);
    return buf[k];
}

static const char tricky[] = "say \"hi\"\\ \n\t\x01 caf\xc3\xa9 end";

// Each rank: a ring and a direct all_reduce, an all_gather, a charge and
// release of memory, markers (the training loop's "iteration"/"end" with a
// loss, one NaN), a bucket "plan" event with an interned parameter name, a
// compute event with a FLOP count beyond 2^53 and a -1 coll.
static SimStatus engine_rank(SimRank *r, void *arg) {
    (void)arg;
    float a[COUNT], g[COUNT * R];
    for (int i = 0; i < COUNT; i++)
        a[i] = (float)(r->rank + i);
    SimStatus st = sim_all_reduce(r, a, a, COUNT, SIM_FP32, SIM_SUM, SIM_ALGO_RING);
    if (st == SIM_OK)
        st = sim_all_gather(r, a, g, COUNT, SIM_FP32, SIM_ALGO_AUTO);
    if (st == SIM_OK)
        st = sim_mem_charge(r, SIM_MEM_DEVICE, SIM_MEM_GRAD, 4096, "test grads");
    if (st == SIM_OK)
        st = sim_all_reduce(r, a, a, COUNT, SIM_FP32, SIM_AVG, SIM_ALGO_DIRECT);
    if (st == SIM_OK)
        st = sim_mem_charge(r, SIM_MEM_DEVICE, SIM_MEM_GRAD, -4096, "test grads");
    if (st != SIM_OK)
        return st;
    SimEvent ev;
    double now = sim_rank_now(r);
    sim_rank_event(&ev, r, SIM_EV_MARKER, SIM_STREAM_COMPUTE, "iteration", "end", now);
    ev.step = 0;
    ev.value = r->rank == 1 ? NAN : 1.25 + r->rank;
    sim_rank_trace(r, &ev);
    char pname[64];
    snprintf(pname, sizeof pname, "layers.%d.weight", r->rank);
    sim_rank_event(&ev, r, SIM_EV_BUCKET, SIM_STREAM_COMM,
                   sim_trace_intern(r->world->trace, pname), "plan", now);
    ev.step = 0;
    ev.chunk = r->rank;
    ev.count = 1000 + (uint64_t)r->rank;
    sim_rank_trace(r, &ev);
    sim_rank_event(&ev, r, SIM_EV_COMPUTE, SIM_STREAM_COMPUTE, "gemm", NULL, now);
    ev.sim_end = now + 0.5;
    ev.count = (UINT64_C(1) << 60) + 12345 + (uint64_t)r->rank; // above 2^53
    ev.bytes = UINT64_MAX - (uint64_t)r->rank;
    ev.seq = 9007199254740993ULL;
    ev.coll = ev.algo = ev.redop = -1;
    ev.dtype = SIM_BF16;
    sim_rank_trace(r, &ev);
    sim_rank_event(&ev, r, SIM_EV_FAULT, SIM_STREAM_HOST, sim_trace_intern(r->world->trace, tricky),
                   NULL, now + 1e-9);
    sim_rank_trace(r, &ev);
    return SIM_OK;
}

// Runs the engine on R ranks into w (trace kept), with its info set.
static int engine_trace(SimWorld *w) {
    CHECK_EQ_INT(tworld_init_cpu(w, R, 1, 30), SIM_OK);
    SimStatus st = sim_world_run(w, engine_rank, NULL);
    if (st != SIM_OK)
        fprintf(stderr, "%s\n", sim_world_error(w));
    CHECK_EQ_INT(st, SIM_OK);
    SimTraceInfo info = {.device_capacity = 80ULL << 30, .nodes = 1};
    snprintf(info.title, sizeof info.title, "test  all_reduce  R=%d  caf\xc3\xa9", R);
    snprintf(info.strategy, sizeof info.strategy, "bench");
    snprintf(info.profile, sizeof info.profile, "dgx-h100");
    sim_trace_set_info(w->trace, &info);
    return 0;
}

// Loads path and checks it against the merged engine trace of w.
static int check_loaded(const SimWorld *w, const char *path, int is_bin) {
    VizTrace v;
    char err[512];
    SimStatus st = viz_trace_load(path, &v, err, sizeof err);
    if (st != SIM_OK)
        fprintf(stderr, "%s\n", err);
    CHECK_EQ_INT(st, SIM_OK);
    size_t n;
    SimEvent *m = sim_trace_merge(w->trace, &n);
    CHECK(m != NULL);
    CHECK(n > 50);
    CHECK_EQ_INT(v.n, n);
    int same = tvt_same_events(v.ev, m, n, 0);
    free(m);
    CHECK(same);
    CHECK_EQ_INT(v.nranks, R);
    CHECK(strcmp(v.source, path) == 0);
    if (is_bin) {
        CHECK(tvt_same_info(&v.info, sim_trace_info(w->trace)));
    } else { // JSON lines carry no info
        CHECK_EQ_INT(v.info.nodes, 1);
        CHECK_EQ_INT(v.info.title[0], 0);
    }
    // Names are the trace's own, interned: equal content, one pointer.
    const char *gemm = NULL;
    int kinds = 0;
    for (size_t i = 0; i < v.n; i++) {
        if (v.ev[i].name != NULL && strcmp(v.ev[i].name, "gemm") == 0) {
            CHECK(gemm == NULL || gemm == v.ev[i].name);
            gemm = v.ev[i].name;
        }
        kinds |= 1 << v.ev[i].kind;
    }
    CHECK(gemm != NULL);
    int want = 1 << SIM_EV_COLL | 1 << SIM_EV_COLL_STEP | 1 << SIM_EV_XFER | 1 << SIM_EV_MEMORY |
               1 << SIM_EV_MARKER | 1 << SIM_EV_BUCKET | 1 << SIM_EV_COMPUTE | 1 << SIM_EV_FAULT;
    CHECK_EQ_INT(kinds & want, want);
    viz_trace_free(&v);
    CHECK(v.ev == NULL && v.pool == NULL && v.n == 0);
    viz_trace_free(&v); // twice is harmless
    return 0;
}

static uint64_t le_at(const unsigned char *p, int bytes) {
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static int test_bin_round_trip(void) {
    SimWorld w;
    CHECK(engine_trace(&w) == 0);
    const char *path = tmp_path("engine.ddptrace");
    CHECK_EQ_INT(sim_trace_write_auto(w.trace, path), SIM_OK);
    // The documented header.
    size_t len;
    unsigned char *b = (unsigned char *)tfile_read(path, &len);
    CHECK(b != NULL && len > 312 + 16);
    size_t total = 0;
    for (int r = 0; r < R; r++)
        total += sim_trace_rank_count(w.trace, r);
    int ok = memcmp(b, "DDPTRACE", 8) == 0 && le_at(b + 8, 4) == 1 && le_at(b + 12, 4) == 312 &&
             le_at(b + 16, 4) == 112 && le_at(b + 20, 4) == R && le_at(b + 24, 8) == total &&
             le_at(b + 32, 8) == 0 && memcmp(b + len - 16, "DDPT-END", 8) == 0 &&
             le_at(b + len - 8, 8) == total &&
             len == 312 + le_at(b + 48, 8) + 112 * total + 16 &&
             strcmp((const char *)b + 232, "dgx-h100") == 0;
    free(b);
    CHECK(ok);
    int rc = check_loaded(&w, path, 1);
    sim_world_free(&w);
    return rc;
}

static int test_jsonl_round_trip(void) {
    SimWorld w;
    CHECK(engine_trace(&w) == 0);
    const char *path = tmp_path("engine.jsonl");
    CHECK_EQ_INT(sim_trace_write_auto(w.trace, path), SIM_OK);
    int rc = check_loaded(&w, path, 0);
    sim_world_free(&w);
    return rc;
}

// JSON lines in any order load sorted; unknown keys are ignored.
static int test_jsonl_unsorted(void) {
    const char *path = tmp_path("unsorted.jsonl");
    const char text[] =
        "{\"rank\":1,\"stream\":\"comm\",\"kind\":\"coll\",\"sim_start\":2,\"sim_end\":3,"
        "\"future_field\":[1,{\"a\":\"}\"}],\"name\":\"b\"}\n"
        "\n"
        "{\"rank\":0,\"stream\":\"compute\",\"kind\":\"compute\",\"sim_start\":2,\"sim_end\":3,"
        "\"name\":\"a\"}\r\n"
        "  {\"rank\":4,\"stream\":\"host\",\"kind\":\"marker\",\"sim_start\":0.5,\"sim_end\":1,"
        "\"value\":null,\"count\":18446744073709551615}";
    CHECK(tfile_write(path, text, sizeof text - 1) == 0);
    VizTrace v;
    char err[512];
    SimStatus st = viz_trace_load(path, &v, err, sizeof err);
    if (st != SIM_OK)
        fprintf(stderr, "%s\n", err);
    CHECK_EQ_INT(st, SIM_OK);
    CHECK_EQ_INT(v.n, 3);
    CHECK_EQ_INT(v.nranks, 5);
    CHECK_EQ_INT(v.ev[0].rank, 4);
    CHECK(isnan(v.ev[0].value));
    CHECK(v.ev[0].count == UINT64_MAX);
    CHECK_EQ_INT(v.ev[1].rank, 0);
    CHECK_EQ_INT(v.ev[2].rank, 1);
    CHECK(strcmp(v.ev[2].name, "b") == 0);
    CHECK_EQ_INT(v.ev[1].step, -1); // absent: "not a step"
    CHECK(v.ev[1].label == NULL);
    viz_trace_free(&v);
    return 0;
}

static int test_from_sim(void) {
    SimWorld w;
    CHECK(engine_trace(&w) == 0);
    VizTrace v;
    CHECK_EQ_INT(viz_trace_from_sim(w.trace, &v, "run"), SIM_OK);
    size_t n;
    SimEvent *m = sim_trace_merge(w.trace, &n);
    CHECK(m != NULL);
    CHECK_EQ_INT(v.n, n);
    int same = tvt_same_events(v.ev, m, n, 0);
    // The copy's strings are its own, one per content.
    int own = 1;
    for (size_t i = 0; i < n; i++) {
        own &= v.ev[i].name == NULL || v.ev[i].name != m[i].name;
        own &= v.ev[i].name == NULL || v.ev[i].name == viz_trace_intern(&v, m[i].name);
        own &= v.ev[i].label == NULL || v.ev[i].label != m[i].label;
    }
    free(m);
    CHECK(same);
    CHECK(own);
    CHECK_EQ_INT(v.nranks, R);
    CHECK(strcmp(v.source, "run") == 0);
    CHECK(tvt_same_info(&v.info, sim_trace_info(w.trace)));
    sim_world_free(&w); // the copy outlives its source
    for (size_t i = 0; i < v.n; i++)
        CHECK(v.ev[i].name == NULL || strlen(v.ev[i].name) < 256);
    viz_trace_free(&v);
    // An empty engine trace copies, and round-trips, as an empty trace.
    SimTrace *t = sim_trace_new(2, 0);
    CHECK(t != NULL);
    CHECK_EQ_INT(viz_trace_from_sim(t, &v, "empty"), SIM_OK);
    CHECK_EQ_INT(v.n, 0);
    CHECK_EQ_INT(v.nranks, 2);
    CHECK_EQ_INT(v.info.nodes, 1);
    viz_trace_free(&v);
    const char *path = tmp_path("empty.ddptrace");
    CHECK_EQ_INT(sim_trace_write_bin(t, path), SIM_OK);
    sim_trace_free(t);
    char err[512];
    CHECK_EQ_INT(viz_trace_load(path, &v, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(v.n, 0);
    CHECK_EQ_INT(v.nranks, 2);
    viz_trace_free(&v);
    return 0;
}

static SimEvent ev_at(int rank, double t, const char *name) {
    SimEvent e;
    memset(&e, 0, sizeof e);
    e.rank = rank;
    e.sim_start = t;
    e.sim_end = t + 1;
    e.kind = SIM_EV_COMPUTE;
    e.step = e.nsteps = e.chunk = e.src = e.dst = -1;
    e.name = name;
    return e;
}

// Events arriving out of order land in (sim_start, rank, arrival) order.
static int test_add_order(void) {
    VizTrace v;
    SimTraceInfo info = {.nodes = 0};
    snprintf(info.title, sizeof info.title, "live");
    CHECK_EQ_INT(viz_trace_init(&v, 2, &info, "live"), SIM_OK);
    CHECK_EQ_INT(v.info.nodes, 1);
    static const struct { int rank; double t; const char *name; size_t at; } adds[] = {
        {0, 1.0, "a", 0}, {1, 2.0, "b", 1}, {0, 3.0, "c", 2}, {1, 1.5, "d", 1},
        {0, 1.5, "e", 1}, {1, 1.5, "f", 3}, {0, 0.0, "g", 0}, {3, 9.0, "h", 7},
        {0, 1.5, "i", 3}, {2, NAN, "j", 9},  {0, 9.0, "k", 8},
    };
    char name[8];
    for (size_t k = 0; k < sizeof adds / sizeof adds[0]; k++) {
        snprintf(name, sizeof name, "%s", adds[k].name); // a buffer the trace must copy
        SimEvent e = ev_at(adds[k].rank, adds[k].t, name);
        size_t at = 99;
        CHECK_EQ_INT(viz_trace_add(&v, &e, &at), SIM_OK);
        if (at != adds[k].at)
            fprintf(stderr, "add %zu (%s) landed at %zu\n", k, adds[k].name, at);
        CHECK_EQ_INT(at, adds[k].at);
        memset(name, 'x', sizeof name - 1);
    }
    const char *want[] = {"g", "a", "e", "i", "d", "f", "b", "c", "k", "h", "j"};
    CHECK_EQ_INT(v.n, 11);
    for (size_t i = 0; i < v.n; i++)
        CHECK(strcmp(v.ev[i].name, want[i]) == 0);
    CHECK_EQ_INT(v.nranks, 4);
    CHECK(viz_trace_add(&v, NULL, NULL) == SIM_EINVAL);
    // Many in order: each lands at the end, before the NaN start (last).
    for (int k = 0; k < 5000; k++) {
        SimEvent e = ev_at(k % 3, 100.0 + k, k % 2 ? "odd" : "even");
        size_t at;
        CHECK_EQ_INT(viz_trace_add(&v, &e, &at), SIM_OK);
        CHECK_EQ_INT(at, v.n - 2);
    }
    CHECK(isnan(v.ev[v.n - 1].sim_start));
    CHECK(strcmp(v.ev[v.n - 2].name, "odd") == 0);
    viz_trace_free(&v);
    return 0;
}

// A trace built by hand with static strings and no pool reads and frees;
// adding to it makes a pool for the new names only.
static int test_no_pool(void) {
    static const char static_a[] = "static-a";
    SimEvent *ev = malloc(2 * sizeof *ev);
    CHECK(ev != NULL);
    ev[0] = ev_at(0, 0.0, static_a);
    ev[1] = ev_at(1, 1.0, "static-b");
    VizTrace v = {.ev = ev, .n = 2, .cap = 2, .nranks = 2, .info = {.nodes = 1}};
    CHECK(v.pool == NULL);
    CHECK(strcmp(v.ev[1].name, "static-b") == 0);
    SimEvent e = ev_at(0, 0.5, "added");
    size_t at;
    CHECK_EQ_INT(viz_trace_add(&v, &e, &at), SIM_OK);
    CHECK_EQ_INT(at, 1);
    CHECK(v.pool != NULL);
    CHECK(v.ev[0].name == static_a); // untouched
    CHECK(v.ev[1].name != e.name && strcmp(v.ev[1].name, "added") == 0);
    CHECK(viz_trace_intern(&v, NULL) == NULL);
    CHECK(viz_trace_intern(&v, "added") == v.ev[1].name);
    viz_trace_free(&v);
    VizTrace empty = {0};
    viz_trace_free(&empty);
    return 0;
}

int main(void) {
    if (tfile_mkdtemp(tmpdir, sizeof tmpdir, "viz-trace") != 0) {
        fprintf(stderr, "cannot make a scratch directory\n");
        return 1;
    }
    int failures = 0;
    RUN(test_bin_round_trip);
    RUN(test_jsonl_round_trip);
    RUN(test_jsonl_unsorted);
    RUN(test_from_sim);
    RUN(test_add_order);
    RUN(test_no_pool);
    tfile_rmtree(tmpdir);
    return failures != 0;
}
