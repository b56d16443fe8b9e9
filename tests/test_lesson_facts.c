// tests/test_lesson_facts.c: the lesson player's parts in-process: every
// fact of lessons/FORMAT.md computed from a known run and checked against
// what the run printed (--print-buckets, --print-units, the final loss, the
// simulated time) or against the trace read independently here (rank 0's
// memory peak, its exposed communication from the raw intervals); out:REGEX
// in all its forms; the argv a block runs with; grading; the progress file.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "learn/lesson.h"
#include "learn/lesson_facts.h"
#include "learn/lesson_grade.h"
#include "learn/lesson_progress.h"
#include "learn/lesson_text.h"
#include "lesson/lesson_run.h"
#include "test_files.h"

static const char *const header = "---\nid: t\ntitle: t\ndifficulty: beginner\n"
                                  "prerequisites:\nminutes: 1\ntrack: lessons\n---\n\n";

// Parses header + body into *l. 0 or -1 (after printing why).
static int parse(const char *body, Lesson *l) {
    char text[4096], err[512];
    snprintf(text, sizeof text, "%s%s", header, body);
    if (lesson_parse_text("t.md", text, strlen(text), l, err, sizeof err) != 0) {
        fprintf(stderr, "parse: %s\n", err);
        return -1;
    }
    return 0;
}

// Runs the lesson's run k into f.
static int run_block(const Lesson *l, int k, LessonFacts *f) {
    LessonSession s;
    char err[512];
    if (lesson_session_open(&s, NULL, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    int rc = lesson_run_block(&s, &l->runs[k], f, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "run: %s\n", err);
    char dir[512];
    snprintf(dir, sizeof dir, "%s", s.dir);
    lesson_session_close(&s);
    struct stat st;
    if (stat(dir, &st) == 0) {
        fprintf(stderr, "the scratch directory %s is still there\n", dir);
        return -1;
    }
    return rc;
}

static double fact(LessonFacts *f, const char *name) {
    double v = NAN;
    char why[512];
    if (lesson_fact(f, name, &v, why, sizeof why) != 0) {
        fprintf(stderr, "fact %s: %s\n", name, why);
        return NAN;
    }
    return v;
}

// The number right after s[0] (commas dropped); NAN when there is none.
static double number_at(const char *at) {
    if (at == NULL)
        return NAN;
    char buf[64];
    size_t k = 0;
    while (*at == ' ')
        at++;
    for (const char *p = at; *p && k < sizeof buf - 1; p++) {
        if (*p == ',')
            continue;
        if (!strchr("0123456789.e-", *p))
            break;
        buf[k++] = *p;
    }
    buf[k] = '\0';
    return k ? atof(buf) : NAN;
}

// The number after the first occurrence of key in s.
static double number_after(const char *s, const char *key) {
    const char *at = s ? strstr(s, key) : NULL;
    return number_at(at ? at + strlen(key) : NULL);
}

// The number after the last occurrence of key in s.
static double after_last(const char *s, const char *key) {
    const char *at = NULL;
    for (const char *p = s; p && (p = strstr(p, key)) != NULL; p++)
        at = p;
    return number_at(at ? at + strlen(key) : NULL);
}

// Words after "): " on the line of `bucket K:` that follows the last plan.
static int bucket_names(const char *out, int k) {
    const char *plan = NULL;
    for (const char *p = out; (p = strstr(p, "ddp buckets,")) != NULL; p++)
        plan = p;
    char key[32];
    snprintf(key, sizeof key, "\nbucket %d: ", k);
    const char *line = plan ? strstr(plan, key) : NULL;
    const char *names = line ? strstr(line, "): ") : NULL;
    if (names == NULL)
        return -1;
    int n = 0;
    for (const char *p = names + 3; *p && *p != '\n'; p++)
        n += *p != ' ' && (p[-1] == ' ');
    return n;
}

typedef struct {
    double a, b;
} Span;

static int by_start(const void *x, const void *y) {
    double a = ((const Span *)x)->a, b = ((const Span *)y)->a;
    return (a > b) - (a < b);
}

// Sorts and merges spans[n] in place; returns the new count.
static int merge(Span *s, int n) {
    qsort(s, (size_t)n, sizeof *s, by_start);
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (s[i].b <= s[i].a)
            continue;
        if (m > 0 && s[i].a <= s[m - 1].b) {
            if (s[i].b > s[m - 1].b)
                s[m - 1].b = s[i].b;
        } else {
            s[m++] = s[i];
        }
    }
    return m;
}

// Rank 0's communication time during which its compute stream is idle,
// from the raw events: the union of its collectives (and compute on the
// communication stream) less the part the union of its compute covers.
static double exposed_us(const VizTrace *t) {
    Span *comm = calloc(t->n + 1, sizeof *comm), *comp = calloc(t->n + 1, sizeof *comp);
    int nc = 0, np = 0;
    for (size_t i = 0; i < t->n; i++) {
        const SimEvent *e = &t->ev[i];
        if (e->rank != 0)
            continue;
        if (e->kind == SIM_EV_COLL || (e->kind == SIM_EV_COMPUTE && e->stream == SIM_STREAM_COMM))
            comm[nc++] = (Span){e->sim_start, e->sim_end};
        else if (e->kind == SIM_EV_COMPUTE && e->stream == SIM_STREAM_COMPUTE)
            comp[np++] = (Span){e->sim_start, e->sim_end};
    }
    nc = merge(comm, nc);
    np = merge(comp, np);
    double total = 0, overlap = 0;
    for (int i = 0; i < nc; i++) {
        total += comm[i].b - comm[i].a;
        for (int j = 0; j < np; j++) {
            double lo = fmax(comm[i].a, comp[j].a), hi = fmin(comm[i].b, comp[j].b);
            if (hi > lo)
                overlap += hi - lo;
        }
    }
    free(comm);
    free(comp);
    return (total - overlap) * 1e6;
}

static int test_facts_ddp(void) {
    const int steps = 3;
    Lesson l;
    CHECK(parse("```ddplab\nrun --strategy ddp -n 2 --steps 3 --model mlp:16,512,512,512,4 \\\n"
                "    --bucket-cap-mb 0.5 --print-buckets\n```\n", &l) == 0);
    LessonFacts f;
    lesson_facts_init(&f);
    CHECK(run_block(&l, 0, &f) == 0);
    CHECK_EQ_INT(f.exit_code, 0);
    CHECK(f.has_trace);
    CHECK_EQ_INT(fact(&f, "exit"), 0);
    CHECK_EQ_INT(fact(&f, "iterations"), steps);
    // the plans as --print-buckets printed them: iteration 0's, then the rebuilt one
    const char *initial = strstr(f.output, "(initial plan): ");
    CHECK(initial != NULL);
    int b0 = atoi(initial + strlen("(initial plan): "));
    double b1 = after_last(f.output, "gradient-ready order: ");
    CHECK(b0 == 1 && b1 == 3);
    CHECK_EQ_INT(fact(&f, "buckets"), b1);
    for (int k = 0; k < 3; k++) {
        char name[32];
        snprintf(name, sizeof name, "bucket_params:%d", k);
        CHECK_EQ_INT(fact(&f, name), bucket_names(f.output, k));
    }
    // one all_reduce per bucket of the plan each iteration used, and one of
    // the logged loss per step; every gradient byte once per step, and 4
    // bytes of loss
    // the initial plan's one bucket holds every gradient
    double grad_bytes = number_after(initial, "\nbucket 0: ");
    CHECK(grad_bytes > 2e6);
    CHECK_EQ_INT(fact(&f, "collectives:AllReduce"), b0 + (steps - 1) * b1 + steps);
    CHECK_EQ_INT(fact(&f, "collectives:all_reduce"), b0 + (steps - 1) * b1 + steps);
    CHECK_EQ_INT(fact(&f, "coll_bytes:AllReduce"), steps * grad_bytes + steps * 4);
    CHECK_EQ_INT(fact(&f, "collectives:AllGather"), 0);
    CHECK(fact(&f, "collectives:Broadcast") >= 1);
    CHECK(fact(&f, "coll_bytes:Broadcast") >= grad_bytes);
    // losses as the run printed them (6 decimals)
    CHECK_NEAR(fact(&f, "loss"), after_last(f.output, "final loss "), 1e-6);
    CHECK_NEAR(fact(&f, "loss:0"), number_after(strstr(f.output, "step 1/3"), "loss "), 1e-6);
    CHECK_NEAR(fact(&f, "loss:2"), fact(&f, "loss"), 0);
    CHECK_NEAR(fact(&f, "out:final loss ([0-9.]+)"), after_last(f.output, "final loss "), 0);
    // the simulated time, printed in seconds with 6 decimals
    CHECK_NEAR(fact(&f, "sim_us"), after_last(f.output, "simulated time ") * 1e6, 0.5);
    // rank 0's peak: the largest ledger total of its device memory events
    double peak = 0;
    for (size_t i = 0; i < f.trace.n; i++) {
        const SimEvent *e = &f.trace.ev[i];
        if (e->rank == 0 && e->kind == SIM_EV_MEMORY && e->mem_space == 0 &&
            (double)e->count > peak)
            peak = (double)e->count;
    }
    CHECK(peak > 0);
    CHECK_EQ_INT(fact(&f, "peak_bytes:0"), peak);
    // ... which the memory table prints in MiB, to 3 digits
    CHECK_NEAR(fact(&f, "peak_bytes:1") / 1048576.0, after_last(f.output, "  peak "), 0.01);
    double ex = exposed_us(&f.trace);
    CHECK(ex > 0);
    CHECK_NEAR(fact(&f, "exposed_us"), ex, 1e-6);
    // facts that do not apply, and bad ones
    double v;
    char why[512];
    CHECK(lesson_fact(&f, "units", &v, why, sizeof why) != 0);
    CHECK_STR_CONTAINS(why, "no FSDP units");
    CHECK(lesson_fact(&f, "bucket_params:3", &v, why, sizeof why) != 0);
    CHECK_STR_CONTAINS(why, "the last plan has 3 buckets (0 to 2)");
    CHECK(lesson_fact(&f, "peak_bytes:2", &v, why, sizeof why) != 0);
    CHECK_STR_CONTAINS(why, "the run has 2 ranks");
    CHECK(lesson_fact(&f, "loss:7", &v, why, sizeof why) != 0);
    CHECK_STR_CONTAINS(why, "iterations 0 to 2");
    CHECK(lesson_fact(&f, "collectives:AllReduc", &v, why, sizeof why) != 0);
    CHECK_STR_CONTAINS(why, "'AllReduc' is not a collective");
    CHECK(lesson_fact(&f, "speed", &v, why, sizeof why) != 0);
    CHECK_STR_CONTAINS(why, "'speed' is not a fact");
    lesson_facts_free(&f);
    lesson_free(&l);
    return 0;
}

static int test_facts_fsdp(void) {
    Lesson l;
    CHECK(parse("```ddplab\nrun --strategy fsdp -n 2 --steps 1 --print-units\n```\n", &l) == 0);
    LessonFacts f;
    lesson_facts_init(&f);
    CHECK(run_block(&l, 0, &f) == 0);
    CHECK_EQ_INT(f.exit_code, 0);
    double units = after_last(f.output, "fsdp plan: ");
    CHECK(units >= 2);
    CHECK_EQ_INT(fact(&f, "units"), units);
    CHECK_EQ_INT(fact(&f, "iterations"), 1);
    CHECK(fact(&f, "collectives:AllGather") >= units);
    CHECK(fact(&f, "collectives:ReduceScatter") >= 1);
    double v;
    char why[256];
    CHECK(lesson_fact(&f, "buckets", &v, why, sizeof why) != 0);
    CHECK_STR_CONTAINS(why, "no DDP bucket plan");
    lesson_facts_free(&f);
    lesson_free(&l);
    return 0;
}

static int test_facts_out(void) {
    LessonFacts f;
    lesson_facts_init(&f);
    const char *text = "plan: 124,439,808 parameters\npeak 3.77 GB\nrate 1e-3/s\nname x7\n";
    f.output = strdup(text);
    f.output_len = strlen(text);
    f.exit_code = 1;
    CHECK_EQ_INT(fact(&f, "out:([0-9,]+) parameters"), 124439808);
    CHECK_NEAR(fact(&f, "out:peak ([0-9.]+) GB"), 3.77, 0);
    CHECK_NEAR(fact(&f, "out:[0-9]e-[0-9]"), 1e-3, 0); // no group: the whole match
    CHECK_EQ_INT(fact(&f, "out:x([0-9])"), 7);
    CHECK_EQ_INT(fact(&f, "exit"), 1);
    double v;
    char why[512];
    CHECK(lesson_fact(&f, "out:nothing here ([0-9]+)", &v, why, sizeof why) != 0);
    CHECK_STR_CONTAINS(why, "no match");
    CHECK(lesson_fact(&f, "out:(peak [0-9.]+)", &v, why, sizeof why) != 0);
    CHECK_STR_CONTAINS(why, "matched 'peak 3.77', which is not a number");
    CHECK(lesson_fact(&f, "out:peak ([0-9", &v, why, sizeof why) != 0);
    CHECK_STR_CONTAINS(why, "not an extended regular expression");
    // no trace: the trace facts say so
    CHECK(lesson_fact(&f, "iterations", &v, why, sizeof why) != 0);
    CHECK_STR_CONTAINS(why, "the command left no trace (it ended with exit 1)");
    lesson_facts_free(&f);
    CHECK(f.output == NULL);

    // numbers as printed
    CHECK(lesson_fact_number(" 22,032 ", 8, &v) == 0 && v == 22032);
    CHECK(lesson_fact_number("1.5e3", 5, &v) == 0 && v == 1500);
    CHECK(lesson_fact_number("1,5", 3, &v) == 0 && v == 15);
    CHECK(lesson_fact_number(",5", 2, &v) != 0);
    CHECK(lesson_fact_number("12 KiB", 6, &v) != 0);
    CHECK(lesson_fact_number("", 0, &v) != 0);
    CHECK(lesson_fact_number("inf", 3, &v) != 0);
    return 0;
}

static int test_plan_block(void) {
    Lesson l;
    CHECK(parse("```ddplab\nplan -m gpt2 -n 8 --strategy ddp\n```\n\n"
                "```ddplab\nplan -m llama2-70b -n 8 --strategy ddp\nexpect exit 1\n```\n",
                &l) == 0);
    LessonSession s;
    char err[512];
    CHECK(lesson_session_open(&s, "cpu", err, sizeof err) == 0);
    // a plan gets neither --trace nor --backend
    int argc;
    char **argv;
    CHECK(lesson_run_argv(&s, &l.runs[0], "T", &argc, &argv) == 0);
    CHECK_EQ_INT(argc, l.runs[0].argc);
    free(argv);
    LessonFacts f;
    lesson_facts_init(&f);
    CHECK(lesson_run_block(&s, &l.runs[0], &f, err, sizeof err) == 0);
    CHECK_EQ_INT(f.exit_code, 0);
    CHECK(!f.has_trace);
    CHECK_EQ_INT(fact(&f, "out:\\(([0-9,]+) parameters\\)"), 124439808);
    CHECK_NEAR(fact(&f, "out:fits: peak ([0-9.]+) GB"), after_last(f.output, "fits: peak "), 0);
    CHECK(lesson_run_block(&s, &l.runs[1], &f, err, sizeof err) == 0);
    CHECK_EQ_INT(f.exit_code, 1);
    CHECK_EQ_INT(fact(&f, "exit"), 1);
    CHECK_STR_CONTAINS(f.output, "DOES NOT FIT");
    lesson_facts_free(&f);
    lesson_session_close(&s);
    lesson_free(&l);
    return 0;
}

static int test_run_argv(void) {
    Lesson l;
    CHECK(parse("```ddplab\nrun --strategy ddp -n 2 --steps 1\n```\n\n"
                "```ddplab\nbench -n 2 -b 8 -e 8\n```\n",
                &l) == 0);
    LessonSession s = {.dir = "/x", .backend = "cpu"};
    int argc;
    char **argv;
    CHECK(lesson_run_argv(&s, &l.runs[0], "/x/b.ddptrace", &argc, &argv) == 0);
    CHECK_EQ_INT(argc, 11);
    CHECK(strcmp(argv[0], "run") == 0 && strcmp(argv[6], "1") == 0);
    CHECK(strcmp(argv[7], "--trace") == 0 && strcmp(argv[8], "/x/b.ddptrace") == 0);
    CHECK(strcmp(argv[9], "--backend") == 0 && strcmp(argv[10], "cpu") == 0);
    CHECK(argv[11] == NULL);
    free(argv);
    s.backend = NULL;
    CHECK(lesson_run_argv(&s, &l.runs[1], "/x/c.ddptrace", &argc, &argv) == 0);
    CHECK_EQ_INT(argc, 9);
    CHECK(strcmp(argv[7], "--trace") == 0);
    free(argv);
    // a bench block's trace is a benchmark's: a collective per iteration
    CHECK(lesson_session_open(&s, NULL, (char[256]){0}, 256) == 0);
    LessonFacts f;
    lesson_facts_init(&f);
    char err[256];
    CHECK(lesson_run_block(&s, &l.runs[1], &f, err, sizeof err) == 0);
    CHECK_EQ_INT(f.exit_code, 0);
    CHECK(f.has_trace);
    CHECK(fact(&f, "collectives:AllReduce") >= 1);
    lesson_facts_free(&f);
    lesson_session_close(&s);
    lesson_free(&l);
    return 0;
}

// A comparison runs twice and writes no trace: its block gets neither
// --trace nor --backend (its figures are the cpu reference's), and its
// facts are what it printed.
static int test_compare_block(void) {
    Lesson l;
    CHECK(parse("```ddplab\nrun --strategy ddp -n 2 --steps 2 --compare-with '--algo ring'\n```\n\n"
                "```ddplab\nrun --strategy ddp -n 2 --steps 1 --compare-backends cpu,cpu\n```\n",
                &l) == 0);
    CHECK(lesson_run_compares(&l.runs[0]) && lesson_run_compares(&l.runs[1]));
    LessonSession s = {.dir = "/x", .backend = "cuda"};
    int argc;
    char **argv;
    CHECK(lesson_run_argv(&s, &l.runs[0], "/x/b.ddptrace", &argc, &argv) == 0);
    CHECK_EQ_INT(argc, l.runs[0].argc);
    CHECK(strcmp(argv[argc - 1], "--algo ring") == 0 && argv[argc] == NULL);
    free(argv);
    LessonFacts f;
    lesson_facts_init(&f);
    CHECK(run_block(&l, 1, &f) == 0);
    CHECK_EQ_INT(f.exit_code, 0);
    CHECK(!f.has_trace);
    CHECK_STR_CONTAINS(f.output, "bit-identical: every tensor at every stage");
    CHECK_EQ_INT(fact(&f, "out:summary: ([0-9]+) of [0-9]+ tensors differ"), 0);
    lesson_facts_free(&f);
    lesson_free(&l);
    return 0;
}

// Blocks that keep the cpu backend when the lesson is played on cuda: the
// parameter server (its own event simulation on the host), a phantom run,
// an injected fault. Another block gets --backend cuda.
static int test_stays_on_cpu(void) {
    Lesson l;
    CHECK(parse("```ddplab\nrun --strategy async-ps -n 3 --steps 1\n```\n\n"
                "```ddplab\nrun --strategy=async-ps -n 3 --steps 1\n```\n\n"
                "```ddplab\nrun --phantom --strategy ddp -n 2 --steps 1\n```\n\n"
                "```ddplab\nrun --strategy ddp -n 2 --steps 1 --fault slow:rank=1\n```\n\n"
                "```ddplab\nrun --strategy ddp -n 2 --steps 1\n```\n",
                &l) == 0);
    LessonSession s = {.dir = "/x", .backend = "cuda"};
    for (int i = 0; i < 5; i++) {
        int argc, cuda = 0;
        char **argv;
        CHECK(lesson_run_argv(&s, &l.runs[i], "/x/b.ddptrace", &argc, &argv) == 0);
        for (int k = 0; k + 1 < argc; k++)
            cuda |= strcmp(argv[k], "--backend") == 0 && strcmp(argv[k + 1], "cuda") == 0;
        CHECK_EQ_INT(cuda, i == 4);
        free(argv);
    }
    lesson_free(&l);
    return 0;
}

static int test_grade(void) {
    Lesson l;
    CHECK(parse("```ddplab\nplan -m gpt2\n```\n\n"
                "```question\nask: n\ntype: number\nanswer: 100\ncheck: out:x\n"
                "tolerance: 2%\n```\n\n"
                "```question\nask: n\ntype: number\nanswer: 3\ncheck: out:x\n```\n\n"
                "```question\nask: c\ntype: choice\nchoice: a) one\nchoice: b) two\n"
                "answer: b\n```\n\n"
                "```question\nask: w\ntype: word\nanswer: Broadcast\n"
                "accept: bcast, one to all\n```\n",
                &l) == 0);
    CHECK_EQ_INT(l.nquestions, 4);
    const LessonQuestion *rel = &l.questions[0], *num = &l.questions[1];
    const LessonQuestion *ch = &l.questions[2], *word = &l.questions[3];
    double f = 100;
    CHECK_EQ_INT(lesson_grade(rel, "101.9", &f), LESSON_GRADE_RIGHT);
    CHECK_EQ_INT(lesson_grade(rel, " 98 ", &f), LESSON_GRADE_RIGHT);
    CHECK_EQ_INT(lesson_grade(rel, "102.1", &f), LESSON_GRADE_WRONG);
    CHECK_EQ_INT(lesson_grade(rel, "1,00", &f), LESSON_GRADE_RIGHT);
    CHECK_EQ_INT(lesson_grade(rel, "lots", &f), LESSON_GRADE_INVALID);
    CHECK_EQ_INT(lesson_grade(rel, "  ", &f), LESSON_GRADE_SKIP);
    f = 4;
    CHECK_EQ_INT(lesson_grade(num, "3", &f), LESSON_GRADE_WRONG); // the fact, not the record
    CHECK_EQ_INT(lesson_grade(num, "4", &f), LESSON_GRADE_RIGHT);
    CHECK_EQ_INT(lesson_grade(num, "3", NULL), LESSON_GRADE_RIGHT); // no fact: the record
    f = 0.1 + 0.2;
    CHECK_EQ_INT(lesson_grade(num, "0.3", &f), LESSON_GRADE_RIGHT); // the last bit
    CHECK_EQ_INT(lesson_grade(ch, "b", NULL), LESSON_GRADE_RIGHT);
    CHECK_EQ_INT(lesson_grade(ch, "B)", NULL), LESSON_GRADE_RIGHT);
    CHECK_EQ_INT(lesson_grade(ch, "(b)", NULL), LESSON_GRADE_RIGHT);
    CHECK_EQ_INT(lesson_grade(ch, "a", NULL), LESSON_GRADE_WRONG);
    CHECK_EQ_INT(lesson_grade(ch, "c", NULL), LESSON_GRADE_INVALID);
    CHECK_EQ_INT(lesson_grade(ch, "two", NULL), LESSON_GRADE_INVALID);
    CHECK_EQ_INT(lesson_grade(word, "broadcast", NULL), LESSON_GRADE_RIGHT);
    CHECK_EQ_INT(lesson_grade(word, " BCAST ", NULL), LESSON_GRADE_RIGHT);
    CHECK_EQ_INT(lesson_grade(word, "One to all", NULL), LESSON_GRADE_RIGHT);
    CHECK_EQ_INT(lesson_grade(word, "scatter", NULL), LESSON_GRADE_WRONG);
    char buf[128];
    f = 100;
    lesson_grade_right(rel, &f, buf, sizeof buf);
    CHECK(strcmp(buf, "100 (within 2%)") == 0);
    f = 1.25;
    lesson_grade_right(num, &f, buf, sizeof buf);
    CHECK(strcmp(buf, "1.25") == 0);
    lesson_grade_right(ch, NULL, buf, sizeof buf);
    CHECK(strcmp(buf, "b) two") == 0);
    lesson_grade_right(word, NULL, buf, sizeof buf);
    CHECK(strcmp(buf, "Broadcast") == 0);
    lesson_free(&l);
    return 0;
}

// The grade of answer a against fact f for question q, as a letter for the
// checks below: R right, W wrong, I not a number.
static char graded(const LessonQuestion *q, const char *a, double f) {
    LessonGrade g = lesson_grade(q, a, &f);
    return g == LESSON_GRADE_RIGHT ? 'R' : g == LESSON_GRADE_WRONG ? 'W' : 'I';
}

// Numbers graded by their digits, with figures from the lessons: lesson 8's
// last loss 1.467543364 (the summary shows 1.46754), a count, a figure the
// command printed, a question that states its digits.
static int test_grade_digits(void) {
    Lesson l;
    CHECK(parse("```ddplab\nrun --steps 3\n```\n\n"
                "```question\nask: loss\ntype: number\nanswer: 1.467543\ncheck: loss\n```\n\n"
                "```question\nask: n\ntype: number\nanswer: 3\ncheck: iterations\n```\n\n"
                "```question\nask: KiB\ntype: number\nanswer: 21.5\ncheck: out:x\n```\n\n"
                "```question\nask: us\ntype: number\nanswer: 93.35\ncheck: out:x\n```\n\n"
                "```question\nask: loss, 3 digits\ntype: number\nanswer: 1.47\ncheck: loss\n"
                "digits: 3\n```\n\n"
                "```question\nask: us\ntype: number\nanswer: 529.133\ncheck: sim_us\n```\n",
                &l) == 0);
    const LessonQuestion *loss = &l.questions[0], *count = &l.questions[1];
    const LessonQuestion *kib = &l.questions[2], *us = &l.questions[3];
    const LessonQuestion *three = &l.questions[4], *sim = &l.questions[5];
    char buf[128];
    double f = 1.467543364;
    lesson_grade_figure("loss", f, buf, sizeof buf);
    CHECK(strcmp(buf, "1.46754") == 0);
    // 5 digits of the figure's 6 are enough; the value rounded to the answer's own last digit
    CHECK_EQ_INT(graded(loss, "1.4675", f), 'R');
    CHECK_EQ_INT(graded(loss, "1.46754", f), 'R');
    CHECK_EQ_INT(graded(loss, "1.467543", f), 'R');  // the step line's %.6f
    CHECK_EQ_INT(graded(loss, "1.4675434", f), 'R'); // more digits than shown, still the value
    CHECK_EQ_INT(graded(loss, "1.4676", f), 'W');    // rounded the wrong way
    CHECK_EQ_INT(graded(loss, "1.4674", f), 'W');
    CHECK_EQ_INT(graded(loss, "1.46755", f), 'W');
    CHECK_EQ_INT(graded(loss, "1.468", f), 'W'); // 4 digits: fewer than asked
    CHECK_EQ_INT(graded(loss, "1.47", f), 'W');
    CHECK_EQ_INT(graded(loss, "1.5", f), 'W');
    CHECK_EQ_INT(graded(loss, "1.467", f), 'W');
    CHECK_EQ_INT(graded(loss, "14675e-4", f), 'R');
    CHECK_EQ_INT(graded(loss, "about 1.47", f), 'I');
    lesson_grade_right(loss, &f, buf, sizeof buf);
    CHECK(strcmp(buf, "1.46754 (5 significant digits or more)") == 0);
    // the figure was rounded from the fact: rounding the figure again is not wrong
    f = 1.467549;
    lesson_grade_figure("loss", f, buf, sizeof buf);
    CHECK(strcmp(buf, "1.46755") == 0);
    CHECK_EQ_INT(graded(loss, "1.4676", f), 'R');
    CHECK_EQ_INT(graded(loss, "1.4675", f), 'R');
    CHECK_EQ_INT(graded(loss, "1.4677", f), 'W');
    // a small loss: the step lines' 0.024087 has fewer digits than %.6g's 0.0240871
    f = 0.024087123;
    lesson_grade_figure("loss:7", f, buf, sizeof buf);
    CHECK(strcmp(buf, "0.024087") == 0);
    CHECK_EQ_INT(graded(loss, "0.02409", f), 'R');
    CHECK_EQ_INT(graded(loss, "0.024087", f), 'R');
    CHECK_EQ_INT(graded(loss, "0.0241", f), 'W');
    // a count is exact
    CHECK_EQ_INT(graded(count, "3", 3), 'R');
    CHECK_EQ_INT(graded(count, "3.0", 3), 'R');
    CHECK_EQ_INT(graded(count, "2.9", 3), 'W');
    CHECK_EQ_INT(graded(count, "4", 3), 'W');
    lesson_grade_right(count, &(double){3}, buf, sizeof buf);
    CHECK(strcmp(buf, "3") == 0);
    // 3 digits printed: all 3 are needed; 0.7 is not 1
    CHECK_EQ_INT(graded(kib, "21.5", 21.5), 'R');
    CHECK_EQ_INT(graded(kib, "21.50", 21.5), 'R');
    CHECK_EQ_INT(graded(kib, "22", 21.5), 'W');
    CHECK_EQ_INT(graded(kib, "21.6", 21.5), 'W');
    CHECK_EQ_INT(graded(kib, "0.7", 0.7), 'R');
    CHECK_EQ_INT(graded(kib, "1", 0.7), 'W');
    CHECK_EQ_INT(graded(kib, "0.8", 0.7), 'W');
    lesson_grade_right(kib, &(double){21.5}, buf, sizeof buf);
    CHECK(strcmp(buf, "21.5") == 0);
    // 4 digits printed (93.35): 3 are enough, rounded either way from the half
    CHECK_EQ_INT(graded(us, "93.35", 93.35), 'R');
    CHECK_EQ_INT(graded(us, "93.4", 93.35), 'R');
    CHECK_EQ_INT(graded(us, "93.3", 93.35), 'R');
    CHECK_EQ_INT(graded(us, "93.5", 93.35), 'W');
    CHECK_EQ_INT(graded(us, "93", 93.35), 'W');
    // digits: 3 states the precision: 1.47 is right, 1.5 is not
    f = 1.467543364;
    CHECK_EQ_INT(graded(three, "1.47", f), 'R');
    CHECK_EQ_INT(graded(three, "1.468", f), 'R');
    CHECK_EQ_INT(graded(three, "1.46754", f), 'R');
    CHECK_EQ_INT(graded(three, "1.46", f), 'W');
    CHECK_EQ_INT(graded(three, "1.5", f), 'W');
    lesson_grade_right(three, &f, buf, sizeof buf);
    CHECK(strcmp(buf, "1.47 (3 significant digits or more)") == 0);
    CHECK_EQ_INT(graded(three, "1970000", 1973347), 'R'); // trailing zeros in a whole number
    CHECK_EQ_INT(graded(three, "1.97e6", 1973347), 'R');
    CHECK_EQ_INT(graded(three, "2e6", 1973347), 'W');
    CHECK_EQ_INT(graded(three, "1980000", 1973347), 'W');
    // simulated time: the summary's %.6g
    f = 529.1331234;
    lesson_grade_figure("sim_us", f, buf, sizeof buf);
    CHECK(strcmp(buf, "529.133") == 0);
    CHECK_EQ_INT(graded(sim, "529.13", f), 'R');
    CHECK_EQ_INT(graded(sim, "529.1", f), 'W');
    // the recorded answers grade right against their own facts
    for (int i = 0; i < l.nquestions; i++)
        CHECK_EQ_INT(lesson_grade(&l.questions[i], l.questions[i].answer, NULL),
                     LESSON_GRADE_RIGHT);
    lesson_free(&l);
    return 0;
}

// Choices in a shuffled order: the letters are the shown ones.
static int test_choice_order(void) {
    Lesson l;
    CHECK(parse("```question\nask: c\ntype: choice\nchoice: a) one\nchoice: b) two\n"
                "choice: c) three\nchoice: d) four\nanswer: b\n```\n",
                &l) == 0);
    const LessonQuestion *q = &l.questions[0];
    int order[4], shown_right[4] = {0};
    lesson_choice_order(q, 0, order);
    for (int i = 0; i < 4; i++)
        CHECK_EQ_INT(order[i], i);
    CHECK(strcmp(lesson_choice_text(q, 2), "three") == 0);
    CHECK(strcmp(lesson_choice_text(q, 4), "") == 0);
    int moved = 0;
    for (unsigned long seed = 1; seed <= 400; seed++) {
        lesson_choice_order(q, seed, order);
        int seen[4] = {0}, at = -1;
        for (int i = 0; i < 4; i++) {
            CHECK(order[i] >= 0 && order[i] < 4);
            seen[order[i]]++;
            if (order[i] == 1)
                at = i;
        }
        for (int i = 0; i < 4; i++)
            CHECK_EQ_INT(seen[i], 1);
        shown_right[at]++;
        moved += at != 1;
        // the shown letter is right, the written one only where they meet
        char letter[2] = {(char)('a' + at), '\0'}, buf[64], want[64];
        CHECK_EQ_INT(lesson_grade_shown(q, order, letter, NULL), LESSON_GRADE_RIGHT);
        CHECK_EQ_INT(lesson_grade_shown(q, order, "b", NULL),
                     at == 1 ? LESSON_GRADE_RIGHT : LESSON_GRADE_WRONG);
        CHECK_EQ_INT(lesson_grade_shown(q, order, "e", NULL), LESSON_GRADE_INVALID);
        lesson_grade_right_shown(q, order, NULL, buf, sizeof buf);
        snprintf(want, sizeof want, "%c) two", 'a' + at);
        CHECK(strcmp(buf, want) == 0);
    }
    CHECK(moved > 200);
    for (int i = 0; i < 4; i++) // every place about a quarter of the time
        CHECK(shown_right[i] > 60 && shown_right[i] < 140);
    // the same seed, the same order
    int again[4];
    lesson_choice_order(q, 77, order);
    lesson_choice_order(q, 77, again);
    CHECK(memcmp(order, again, sizeof order) == 0);
    // order NULL: as written
    char buf[64];
    lesson_grade_right_shown(q, NULL, NULL, buf, sizeof buf);
    CHECK(strcmp(buf, "b) two") == 0);
    CHECK_EQ_INT(lesson_grade_shown(q, NULL, "B", NULL), LESSON_GRADE_RIGHT);
    lesson_free(&l);
    return 0;
}

static int test_progress(void) {
    char dir[512];
    CHECK(tfile_mkdtemp(dir, sizeof dir, "lesson-progress") == 0);
    char state[600], path[700];
    snprintf(state, sizeof state, "%s/state", dir);
    // where the file goes: XDG_STATE_HOME, else ~/.local/state
    setenv("XDG_STATE_HOME", state, 1);
    char *p = lesson_progress_path();
    snprintf(path, sizeof path, "%s/ddplab/progress.json", state);
    CHECK(p && strcmp(p, path) == 0);
    free(p);
    setenv("XDG_STATE_HOME", "relative/ignored", 1);
    setenv("HOME", "/home/learner", 1);
    p = lesson_progress_path();
    CHECK(p && strcmp(p, "/home/learner/.local/state/ddplab/progress.json") == 0);
    free(p);

    LessonProgress g;
    char err[512];
    CHECK(lesson_progress_load(&g, path, err, sizeof err) == 0); // no file yet
    CHECK_EQ_INT(g.n, 0);
    CHECK(lesson_progress_record(&g, "ddp-buckets", 1, 2, 3, 1735725600) == 0);
    CHECK(lesson_progress_record(&g, "fsdp", 0, 0, 1, 1735729200) == 0);
    CHECK(lesson_progress_save(&g, path, err, sizeof err) == 0); // makes state/ddplab
    lesson_progress_free(&g);
    char *json = tfile_read(path, NULL);
    CHECK(json != NULL);
    CHECK_STR_CONTAINS(json, "\"last_played\":\t\"2025-01-01T10:00:00Z\"");
    free(json);
    CHECK(lesson_progress_load(&g, path, err, sizeof err) == 0);
    CHECK_EQ_INT(g.n, 2);
    const LessonProgressEntry *e = lesson_progress_find(&g, "ddp-buckets");
    CHECK(e && e->completed && e->right == 2 && e->asked == 3 && e->last_played == 1735725600);
    e = lesson_progress_find(&g, "fsdp");
    CHECK(e && !e->completed && e->asked == 1 && e->last_played == 1735729200);
    CHECK(lesson_progress_find(&g, "zero") == NULL);
    // completed stays once set; the score is the latest play's
    CHECK(lesson_progress_record(&g, "ddp-buckets", 0, 0, 3, 1735800000) == 0);
    e = lesson_progress_find(&g, "ddp-buckets");
    CHECK(e->completed && e->right == 0);
    CHECK(lesson_progress_save(&g, path, err, sizeof err) == 0);
    lesson_progress_free(&g);
    // no temporary left beside it
    char sub[650];
    snprintf(sub, sizeof sub, "%s/ddplab", state);
    CHECK_EQ_INT(tfile_dir_entries(sub), 1);

    CHECK(tfile_write(path, "[1, 2]", 6) == 0);
    CHECK(lesson_progress_load(&g, path, err, sizeof err) != 0);
    CHECK_STR_CONTAINS(err, "not a ddplab progress file");
    CHECK_EQ_INT(g.n, 0);
    unlink(path);
    rmdir(sub);
    rmdir(state);
    rmdir(dir);
    return 0;
}

// The narrative wrapped at 40 columns: lines fit, list items hang under
// their text, tables and code keep their lines.
static int test_wrap(void) {
    const char *text =
        "A paragraph long enough to need more than one line at forty columns, "
        "with a verylongwordthatdoesnotfitanywhereatall in it.\n\n"
        "- a list item that is long enough to wrap onto a second line\n"
        "  12. a nested numbered item that also wraps onto the next line\n\n"
        "name   value   what it means in a long column\n"
        "-----  ------  ------------------------------\n"
        "a      1       the first row of a table that is wider than forty\n\n"
        "    code stays exactly as it is written even when it is long\n";
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    CHECK(out != NULL);
    lesson_text_wrap(out, text, 40, 0);
    fclose(out);
    CHECK_STR_CONTAINS(buf, "A paragraph long enough to need more\nthan one line");
    CHECK_STR_CONTAINS(buf, "\nverylongwordthatdoesnotfitanywhereatall\n");
    CHECK_STR_CONTAINS(buf, "- a list item that is long enough to\n  wrap onto a second line\n");
    CHECK_STR_CONTAINS(buf, "  12. a nested numbered item that also\n      wraps onto the next line\n");
    CHECK_STR_CONTAINS(buf, "\na      1       the first row of a table that is wider than forty\n");
    CHECK_STR_CONTAINS(buf, "\n    code stays exactly as it is written even when it is long\n");
    // blank lines between blocks stay, and nothing else is long
    CHECK_EQ_INT(strstr(buf, "\n\n\n") == NULL, 1);
    for (char *l = buf; *l;) {
        size_t n = strcspn(l, "\n");
        int ok = n <= 40 || strncmp(l, "verylong", 8) == 0 || strncmp(l, "a      1", 8) == 0 ||
                 strncmp(l, "name ", 5) == 0 || strncmp(l, "-----", 5) == 0 ||
                 strncmp(l, "    code", 8) == 0;
        if (!ok)
            fprintf(stderr, "too long: %.*s\n", (int)n, l);
        CHECK(ok);
        l += n + (l[n] == '\n');
    }
    free(buf);
    return 0;
}

int main(void) {
    int failures = 0;
    RUN(test_facts_ddp);
    RUN(test_facts_fsdp);
    RUN(test_facts_out);
    RUN(test_plan_block);
    RUN(test_run_argv);
    RUN(test_compare_block);
    RUN(test_stays_on_cpu);
    RUN(test_grade);
    RUN(test_grade_digits);
    RUN(test_choice_order);
    RUN(test_progress);
    RUN(test_wrap);
    return failures ? 1 : 0;
}
