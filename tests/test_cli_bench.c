// tests/test_cli_bench.c: real runs of `ddplab bench` on the CPU backend:
// a small sweep of every collective (and of several algorithms, element types
// and reductions) with every element checked, the table and CSV formats, the
// Chrome trace (parsed with cJSON, with the ring's 2(R-1) steps per call per
// rank counted), and calibration: the saved profile is accepted by -p.
//
// usage: test_cli_bench PATH/TO/ddplab
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "test_cli_run.h"
#include "test_env.h"
#include "test_files.h"

#define TIMEOUT_S 240.0
#define CSV_HEADER                                                             \
    "collective,algo,ranks,bytes,count,dtype,redop,root,inplace,time_us,"      \
    "algbw_GBps,busbw_GBps,wrong,sim_time_us,sim_busbw_GBps"

static const char *exe;

#define RUN_DDPLAB(res, ...) TCLI_RUN(res, exe, TIMEOUT_S, __VA_ARGS__)

// ----------------------------------------------------------------------------
// CSV

// Cuts the next field off *p at `sep` (empty fields kept, unlike strtok).
static char *next_field(char **p, char sep) {
    char *start = *p;
    if (start == NULL)
        return NULL;
    char *end = strchr(start, sep);
    if (end) {
        *end = '\0';
        *p = end + 1;
    } else {
        *p = NULL;
    }
    return start;
}

typedef struct {
    char coll[32], algo[16], dtype[16], redop[16];
    int ranks, root, inplace;
    long long bytes, count, wrong;
    double time_us, algbw, busbw, sim_us, sim_busbw;
} CsvRow;

static int parse_row(const char *line, CsvRow *row) {
    char l[512];
    snprintf(l, sizeof l, "%s", line);
    char *f[16];
    int n = 0;
    for (char *p = l, *tok; n < 16 && (tok = next_field(&p, ',')) != NULL;)
        f[n++] = tok;
    if (n != 15)
        return -1;
    snprintf(row->coll, sizeof row->coll, "%.*s", (int)sizeof row->coll - 1, f[0]);
    snprintf(row->algo, sizeof row->algo, "%.*s", (int)sizeof row->algo - 1, f[1]);
    row->ranks = atoi(f[2]);
    row->bytes = atoll(f[3]);
    row->count = atoll(f[4]);
    snprintf(row->dtype, sizeof row->dtype, "%.*s", (int)sizeof row->dtype - 1, f[5]);
    snprintf(row->redop, sizeof row->redop, "%.*s", (int)sizeof row->redop - 1, f[6]);
    row->root = atoi(f[7]);
    row->inplace = atoi(f[8]);
    row->time_us = atof(f[9]);
    row->algbw = atof(f[10]);
    row->busbw = atof(f[11]);
    row->wrong = atoll(f[12]);
    row->sim_us = atof(f[13]);
    row->sim_busbw = atof(f[14]);
    return 0;
}

// Checks a CSV output: the header, `want_rows` rows of `coll` on `ranks`
// ranks, every one with #wrong == 0 and sane numbers.
static int check_csv(const char *out, const char *coll, int ranks, int want_rows) {
    char *copy = strdup(out), *p = copy, *line;
    int n = 0, bad = 0;
    line = next_field(&p, '\n');
    if (line == NULL || strcmp(line, CSV_HEADER) != 0) {
        fprintf(stderr, "CSV header is '%s'\n", line ? line : "(none)");
        free(copy);
        return 1;
    }
    while ((line = next_field(&p, '\n')) != NULL) {
        if (line[0] == '\0')
            continue;
        CsvRow row;
        n++;
        if (parse_row(line, &row) != 0 || strcmp(row.coll, coll) != 0 || row.ranks != ranks ||
            row.wrong != 0 || !(row.time_us > 0) || row.sim_us < 0 || row.algbw < 0 ||
            row.busbw < 0 || (row.inplace != 0 && row.inplace != 1)) {
            fprintf(stderr, "bad CSV row for %s: %s\n", coll, line);
            bad++;
        }
    }
    free(copy);
    if (n != want_rows)
        fprintf(stderr, "%s: %d CSV rows, expected %d\n", coll, n, want_rows);
    return bad || n != want_rows;
}

// ----------------------------------------------------------------------------
// sweeps

static int test_every_collective(void) {
    // 8 B .. 4 KiB by 2 is 10 sizes (8 B .. 1 KiB, 8, in quick mode).
    const char *maxb = tenv_quick() ? "1K" : "4K";
    int nsizes = tenv_quick() ? 8 : 10;
    static const char *const colls[] = {"all_reduce", "reduce_scatter", "all_gather",
                                        "broadcast", "reduce", "gather", "scatter",
                                        "sendrecv", "barrier"};
    for (size_t i = 0; i < sizeof colls / sizeof colls[0]; i++) {
        TcliResult r;
        RUN_DDPLAB(r, "bench", "-c", colls[i], "-n", "3", "-r", "1", "-b", "8", "-e", maxb, "-w",
                   "1", "-i", "2", "--csv");
        int rows = strcmp(colls[i], "barrier") == 0    ? 1
                   : strcmp(colls[i], "sendrecv") == 0 ? nsizes
                                                       : 2 * nsizes;
        if (r.rc != 0)
            fprintf(stderr, "%s: exit %d\n%s", colls[i], r.rc, r.err);
        CHECK_EQ_INT(r.rc, 0);
        CHECK_EQ_INT(check_csv(r.out, colls[i], 3, rows), 0);
        tcli_result_free(&r);
    }
    return 0;
}

// Algorithms, element types, reductions and topologies beyond the defaults.
static int test_variants(void) {
    typedef struct {
        const char *coll, *ranks, *algo, *dtype, *op, *nodes;
    } Variant;
    static const Variant vs[] = {
        {"all_reduce", "4", "ring", "bf16", "avg", "2"},
        {"all_reduce", "5", "tree", "fp16", "prod", "1"},
        {"all_reduce", "3", "naive", "int64", "max", "3"},
        {"all_reduce", "4", "direct", "int32", "min", "1"},
        {"reduce_scatter", "4", "ring", "fp16", "sum", "2"},
        {"all_gather", "2", "naive", "bf16", "sum", "1"},
        {"broadcast", "5", "ring", "int32", "sum", "1"},
        {"reduce", "4", "tree", "fp32", "avg", "1"},
        {"scatter", "4", "naive", "int64", "sum", "2"},
        {"all_reduce", "1", "ring", "fp32", "sum", "1"},
    };
    for (size_t i = 0; i < sizeof vs / sizeof vs[0]; i++) {
        const Variant *v = &vs[i];
        TcliResult r;
        RUN_DDPLAB(r, "bench", "-c", v->coll, "-n", v->ranks, "-a", v->algo, "-d", v->dtype,
                   "-o", v->op, "--nodes", v->nodes, "-r", "1", "-b", "1K", "-e", "8K", "-w",
                   "0", "-i", "1", "--csv");
        if (r.rc != 0)
            fprintf(stderr, "%s %s: exit %d\n%s", v->coll, v->algo, r.rc, r.err);
        CHECK_EQ_INT(r.rc, 0);
        CHECK_EQ_INT(check_csv(r.out, v->coll, atoi(v->ranks), 8), 0);
        CHECK_STR_CONTAINS(r.out, v->algo);
        tcli_result_free(&r);
    }
    return 0;
}

// The human-readable table: configuration header, rows, nccl-tests footer.
static int test_table(void) {
    TcliResult r;
    RUN_DDPLAB(r, "bench", "-n", "2", "-b", "64", "-e", "256", "-w", "0", "-i", "1");
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "# ddplab bench: all_reduce");
    CHECK_STR_CONTAINS(r.out, "simulated on dgx-h100");
    CHECK_STR_CONTAINS(r.out, "out-of-place");
    CHECK_STR_CONTAINS(r.out, "#wrong");
    CHECK_STR_CONTAINS(r.out, "# Out of bounds values : 0 OK");
    CHECK_STR_CONTAINS(r.out, "# Avg bus bandwidth");
    // 64, 128 and 256 bytes: three data rows, none starting with '#'.
    int rows = 0;
    for (const char *p = r.out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        rows += *p != '#' && *p != '\n';
    CHECK_EQ_INT(rows, 3);
    tcli_result_free(&r);
    return 0;
}

// ----------------------------------------------------------------------------
// trace

// Counts the step events of all_reduce on rank `pid` in a Chrome trace.
static int count_steps(const cJSON *events, int pid) {
    int n = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, events) {
        const cJSON *cat = cJSON_GetObjectItemCaseSensitive(e, "cat");
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(e, "pid");
        const cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");
        const cJSON *coll = cJSON_GetObjectItemCaseSensitive(args, "coll");
        n += cJSON_IsString(cat) && strcmp(cat->valuestring, "step") == 0 && cJSON_IsNumber(p) &&
             p->valueint == pid && cJSON_IsString(coll) &&
             strcmp(coll->valuestring, "all_reduce") == 0;
    }
    return n;
}

// The run both trace tests make: a ring all_reduce on 3 ranks, 2 sizes x 2
// modes x (1 timed + 1 checked call) = 8 calls per rank, each 2(R-1) = 4
// steps. The trace goes to dir/name, stdout must mention `says`, and the
// directory must hold the trace and no temporary file. The trace's text
// (heap) comes back in *text.
#define TRACED_STEPS (8 * 4)

static int run_traced(const char *dir, const char *name, const char *says, char **text) {
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    TcliResult r;
    RUN_DDPLAB(r, "bench", "-a", "ring", "-n", "3", "-b", "1K", "-e", "2K", "-w", "0", "-i",
               "1", "--trace", path);
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, says);
    tcli_result_free(&r);
    CHECK_EQ_INT(tfile_dir_entries(dir), 1);
    *text = tfile_read(path, NULL);
    CHECK(*text != NULL);
    return 0;
}

static int test_trace(void) {
    char dir[4096], *text;
    CHECK(tfile_mkdtemp(dir, sizeof dir, "cli-trace") == 0);
    CHECK_EQ_INT(run_traced(dir, "run.json", "# trace: ", &text), 0);
    cJSON *doc = cJSON_Parse(text);
    free(text);
    CHECK(doc != NULL);
    const cJSON *events = cJSON_GetObjectItemCaseSensitive(doc, "traceEvents");
    int ok = cJSON_IsArray(events) && cJSON_GetArraySize(events) > 0;
    int steps[3] = {0};
    for (int rank = 0; ok && rank < 3; rank++)
        steps[rank] = count_steps(events, rank);
    cJSON_Delete(doc);
    CHECK(ok);
    for (int rank = 0; rank < 3; rank++)
        CHECK_EQ_INT(steps[rank], TRACED_STEPS);
    tfile_rmtree(dir);
    return 0;
}

// The same run as JSON lines: one parseable object per line, the same number
// of ring steps per rank.
static int test_trace_jsonl(void) {
    char dir[4096], *text;
    CHECK(tfile_mkdtemp(dir, sizeof dir, "cli-jsonl") == 0);
    CHECK_EQ_INT(run_traced(dir, "run.jsonl", "JSON lines", &text), 0);
    int steps[3] = {0}, lines = 0, bad = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        cJSON *ev = cJSON_Parse(line);
        lines++;
        if (ev == NULL) {
            bad++;
            continue;
        }
        const cJSON *kind = cJSON_GetObjectItemCaseSensitive(ev, "kind");
        const cJSON *rank = cJSON_GetObjectItemCaseSensitive(ev, "rank");
        const cJSON *wall = cJSON_GetObjectItemCaseSensitive(ev, "wall_start");
        bad += !cJSON_IsNumber(wall);
        if (cJSON_IsString(kind) && strcmp(kind->valuestring, "step") == 0 &&
            cJSON_IsNumber(rank) && rank->valueint >= 0 && rank->valueint < 3)
            steps[rank->valueint]++;
        cJSON_Delete(ev);
    }
    free(text);
    CHECK_EQ_INT(bad, 0);
    CHECK(lines > 0);
    for (int rank = 0; rank < 3; rank++)
        CHECK_EQ_INT(steps[rank], TRACED_STEPS);
    tfile_rmtree(dir);
    return 0;
}

// ----------------------------------------------------------------------------
// calibration

static int test_calibrate(void) {
    char dir[4096], prof[4200], corrupt[4200];
    CHECK(tfile_mkdtemp(dir, sizeof dir, "cli-calib") == 0);
    snprintf(prof, sizeof prof, "%s/mine.json", dir);
    snprintf(corrupt, sizeof corrupt, "%s/corrupt.json", dir);
    // On a loaded machine the timings of one sweep can fail to grow with
    // size (then no line fits: exit 1, documented). Up to 3 sweeps are made;
    // each must end with 0 or 1, and one must produce the profile.
    TcliResult r;
    int fitted = 0;
    for (int attempt = 0; attempt < 3 && !fitted; attempt++) {
        RUN_DDPLAB(r, "bench", "-n", "2", "-b", "64K", "-e", tenv_quick() ? "4M" : "16M", "-f",
                   "4", "-w", "1", "-i", "5", "--inplace", "0", "--calibrate", prof);
        CHECK(r.rc == 0 || r.rc == 1);
        if (r.rc == 1) {
            CHECK_STR_CONTAINS(r.err, "ddplab bench: --calibrate: the measured times do not grow");
            CHECK(!tfile_exists(prof));
            tcli_result_free(&r);
            continue;
        }
        CHECK_STR_CONTAINS(r.out, "# calibrated from ring all_reduce on 2 ranks: alpha ");
        CHECK_STR_CONTAINS(r.out, "GB/s");
        fitted = 1;
        tcli_result_free(&r);
    }
    CHECK(fitted);
    CHECK(tfile_exists(prof));
    // It holds this CPU as the device: achieved rates (the products' rate
    // fitted to several shapes), collectives on the ranks' own threads; a
    // run under it prices compute on that device.
    char *saved = tfile_read(prof, NULL);
    CHECK(saved != NULL);
    CHECK_STR_CONTAINS(saved, "\"device\": {\"name\": \"cpu-");
    CHECK_STR_CONTAINS(saved, "\"efficiency\": 1, ");
    CHECK_STR_CONTAINS(saved, "efficiency, launch fitted to 4 products");
    CHECK_STR_CONTAINS(saved, "\"coll_on_compute\": 1");
    // and as the host, where CPU offload would step the optimizer
    CHECK_STR_CONTAINS(saved, "\"host\": {\"name\": \"cpu-");
    free(saved);
    RUN_DDPLAB(r, "run", "--strategy", "ddp", "-n", "2", "--steps", "2", "-p", prof);
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "simulated time ");
    CHECK_STR_CONTAINS(r.out, " s on cpu-");
    tcli_result_free(&r);

    // The saved profile is a usable --profile, and its name shows.
    RUN_DDPLAB(r, "bench", "-n", "2", "-b", "8", "-e", "64", "-w", "0", "-i", "1", "-p", prof);
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "simulated on calibrated-");
    tcli_result_free(&r);

    // A damaged copy of it is bad input.
    char *text = tfile_read(prof, NULL);
    CHECK(text != NULL);
    CHECK(tfile_write(corrupt, text, strlen(text) / 2) == 0);
    free(text);
    RUN_DDPLAB(r, "bench", "-n", "2", "-p", corrupt);
    CHECK_EQ_INT(r.rc, 2);
    CHECK_EQ_INT(tcli_lines(r.err), 1);
    CHECK_STR_CONTAINS(r.err, "ddplab bench: --profile: '");
    tcli_result_free(&r);
    tfile_rmtree(dir);
    return 0;
}

int main(int argc, char **argv) {
    exe = tcli_exe_arg(argc, argv);
    if (exe == NULL)
        return 2;
    int failures = 0;
    RUN(test_every_collective);
    RUN(test_variants);
    RUN(test_table);
    RUN(test_trace);
    RUN(test_trace_jsonl);
    RUN(test_calibrate);
    return failures ? 1 : 0;
}
