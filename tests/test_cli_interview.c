// tests/test_cli_interview.c: `ddplab interview` run as a user runs it: a
// fixed seed asks the same questions every time (golden first lines), the
// expected answers score count/count, scripted wrong answers score 0,
// answers inside the stated tolerance pass and outside fail, every topic
// generates, bad options are refused with exit code 2 and a message naming
// the option, and the command each question prints runs with the built
// ddplab, ends with the exit code it is meant to, and shows the question's
// own numbers; so does the command of every item of the multiple-choice
// topics (failures and the conceptual ones).
//
// Usage: test_cli_interview PATH/TO/ddplab
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "learn/interview.h"
#include "test_cli_run.h"
#include "test_env.h"
#include "test_files.h"

static const char *exe;
static char scratch[512];

// The first lines of `ddplab interview --seed 1 --count 6 --non-interactive`.
static const char *const golden_seed1 =
    "ddplab interview: 6 questions, seed 1\n"
    "topics: memory, collectives, batch, buckets, sharding, failures, strategies,\n"
    "        precision, launching, loop, resilience\n"
    "again: ddplab interview --seed 1 --count 6\n"
    "answers: the number(s) asked, or a letter; empty or 'skip' skips; 'quit' stops\n"
    "\n"
    "[1/6] strategies\n"
    "  What changes in how parameters are stored when a model moves from FSDP1\n"
    "  (FullyShardedDataParallel) to FSDP2 (fully_shard)?\n"
    "  a) Each parameter is split on its last dimension, so a rank holds some\n"
    "     columns of every weight\n"
    "  b) No flat parameter: each parameter is chunked on dim 0 over the ranks and\n"
    "     padded on its own, so a rank holds a row slice of every parameter\n"
    "  c) The parameters are replicated again and only the optimizer state is\n"
    "     sharded, as in ZeRO-1\n"
    "  d) Each rank holds whole parameters, handed out round robin, so every layer\n"
    "     lives on one rank\n"
    "  answer: a letter, a-d\n"
    "answer> b\n"
    "  right: b) No flat parameter: each parameter is chunked on dim 0 over the\n";

// The first question of `--seed 2024 --topic failures --count 2`: the
// choices in the order the seed shuffles them.
static const char *const golden_failures =
    "[1/2] failures\n"
    "  FSDP FULL_SHARD accumulates gradients over 4 micro-batches with no_sync() on\n"
    "  the first 3. What does no_sync cost here?\n"
    "  a) The optimizer steps after every micro-batch anyway\n"
    "  b) Every rank keeps the whole unsharded gradient between micro-batches, a\n"
    "     full gradient's memory instead of a 1/R shard\n"
    "  c) FSDP ignores no_sync under FULL_SHARD and reduce-scatters after every\n"
    "     micro-batch anyway, so nothing at all is saved by it\n"
    "  d) Nothing: the gradients stay sharded and only communication is saved\n"
    "  answer: a letter, a-d\n"
    "answer> b\n";

#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

// The output with the table rules and runs of white space made single
// spaces, so wrapped table cells read as one line.
static char *flatten(const char *s) {
    size_t n = strlen(s);
    char *o = malloc(n + 1);
    size_t k = 0;
    int space = 0;
    for (size_t i = 0; o && i < n; i++) {
        char c = s[i];
        if (c == '|' || c == '\n' || c == '\t' || c == ' ') {
            space = 1;
            continue;
        }
        if (space && k > 0)
            o[k++] = ' ';
        space = 0;
        o[k++] = c;
    }
    if (o)
        o[k] = '\0';
    return o;
}

// Runs `exe interview args... --non-interactive`-style argument lists.
#define IV_RUN(res, ...) TCLI_RUN(res, exe, 120, "interview", __VA_ARGS__)

static int test_golden(void) {
    TcliResult a, b;
    IV_RUN(a, "--seed", "1", "--count", "6", "--non-interactive");
    IV_RUN(b, "--seed", "1", "--count", "6", "--non-interactive");
    CHECK_EQ_INT(a.rc, 0);
    CHECK_EQ_INT(b.rc, 0);
    CHECK(strcmp(a.out, b.out) == 0); // the same questions every time
    if (strncmp(a.out, golden_seed1, strlen(golden_seed1)) != 0) {
        fprintf(stderr, "golden mismatch; got:\n%.*s\n", (int)strlen(golden_seed1) + 200,
                a.out);
        return 1;
    }
    CHECK_EQ_INT(a.err[0], '\0');
    tcli_result_free(&a);
    tcli_result_free(&b);
    TcliResult f;
    IV_RUN(f, "--seed", "2024", "--topic", "failures", "--count", "2", "--non-interactive");
    CHECK_EQ_INT(f.rc, 0);
    const char *q = strstr(f.out, "[1/2] failures");
    CHECK(q != NULL);
    if (strncmp(q, golden_failures, strlen(golden_failures)) != 0) {
        fprintf(stderr, "golden mismatch; got:\n%.*s\n", (int)strlen(golden_failures) + 100, q);
        return 1;
    }
    tcli_result_free(&f);
    // another seed asks something else
    TcliResult c;
    IV_RUN(c, "--seed", "2", "--count", "6", "--non-interactive");
    CHECK_EQ_INT(c.rc, 0);
    CHECK(strcmp(strstr(c.out, "[1/6]"), strstr(golden_seed1, "[1/6]")) != 0);
    tcli_result_free(&c);
    return 0;
}

// --non-interactive answers right every time: count/count, for several seeds.
static int test_full_score(void) {
    static const char *const seeds[] = {"1", "2", "3", "99", "12345", "777"};
    int nseeds = tenv_quick() ? 2 : NELEM(seeds);
    for (int i = 0; i < nseeds; i++) {
        TcliResult r;
        char count[16], score[64];
        snprintf(count, sizeof count, "%d", 2 * IV_TOPIC_COUNT);
        snprintf(score, sizeof score, "score: %d/%d right, 0 skipped, 0 wrong\n",
                 2 * IV_TOPIC_COUNT, 2 * IV_TOPIC_COUNT);
        IV_RUN(r, "--seed", seeds[i], "--count", count, "--non-interactive");
        CHECK_EQ_INT(r.rc, 0);
        CHECK_STR_CONTAINS(r.out, score);
        // the topics take turns: two questions each
        for (int t = 0; t < IV_TOPIC_COUNT; t++) {
            char line[64];
            snprintf(line, sizeof line, "  %-12s 2/2 right, 0 skipped\n",
                     iv_topic_name((IvTopic)t));
            CHECK_STR_CONTAINS(r.out, line);
        }
        CHECK(strstr(r.out, "wrong:") == NULL);
        tcli_result_free(&r);
    }
    return 0;
}

// The questions a drill asks, from the library (the same code the program runs).
static int drill(uint64_t seed, int count, IvQuestion *qs) {
    IvTopic all[IV_TOPIC_COUNT], topic_of[64];
    uint64_t seeds[64];
    int ordinals[64];
    for (int t = 0; t < IV_TOPIC_COUNT; t++)
        all[t] = (IvTopic)t;
    uint64_t asked[64];
    iv_plan_drill(seed, all, IV_TOPIC_COUNT, count, topic_of, seeds, ordinals);
    for (int i = 0; i < count; i++) {
        char err[256];
        if (iv_generate_fresh(topic_of[i], seeds[i], ordinals[i], count, asked, i, &qs[i], err,
                              sizeof err) != 0) {
            fprintf(stderr, "question %d: %s\n", i, err);
            return 1;
        }
        asked[i] = iv_text_hash(qs[i].text);
    }
    return 0;
}

// A long drill of one topic asks no question twice, where plain draws of
// seed 9 meet (two ask the same all_reduce timing).
static int test_no_repeats(void) {
    enum { N = 40 };
    IvTopic one = IV_COLLECTIVES, topic_of[N];
    uint64_t seeds[N], asked[N];
    int ordinals[N], plain_repeats = 0;
    iv_plan_drill(9, &one, 1, N, topic_of, seeds, ordinals);
    for (int i = 0; i < N; i++) {
        IvQuestion q;
        char err[256];
        CHECK(iv_generate(topic_of[i], seeds[i], ordinals[i], &q, err, sizeof err) == 0);
        for (int k = 0; k < i; k++)
            plain_repeats += asked[k] == iv_text_hash(q.text);
        CHECK(iv_generate_fresh(topic_of[i], seeds[i], ordinals[i], N, asked, i, &q, err,
                                sizeof err) == 0);
        asked[i] = iv_text_hash(q.text);
        for (int k = 0; k < i; k++)
            CHECK(asked[k] != asked[i]);
    }
    CHECK(plain_repeats > 0); // the case this guards against does happen
    return 0;
}

// Writes one answer line per question: how = 0 wrong, 1 inside the
// tolerance, 2 just outside it.
static int write_answers(const char *path, const IvQuestion *qs, int count, int how) {
    char text[8192] = "";
    for (int i = 0; i < count; i++) {
        const IvQuestion *q = &qs[i];
        if (q->nvalues == 0) {
            int c = how == 1 ? q->correct : (q->correct + 1) % IV_NCHOICES;
            iv_append(text, sizeof text, "%c\n", 'a' + c);
            continue;
        }
        for (int k = 0; k < q->nvalues; k++) {
            const IvValue *v = &q->val[k];
            double tol = fmax(v->rel_tol * fabs(v->value), v->abs_tol), x;
            if (how == 0)
                x = v->value * 3 + 11;
            else if (how == 1)
                x = v->value + 0.9 * tol;
            else
                x = v->value + 1.5 * tol + (tol == 0 ? 1 : 0);
            iv_append(text, sizeof text, "%s%.12g", k ? " " : "", x);
        }
        iv_append(text, sizeof text, "\n");
    }
    return tfile_write(path, text, strlen(text));
}

static int test_scripted_answers(void) {
    enum { COUNT = 12 };
    IvQuestion qs[COUNT];
    CHECK(drill(7, COUNT, qs) == 0);
    const char *path = tcli_path(scratch, "answers.txt");
    static const char *const expect[3] = {"score: 0/12 right, 0 skipped, 12 wrong\n",
                                          "score: 12/12 right, 0 skipped, 0 wrong\n",
                                          "score: 0/12 right, 0 skipped, 12 wrong\n"};
    for (int how = 0; how < 3; how++) {
        CHECK(write_answers(path, qs, COUNT, how) == 0);
        TcliResult r;
        IV_RUN(r, "--seed", "7", "--count", "12", "--answers", path);
        CHECK_EQ_INT(r.rc, 0);
        CHECK_STR_CONTAINS(r.out, expect[how]);
        // the answers are echoed after the prompts
        CHECK_STR_CONTAINS(r.out, "answer> ");
        tcli_result_free(&r);
    }
    // skip, an empty line, a bad letter, then quit
    const char *lines = "skip\n\nz\nquit\n";
    CHECK(tfile_write(path, lines, strlen(lines)) == 0);
    TcliResult r;
    IV_RUN(r, "--seed", "7", "--count", "12", "--topic", "failures", "--answers", path);
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "(quit: the drill stops after 3 questions)");
    CHECK_STR_CONTAINS(r.out, "score: 0/3 right, 2 skipped, 1 wrong\n");
    CHECK_STR_CONTAINS(r.out, "'z' is not one of the letters a-d");
    tcli_result_free(&r);
    // fewer answers than questions: the drill stops at the end of the file
    const char *two = "1\n2\n";
    CHECK(tfile_write(path, two, strlen(two)) == 0);
    IV_RUN(r, "--seed", "7", "--count", "5", "--answers", path);
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "(end of the answers: the drill stops after 2 questions)");
    CHECK_STR_CONTAINS(r.out, "/2 right");
    tcli_result_free(&r);
    // stdin at its end at once (the helper closes it): nothing asked, exit 0
    IV_RUN(r, "--seed", "7", "--count", "3");
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "the drill stops after 0 questions");
    CHECK_STR_CONTAINS(r.out, "score: 0/0 right");
    tcli_result_free(&r);
    return 0;
}

static int test_topics(void) {
    for (int t = 0; t < IV_TOPIC_COUNT; t++) {
        const char *name = iv_topic_name((IvTopic)t);
        TcliResult r;
        IV_RUN(r, "--topic", name, "--count", "3", "--seed", "11", "--non-interactive");
        CHECK_EQ_INT(r.rc, 0);
        char h[96];
        for (int i = 1; i <= 3; i++) {
            snprintf(h, sizeof h, "[%d/3] %s\n", i, name);
            CHECK_STR_CONTAINS(r.out, h);
        }
        CHECK_STR_CONTAINS(r.out, "score: 3/3 right, 0 skipped, 0 wrong\n");
        snprintf(h, sizeof h, "again: ddplab interview --seed 11 --count 3 --topic %s\n",
                 name);
        CHECK_STR_CONTAINS(r.out, h); // the repeat command names the topic
        tcli_result_free(&r);
    }
    TcliResult r;
    IV_RUN(r, "--topic", "failures,memory", "--count", "4", "--seed", "5", "--non-interactive");
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "  memory       2/2 right, 0 skipped\n");
    CHECK_STR_CONTAINS(r.out, "  failures     2/2 right, 0 skipped\n");
    tcli_result_free(&r);
    // without --seed: a seed from the clock, printed so the drill can be repeated
    IV_RUN(r, "--count", "1", "--non-interactive");
    CHECK_EQ_INT(r.rc, 0);
    const char *s = strstr(r.out, " question, seed ");
    CHECK(s != NULL);
    unsigned long long seed = strtoull(s + 16, NULL, 10);
    char again[96];
    snprintf(again, sizeof again, "\nagain: ddplab interview --seed %llu --count 1\n", seed);
    CHECK_STR_CONTAINS(r.out, again);
    tcli_result_free(&r);
    return 0;
}

static int test_bad_options(void) {
    static const struct {
        const char *args[4];
        const char *says;
    } cases[] = {
        {{"--count", "0"}, "--count: '0' is not a number of questions; allowed: a whole number "
                           "from 1 to 1000"},
        {{"--count", "1001"}, "--count: '1001'"},
        {{"--count", "ten"}, "--count: 'ten'"},
        {{"--count"}, "--count: missing value"},
        {{"--topic", "gpus"}, "--topic: 'gpus' is not a topic; allowed: memory, collectives, "
                              "batch, buckets, sharding, failures, strategies, precision, "
                              "launching, loop, resilience, all"},
        {{"--topic", "memory,gpus"}, "--topic: 'gpus' is not a topic"},
        {{"--topic", ","}, "--topic: ',' names no topic"},
        {{"--seed", "-3"}, "--seed: '-3' is not a seed"},
        {{"--seed", "1e3"}, "--seed: '1e3' is not a seed"},
        {{"--seed", "99999999999999999999999"}, "--seed: '99999999999999999999999'"},
        {{"--answers", "/nonexistent/answers.txt"}, "--answers: cannot read "
                                                    "'/nonexistent/answers.txt'"},
        {{"--answers", "a.txt", "--non-interactive"}, "cannot be combined with "
                                                      "--non-interactive"},
        {{"--non-interactive=yes"}, "--non-interactive: takes no value"},
        {{"--ranks", "8"}, "'--ranks' is not an option; allowed: see 'ddplab interview --help'"},
        {{"extra"}, "'extra' is not an option"},
    };
    for (int i = 0; i < NELEM(cases); i++) {
        const char *argv[6] = {"interview"};
        int n = 1;
        for (int k = 0; k < 4 && cases[i].args[k]; k++)
            argv[n++] = cases[i].args[k];
        argv[n] = NULL;
        TcliResult r;
        tcli_run(&r, exe, argv, 30);
        if (r.rc != 2 || !strstr(r.err, cases[i].says) || r.out[0]) {
            fprintf(stderr, "case %d: rc %d, stderr: %s\nstdout: %s\n", i, r.rc, r.err, r.out);
            return 1;
        }
        CHECK(strncmp(r.err, "ddplab interview: ", 18) == 0);
        CHECK_EQ_INT(tcli_lines(r.err), 1);
        tcli_result_free(&r);
    }
    TcliResult r;
    IV_RUN(r, "--help");
    CHECK_EQ_INT(r.rc, 0);
    for (int t = 0; t < IV_TOPIC_COUNT; t++)
        CHECK_STR_CONTAINS(r.out, iv_topic_name((IvTopic)t));
    CHECK_STR_CONTAINS(r.out, "--non-interactive");
    CHECK_STR_CONTAINS(r.out, "--answers FILE");
    CHECK_STR_CONTAINS(r.out, "exit codes:");
    tcli_result_free(&r);
    // the program's overview lists the command with an example
    const char *overview[] = {"--help", NULL};
    tcli_run(&r, exe, overview, 30);
    CHECK_STR_CONTAINS(r.out, "interview a drill of interview questions");
    CHECK_STR_CONTAINS(r.out, "example: ddplab interview --topic memory,buckets --count 5");
    tcli_result_free(&r);
    return 0;
}

// ----------------------------------------------------------------------------
// the printed commands run

// Splits "ddplab a b c" into args (pointers into buf); returns the count.
static int split(char *buf, const char **args, int max) {
    int n = 0;
    for (char *save = NULL, *t = strtok_r(buf, " ", &save); t && n < max;
         t = strtok_r(NULL, " ", &save))
        args[n++] = t;
    args[n] = NULL;
    return n;
}

// The value plan prints on its "formula:" line, in GB.
static double plan_formula_gb(const char *out) {
    const char *f = strstr(out, "\n  formula: ");
    if (!f)
        return -1;
    const char *eol = strchr(f + 1, '\n');
    const char *colon = NULL;
    for (const char *p = f + 11; p < eol; p++)
        if (*p == ':')
            colon = p;
    if (!colon)
        return -1;
    char unit[8] = "";
    double x = 0;
    if (sscanf(colon + 1, "%lf %7s", &x, unit) != 2)
        return -1;
    return x * (strcmp(unit, "GB") == 0 ? 1 : strcmp(unit, "MB") == 0 ? 1e-3 : 1e-6);
}

// What the command's output must show of the question's own numbers.
static int check_numbers(const IvQuestion *q, const char *out) {
    char want[256];
    char *flat = flatten(out);
    CHECK(flat != NULL);
    int rc = 0;
    switch (q->topic) {
    case IV_MEMORY: {
        double gb = plan_formula_gb(out);
        double v = q->val[0].value;
        if (!(fabs(gb - v) <= fmax(0.011, 0.005 * v))) {
            fprintf(stderr, "plan's formula says %g GB, the question %g GB\n", gb, v);
            rc = 1;
        }
        break;
    }
    case IV_BUCKETS:
        snprintf(want, sizeof want, "iteration 0 (initial plan): %.0f bucket%s\n",
                 q->val[0].value, q->val[0].value == 1 ? "" : "s");
        if (!strstr(out, want))
            rc = 1;
        snprintf(want, sizeof want, "rebuilt after the first backward from the gradient-ready "
                 "order: %.0f bucket", q->val[1].value);
        if (!strstr(out, want))
            rc = 1;
        break;
    case IV_BATCH:
        if (strstr(q->command, "--lr-scale")) {
            snprintf(want, sizeof want, "%.0f samples per optimizer step", q->val[0].value);
            if (!strstr(flat, want))
                rc = 1;
            snprintf(want, sizeof want, "= %g (linear scaling rule)", q->val[1].value);
        } else {
            snprintf(want, sizeof want, "(%.0f batches per epoch", q->val[1].value);
        }
        if (!strstr(flat, want))
            rc = 1;
        break;
    case IV_SHARDING:
        if (strstr(q->command, "--print-units")) {
            // | unit | module | params | elements | padded | per rank |
            double per = q->val[0].value, pad = q->val[1].value;
            int n = 0;
            sscanf(strstr(q->command, " -n ") + 4, "%d", &n);
            snprintf(want, sizeof want, "| 1 | 0 | 2 | %.0f | %.0f | %.0f |", per * n - pad,
                     per * n, per);
            if (!strstr(out, want))
                rc = 1;
        } else {
            snprintf(want, sizeof want, "gradients divided by %g before and %g after",
                     q->val[0].value, q->val[1].value);
            if (!strstr(flat, want))
                rc = 1;
        }
        break;
    case IV_COLLECTIVES:
        if (!strstr(out, "# Out of bounds values : 0 OK"))
            rc = 1;
        snprintf(want, sizeof want, "# ddplab bench: %s", strstr(q->command, "-c ") + 3);
        *strchr(want + 16, ' ') = '\0';
        if (!strstr(out, want))
            rc = 1;
        break;
    default:
        break;
    }
    if (rc)
        fprintf(stderr, "`%s` does not show \"%s\":\n%s\n", q->command, want, out);
    free(flat);
    return rc;
}

// Runs q's command; checks its exit code and, for exit 0, its numbers.
static int run_command(const IvQuestion *q) {
    char buf[400];
    const char *args[64];
    snprintf(buf, sizeof buf, "%s", q->command);
    int n = split(buf, args, 62);
    CHECK(n >= 2 && strcmp(args[0], "ddplab") == 0);
    TcliResult r;
    tcli_run(&r, exe, args + 1, 120);
    if (r.rc < 0 || r.rc > 31 || !(q->command_exits & IV_EXIT(r.rc))) {
        fprintf(stderr, "`%s` exited %d (allowed mask %#x)\nstderr: %s\n", q->command, r.rc,
                q->command_exits, r.err);
        tcli_result_free(&r);
        return 1;
    }
    int rc = 0;
    if (q->nvalues > 0 && (r.rc == 0 || q->topic == IV_MEMORY))
        rc = check_numbers(q, r.out);
    tcli_result_free(&r);
    return rc;
}

static int test_commands(void) {
    // the commands run from the scratch directory: checkpoints land there
    char cwd[1024];
    CHECK(getcwd(cwd, sizeof cwd) != NULL);
    CHECK(chdir(scratch) == 0);
    int fails = 0, ran = 0;
    int per_topic = tenv_quick() ? 2 : 6;
    for (int t = 0; t < IV_TOPIC_COUNT; t++) {
        int nitems;
        if (iv_choice_items((IvTopic)t, &nitems) != NULL)
            continue; // multiple choice: every item below
        for (int s = 0; s < per_topic; s++) {
            IvQuestion q;
            char err[256];
            uint64_t seed = 1000003ull * (uint64_t)(t + 1);
            CHECK(iv_generate((IvTopic)t, seed, s, &q, err, sizeof err) == 0);
            fails += run_command(&q);
            ran++;
        }
    }
    // every item of every multiple-choice topic, its command as printed
    for (int t = 0; t < IV_TOPIC_COUNT; t++) {
        int nitems;
        const IvChoiceItem *items = iv_choice_items((IvTopic)t, &nitems);
        for (int i = 0; items && i < nitems; i++) {
            IvQuestion q;
            SimSplitMix g;
            sim_splitmix_seed(&g, (uint64_t)i);
            memset(&q, 0, sizeof q);
            iv_choice_fill(&items[i], (IvTopic)t, &g, &q);
            fails += run_command(&q);
            ran++;
        }
    }
    // the program prints the same commands: those of a drill appear in its output
    TcliResult r;
    IV_RUN(r, "--seed", "3", "--count", "12", "--non-interactive");
    IvQuestion qs[12];
    CHECK(drill(3, 12, qs) == 0);
    for (int i = 0; i < 12; i++) {
        char line[460];
        snprintf(line, sizeof line, "  see it: %s\n", qs[i].command);
        CHECK_STR_CONTAINS(r.out, line);
        fails += run_command(&qs[i]);
        ran++;
    }
    tcli_result_free(&r);
    CHECK(chdir(cwd) == 0);
    printf("  %d commands run, %d failed\n", ran, fails);
    CHECK_EQ_INT(fails, 0);
    return 0;
}

int main(int argc, char **argv) {
    const char *given = tcli_exe_arg(argc, argv);
    if (!given)
        return 2;
    // an absolute path: test_commands runs the commands from a scratch directory
    static char abs_exe[4096];
    char cwd[2048];
    exe = given;
    if (given[0] != '/' && getcwd(cwd, sizeof cwd)) {
        snprintf(abs_exe, sizeof abs_exe, "%s/%s", cwd, given);
        exe = abs_exe;
    }
    if (tfile_mkdtemp(scratch, sizeof scratch, "interview") != 0) {
        fprintf(stderr, "cannot make a scratch directory\n");
        return 1;
    }
    int failures = 0;
    RUN(test_golden);
    RUN(test_no_repeats);
    RUN(test_full_score);
    RUN(test_scripted_answers);
    RUN(test_topics);
    RUN(test_bad_options);
    RUN(test_commands);
    tfile_rmtree(scratch);
    return failures ? 1 : 0;
}
