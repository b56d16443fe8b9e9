// tests/test_trace_export.c: the two exporters. The Chrome trace JSON and
// the JSON lines files parse with cJSON, hold the expected events (2(R-1)
// steps per rank for a ring all_reduce built from the real schedule) with
// every field, escape strings correctly, never contain nan/inf, and are
// written atomically (a failed write leaves nothing behind).
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "check.h"
#include "coll/schedule.h"
#include "engine/backend.h"
#include "test_env.h"
#include "test_events.h"
#include "test_files.h"
#include "trace/trace.h"

static char tmpdir[256];

// A ring all_reduce on R ranks as the executor would trace it: per rank one
// collective event, one event per step and one per incoming transfer, with
// step duration d. Plus one compute event per rank and one marker on rank 0.
// Returns the number of events.
static const char tricky[] = "say \"hi\"\\ \n\t\x01 caf\xc3\xa9 \xff end";
static size_t build_ring_trace(SimTrace *t, int R, size_t count, double d) {
    SimSched s;
    size_t n = 0;
    if (sim_sched_init(&s, SIM_COLL_ALL_REDUCE, SIM_ALGO_RING, R, count, 0) != 0)
        return 0;
    for (int r = 0; r < R; r++) {
        SimEvent c = tevent_blank(r, 0.0, s.nsteps * d);
        c.kind = SIM_EV_COLL;
        c.stream = SIM_STREAM_COMM;
        c.name = "AllReduce";
        c.coll = SIM_COLL_ALL_REDUCE;
        c.algo = SIM_ALGO_RING;
        c.dtype = SIM_FP32;
        c.redop = SIM_SUM;
        c.count = count;
        c.bytes = count * 4;
        c.seq = 7;
        for (int st = 0; st < s.nsteps; st++) {
            SimEvent e = c;
            e.kind = SIM_EV_COLL_STEP;
            e.sim_start = st * d;
            e.sim_end = (st + 1) * d;
            e.wall_start = e.sim_start * 1000;
            e.wall_end = e.sim_end * 1000;
            e.step = st;
            e.nsteps = s.nsteps;
            e.label = sim_sched_phase_label(&s, st);
            SimXfer x[4];
            int nx = sim_sched_incoming(&s, r, st, x, 4);
            e.bytes = 0;
            for (int i = 0; i < nx; i++)
                e.bytes += x[i].count * 4;
            sim_trace_append(t, &e), n++;
            for (int i = 0; i < nx; i++) {
                SimEvent xe = e;
                xe.kind = SIM_EV_XFER;
                xe.count = x[i].count;
                xe.bytes = x[i].count * 4;
                xe.chunk = x[i].chunk;
                xe.src = x[i].src;
                xe.dst = x[i].dst;
                xe.label = x[i].op == SIM_XFER_REDUCE ? "reduce" : "copy";
                sim_trace_append(t, &xe), n++;
            }
        }
        sim_trace_append(t, &c), n++;
        SimEvent k = tevent_blank(r, s.nsteps * d, s.nsteps * d + 1e-3);
        k.name = "matmul";
        k.dtype = SIM_BF16;
        sim_trace_append(t, &k), n++;
    }
    SimEvent mk = tevent_blank(0, 1.5e-6, 4e-6);
    mk.kind = SIM_EV_MARKER;
    mk.stream = SIM_STREAM_HOST;
    mk.name = tricky;
    mk.label = "lesson: \"ring\"";
    sim_trace_append(t, &mk), n++;
    return n;
}

static const cJSON *arg(const cJSON *ev, const char *key) {
    return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(ev, "args"), key);
}

static int str_is(const cJSON *j, const char *s) {
    return cJSON_IsString(j) && strcmp(j->valuestring, s) == 0;
}

static int test_chrome(void) {
    const int R = 4;
    SimTrace *t = sim_trace_new(R, 0);
    size_t total = build_ring_trace(t, R, 1003, 1e-6);
    CHECK(total > 0);
    char path[512];
    snprintf(path, sizeof(path), "%s/trace.json", tmpdir);
    CHECK_EQ_INT(sim_trace_write_chrome(t, path, 0), SIM_OK);
    size_t len;
    char *text = tfile_read(path, &len);
    CHECK(text != NULL);
    CHECK(strstr(text, "nan") == NULL && strstr(text, "inf") == NULL);
    cJSON *root = cJSON_Parse(text);
    CHECK(root != NULL);
    const cJSON *evs = cJSON_GetObjectItemCaseSensitive(root, "traceEvents");
    CHECK(cJSON_IsArray(evs));
    size_t nx = 0, nsteps[4] = {0}, procs = 0, threads = 0;
    int seen_marker = 0, seen_xfer = 0;
    const cJSON *ev;
    cJSON_ArrayForEach(ev, evs) {
        const cJSON *ph = cJSON_GetObjectItemCaseSensitive(ev, "ph");
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(ev, "name");
        int pid = cJSON_GetObjectItemCaseSensitive(ev, "pid")->valueint;
        int tid = cJSON_GetObjectItemCaseSensitive(ev, "tid")->valueint;
        CHECK(cJSON_IsString(ph) && cJSON_IsString(name));
        if (str_is(ph, "M")) {
            if (str_is(name, "process_name")) {
                char want[32];
                snprintf(want, sizeof(want), "rank %d", pid);
                CHECK(str_is(arg(ev, "name"), want));
                procs++;
            } else if (str_is(name, "thread_name")) {
                CHECK(str_is(arg(ev, "name"), sim_stream_name((SimStream)tid)));
                threads++;
            }
            continue;
        }
        CHECK(str_is(ph, "X"));
        nx++;
        CHECK(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(ev, "ts")));
        CHECK(cJSON_GetObjectItemCaseSensitive(ev, "dur")->valuedouble >= 0);
        const cJSON *cat = cJSON_GetObjectItemCaseSensitive(ev, "cat");
        if (str_is(cat, "step")) {
            CHECK(pid >= 0 && pid < R && tid == SIM_STREAM_COMM);
            nsteps[pid]++;
            CHECK(str_is(arg(ev, "algo"), "ring") && str_is(arg(ev, "redop"), "sum"));
            CHECK_EQ_INT(arg(ev, "nsteps")->valueint, 2 * (R - 1));
        }
        if (str_is(cat, "xfer") && !seen_xfer) {
            // The first transfer in time order: step 0 on rank 0, which
            // receives chunk (0-2-0) mod 4 = 2 from rank 3 and adds it.
            seen_xfer = 1;
            CHECK_EQ_INT(pid, 0);
            CHECK_EQ_INT(arg(ev, "step")->valueint, 0);
            CHECK_EQ_INT(arg(ev, "src")->valueint, 3);
            CHECK_EQ_INT(arg(ev, "dst")->valueint, 0);
            CHECK_EQ_INT(arg(ev, "chunk")->valueint, 2);
            CHECK_EQ_INT(arg(ev, "count")->valueint, 251); // part 2 of 1003 over 4
            CHECK_EQ_INT(arg(ev, "bytes")->valueint, 251 * 4);
            CHECK_EQ_INT(arg(ev, "seq")->valueint, 7);
            CHECK(str_is(arg(ev, "coll"), "all_reduce") && str_is(arg(ev, "dtype"), "fp32"));
            CHECK(str_is(arg(ev, "label"), "reduce"));
            CHECK_NEAR(cJSON_GetObjectItemCaseSensitive(ev, "ts")->valuedouble, 0.0, 0);
            CHECK_NEAR(cJSON_GetObjectItemCaseSensitive(ev, "dur")->valuedouble, 1.0, 1e-12);
            CHECK_NEAR(arg(ev, "wall_dur_us")->valuedouble, 1000.0, 1e-9);
        }
        if (str_is(cat, "marker")) {
            seen_marker = 1;
            // Escaped on the way out, decoded back by cJSON; the invalid
            // byte 0xff became U+FFFD.
            CHECK(str_is(name, "say \"hi\"\\ \n\t\x01 caf\xc3\xa9 \xef\xbf\xbd end"));
            CHECK(str_is(arg(ev, "label"), "lesson: \"ring\""));
            CHECK_EQ_INT(tid, SIM_STREAM_HOST);
            CHECK_NEAR(cJSON_GetObjectItemCaseSensitive(ev, "ts")->valuedouble, 1.5, 1e-12);
            CHECK_NEAR(cJSON_GetObjectItemCaseSensitive(ev, "dur")->valuedouble, 2.5, 1e-12);
        }
    }
    CHECK_EQ_INT(nx, total);
    for (int r = 0; r < R; r++)
        CHECK_EQ_INT(nsteps[r], 2 * (R - 1));
    CHECK_EQ_INT(procs, R);
    CHECK_EQ_INT(threads, 2 * R + 1); // compute + comm per rank, host on rank 0
    CHECK(seen_marker && seen_xfer);
    const cJSON *other = cJSON_GetObjectItemCaseSensitive(root, "otherData");
    CHECK(str_is(cJSON_GetObjectItemCaseSensitive(other, "clock"), "simulated"));
    CHECK_EQ_INT(cJSON_GetObjectItemCaseSensitive(other, "events")->valueint, total);
    cJSON_Delete(root);
    free(text);

    // Wall clock: ts comes from wall_start (1000x the simulated time here).
    CHECK_EQ_INT(sim_trace_write_chrome(t, path, 1), SIM_OK);
    text = tfile_read(path, NULL);
    root = cJSON_Parse(text);
    CHECK(root != NULL);
    int found = 0;
    cJSON_ArrayForEach(ev, cJSON_GetObjectItemCaseSensitive(root, "traceEvents")) {
        const cJSON *cat = cJSON_GetObjectItemCaseSensitive(ev, "cat");
        if (str_is(cat, "marker")) {
            found = 1;
            CHECK_NEAR(cJSON_GetObjectItemCaseSensitive(ev, "ts")->valuedouble, 1500.0, 1e-9);
            CHECK_NEAR(arg(ev, "sim_start_us")->valuedouble, 1.5, 1e-12);
        }
    }
    CHECK(found);
    cJSON_Delete(root);
    free(text);
    unlink(path);
    sim_trace_free(t);
    return 0;
}

static int test_jsonl(void) {
    const int R = 3;
    SimTrace *t = sim_trace_new(R, 0);
    size_t total = build_ring_trace(t, R, 10, 0.1);
    char path[512];
    snprintf(path, sizeof(path), "%s/trace.jsonl", tmpdir);
    CHECK_EQ_INT(sim_trace_write_jsonl(t, path), SIM_OK);
    char *text = tfile_read(path, NULL);
    CHECK(text != NULL);
    size_t nset;
    SimEvent *merged = sim_trace_merge(t, &nset);
    CHECK_EQ_INT(nset, total);
    static const char *const keys[] = {
        "rank", "stream", "kind", "name", "label", "sim_start", "sim_end", "wall_start",
        "wall_end", "bytes", "count", "seq", "coll", "algo", "dtype", "redop", "step",
        "nsteps", "chunk", "src", "dst"};
    size_t lines = 0, steps = 0;
    for (char *line = text, *nl; *line != '\0'; line = nl + 1) {
        nl = strchr(line, '\n');
        CHECK(nl != NULL); // every line ends with a newline
        *nl = '\0';
        cJSON *o = cJSON_Parse(line);
        CHECK(o != NULL);
        // markers add their value
        int marker = strcmp(cJSON_GetObjectItemCaseSensitive(o, "kind")->valuestring,
                            "marker") == 0;
        CHECK_EQ_INT(cJSON_GetArraySize(o), (int)(sizeof(keys) / sizeof(keys[0])) + marker);
        for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
            CHECK(cJSON_GetObjectItemCaseSensitive(o, keys[k]) != NULL);
        // Lines follow the merged order, and times read back exactly.
        const SimEvent *e = &merged[lines];
        CHECK_EQ_INT(cJSON_GetObjectItemCaseSensitive(o, "rank")->valueint, e->rank);
        CHECK(cJSON_GetObjectItemCaseSensitive(o, "sim_start")->valuedouble == e->sim_start);
        CHECK(cJSON_GetObjectItemCaseSensitive(o, "sim_end")->valuedouble == e->sim_end);
        CHECK(str_is(cJSON_GetObjectItemCaseSensitive(o, "kind"),
                     sim_event_kind_name((SimEventKind)e->kind)));
        CHECK(str_is(cJSON_GetObjectItemCaseSensitive(o, "stream"),
                     sim_stream_name((SimStream)e->stream)));
        if (e->label == NULL)
            CHECK(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(o, "label")));
        if (e->kind == SIM_EV_COLL_STEP) {
            steps++;
            CHECK(str_is(cJSON_GetObjectItemCaseSensitive(o, "coll"), "all_reduce"));
            CHECK_EQ_INT(cJSON_GetObjectItemCaseSensitive(o, "step")->valueint, e->step);
        }
        cJSON_Delete(o);
        lines++;
    }
    CHECK_EQ_INT(lines, total);
    CHECK_EQ_INT(steps, (size_t)R * 2 * (R - 1));
    free(merged);
    free(text);
    unlink(path);
    sim_trace_free(t);
    return 0;
}

// Times that are not numbers must not produce "nan" or "inf" in the files.
static int test_nonfinite(void) {
    SimTrace *t = sim_trace_new(1, 0);
    SimEvent e = tevent_blank(0, NAN, INFINITY);
    e.wall_start = -INFINITY;
    sim_trace_append(t, &e);
    e = tevent_blank(0, 1.0, 0.5); // ends before it starts
    sim_trace_append(t, &e);
    char path[512];
    snprintf(path, sizeof(path), "%s/odd.json", tmpdir);
    for (int fmt = 0; fmt < 3; fmt++) {
        CHECK_EQ_INT(fmt < 2 ? sim_trace_write_chrome(t, path, fmt) : sim_trace_write_jsonl(t, path),
                     SIM_OK);
        char *text = tfile_read(path, NULL);
        CHECK(text != NULL);
        CHECK(strstr(text, "nan") == NULL && strstr(text, "inf") == NULL);
        CHECK(strstr(text, "NaN") == NULL && strstr(text, "Infinity") == NULL);
        if (fmt < 2) {
            cJSON *root = cJSON_Parse(text);
            CHECK(root != NULL);
            const cJSON *ev;
            cJSON_ArrayForEach(ev, cJSON_GetObjectItemCaseSensitive(root, "traceEvents")) {
                const cJSON *dur = cJSON_GetObjectItemCaseSensitive(ev, "dur");
                CHECK(dur == NULL || (cJSON_IsNumber(dur) && dur->valuedouble >= 0));
            }
            cJSON_Delete(root);
        }
        free(text);
    }
    unlink(path);
    sim_trace_free(t);
    return 0;
}

static int test_empty_and_failures(void) {
    SimTrace *t = sim_trace_new(2, 0);
    char path[512];
    snprintf(path, sizeof(path), "%s/empty.json", tmpdir);
    CHECK_EQ_INT(sim_trace_write_chrome(t, path, 0), SIM_OK);
    char *text = tfile_read(path, NULL);
    cJSON *root = cJSON_Parse(text);
    CHECK(root != NULL && cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(root, "traceEvents")));
    cJSON_Delete(root);
    free(text);
    unlink(path);
    snprintf(path, sizeof(path), "%s/empty.jsonl", tmpdir);
    CHECK_EQ_INT(sim_trace_write_jsonl(t, path), SIM_OK);
    text = tfile_read(path, NULL);
    CHECK(text != NULL && text[0] == '\0');
    free(text);
    unlink(path);

    SimEvent e = tevent_blank(1, 0, 1);
    sim_trace_append(t, &e);
    // A device is written in place, never renamed over (as root, a rename
    // would have replaced /dev/null with a regular file).
    CHECK_EQ_INT(sim_trace_write_jsonl(t, "/dev/null"), SIM_OK);
    struct stat devnull;
    CHECK(stat("/dev/null", &devnull) == 0 && S_ISCHR(devnull.st_mode));
    // No such directory.
    CHECK_EQ_INT(sim_trace_write_chrome(t, "/nonexistent-ddplab-dir/t.json", 0), SIM_EIO);
    CHECK_EQ_INT(sim_trace_write_jsonl(t, "/nonexistent-ddplab-dir/t.jsonl"), SIM_EIO);
    // The destination is a directory: the final rename fails and the
    // temporary file is removed.
    char sub[512];
    snprintf(sub, sizeof(sub), "%s/adir", tmpdir);
    CHECK_EQ_INT(mkdir(sub, 0755), 0);
    CHECK_EQ_INT(sim_trace_write_chrome(t, sub, 0), SIM_EIO);
    CHECK_EQ_INT(sim_trace_write_jsonl(t, sub), SIM_EIO);
    CHECK_EQ_INT(tfile_dir_entries(tmpdir), 1);
    CHECK_EQ_INT(tfile_dir_entries(sub), 0);
    rmdir(sub);
    // A write over an existing file replaces it whole.
    snprintf(path, sizeof(path), "%s/t.jsonl", tmpdir);
    const char *old = "old content that is longer than the new one, surely, yes, very much longer\n"
                      "and a second line\n";
    CHECK_EQ_INT(tfile_write(path, old, strlen(old)), 0);
    CHECK_EQ_INT(sim_trace_write_jsonl(t, path), SIM_OK);
    text = tfile_read(path, NULL);
    CHECK(text != NULL && strstr(text, "old content") == NULL && text[0] == '{');
    CHECK(strchr(text, '\n') == text + strlen(text) - 1); // exactly one line
    free(text);
    unlink(path);
    CHECK_EQ_INT(tfile_dir_entries(tmpdir), 0);
    CHECK_EQ_INT(sim_trace_write_chrome(NULL, path, 0), SIM_EINVAL);
    sim_trace_free(t);
    return 0;
}

// Export speed on a larger trace (reported, loosely bounded).
static int test_large(void) {
    int R = 16;
    int per = tenv_quick() ? 1000 : 10000;
    SimTrace *t = sim_trace_new(R, 0);
    for (int r = 0; r < R; r++) {
        for (int i = 0; i < per; i++) {
            SimEvent e = tevent_blank(r, i * 1e-6, (i + 1) * 1e-6);
            e.kind = SIM_EV_XFER;
            e.stream = SIM_STREAM_COMM;
            e.name = "AllReduce";
            e.step = i % 30, e.nsteps = 30, e.chunk = i % R, e.src = (r + R - 1) % R, e.dst = r;
            e.bytes = 4096;
            CHECK_EQ_INT(sim_trace_append(t, &e), SIM_OK);
        }
    }
    char path[512];
    snprintf(path, sizeof(path), "%s/big.json", tmpdir);
    double t0 = sim_wall_now();
    CHECK_EQ_INT(sim_trace_write_chrome(t, path, 0), SIM_OK);
    double t1 = sim_wall_now();
    char *text = tfile_read(path, NULL);
    cJSON *root = cJSON_Parse(text);
    CHECK(root != NULL);
    CHECK_EQ_INT(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(root, "traceEvents")),
                 R * per + 4 * R); // + process name/sort and thread name/sort per rank
    cJSON_Delete(root);
    free(text);
    unlink(path);
    snprintf(path, sizeof(path), "%s/big.jsonl", tmpdir);
    double t2 = sim_wall_now();
    CHECK_EQ_INT(sim_trace_write_jsonl(t, path), SIM_OK);
    double t3 = sim_wall_now();
    unlink(path);
    printf("  %d events: chrome %.0f ms, jsonl %.0f ms\n", R * per, (t1 - t0) * 1e3,
           (t3 - t2) * 1e3);
    sim_trace_free(t);
    return 0;
}

int main(void) {
    if (tfile_mkdtemp(tmpdir, sizeof(tmpdir), "test-trace") != 0) {
        perror("mkdtemp");
        return 1;
    }
    int failures = 0;
    RUN(test_chrome);
    RUN(test_jsonl);
    RUN(test_nonfinite);
    RUN(test_empty_and_failures);
    RUN(test_large);
    tfile_rmtree(tmpdir);
    return failures != 0;
}
