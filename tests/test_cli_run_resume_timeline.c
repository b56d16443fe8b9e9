// tests/test_cli_run_resume_timeline.c: a resumed run takes the simulated time
// of the run that was never interrupted, to the bit, on every rank.
//
// For each strategy and world size: a straight run of N steps (--metrics,
// --trace, --save), and the same run stopped after step k (--stop-after k
// --save) then resumed to N. Required:
//   metrics      every line of the straight run equals the line of the
//                interrupted-and-resumed pair, byte for byte, once the
//                wall-clock fields (wall_s, samples_per_s) are taken out by
//                name; sim_s and mem_peak_bytes included;
//   checkpoint   the final checkpoints are byte-identical (sim_time_s and
//                every rank's timeline in them), shard files too;
//   trace        on every rank, the events the resumed run leaves from its
//                first step on are the straight run's from that time on,
//                each byte for byte but for wall_start and wall_end; less
//                what the first run left after that time and the resumed run
//                does not repeat (a save's own work, and CPU offload's
//                optimizer step, which runs on into the next step on the
//                host stream). The events are compared as multisets because
//                a trace file is sorted by simulated start.
// Also: the resumed run continuing the interrupted run's metrics log (the
// file then reads as the straight run's), --save-every that saved at the
// resumed step (its work is replayed), DDP resumed before its bucket
// rebuild, Join, the loader's workers, an injected fault, a checkpoint
// without a timeline (an older ddplab's: a note, and the run goes on), one
// of another world size (a note), and a corrupt record (refused).
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "formats/safetensors.h"
#include "test_cli_run.h"
#include "test_files.h"

#define TIMEOUT_S 120.0

static const char *exe;
static const char *old_ckpt; // a checkpoint an older ddplab wrote (tests/fuzz/ckpt)
static char dir[512];

// ----------------------------------------------------------------------------
// files

// The lines of text (heap copies; *n of them).
static char **lines_of(const char *path, int *n) {
    char *text = tfile_read(path, NULL);
    *n = 0;
    if (text == NULL)
        return NULL;
    char **out = calloc((size_t)tcli_lines(text) + 1, sizeof *out);
    for (char *line = strtok(text, "\n"); line && out; line = strtok(NULL, "\n"))
        out[(*n)++] = strdup(line);
    free(text);
    return out;
}

static void free_lines(char **l, int n) {
    for (int i = 0; l && i < n; i++)
        free(l[i]);
    free(l);
}

// line without the fields of these names ("name":number, and one comma),
// as a heap string. The fields taken out are wall-clock numbers, never
// strings, so a number's end is the next ',' or '}'.
static char *without(const char *line, const char *const *names, int nnames) {
    char *s = strdup(line);
    for (int k = 0; s && k < nnames; k++) {
        char key[64];
        snprintf(key, sizeof key, "\"%s\":", names[k]);
        char *at = strstr(s, key);
        if (at == NULL)
            continue;
        char *end = at + strlen(key);
        while (*end && *end != ',' && *end != '}')
            end++;
        if (*end == ',')
            end++; // the comma after it
        else if (at > s && at[-1] == ',')
            at--; // the last field: the comma before it
        memmove(at, end, strlen(end) + 1);
    }
    return s;
}

static int same_file(const char *p, const char *q) {
    size_t a = 0, b = 0;
    char *x = tfile_read(p, &a), *y = tfile_read(q, &b);
    int same = x && y && a == b && memcmp(x, y, a) == 0;
    if (!same)
        fprintf(stderr, "%s and %s differ\n", p, q);
    free(x);
    free(y);
    return same;
}

// ----------------------------------------------------------------------------
// the three runs

typedef struct {
    const char *what;
    const char *opts[16]; // NULL-terminated
    int steps, stop, every;
} Case;

// Runs one of the three: "s" straight, "i" interrupted at c->stop, "r"
// resumed from i's checkpoint; each in a folder of its own, with the same
// file names in each (so that indexes naming files compare equal).
static int run_side(const Case *c, const char *side) {
    char d[600], n[16], k[16], e[16], metrics[700], trace[700], ck[700], resume[700];
    snprintf(d, sizeof d, "%s/%s", dir, side);
    mkdir(d, 0700);
    snprintf(metrics, sizeof metrics, "%s/m.jsonl", d);
    snprintf(trace, sizeof trace, "%s/t.jsonl", d);
    snprintf(ck, sizeof ck, "%s/ck.st", d);
    snprintf(resume, sizeof resume, "%s/i/ck.st", dir);
    snprintf(n, sizeof n, "%d", c->steps);
    snprintf(k, sizeof k, "%d", c->stop);
    snprintf(e, sizeof e, "%d", c->every);
    const char *more[20] = {"--steps", n, "--metrics", metrics, "--trace", trace, "--save", ck};
    int m = 8;
    if (c->every > 0) {
        more[m++] = "--save-every";
        more[m++] = e;
    }
    if (strcmp(side, "i") == 0) {
        more[m++] = "--stop-after";
        more[m++] = k;
    } else if (strcmp(side, "r") == 0) {
        // the resumed run writes its checkpoint over the one it resumed
        // from, as a job restarted with the same command line does
        snprintf(ck, sizeof ck, "%s/i/ck.st", dir);
        more[5] = trace;
        more[7] = ck;
        more[m++] = "--resume";
        more[m++] = resume;
    }
    more[m] = NULL;
    return tcli_run_cmd(exe, c->opts, more, TIMEOUT_S);
}

// Straight metrics against the interrupted run's followed by the resumed run's.
static int metrics_agree(void) {
    static const char *const wall[] = {"wall_s", "samples_per_s"};
    char p[3][700];
    int n[3];
    char **l[3];
    const char *side[3] = {"s", "i", "r"};
    for (int k = 0; k < 3; k++) {
        snprintf(p[k], sizeof p[k], "%s/%s/m.jsonl", dir, side[k]);
        l[k] = lines_of(p[k], &n[k]);
    }
    int ok = l[0] && l[1] && l[2] && n[0] == n[1] + n[2] && n[0] > 0;
    if (!ok)
        fprintf(stderr, "metrics: %d lines straight, %d + %d interrupted and resumed\n", n[0],
                n[1], n[2]);
    for (int i = 0; ok && i < n[0]; i++) {
        const char *other = i < n[1] ? l[1][i] : l[2][i - n[1]];
        char *a = without(l[0][i], wall, 2), *b = without(other, wall, 2);
        ok = a && b && strcmp(a, b) == 0 && strstr(a, "wall") == NULL;
        if (!ok)
            fprintf(stderr, "metrics line %d differs:\n  straight %s\n  resumed  %s\n", i + 1,
                    a ? a : "?", b ? b : "?");
        free(a);
        free(b);
    }
    for (int k = 0; k < 3; k++)
        free_lines(l[k], n[k]);
    return ok;
}

// The final checkpoints, and every file an index names.
static int checkpoints_agree(void) {
    char a[700], b[700], err[512];
    snprintf(a, sizeof a, "%s/s/ck.st", dir);
    snprintf(b, sizeof b, "%s/i/ck.st", dir);
    if (!same_file(a, b))
        return 0;
    SimStFile f;
    if (sim_stfile_load(&f, a, err, sizeof err) != SIM_OK) {
        fprintf(stderr, "%s\n", err);
        return 0;
    }
    int ok = sim_stfile_meta(&f, "timeline") != NULL && sim_stfile_meta(&f, "sim_time_s");
    for (int k = 0; ok; k++) {
        char key[32];
        snprintf(key, sizeof key, "file.%d", k);
        const char *name = sim_stfile_meta(&f, key);
        if (name == NULL)
            break;
        snprintf(a, sizeof a, "%s/s/%s", dir, name);
        snprintf(b, sizeof b, "%s/i/%s", dir, name);
        ok = same_file(a, b);
    }
    sim_stfile_free(&f);
    return ok;
}

// One rank's events of a trace file: the lines without their wall times.
typedef struct {
    char **text;
    double *t;    // sim_start
    int n;
    double first; // sim_start of the first "iteration" "begin" marker, or -1
} RankEvents;

static int load_rank(const char *path, int rank, RankEvents *e) {
    static const char *const wall[] = {"wall_start", "wall_end"};
    memset(e, 0, sizeof *e);
    e->first = -1;
    int n = 0;
    char **l = lines_of(path, &n);
    e->text = calloc((size_t)n + 1, sizeof *e->text);
    e->t = calloc((size_t)n + 1, sizeof *e->t);
    int ok = l && e->text && e->t;
    for (int i = 0; ok && i < n; i++) {
        cJSON *j = cJSON_Parse(l[i]);
        const cJSON *r = cJSON_GetObjectItemCaseSensitive(j, "rank");
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(j, "sim_start");
        ok = cJSON_IsNumber(r) && cJSON_IsNumber(t) &&
             cJSON_GetObjectItemCaseSensitive(j, "wall_start") != NULL;
        if (ok && r->valueint == rank) {
            const cJSON *kind = cJSON_GetObjectItemCaseSensitive(j, "kind");
            const cJSON *name = cJSON_GetObjectItemCaseSensitive(j, "name");
            const cJSON *label = cJSON_GetObjectItemCaseSensitive(j, "label");
            if (e->first < 0 && cJSON_IsString(kind) && strcmp(kind->valuestring, "marker") == 0 &&
                cJSON_IsString(name) && strcmp(name->valuestring, "iteration") == 0 &&
                cJSON_IsString(label) && strcmp(label->valuestring, "begin") == 0)
                e->first = t->valuedouble;
            e->t[e->n] = t->valuedouble;
            e->text[e->n++] = without(l[i], wall, 2);
        }
        cJSON_Delete(j);
    }
    free_lines(l, n);
    if (!ok)
        fprintf(stderr, "%s: not a trace of JSON lines with wall times\n", path);
    return ok ? 0 : -1;
}

static void free_rank(RankEvents *e) {
    free_lines(e->text, e->n);
    free(e->t);
    memset(e, 0, sizeof *e);
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

// The events at or after t, sorted (pointers into e).
static char **from(const RankEvents *e, double t, int *n) {
    char **out = calloc((size_t)e->n + 1, sizeof *out);
    *n = 0;
    for (int i = 0; out && i < e->n; i++)
        if (e->t[i] >= t)
            out[(*n)++] = e->text[i];
    if (out)
        qsort(out, (size_t)*n, sizeof *out, cmp_str);
    return out;
}

// a - b as multisets of sorted strings, into out (pointers into a).
static int minus(char **a, int na, char **b, int nb, char **out) {
    int i = 0, j = 0, n = 0;
    while (i < na) {
        int c = j < nb ? strcmp(a[i], b[j]) : -1;
        if (c < 0)
            out[n++] = a[i++];
        else if (c > 0)
            j++;
        else
            i++, j++;
    }
    return n;
}

static int trace_agrees(int nranks) {
    char ps[700], pi[700], pr[700];
    snprintf(ps, sizeof ps, "%s/s/t.jsonl", dir);
    snprintf(pi, sizeof pi, "%s/i/t.jsonl", dir);
    snprintf(pr, sizeof pr, "%s/r/t.jsonl", dir);
    int ok = 1;
    for (int rank = 0; ok && rank < nranks; rank++) {
        RankEvents s, i, r;
        ok = load_rank(ps, rank, &s) == 0 && load_rank(pi, rank, &i) == 0 &&
             load_rank(pr, rank, &r) == 0 && r.first >= 0;
        int ns = 0, ni = 0, nr = 0;
        char **S = ok ? from(&s, r.first, &ns) : NULL, **I = ok ? from(&i, r.first, &ni) : NULL,
             **R = ok ? from(&r, r.first, &nr) : NULL;
        char **extra = calloc((size_t)ni + 1, sizeof *extra), **want = calloc((size_t)ns + 1,
                                                                              sizeof *want);
        ok = ok && S && I && R && extra && want && nr > 0;
        if (ok) {
            // what the first run left from then on and the resumed run does
            // not leave again; the straight run has it too (CPU offload's
            // overhang) or does not (the final save's own work)
            int nx = minus(I, ni, R, nr, extra);
            int nw = minus(S, ns, extra, nx, want);
            ok = nw == nr;
            for (int k = 0; ok && k < nw; k++)
                ok = strcmp(want[k], R[k]) == 0;
            if (!ok) {
                fprintf(stderr, "rank %d: %d events expected from %.17g on, %d in the resumed "
                        "trace\n", rank, nw, r.first, nr);
                int shown = 0;
                char **miss = calloc((size_t)nw + 1, sizeof *miss);
                char **more = calloc((size_t)nr + 1, sizeof *more);
                int nm = miss ? minus(want, nw, R, nr, miss) : 0;
                int np = more ? minus(R, nr, want, nw, more) : 0;
                for (int k = 0; k < nm && shown < 4; k++, shown++)
                    fprintf(stderr, "  missing: %s\n", miss[k]);
                for (int k = 0; k < np && shown < 8; k++, shown++)
                    fprintf(stderr, "  extra:   %s\n", more[k]);
                free(miss);
                free(more);
            }
        }
        free(S);
        free(I);
        free(R);
        free(extra);
        free(want);
        free_rank(&s);
        free_rank(&i);
        free_rank(&r);
    }
    return ok;
}

static int ranks_of(const Case *c) {
    for (int k = 0; c->opts[k]; k++)
        if (strcmp(c->opts[k], "-n") == 0 && c->opts[k + 1])
            return atoi(c->opts[k + 1]);
    return 1;
}

static const char *const sides[3] = {"s", "i", "r"};

static int check_case(const Case *c) {
    // every case starts from empty folders: a metrics log left by the case
    // before would be continued (--resume keeps its lines up to its step)
    for (int k = 0; k < 3; k++)
        tfile_rmtree(tcli_path(dir, sides[k]));
    int ok = run_side(c, "s") == 0 && run_side(c, "i") == 0 && run_side(c, "r") == 0;
    ok = ok && metrics_agree();
    ok = ok && checkpoints_agree();
    ok = ok && trace_agrees(ranks_of(c));
    printf("  %s %s\n", ok ? "same  " : "DIFFER", c->what);
    if (!ok) {
        fprintf(stderr, "case: %s:", c->what);
        for (int k = 0; c->opts[k]; k++)
            fprintf(stderr, " %s", c->opts[k]);
        fprintf(stderr, " (steps %d, stopped after %d, save-every %d)\n", c->steps, c->stop,
                c->every);
    }
    return ok;
}

#define S(...) {__VA_ARGS__, NULL}

// Every strategy that checkpoints, on 1, 2 and 4 ranks where it runs there.
static int test_strategies(void) {
    static const Case cases[] = {
        {"single", S("--strategy", "single"), 10, 5, 0},
        {"ddp on 1", S("--strategy", "ddp", "-n", "1"), 10, 5, 0},
        {"ddp on 2", S("--strategy", "ddp", "-n", "2"), 10, 5, 0},
        {"ddp on 4", S("--strategy", "ddp", "-n", "4"), 10, 5, 0},
        {"fsdp on 1", S("--strategy", "fsdp", "-n", "1"), 10, 5, 0},
        {"fsdp on 2", S("--strategy", "fsdp", "-n", "2"), 10, 5, 0},
        {"fsdp on 4", S("--strategy", "fsdp", "-n", "4"), 10, 5, 0},
        {"zero1 on 2", S("--strategy", "zero1", "-n", "2"), 10, 5, 0},
        {"zero1 on 4", S("--strategy", "zero1", "-n", "4"), 10, 5, 0},
        {"zero2 on 2", S("--strategy", "zero2", "-n", "2"), 10, 5, 0},
        {"zero2 on 4", S("--strategy", "zero2", "-n", "4"), 10, 5, 0},
        {"zero3 on 2", S("--strategy", "zero3", "-n", "2"), 10, 5, 0},
        {"zero3 on 4", S("--strategy", "zero3", "-n", "4"), 10, 5, 0},
        {"dp on 2", S("--strategy", "dp", "-n", "2"), 10, 5, 0},
        {"dp on 4", S("--strategy", "dp", "-n", "4"), 10, 5, 0},
        {"layer-owner on 4", S("--strategy", "layer-owner", "-n", "4"), 10, 5, 0},
    };
    int bad = 0;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        bad += !check_case(&cases[k]);
    CHECK_EQ_INT(bad, 0);
    return 0;
}

// What else the timeline holds: the rebuild not yet done, the loader's
// prefetches, a save that the uninterrupted run made at the resumed step,
// host work running past the step, Join's state, a fault's shown event.
static int test_more(void) {
    static const Case cases[] = {
        {"ddp stopped before its bucket rebuild", S("--strategy", "ddp", "-n", "4"), 6, 1, 0},
        {"ddp with static_graph, stopped before its rebuild",
         S("--strategy", "ddp", "-n", "2", "--static-graph"), 6, 1, 0},
        {"ddp with 4 loader workers and prefetch 2",
         S("--strategy", "ddp", "-n", "2", "--sample-cost", "5e-6", "--loader-workers", "4"), 12,
         5, 0},
        {"fsdp, --save-every saving at the resumed step", S("--strategy", "fsdp", "-n", "4"), 10,
         4, 2},
        {"fsdp sharded state dict, --save-every saving at the resumed step",
         S("--strategy", "fsdp", "-n", "4", "--state-dict", "sharded"), 10, 4, 4},
        {"zero1, --save-every not saving at the resumed step", S("--strategy", "zero1", "-n", "2"),
         10, 5, 3},
        {"layer-owner, --save-every saving at the resumed step",
         S("--strategy", "layer-owner", "-n", "2"), 8, 4, 2},
        {"fsdp with cpu offload (the host step runs into the next)",
         S("--strategy", "fsdp", "-n", "2", "--cpu-offload"), 8, 3, 0},
        {"ddp with Join over uneven inputs",
         S("--strategy", "ddp", "-n", "4", "--uneven", "2", "--join", "--data", "blobs:n=1024"),
         20, 7, 0},
        {"ddp with a slow rank", S("--strategy", "ddp", "-n", "4", "--fault",
                                   "slow-rank:rank=2,factor=3"), 8, 3, 0},
        {"ddp with fp16, accumulation and adamw",
         S("--strategy", "ddp", "-n", "2", "--amp", "fp16", "--accum", "2", "--optimizer",
           "adamw"), 8, 3, 0},
    };
    int bad = 0;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        bad += !check_case(&cases[k]);
    CHECK_EQ_INT(bad, 0);
    return 0;
}

// The resumed run continuing the interrupted run's own metrics log (it
// keeps the lines up to its step): the file then reads as the straight
// run's, line for line, but for the wall-clock fields.
static int test_one_metrics_log(void) {
    static const char *const wall[] = {"wall_s", "samples_per_s"};
    char straight[700], log[700], ck[700], ck2[700];
    snprintf(straight, sizeof straight, "%s/straight.jsonl", dir);
    snprintf(log, sizeof log, "%s/log.jsonl", dir);
    snprintf(ck, sizeof ck, "%s/log.st", dir);
    snprintf(ck2, sizeof ck2, "%s/straight.st", dir);
    const char *opts[] = {"--strategy", "ddp", "-n", "4", "--steps", "10", NULL};
    const char *a[] = {"--metrics", straight, "--save", ck2, NULL};
    const char *b[] = {"--stop-after", "4", "--metrics", log, "--save", ck, NULL};
    const char *c[] = {"--resume", ck, "--metrics", log, "--save", ck, NULL};
    CHECK_EQ_INT(tcli_run_cmd(exe, opts, a, TIMEOUT_S), 0);
    CHECK_EQ_INT(tcli_run_cmd(exe, opts, b, TIMEOUT_S), 0);
    CHECK_EQ_INT(tcli_run_cmd(exe, opts, c, TIMEOUT_S), 0);
    int na = 0, nb = 0;
    char **la = lines_of(straight, &na), **lb = lines_of(log, &nb);
    int ok = la && lb && na == 10 && nb == 10;
    for (int i = 0; ok && i < na; i++) {
        char *x = without(la[i], wall, 2), *y = without(lb[i], wall, 2);
        ok = x && y && strcmp(x, y) == 0;
        if (!ok)
            fprintf(stderr, "line %d:\n  straight %s\n  log      %s\n", i + 1, x ? x : "?",
                    y ? y : "?");
        free(x);
        free(y);
    }
    free_lines(la, na);
    free_lines(lb, nb);
    CHECK(ok);
    CHECK(same_file(ck, ck2));
    return 0;
}

// ----------------------------------------------------------------------------
// checkpoints whose timeline cannot be used

// A checkpoint an older ddplab wrote (no timeline): it resumes, with a note.
static int test_old_checkpoint(void) {
    TcliResult r;
    TCLI_RUN(r, exe, TIMEOUT_S, "run", "--model", "mlp:4,8,3,bn", "--data",
             "blobs:n=64,features=4,classes=3", "--batch", "8", "--steps", "4", "--resume",
             old_ckpt);
    int ok = r.rc == 0 && strstr(r.err, "ddplab run: --resume: note: ") &&
             strstr(r.err, "holds no timeline (an older ddplab wrote it") &&
             strstr(r.err, "every rank's clock resumes at the saved 0.000200007943 s") &&
             strstr(r.out, "resumed");
    if (!ok)
        tcli_show("resuming an older checkpoint", &r);
    tcli_result_free(&r);
    CHECK(ok);
    return 0;
}

// A DDP checkpoint of 4 ranks resumed on 2: the note says whose timeline.
static int test_other_world(void) {
    char ck[700];
    snprintf(ck, sizeof ck, "%s/four.st", dir);
    const char *a[] = {"--strategy", "ddp", "-n", "4", "--steps", "2", "--save", ck, NULL};
    CHECK_EQ_INT(tcli_run_cmd(exe, a, NULL, TIMEOUT_S), 0);
    TcliResult r;
    TCLI_RUN(r, exe, TIMEOUT_S, "run", "--strategy", "ddp", "-n", "2", "--steps", "3",
             "--resume", ck);
    int ok = r.rc == 0 && strstr(r.err, "holds the timeline of ddp (version 1) on 4 ranks; "
                                        "this run is ddp (version 1) on 2");
    if (!ok)
        tcli_show("resuming at another world size", &r);
    tcli_result_free(&r);
    CHECK(ok);
    return 0;
}

// A copy of src with metadata key `key` set to `value`, checksummed anew.
static int rewrite_meta(const char *src, const char *dst, const char *key, const char *value) {
    SimStFile f;
    char err[512];
    if (sim_stfile_load(&f, src, err, sizeof err) != SIM_OK) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    SimStMeta *m = calloc((size_t)f.nmeta + 1, sizeof *m);
    int n = 0;
    for (int i = 0; m && i < f.nmeta; i++) {
        if (strcmp(f.meta[i].key, "checksum") == 0)
            continue;
        m[n] = f.meta[i];
        if (strcmp(m[n].key, key) == 0)
            m[n].value = value;
        n++;
    }
    int rc = m && sim_stfile_save(dst, f.tensors, f.ntensors, m, n, err, sizeof err) == SIM_OK
                 ? 0
                 : -1;
    if (rc != 0)
        fprintf(stderr, "rewriting %s: %s\n", src, err);
    free(m);
    sim_stfile_free(&f);
    return rc;
}

// A record that does not read back is refused as corrupt metadata (the
// checksum is right: a file made so on purpose).
static int test_corrupt_record(void) {
    char ck[700], bad[700];
    snprintf(ck, sizeof ck, "%s/two.st", dir);
    snprintf(bad, sizeof bad, "%s/two-bad.st", dir);
    const char *a[] = {"--strategy", "ddp", "-n", "2", "--steps", "2", "--save", ck, NULL};
    CHECK_EQ_INT(tcli_run_cmd(exe, a, NULL, TIMEOUT_S), 0);
    CHECK_EQ_INT(rewrite_meta(ck, bad, "timeline.1", "clock=1,2 host_step_end=x"), 0);
    TcliResult r;
    TCLI_RUN(r, exe, TIMEOUT_S, "run", "--strategy", "ddp", "-n", "2", "--steps", "3",
             "--resume", bad);
    int ok = tcli_refused(&r, "ddplab run: ", "corrupt metadata: rank 1's timeline does not "
                                              "read back") == 0;
    tcli_result_free(&r);
    CHECK(ok);
    return 0;
}

int main(int argc, char **argv) {
    exe = tcli_exe_arg(argc, argv);
    old_ckpt = argc > 2 ? argv[2] : NULL;
    if (exe == NULL || old_ckpt == NULL || tfile_mkdtemp(dir, sizeof dir, "resumetl") != 0) {
        fprintf(stderr, "usage: %s PATH/TO/ddplab OLD-CHECKPOINT\n", argv[0]);
        return 2;
    }
    int failures = 0;
    RUN(test_strategies);
    RUN(test_more);
    RUN(test_one_metrics_log);
    RUN(test_old_checkpoint);
    RUN(test_other_world);
    RUN(test_corrupt_record);
    for (int k = 0; k < 3; k++)
        tfile_rmtree(tcli_path(dir, sides[k]));
    tfile_rmtree(dir);
    return failures ? 1 : 0;
}
