// tests/test_viz_trace_errors.c: bad trace files get a clear error that
// names the file and the place (byte offset or line), never a crash or a
// read out of bounds (run it under ASan): missing, empty and foreign files,
// Chrome trace JSON, a .ddptrace cut at every byte offset, corrupted fields
// at known offsets, unknown versions, random damage, bad JSON lines.
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "test_files.h"
#include "test_vtrace_util.h"
#include "vtrace.h"

#define NEV 5           // events in the small trace
#define HDR 312         // the binary header's size
#define REC 112         // one event record

static char tmpdir[256];
static char err[1024];

static const char *tmp_path(const char *name) {
    static char buf[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", tmpdir, name);
    return buf[k];
}

// A small trace: 2 ranks, NEV events, names "AllReduce", "matmul", "alloc".
static SimTrace *small_trace(void) {
    SimTrace *t = sim_trace_new(2, 0);
    if (t == NULL)
        return NULL;
    static const struct { int rank, kind; double t; const char *name, *label; } evs[NEV] = {
        {0, SIM_EV_COLL, 0.0, "AllReduce", "ring"}, {1, SIM_EV_COMPUTE, 0.5, "matmul", NULL},
        {0, SIM_EV_MEMORY, 1.0, "alloc", "alloc"},  {1, SIM_EV_MARKER, 1.0, "matmul", "x"},
        {1, SIM_EV_COMPUTE, 2.0, "matmul", NULL},
    };
    for (int i = 0; i < NEV; i++) {
        SimEvent e;
        memset(&e, 0, sizeof e);
        e.rank = evs[i].rank;
        e.kind = (int16_t)evs[i].kind;
        e.sim_start = evs[i].t;
        e.sim_end = evs[i].t + 0.25;
        e.name = evs[i].name;
        e.label = evs[i].label;
        e.step = e.nsteps = e.chunk = e.src = e.dst = -1;
        e.mem_cat = evs[i].kind == SIM_EV_MEMORY ? 4 : 0;
        e.value = 0.5 * i;
        if (sim_trace_append(t, &e) != SIM_OK) {
            sim_trace_free(t);
            return NULL;
        }
    }
    return t;
}

// The small trace as .ddptrace bytes (heap; *len) and where its records start.
static unsigned char *small_bin(size_t *len, size_t *rec0) {
    SimTrace *t = small_trace();
    const char *path = tmp_path("small.ddptrace");
    if (t == NULL || sim_trace_write_bin(t, path) != SIM_OK) {
        sim_trace_free(t);
        return NULL;
    }
    sim_trace_free(t);
    unsigned char *b = (unsigned char *)tfile_read(path, len);
    if (b != NULL) {
        uint64_t strbytes = 0;
        for (int i = 7; i >= 0; i--)
            strbytes = strbytes << 8 | b[48 + i];
        *rec0 = HDR + (size_t)strbytes;
    }
    return b;
}

// Loads data (len bytes) from a file named name; returns the status, the
// message in err. A failed load leaves an empty trace.
static SimStatus load_bytes(const char *name, const void *data, size_t len, VizTrace *v) {
    const char *path = tmp_path(name);
    if (tfile_write(path, data, len) != 0)
        return SIM_EIO;
    SimStatus st = viz_trace_load(path, v, err, sizeof err);
    if (st != SIM_OK && (v->ev != NULL || v->n != 0 || v->pool != NULL))
        return SIM_ENOTSUP; // not left empty
    return st;
}

// Expects loading data to fail with SIM_EINVAL and a message holding the
// file's name and each of the needles.
static int expect_fail(const char *name, const void *data, size_t len, const char *n1,
                       const char *n2) {
    VizTrace v;
    SimStatus st = load_bytes(name, data, len, &v);
    if (st != SIM_EINVAL)
        fprintf(stderr, "%s: status %d, message \"%s\"\n", name, (int)st, err);
    CHECK_EQ_INT(st, SIM_EINVAL);
    CHECK_STR_CONTAINS(err, tmp_path(name));
    if (n1 != NULL)
        CHECK_STR_CONTAINS(err, n1);
    if (n2 != NULL)
        CHECK_STR_CONTAINS(err, n2);
    viz_trace_free(&v);
    return 0;
}

static void put_le(unsigned char *p, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t lcg(uint64_t *s) {
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

// ----------------------------------------------------------------------------

static int test_not_traces(void) {
    VizTrace v;
    CHECK_EQ_INT(viz_trace_load(tmp_path("missing.ddptrace"), &v, err, sizeof err), SIM_EIO);
    CHECK_STR_CONTAINS(err, "missing.ddptrace: cannot open");
    CHECK_EQ_INT(viz_trace_load(tmpdir, &v, err, sizeof err), SIM_EIO);
    CHECK_STR_CONTAINS(err, "directory");
    CHECK(expect_fail("empty.ddptrace", "", 0, "byte 0", "empty file") == 0);
    CHECK(expect_fail("blank.jsonl", " \n\n\t", 4, "not a ddplab trace", NULL) == 0);
    static const unsigned char png[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0,
                                        13,   'I', 'H', 'D', 'R', 0,    0,    0,    1};
    CHECK(expect_fail("plot.png", png, sizeof png, "byte 0", "not a ddplab trace") == 0);
    unsigned char rnd[4096];
    uint64_t seed = 42;
    for (int k = 0; k < 20; k++) {
        for (size_t i = 0; i < sizeof rnd; i++)
            rnd[i] = (unsigned char)lcg(&seed);
        if (k >= 10) // the magic, then garbage
            memcpy(rnd, "DDPTRACE", 8);
        CHECK(expect_fail("random.bin", rnd, sizeof rnd, NULL, NULL) == 0);
    }
    // Chrome trace JSON, as ddplab exports it, is refused with the hint.
    SimTrace *t = small_trace();
    CHECK(t != NULL);
    const char *chrome = tmp_path("run.json");
    CHECK_EQ_INT(sim_trace_write_auto(t, chrome), SIM_OK);
    sim_trace_free(t);
    CHECK_EQ_INT(viz_trace_load(chrome, &v, err, sizeof err), SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "run.json: byte 0: a Chrome trace JSON");
    CHECK_STR_CONTAINS(err, "--trace FILE.ddptrace");
    CHECK(v.ev == NULL && v.pool == NULL);
    CHECK(expect_fail("array.json", "[{\"ph\":\"X\"}]", 12, "Chrome", NULL) == 0);
    CHECK(expect_fail("chrome2.json", "\n  { \"traceEvents\" : []}", 24, "Chrome", NULL) == 0);
    // A message buffer too small, or none, is not overrun.
    char tiny[8];
    memset(tiny, 'z', sizeof tiny);
    CHECK_EQ_INT(viz_trace_load(chrome, &v, tiny, 5), SIM_EINVAL);
    CHECK_EQ_INT(tiny[4], '\0');
    CHECK_EQ_INT(tiny[5], 'z');
    CHECK_EQ_INT(viz_trace_load(chrome, &v, NULL, 0), SIM_EINVAL);
    CHECK_EQ_INT(viz_trace_load(NULL, &v, err, sizeof err), SIM_EINVAL);
    return 0;
}

// Cut at every byte offset: a clean failure that says where the file ends.
static int test_truncated(void) {
    size_t len, rec0;
    unsigned char *b = small_bin(&len, &rec0);
    CHECK(b != NULL);
    CHECK_EQ_INT(len, rec0 + NEV * REC + 16);
    VizTrace v;
    CHECK_EQ_INT(load_bytes("whole.ddptrace", b, len, &v), SIM_OK);
    CHECK_EQ_INT(v.n, NEV);
    viz_trace_free(&v);
    char where[64], what[64];
    for (size_t k = 0; k < len; k++) {
        snprintf(where, sizeof where, "byte %zu:", k);
        const char *want = "truncated";
        if (k == 0)
            want = "empty file";
        if (k >= rec0 && k < rec0 + NEV * REC) {
            snprintf(what, sizeof what, "truncated: %zu of %d events", (k - rec0) / REC, NEV);
            want = what;
        }
        if (expect_fail("cut.ddptrace", b, k, where, want) != 0) {
            fprintf(stderr, "cut at %zu of %zu: %s\n", k, len, err);
            free(b);
            return 1;
        }
    }
    // Anything after the end marker is refused too.
    unsigned char *more = malloc(len + 3);
    CHECK(more != NULL);
    memcpy(more, b, len);
    memcpy(more + len, "abc", 3);
    snprintf(where, sizeof where, "byte %zu:", len);
    int rc = expect_fail("longer.ddptrace", more, len + 3, where, "after the end marker");
    free(more);
    free(b);
    return rc;
}

// One corrupted field: the message names the offset and the problem.
typedef struct {
    const char *what;
    size_t off;      // from the start of the file, or of event `ev` when ev >= 0
    int ev;
    int bytes;
    uint64_t value;
    const char *needle;
} Patch;

static int test_corrupted(void) {
    size_t len, rec0;
    unsigned char *b = small_bin(&len, &rec0);
    CHECK(b != NULL);
    unsigned char *c = malloc(len);
    CHECK(c != NULL);
    uint64_t nan_bits = 0x7ff8000000000000ULL, inf_bits = 0x7ff0000000000000ULL;
    const Patch patches[] = {
        {"magic", 0, -1, 1, 'X', "not a ddplab trace"},
        {"version", 8, -1, 4, 2, "unknown format version 2 (this ddplab reads version 1)"},
        {"version", 8, -1, 4, 0, "unknown format version 0"},
        {"header size", 12, -1, 4, 400, "bad header size 400"},
        {"record size", 16, -1, 4, 120, "bad event record size 120"},
        {"nranks", 20, -1, 4, 0, "bad rank count 0"},
        {"nranks", 20, -1, 4, 1, "event 1: bad rank 1 (the trace has 1 ranks)"},
        {"nevents", 24, -1, 8, NEV + 1, "truncated: 5 of 6 events"}, // the trailer read as one
        {"nevents", 24, -1, 8, NEV - 1, "no end marker"},
        {"nevents", 24, -1, 8, UINT64_MAX / 2, "truncated"},
        {"nstrings", 40, -1, 8, UINT64_MAX, "bad string count"},
        {"nstrings", 40, -1, 8, 1, "the string table ends here"},
        {"strbytes", 48, -1, 8, UINT64_MAX / 4, "bad string count 5 for a table of"},
        {"strbytes", 48, -1, 8, 1 << 20, "truncated: the file ends inside the string table"},
        {"title", 56 + 159, -1, 1, 'x', "title is not NUL-terminated"},
        {"capacity", 296, -1, 8, UINT64_MAX, "byte 296: bad device capacity 18446744073709551615"},
        {"nodes", 304, -1, 4, 0, "byte 304: bad node count 0"},
        {"string length", HDR, -1, 4, 0xFFFFFFF0u, "runs past the string table"},
        {"string NUL", HDR + 5, -1, 1, 0, "holds a NUL byte"},
        {"kind", 78, 2, 2, 97, "event 2: bad kind 97"},
        {"kind", 78, 0, 2, 0xFFFF, "event 0: bad kind -1"},
        {"stream", 76, 3, 2, 5, "event 3: bad stream 5"},
        {"rank", 72, 4, 4, 7, "event 4: bad rank 7 (the trace has 2 ranks)"},
        {"rank", 72, 1, 4, 0xFFFFFFFFu, "event 1: bad rank -1"},
        {"name", 64, 2, 4, 99, "event 2: name string index 99 out of range"},
        {"label", 68, 0, 4, 6, "event 0: label string index 6 out of range (the table has 5"},
        {"coll", 80, 1, 2, 10, "event 1: bad coll 10"},
        {"algo", 82, 1, 2, 0xFFFE, "event 1: bad algo -2"},
        {"mem_cat", 88, 2, 2, 0xFFFF, "event 2: bad mem_cat -1"}, // a memory event needs one
        {"mem_space", 90, 2, 2, 2, "event 2: bad mem_space 2"},
        {"sim_start", 0, 3, 8, nan_bits, "event 3: sim_start is not a finite time"},
        {"wall_end", 24, 0, 8, inf_bits, "event 0: wall_end is not a finite time"},
        {"order", 0, 4, 8, 0, "event 4 (0 s, rank 1) comes before"},
        {"trailer", 0, NEV, 1, 'x', "no end marker after the 5 events"},
        {"trailer count", 8, NEV, 8, 4, "the end marker counts 4 events, the header 5"},
    };
    char where[64];
    for (size_t k = 0; k < sizeof patches / sizeof patches[0]; k++) {
        const Patch *p = &patches[k];
        size_t off = p->ev >= 0 ? rec0 + (size_t)p->ev * REC + p->off : p->off;
        memcpy(c, b, len);
        put_le(c + off, p->value, p->bytes);
        VizTrace v;
        SimStatus st = load_bytes("bad.ddptrace", c, len, &v);
        if (st != SIM_EINVAL || strstr(err, p->needle) == NULL) {
            fprintf(stderr, "patch %zu (%s): status %d, message \"%s\"\n", k, p->what, (int)st,
                    err);
            free(b);
            free(c);
            return 1;
        }
        // The fields of an event are named at their own offset.
        if (p->ev >= 0 && p->ev < NEV && strcmp(p->what, "order") != 0) {
            snprintf(where, sizeof where, "byte %zu:", off);
            CHECK_STR_CONTAINS(err, where);
        }
        viz_trace_free(&v);
    }
    free(c);
    free(b);
    return 0;
}

// Random damage: any outcome but a crash, and a loaded trace is sound.
static int test_fuzz(void) {
    size_t len, rec0;
    unsigned char *b = small_bin(&len, &rec0);
    CHECK(b != NULL);
    unsigned char *c = malloc(len);
    CHECK(c != NULL);
    uint64_t seed = 7;
    int loaded = 0, refused = 0;
    for (int k = 0; k < 3000; k++) {
        memcpy(c, b, len);
        int flips = 1 + (int)(lcg(&seed) % 4);
        for (int f = 0; f < flips; f++)
            c[lcg(&seed) % len] ^= (unsigned char)(1u << (lcg(&seed) % 8));
        size_t cut = lcg(&seed) % 8 == 0 ? lcg(&seed) % len : len;
        VizTrace v;
        SimStatus st = load_bytes("fuzz.ddptrace", c, cut, &v);
        CHECK(st == SIM_OK || st == SIM_EINVAL);
        if (st == SIM_OK) {
            loaded++;
            CHECK_EQ_INT(v.n, NEV);
            for (size_t i = 0; i < v.n; i++) {
                CHECK(v.ev[i].rank >= 0 && v.ev[i].rank < v.nranks);
                CHECK(v.ev[i].kind >= 0 && v.ev[i].kind < SIM_EV_KIND_COUNT);
                CHECK(v.ev[i].name == NULL || strlen(v.ev[i].name) < 64);
                CHECK(i == 0 || v.ev[i].sim_start >= v.ev[i - 1].sim_start);
            }
        } else {
            refused++;
            CHECK_STR_CONTAINS(err, "fuzz.ddptrace: ");
        }
        viz_trace_free(&v);
    }
    printf("fuzz: %d loaded (harmless flips), %d refused\n", loaded, refused);
    CHECK(refused > 500 && loaded > 100);
    free(c);
    free(b);
    return 0;
}

static int test_jsonl_errors(void) {
    static const char ok[] =
        "{\"rank\":0,\"stream\":\"comm\",\"kind\":\"coll\",\"sim_start\":0,\"sim_end\":1}\n";
    static const struct { const char *text, *needle; } cases[] = {
        {"{\"rank\":0,\"stream\":\"comm\",\"kind\":\"coll\",\"sim_start\":0,\"sim_end\":1}\n"
         "{\"rank\":", "line 2: not valid JSON"},
        {"{\"rank\":0,\"stream\":\"comm\",\"kind\":\"blob\",\"sim_start\":0,\"sim_end\":1}",
         "line 1: bad kind \"blob\""},
        {"{\"rank\":0,\"stream\":\"gpu\",\"kind\":\"coll\",\"sim_start\":0,\"sim_end\":1}",
         "line 1: bad stream \"gpu\""},
        {"{\"rank\":-1,\"stream\":\"comm\",\"kind\":\"coll\",\"sim_start\":0,\"sim_end\":1}",
         "line 1: bad rank"},
        {"{\"rank\":1.5,\"stream\":\"comm\",\"kind\":\"coll\",\"sim_start\":0,\"sim_end\":1}",
         "line 1: bad rank"},
        {"{\"stream\":\"comm\",\"kind\":\"coll\",\"sim_start\":0,\"sim_end\":1}",
         "line 1: no \"rank\""},
        {"{\"rank\":0,\"stream\":\"comm\",\"kind\":\"coll\",\"sim_start\":null,\"sim_end\":1}",
         "line 1: sim_start is not a finite time"},
        {"{\"rank\":0,\"stream\":\"comm\",\"kind\":\"coll\",\"sim_start\":0,\"sim_end\":1e999}",
         "line 1: sim_end is not a finite time"},
        {"{\"rank\":0,\"stream\":\"comm\",\"kind\":\"coll\",\"sim_start\":\"0\",\"sim_end\":1}",
         "line 1: sim_start is not a finite time"},
        {"{\"rank\":0,\"stream\":\"comm\",\"kind\":\"coll\",\"sim_start\":0,\"sim_end\":1,"
         "\"bytes\":-1}", "line 1: \"bytes\" must be a whole number"},
        {"{\"rank\":0,\"stream\":\"comm\",\"kind\":\"coll\",\"sim_start\":0,\"sim_end\":1,"
         "\"count\":18446744073709551616}", "line 1: \"count\" must be a whole number"},
        {"{\"rank\":0,\"stream\":\"comm\",\"kind\":\"coll\",\"sim_start\":0,\"sim_end\":1,"
         "\"coll\":\"all_sum\"}", "line 1: bad coll \"all_sum\""},
        {"{\"rank\":0,\"stream\":\"comm\",\"kind\":\"memory\",\"sim_start\":0,\"sim_end\":1,"
         "\"mem_cat\":\"?\"}", "line 1: bad mem_cat"},
        {"{\"rank\":0,\"stream\":\"comm\",\"kind\":\"coll\",\"sim_start\":0,\"sim_end\":1,"
         "\"step\":3000000000}", "line 1: bad step"},
        {"{\"rank\":0,\"stream\":\"comm\",\"kind\":\"coll\",\"sim_start\":0,\"sim_end\":1,"
         "\"name\":7}", "line 1: \"name\" must be a string or null"},
        {"{\"rank\":0,\"stream\":\"comm\",\"kind\":\"coll\",\"sim_start\":0,\"sim_end\":1,"
         "\"value\":\"x\"}", "line 1: \"value\" must be a number or null"},
        {"{\"rank\":0,\"stream\":\"comm\",\"kind\":\"coll\",\"sim_start\":0,\"sim_end\":1} x",
         "line 1: text after the object (column"},
        {"{\"rank\":0,\"stream\":\"comm\",\"kind\":\"coll\",\"sim_start\":0,\"sim_end\":1}\n\n[1]",
         "line 3: not a JSON object"},
    };
    char name[32];
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        snprintf(name, sizeof name, "bad%zu.jsonl", k);
        if (expect_fail(name, cases[k].text, strlen(cases[k].text), cases[k].needle, NULL) != 0) {
            fprintf(stderr, "case %zu: %s\n", k, err);
            return 1;
        }
    }
    VizTrace v;
    CHECK_EQ_INT(load_bytes("ok.jsonl", ok, sizeof ok - 1, &v), SIM_OK);
    CHECK_EQ_INT(v.n, 1);
    viz_trace_free(&v);
    // A line longer than the reader's block is refused, not overrun.
    size_t big = (5u << 20) + 100;
    char *line = malloc(big);
    CHECK(line != NULL);
    memcpy(line, "{\"name\":\"", 9);
    memset(line + 9, 'a', big - 9);
    int rc = expect_fail("long.jsonl", line, big, "line 1: longer than", NULL);
    free(line);
    return rc;
}

// JSON lines cut anywhere, or damaged: a trace of fewer events or an error
// that names a line, never a crash.
static int test_jsonl_cut_and_fuzz(void) {
    SimTrace *t = small_trace();
    CHECK(t != NULL);
    const char *path = tmp_path("small.jsonl");
    CHECK_EQ_INT(sim_trace_write_jsonl(t, path), SIM_OK);
    sim_trace_free(t);
    size_t len;
    char *text = tfile_read(path, &len);
    CHECK(text != NULL);
    char *c = malloc(len);
    CHECK(c != NULL);
    int whole = 0;
    for (size_t k = 1; k < len; k++) {
        VizTrace v;
        SimStatus st = load_bytes("cut.jsonl", text, k, &v);
        CHECK(st == SIM_OK || st == SIM_EINVAL);
        if (st == SIM_OK) {
            CHECK(v.n < NEV || k >= len - 1);
            whole += v.n == NEV;
        } else {
            CHECK_STR_CONTAINS(err, ": line ");
        }
        viz_trace_free(&v);
    }
    CHECK(whole <= 1);
    uint64_t seed = 3;
    for (int k = 0; k < 2000; k++) {
        memcpy(c, text, len);
        for (int f = 0; f < 3; f++)
            c[lcg(&seed) % len] = (char)lcg(&seed);
        VizTrace v;
        SimStatus st = load_bytes("fuzz.jsonl", c, len, &v);
        CHECK(st == SIM_OK || st == SIM_EINVAL);
        for (size_t i = 0; st == SIM_OK && i < v.n; i++)
            CHECK(v.ev[i].rank >= 0 && v.ev[i].rank < v.nranks);
        viz_trace_free(&v);
    }
    free(c);
    free(text);
    return 0;
}

int main(void) {
    if (tfile_mkdtemp(tmpdir, sizeof tmpdir, "viz-trace-err") != 0) {
        fprintf(stderr, "cannot make a scratch directory\n");
        return 1;
    }
    int failures = 0;
    RUN(test_not_traces);
    RUN(test_truncated);
    RUN(test_corrupted);
    RUN(test_fuzz);
    RUN(test_jsonl_errors);
    RUN(test_jsonl_cut_and_fuzz);
    tfile_rmtree(tmpdir);
    return failures != 0;
}
