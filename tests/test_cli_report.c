// tests/test_cli_report.c: `ddplab report TRACE` on traces of real runs:
//   ddp          4 ranks, small buckets: compute + data wait + exposed comm
//                + idle = total on every rank, overlap > 0 on every rank,
//                5 steps, all_reduce bytes; the tables say the check holds
//   chrome       the same run written as Chrome trace JSON gives the same
//                figures
//   slow rank    --fault slow-rank:rank=2,factor=3: rank 2 is the slowest,
//                for its compute, about 3x the others' mean
//   data wait    --sample-cost 0.001 with no loader workers: data wait is
//                the largest share on every rank, and the reason given
//   png          a PNG file and an SVG one with the title as text (or, in a
//                build without the chart plugin, exit 2 and a message
//                naming cairo); an unknown extension: exit 2, nothing written
//   bad inputs   a missing file, garbage, a truncated trace, a Chrome trace
//                cut short or with a foreign event, a trace with no steps
//                (a benchmark), an unknown option, no trace: one
//                line "ddplab report: ..." on stderr and exit 2
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "test_cli_run.h"
#include "test_env.h"
#include "test_files.h"

#define TIMEOUT_S 90.0

static const char *exe;
static char dir[512];
static const char *steps_arg = "5";

static const char *in_dir(const char *name) { return tcli_path(dir, name); }

// `ddplab run --strategy ddp -n 4 ... --trace PATH EXTRA...` (EXTRA may be
// NULL-terminated empty). 0 on success.
static int record(const char *path, const char *x1, const char *x2) {
    TcliResult r;
    const char *extra1 = x1 ? x1 : "--seed", *extra2 = x1 ? x2 : "1";
    TCLI_RUN(r, exe, TIMEOUT_S, "run", "--strategy", "ddp", "-n", "4", "--data", "blobs",
             "--model", "mlp:16,512,512,512,4", "--steps", steps_arg, "--bucket-cap-mb", "0.5",
             "--trace", path, extra1, extra2);
    if (r.rc != 0)
        tcli_show("ddplab run", &r);
    int rc = r.rc;
    tcli_result_free(&r);
    return rc;
}

// `ddplab report PATH --json`, parsed; NULL on failure.
static cJSON *report_json(const char *path) {
    TcliResult r;
    TCLI_RUN(r, exe, TIMEOUT_S, "report", path, "--json");
    cJSON *doc = r.rc == 0 ? cJSON_Parse(r.out) : NULL;
    if (doc == NULL)
        tcli_show("ddplab report --json", &r);
    tcli_result_free(&r);
    return doc;
}

static double num(const cJSON *o, const char *k) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static const cJSON *rank_of(const cJSON *doc, int i) {
    return cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "per_rank"), i);
}

// Every rank's four parts add up to its total; the check says so.
static int check_adds_up(const cJSON *doc, int nranks) {
    CHECK_EQ_INT(num(doc, "ranks"), nranks);
    for (int i = 0; i < nranks; i++) {
        const cJSON *k = rank_of(doc, i);
        CHECK(k != NULL);
        double total = num(k, "total_s");
        CHECK(total > 0);
        double sum = num(k, "compute_s") + num(k, "data_wait_s") + num(k, "exposed_comm_s") +
                     num(k, "idle_s");
        CHECK_NEAR(sum, total, 1e-9 * total);
        CHECK(num(k, "compute_s") > 0);
    }
    const cJSON *chk = cJSON_GetObjectItemCaseSensitive(doc, "check");
    CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(chk, "adds_up")));
    return 0;
}

static const char *slowest_str(const cJSON *doc, const char *k) {
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(doc, "slowest");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(s, k);
    return cJSON_IsString(v) ? v->valuestring : "";
}

// A rank's "step_times": one per step, numbered, each adding up to its own
// time, and the times adding up to the rank's total.
static int check_steps(const cJSON *k) {
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(k, "step_times");
    CHECK(cJSON_IsArray(st));
    CHECK_EQ_INT(cJSON_GetArraySize(st), num(k, "steps"));
    double total = 0, tol = 1e-9 * (1 + num(k, "total_s"));
    for (int j = 0; j < cJSON_GetArraySize(st); j++) {
        const cJSON *s = cJSON_GetArrayItem(st, j);
        CHECK_EQ_INT(num(s, "step"), j + 1);
        CHECK_NEAR(num(s, "compute_s") + num(s, "data_wait_s") + num(s, "exposed_comm_s") +
                       num(s, "idle_s"), num(s, "total_s"), tol);
        total += num(s, "total_s");
    }
    CHECK_NEAR(total, num(k, "total_s"), tol);
    return 0;
}

static int test_ddp(void) {
    const char *bin = in_dir("ddp.ddptrace"), *js = in_dir("ddp.json");
    CHECK(record(bin, NULL, NULL) == 0);
    CHECK(record(js, NULL, NULL) == 0);
    cJSON *a = report_json(bin), *b = report_json(js);
    CHECK(a != NULL && b != NULL);
    CHECK(check_adds_up(a, 4) == 0);
    CHECK(check_adds_up(b, 4) == 0);
    CHECK_EQ_INT(num(a, "steps"), atoi(steps_arg));
    for (int i = 0; i < 4; i++) {
        const cJSON *k = rank_of(a, i), *c = rank_of(b, i);
        CHECK_EQ_INT(num(k, "steps"), atoi(steps_arg));
        CHECK(num(k, "overlap_s") > 0);
        CHECK(num(k, "overlap_pct") > 0 && num(k, "overlap_pct") <= 100);
        CHECK(num(k, "comm_busy_s") >= num(k, "overlap_s"));
        CHECK(num(k, "peak_device_bytes") > 0);
        // The Chrome trace keeps times to the nanosecond: the same figures.
        static const char *keys[] = {"total_s", "compute_s", "exposed_comm_s", "overlap_s",
                                     "idle_s"};
        for (int j = 0; j < 5; j++)
            CHECK_NEAR(num(c, keys[j]), num(k, keys[j]), 1e-3 * num(k, "total_s"));
        CHECK_EQ_INT(num(c, "peak_device_bytes"), num(k, "peak_device_bytes"));
        CHECK(check_steps(k) == 0);
    }
    const cJSON *ar = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(a, "collectives"), "all_reduce");
    CHECK(num(ar, "calls") >= 4 * atoi(steps_arg));
    CHECK(num(ar, "bytes") > 0 && num(ar, "sent_bytes") > 0);
    cJSON_Delete(a);
    cJSON_Delete(b);
    // The tables.
    TcliResult r;
    TCLI_RUN(r, exe, TIMEOUT_S, "report", bin);
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "exposed comm");
    CHECK_STR_CONTAINS(r.out, "= total on every rank: yes");
    CHECK_STR_CONTAINS(r.out, "all_reduce");
    CHECK_STR_CONTAINS(r.out, "slowest:");
    CHECK_STR_CONTAINS(r.out, "step times per rank");
    CHECK(strstr(r.out, "every step") == NULL);
    tcli_result_free(&r);
    TCLI_RUN(r, exe, TIMEOUT_S, "report", bin, "--steps");
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "every step");
    CHECK_EQ_INT(tcli_lines(strstr(r.out, "every step")), 5 + 4 * atoi(steps_arg));
    tcli_result_free(&r);
    // The chart.
    const char *png = in_dir("time.png");
    TCLI_RUN(r, exe, TIMEOUT_S, "report", bin, "--png", png);
    if (r.rc == 0) {
        size_t len = 0;
        char *data = tfile_read(png, &len);
        CHECK(data != NULL && len > 100 && memcmp(data, "\x89PNG", 4) == 0);
        free(data);
        CHECK_STR_CONTAINS(r.out, "chart: ");
    } else {
        CHECK_EQ_INT(r.rc, 2);
        CHECK_STR_CONTAINS(r.err, "cairo");
        CHECK(!tfile_exists(png));
    }
    int drawn = r.rc == 0;
    tcli_result_free(&r);
    const char *svg = in_dir("time.svg");
    TCLI_RUN(r, exe, TIMEOUT_S, "report", bin, "--png", svg);
    if (drawn) {
        CHECK_EQ_INT(r.rc, 0);
        char *text = tfile_read(svg, NULL);
        CHECK(text != NULL);
        int ok = strncmp(text, "<?xml", 5) == 0 && strstr(text, "<title>time per rank over ") &&
                 strstr(text, "</svg>");
        free(text);
        CHECK(ok);
    }
    tcli_result_free(&r);
    const char *gif = in_dir("time.gif");
    TCLI_RUN(r, exe, TIMEOUT_S, "report", bin, "--png", gif);
    CHECK_EQ_INT(r.rc, 2);
    CHECK_STR_CONTAINS(r.err, ".png, .svg or .pdf");
    CHECK(!tfile_exists(gif));
    tcli_result_free(&r);
    return 0;
}

static int test_slow_rank(void) {
    const char *bin = in_dir("slow.ddptrace");
    CHECK(record(bin, "--fault", "slow-rank:rank=2,factor=3") == 0);
    cJSON *a = report_json(bin);
    CHECK(a != NULL);
    CHECK(check_adds_up(a, 4) == 0);
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(a, "slowest");
    CHECK_EQ_INT(num(s, "rank"), 2);
    if (strcmp(slowest_str(a, "why"), "slow-compute") != 0) {
        fprintf(stderr, "why: %s\n", slowest_str(a, "why"));
        CHECK(0);
    }
    CHECK_NEAR(num(s, "value"), 3.0, 0.3);
    CHECK_STR_CONTAINS(slowest_str(a, "text"), "rank 2: compute 3.0x the others' mean");
    // the shares: the healthy ranks on one line, the slow one on its own,
    // each the JSON's parts in whole percent, in 80 columns
    int pct[2][4];
    const char *part[] = {"compute_s", "data_wait_s", "exposed_comm_s", "idle_s"};
    for (int g = 0; g < 2; g++)
        for (int j = 0; j < 4; j++) {
            const cJSON *k = rank_of(a, g == 0 ? 0 : 2);
            pct[g][j] = (int)(100 * num(k, part[j]) / num(k, "total_s") + 0.5);
        }
    TcliResult r;
    TCLI_RUN(r, exe, TIMEOUT_S, "report", bin);
    CHECK_EQ_INT(r.rc, 0);
    char want[2][160];
    snprintf(want[0], sizeof want[0],
             "\nshares:   ranks 0-1,3: compute %d%%, data wait %d%%, exposed %d%%, idle %d%%\n",
             pct[0][0], pct[0][1], pct[0][2], pct[0][3]);
    snprintf(want[1], sizeof want[1],
             "\n          rank 2: compute %d%%, data wait %d%%, exposed %d%%, idle %d%%\n",
             pct[1][0], pct[1][1], pct[1][2], pct[1][3]);
    CHECK_STR_CONTAINS(r.out, want[0]);
    CHECK_STR_CONTAINS(r.out, want[1]);
    CHECK(strlen(want[0]) <= 82 && strlen(want[1]) <= 82);
    CHECK(pct[0][3] > 50 && pct[1][3] == 0); // the others wait; rank 2 never does
    tcli_result_free(&r);
    cJSON_Delete(a);
    return 0;
}

static int test_data_wait(void) {
    const char *bin = in_dir("data.ddptrace");
    CHECK(record(bin, "--sample-cost", "0.001") == 0);
    cJSON *a = report_json(bin);
    CHECK(a != NULL);
    CHECK(check_adds_up(a, 4) == 0);
    for (int i = 0; i < 4; i++) {
        const cJSON *k = rank_of(a, i);
        double d = num(k, "data_wait_s");
        CHECK(d > num(k, "compute_s") && d > num(k, "exposed_comm_s") && d > num(k, "idle_s"));
    }
    if (strcmp(slowest_str(a, "why"), "data-wait") != 0) {
        fprintf(stderr, "why: %s\n", slowest_str(a, "why"));
        CHECK(0);
    }
    CHECK_STR_CONTAINS(slowest_str(a, "text"), "waits for data");
    cJSON_Delete(a);
    return 0;
}

// CPU offload: the device waits for the host's optimizer step; the table
// splits that part of idle into its own column, and only then.
static int test_host_column(void) {
    const char *bin = in_dir("offload.ddptrace");
    TcliResult r;
    TCLI_RUN(r, exe, TIMEOUT_S, "run", "--strategy", "fsdp", "-n", "2", "--cpu-offload",
             "--data", "blobs", "--steps", "3", "--trace", bin);
    CHECK_EQ_INT(r.rc, 0);
    tcli_result_free(&r);
    TCLI_RUN(r, exe, TIMEOUT_S, "report", bin);
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "|            idle |      of it host |");
    CHECK_STR_CONTAINS(r.out, "host: the idle time while the host worked");
    // rank 0's host part: the same share printed in both columns or less
    const char *row = strstr(r.out, "\n|    0 |");
    CHECK(row != NULL);
    double idle = 0, host = 0;
    const char *p = row;
    for (int bar = 0; bar < 8 && p; bar++)
        p = strchr(p + 1, '|');
    CHECK(p != NULL && sscanf(p + 1, "%lf", &idle) == 1);
    p = strchr(p + 1, '|');
    CHECK(p != NULL && sscanf(p + 1, "%lf", &host) == 1);
    CHECK(host > 0 && host <= idle);
    CHECK_STR_CONTAINS(r.out, "\nshares:   ");
    CHECK_STR_CONTAINS(r.out, "% (host ");
    tcli_result_free(&r);
    TCLI_RUN(r, exe, TIMEOUT_S, "report", in_dir("ddp.ddptrace"));
    CHECK(strstr(r.out, "of it host") == NULL); // no offload: no column
    tcli_result_free(&r);
    return 0;
}

// One line on stderr starting "ddplab report: " and containing want; exit 2.
static int refused(const TcliResult *r, const char *want) {
    return tcli_refused(r, "ddplab report: ", want);
}

static int test_bad_inputs(void) {
    TcliResult r;
    TCLI_RUN(r, exe, TIMEOUT_S, "report", in_dir("missing.ddptrace"));
    CHECK(refused(&r, "missing.ddptrace") == 0);
    tcli_result_free(&r);

    const char *junk = in_dir("junk.ddptrace");
    CHECK(tfile_write(junk, "hello, not a trace\n", 19) == 0);
    TCLI_RUN(r, exe, TIMEOUT_S, "report", junk);
    CHECK(refused(&r, "not a ddplab trace") == 0);
    tcli_result_free(&r);

    // A trace cut in the middle.
    size_t len = 0;
    char *whole = tfile_read(in_dir("ddp.ddptrace"), &len);
    CHECK(whole != NULL && len > 1000);
    const char *cut = in_dir("cut.ddptrace");
    CHECK(tfile_write(cut, whole, len / 2) == 0);
    free(whole);
    TCLI_RUN(r, exe, TIMEOUT_S, "report", cut);
    CHECK(refused(&r, "truncated") == 0);
    tcli_result_free(&r);

    // A Chrome trace cut short.
    whole = tfile_read(in_dir("ddp.json"), &len);
    CHECK(whole != NULL && len > 1000);
    const char *cutjs = in_dir("cut.json");
    CHECK(tfile_write(cutjs, whole, len / 2) == 0);
    free(whole);
    TCLI_RUN(r, exe, TIMEOUT_S, "report", cutjs);
    CHECK(refused(&r, "not valid JSON") == 0);
    tcli_result_free(&r);

    // A Chrome trace whose event is not one of ddplab's (a negative time).
    const char *neg = in_dir("neg.json");
    static const char negjs[] = "{\"traceEvents\":[{\"name\":\"x\",\"cat\":\"compute\","
                                "\"ph\":\"X\",\"ts\":-5,\"dur\":1,\"pid\":0,\"tid\":0}]}";
    CHECK(tfile_write(neg, negjs, sizeof negjs - 1) == 0);
    TCLI_RUN(r, exe, TIMEOUT_S, "report", neg);
    CHECK(refused(&r, "event 0: not an event of a ddplab trace") == 0);
    tcli_result_free(&r);

    // A benchmark's trace: collectives, no optimizer steps.
    const char *bench = in_dir("bench.ddptrace");
    TCLI_RUN(r, exe, TIMEOUT_S, "bench", "-n", "2", "-c", "all_reduce", "-b", "1K", "-e", "1K",
             "--trace", bench);
    CHECK_EQ_INT(r.rc, 0);
    tcli_result_free(&r);
    TCLI_RUN(r, exe, TIMEOUT_S, "report", bench);
    CHECK(refused(&r, "\"iteration\" markers") == 0);
    tcli_result_free(&r);

    TCLI_RUN(r, exe, TIMEOUT_S, "report", in_dir("ddp.ddptrace"), "--bogus");
    CHECK(refused(&r, "unknown option '--bogus'") == 0);
    tcli_result_free(&r);

    TCLI_RUN(r, exe, TIMEOUT_S, "report");
    CHECK(refused(&r, "which trace?") == 0);
    tcli_result_free(&r);

    TCLI_RUN(r, exe, TIMEOUT_S, "report", in_dir("ddp.ddptrace"), "--png");
    CHECK(refused(&r, "--png") == 0);
    tcli_result_free(&r);

    TCLI_RUN(r, exe, TIMEOUT_S, "report", "--help");
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "--json");
    CHECK_STR_CONTAINS(r.out, "--png FILE.png");
    CHECK_STR_CONTAINS(r.out, "--clock CLOCK");
    CHECK_STR_CONTAINS(r.out, "--from-step K");
    CHECK_STR_CONTAINS(r.out, "exit codes");
    tcli_result_free(&r);
    return 0;
}

// `ddplab report PATH --json --clock CLOCK`, parsed; NULL on failure.
static cJSON *report_json_clock(const char *path, const char *clock) {
    TcliResult r;
    TCLI_RUN(r, exe, TIMEOUT_S, "report", path, "--json", "--clock", clock);
    cJSON *doc = r.rc == 0 ? cJSON_Parse(r.out) : NULL;
    if (doc == NULL)
        tcli_show("ddplab report --json --clock", &r);
    tcli_result_free(&r);
    return doc;
}

static const char *str(const cJSON *o, const char *k) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? v->valuestring : "";
}

// The measured clock: --clock wall counts the wall times as the default
// counts the simulated ones (each rank's parts add up to its total), and
// --clock both gives the simulated figures with the measured ones beside
// them, equal to --clock wall's. The Chrome trace keeps both clocks.
static int test_clocks(void) {
    static const char *keys[] = {"total_s", "compute_s", "exposed_comm_s", "overlap_s",
                                 "idle_s", "comm_busy_s"};
    const char *bin = in_dir("ddp.ddptrace"), *js = in_dir("ddp.json");
    cJSON *sim = report_json(bin), *wall = report_json_clock(bin, "wall"),
          *both = report_json_clock(bin, "both"), *chrome = report_json_clock(js, "both");
    CHECK(sim && wall && both && chrome);
    CHECK(strcmp(str(sim, "clock"), "sim") == 0);
    CHECK(strcmp(str(wall, "clock"), "wall") == 0);
    CHECK(strcmp(str(both, "clock"), "sim") == 0);
    CHECK(check_adds_up(wall, 4) == 0);
    int differ = 0;
    for (int i = 0; i < 4; i++) {
        const cJSON *s = rank_of(sim, i), *w = rank_of(wall, i), *b = rank_of(both, i);
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(b, "measured");
        const cJSON *cm = cJSON_GetObjectItemCaseSensitive(rank_of(chrome, i), "measured");
        CHECK(m != NULL && cm != NULL);
        CHECK(cJSON_GetObjectItemCaseSensitive(s, "measured") == NULL);
        for (int j = 0; j < 6; j++) {
            CHECK_NEAR(num(b, keys[j]), num(s, keys[j]), 0);
            CHECK_NEAR(num(m, keys[j]), num(w, keys[j]), 0);
        }
        CHECK(check_steps(w) == 0);
        double t = num(m, "total_s");
        CHECK(t > 0);
        CHECK_NEAR(num(m, "compute_s") + num(m, "data_wait_s") + num(m, "exposed_comm_s") +
                       num(m, "idle_s"), t, 1e-9 * t);
        CHECK_NEAR(num(cm, "compute_s") + num(cm, "data_wait_s") + num(cm, "exposed_comm_s") +
                       num(cm, "idle_s"), num(cm, "total_s"), 1e-6 * num(cm, "total_s"));
        // host-clock times are not the model's
        differ += num(m, "total_s") != num(s, "total_s");
        differ += fabs(num(cm, "total_s") - num(rank_of(chrome, i), "total_s")) >
                  1e-6 * num(cm, "total_s");
    }
    CHECK_EQ_INT(differ, 8);
    // every kind of op on both clocks, the most measured time first
    const cJSON *ops = cJSON_GetObjectItemCaseSensitive(both, "ops");
    CHECK(cJSON_IsArray(ops) && cJSON_GetArraySize(ops) >= 4);
    CHECK(cJSON_GetObjectItemCaseSensitive(sim, "ops") == NULL);
    int allreduce = 0;
    double prev = INFINITY;
    for (int i = 0; i < cJSON_GetArraySize(ops); i++) {
        const cJSON *k = cJSON_GetArrayItem(ops, i);
        CHECK(num(k, "calls") > 0 && num(k, "sim_s") > 0 && num(k, "wall_s") >= 0);
        CHECK(num(k, "wall_s") <= prev);
        prev = num(k, "wall_s");
        if (strcmp(str(k, "name"), "all_reduce") == 0) {
            allreduce = 1;
            CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(k, "collective")));
            CHECK(num(k, "calls") >= 4 * atoi(steps_arg) && num(k, "bytes") > 0);
        }
    }
    CHECK(allreduce);
    cJSON_Delete(sim);
    cJSON_Delete(wall);
    cJSON_Delete(both);
    cJSON_Delete(chrome);
    TcliResult r;
    TCLI_RUN(r, exe, TIMEOUT_S, "report", bin, "--clock", "both");
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "clock:    simulated");
    CHECK_STR_CONTAINS(r.out, "simulated vs measured, per rank");
    CHECK_STR_CONTAINS(r.out, "on the measured clock");
    CHECK_STR_CONTAINS(r.out, "ops, simulated vs measured");
    CHECK_STR_CONTAINS(r.out, "| all_reduce ");
    tcli_result_free(&r);
    TCLI_RUN(r, exe, TIMEOUT_S, "report", bin, "--clock=wall");
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "clock:    measured");
    CHECK(strstr(r.out, "simulated vs measured") == NULL);
    tcli_result_free(&r);
    TCLI_RUN(r, exe, TIMEOUT_S, "report", bin, "--clock", "gpu");
    CHECK_EQ_INT(r.rc, 2);
    CHECK_STR_CONTAINS(r.err, "--clock: 'gpu' is not a clock (allowed: sim, wall, both)");
    tcli_result_free(&r);
    TCLI_RUN(r, exe, TIMEOUT_S, "report", bin, "--clock");
    CHECK_EQ_INT(r.rc, 2);
    CHECK_STR_CONTAINS(r.err, "--clock");
    tcli_result_free(&r);
    return 0;
}

// --from-step K: each rank's steps from K on, numbered as in the run, each
// rank's total the sum of those steps' times in the full report.
static int test_from_step(void) {
    const char *bin = in_dir("ddp.ddptrace");
    int steps = atoi(steps_arg);
    cJSON *all = report_json(bin);
    TcliResult r;
    TCLI_RUN(r, exe, TIMEOUT_S, "report", bin, "--json", "--from-step", "2");
    CHECK_EQ_INT(r.rc, 0);
    cJSON *late = cJSON_Parse(r.out);
    tcli_result_free(&r);
    CHECK(all && late);
    CHECK_EQ_INT(num(late, "first_step"), 2);
    CHECK_EQ_INT(num(all, "first_step"), 1);
    CHECK_EQ_INT(num(late, "steps"), steps - 1);
    for (int i = 0; i < 4; i++) {
        const cJSON *a = rank_of(all, i), *b = rank_of(late, i);
        const cJSON *sa = cJSON_GetObjectItemCaseSensitive(a, "step_times");
        const cJSON *sb = cJSON_GetObjectItemCaseSensitive(b, "step_times");
        CHECK_EQ_INT(cJSON_GetArraySize(sb), steps - 1);
        CHECK_EQ_INT(num(cJSON_GetArrayItem(sb, 0), "step"), 2);
        double rest = 0;
        for (int j = 1; j < steps; j++)
            rest += num(cJSON_GetArrayItem(sa, j), "total_s");
        CHECK_NEAR(num(b, "total_s"), rest, 1e-9 * (1 + rest));
        CHECK_NEAR(num(cJSON_GetArrayItem(sb, 0), "total_s"),
                   num(cJSON_GetArrayItem(sa, 1), "total_s"), 1e-12);
    }
    CHECK(check_adds_up(late, 4) == 0);
    cJSON_Delete(all);
    cJSON_Delete(late);
    TCLI_RUN(r, exe, TIMEOUT_S, "report", bin, "--from-step", "2");
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "from each rank's step 2 on (--from-step)");
    tcli_result_free(&r);
    TCLI_RUN(r, exe, TIMEOUT_S, "report", bin, "--from-step", "0");
    CHECK_EQ_INT(r.rc, 2);
    CHECK_STR_CONTAINS(r.err, "--from-step: '0' is not a step number");
    tcli_result_free(&r);
    TCLI_RUN(r, exe, TIMEOUT_S, "report", bin, "--from-step", "99");
    CHECK_EQ_INT(r.rc, 2);
    CHECK_STR_CONTAINS(r.err, "none from step 99 on");
    tcli_result_free(&r);
    return 0;
}

// The run's summary line gives the share of communication under compute
// on both clocks, over all ranks: the report's figures, summed.
static int test_run_summary(void) {
    const char *path = in_dir("summary.ddptrace");
    TcliResult r;
    TCLI_RUN(r, exe, TIMEOUT_S, "run", "--strategy", "ddp", "-n", "4", "--data", "blobs",
             "--model", "mlp:16,512,512,512,4", "--steps", "3", "--bucket-cap-mb", "0.5",
             "--trace", path);
    CHECK_EQ_INT(r.rc, 0);
    const char *line = strstr(r.out, "communication under compute: ");
    CHECK(line != NULL);
    double sim_pct = -1, wall_pct = -1;
    CHECK(sscanf(line, "communication under compute: %lf%% simulated, %lf%% measured", &sim_pct,
                 &wall_pct) == 2);
    CHECK_STR_CONTAINS(line, "per rank: ddplab report ");
    tcli_result_free(&r);
    cJSON *doc = report_json_clock(path, "both");
    CHECK(doc != NULL);
    double comm[2] = {0}, over[2] = {0};
    for (int i = 0; i < 4; i++) {
        const cJSON *k = rank_of(doc, i), *m = cJSON_GetObjectItemCaseSensitive(k, "measured");
        comm[0] += num(k, "comm_busy_s"), over[0] += num(k, "overlap_s");
        comm[1] += num(m, "comm_busy_s"), over[1] += num(m, "overlap_s");
    }
    cJSON_Delete(doc);
    CHECK(comm[0] > 0 && comm[1] > 0);
    CHECK_NEAR(sim_pct, 100 * over[0] / comm[0], 0.051);
    CHECK_NEAR(wall_pct, 100 * over[1] / comm[1], 0.051);
    CHECK(sim_pct > 0);
    // without a trace, no line (nothing was recorded to count from)
    TCLI_RUN(r, exe, TIMEOUT_S, "run", "--strategy", "ddp", "-n", "2", "--data", "blobs",
             "--steps", "2");
    CHECK_EQ_INT(r.rc, 0);
    CHECK(strstr(r.out, "communication under compute") == NULL);
    tcli_result_free(&r);
    return 0;
}

int main(int argc, char **argv) {
    exe = tcli_exe_arg(argc, argv);
    if (exe == NULL)
        return 2;
    if (tenv_quick())
        steps_arg = "3";
    if (tfile_mkdtemp(dir, sizeof dir, "report") != 0) {
        fprintf(stderr, "cannot make a temporary directory\n");
        return 1;
    }
    int fails = 0;
    fails += test_ddp();
    fails += test_clocks();
    fails += test_run_summary();
    fails += test_from_step();
    fails += test_slow_rank();
    fails += test_data_wait();
    fails += test_host_column();
    fails += test_bad_inputs();
    tfile_rmtree(dir);
    if (fails == 0)
        printf("test_cli_report: ok\n");
    return fails != 0;
}
