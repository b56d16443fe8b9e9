// cli/interview/interview_cmd.c: `ddplab interview`: the options, the drill's loop
// (question, answer, grade, worked explanation, a command to see it) and
// the score. The questions come from cli/learn/interview_gen.c's topics; every
// answer is what the engine computes.
//
// Answers come from stdin (a prompt per question), from a file (--answers,
// one line per question) or are the expected ones (--non-interactive, for
// tests and for reading). An empty line or "skip" skips a question;
// "quit" or the end of the input ends the drill early, and the score
// counts the questions asked.
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/cli.h"  // defines: CLI_EXIT_*, cli_print_exit_codes
#include "core/opts.h" // defines: cli_opt_shown
#include "interview/interview_cmd.h"
#include "learn/interview.h"

#define IV_MAX_COUNT 1000

typedef enum { IO_COUNT, IO_TOPIC, IO_SEED, IO_NONINT, IO_ANSWERS, IO_HELP, IO_NOPTS } IvOptId;

typedef struct {
    IvOptId id;
    char shortname;
    const char *longname, *arg, *deflt, *help;
} IvOptSpec;

static const IvOptSpec specs[IO_NOPTS] = {
    {IO_COUNT, 0, "count", "N", "10", "questions in the drill, 1 to 1000"},
    {IO_TOPIC, 0, "topic", "T[,T...]", "all",
     "memory, collectives, batch, buckets, sharding, failures, strategies, precision, "
     "launching, loop, resilience, or all; a comma list asks several (the topics take "
     "turns)"},
    {IO_SEED, 0, "seed", "S", "from the clock, printed",
     "draws the questions: the same seed and options ask the same questions on any machine"},
    {IO_NONINT, 0, "non-interactive", NULL, NULL,
     "answer every question with the expected answer and show the grading (for tests and "
     "for reading)"},
    {IO_ANSWERS, 0, "answers", "FILE", NULL,
     "read the answers from FILE, one line per question (instead of stdin)"},
    {IO_HELP, 'h', "help", NULL, NULL, "print this help"},
};

static void iv_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void iv_error(const char *fmt, ...) {
    char msg[800];
    va_list ap;
    va_start(ap, fmt);
    cli_opt_vline(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "ddplab interview: %s\n", msg);
}

// ----------------------------------------------------------------------------
// help

// text wrapped within 79 columns; the cursor is at column `col`, later
// lines start at `indent`.
static void wrap(FILE *out, int col, int indent, const char *text) {
    int first = 1;
    for (const char *p = text; *p;) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        size_t len = strcspn(p, " ");
        if (!first && col + 1 + (int)len > 79) {
            fprintf(out, "\n%*s", indent, "");
            col = indent;
        } else if (!first) {
            fputc(' ', out);
            col++;
        }
        fprintf(out, "%.*s", (int)len, p);
        col += (int)len;
        p += len;
        first = 0;
    }
    fputc('\n', out);
}

void interview_help(FILE *out) {
    fputs("usage: ddplab interview [options]\n"
          "\n"
          "A drill of interview questions on distributed training. Numeric ones, with\n"
          "numbers drawn from a seed and every answer computed by the simulator's engine:\n"
          "  memory       model states per GPU under DDP, ZeRO-1/2/3 and FSDP FULL_SHARD\n"
          "               (mixed-precision Adam, 2 + 2 + 12 bytes per parameter)\n"
          "  collectives  nccl-tests' busbw from algbw or from a size and a time; ring\n"
          "               all_reduce steps and bytes sent per rank\n"
          "  batch        effective batch and the linearly scaled learning rate;\n"
          "               DistributedSampler samples and batches per rank\n"
          "  buckets      DDP's buckets for a model at a bucket cap: iteration 0 and\n"
          "               after the rebuild (1 MiB first bucket)\n"
          "  sharding     FSDP flat-parameter shards and padding; gradient divide factors\n"
          "Multiple choice, the choices shuffled by the seed:\n"
          "  failures     what breaks if ...: forgetting set_epoch, an all_reduce on\n"
          "               rank 0 only, an undivided loss, ...\n"
          "  strategies   DataParallel against DDP, DDP against FSDP, the ZeRO stages,\n"
          "               FSDP1's flat parameter against FSDP2's dim-0 shards\n"
          "  precision    GradScaler across ranks and with accumulation, bf16 against\n"
          "               fp16, model-state bytes, the fp16/bf16 compression hooks,\n"
          "               PowerSGD's error feedback\n"
          "  launching    torchrun's variables, init_process_group, nccl and gloo, SLURM\n"
          "  loop         no_sync, DistributedSampler's padding, distributed evaluation,\n"
          "               streaming loaders' seeds, the probe batch, overfitting a batch,\n"
          "               broadcast_buffers against SyncBatchNorm\n"
          "  resilience   elastic restarts, parameter servers and staleness, checkpoints\n"
          "               under DDP and FSDP\n"
          "After each answer it shows the expected one, the worked arithmetic with the\n"
          "actual numbers (or why the right choice is right), and a ddplab command that\n"
          "shows the same thing, or the nearest thing ddplab can show.\n"
          "\n"
          "Answer with the number asked (two numbers separated by a space when a question\n"
          "asks for two; units and thousands separators are ignored), or with the letter\n"
          "of a choice. An empty line or 'skip' skips a question; 'quit' or the end of\n"
          "the input ends the drill. Numbers are right within the tolerance each question\n"
          "states (e.g. 2% or 0.01 GB; most counts exactly). At the end: the score, right\n"
          "out of asked with the skipped ones, per topic.\n"
          "\n"
          "options (default in brackets):\n",
          out);
    for (int i = 0; i < IO_NOPTS; i++) {
        const IvOptSpec *s = &specs[i];
        char left[64];
        snprintf(left, sizeof left, "  %c%c%s--%s%s%s", s->shortname ? '-' : ' ',
                 s->shortname ? s->shortname : ' ', s->shortname ? ", " : "  ", s->longname,
                 s->arg ? " " : "", s->arg ? s->arg : "");
        fprintf(out, "%-30s", left);
        char text[400];
        snprintf(text, sizeof text, "%s%s%s%s", s->help, s->deflt ? " [" : "",
                 s->deflt ? s->deflt : "", s->deflt ? "]" : "");
        int col = (int)strlen(left) > 29 ? (int)strlen(left) : 30;
        if (col > 30) {
            fprintf(out, "\n%30s", "");
            col = 30;
        }
        wrap(out, col, 30, text);
    }
    fputs("\n"
          "examples:\n"
          "  ddplab interview\n"
          "  ddplab interview --topic memory,buckets --count 5 --seed 7\n"
          "  ddplab interview --seed 7 --non-interactive\n"
          "  ddplab interview --seed 7 --count 3 --answers my-answers.txt\n"
          "\n"
          "exit codes:\n",
          out);
    cli_print_exit_codes(out);
}

// ----------------------------------------------------------------------------
// options

static int parse_count(const char *v, IvOptions *o) {
    char *end, vb[72];
    errno = 0;
    long x = strtol(v, &end, 10);
    if (end == v || *end || v[0] < '0' || v[0] > '9' || errno == ERANGE || x < 1 ||
        x > IV_MAX_COUNT) {
        iv_error("--count: '%s' is not a number of questions; allowed: a whole number from 1 "
                 "to %d", cli_opt_shown(v, vb, sizeof vb), IV_MAX_COUNT);
        return -1;
    }
    o->count = (int)x;
    return 0;
}

static int parse_seed(const char *v, IvOptions *o) {
    char *end, vb[72];
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    if (end == v || *end || v[0] < '0' || v[0] > '9' || errno == ERANGE) {
        iv_error("--seed: '%s' is not a seed; allowed: a whole number from 0 to "
                 "18446744073709551615", cli_opt_shown(v, vb, sizeof vb));
        return -1;
    }
    o->seed = (uint64_t)x;
    return 0;
}

static const char *topic_list(void) {
    return "memory, collectives, batch, buckets, sharding, failures, strategies, precision, "
           "launching, loop, resilience, all";
}

static int parse_topics(const char *v, IvOptions *o) {
    char buf[256], vb[72];
    int seen[IV_TOPIC_COUNT] = {0};
    if (strlen(v) >= sizeof buf || !*v) {
        iv_error("--topic: '%s' is not a topic list; allowed: %s (a comma list)",
                 cli_opt_shown(v, vb, sizeof vb), topic_list());
        return -1;
    }
    snprintf(buf, sizeof buf, "%s", v);
    o->ntopics = 0;
    o->all_topics = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        IvTopic tp;
        if (strcmp(t, "all") == 0) {
            o->all_topics = 1;
            for (int i = 0; i < IV_TOPIC_COUNT; i++)
                seen[i] = 1;
        } else if (iv_topic_parse(t, &tp) == 0) {
            seen[tp] = 1;
        } else {
            iv_error("--topic: '%s' is not a topic; allowed: %s (a comma list)",
                     cli_opt_shown(t, vb, sizeof vb), topic_list());
            return -1;
        }
    }
    for (int i = 0; i < IV_TOPIC_COUNT; i++)
        if (seen[i])
            o->topics[o->ntopics++] = (IvTopic)i;
    if (o->ntopics == 0) {
        iv_error("--topic: '%s' names no topic; allowed: %s (a comma list)",
                 cli_opt_shown(v, vb, sizeof vb), topic_list());
        return -1;
    }
    if (o->ntopics == IV_TOPIC_COUNT)
        o->all_topics = 1;
    return 0;
}

static const IvOptSpec *find(const char *a, const char **val) {
    *val = NULL;
    if (a[0] == '-' && a[1] == '-') {
        const char *eq = strchr(a + 2, '=');
        size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
        for (int i = 0; i < IO_NOPTS; i++)
            if (strlen(specs[i].longname) == len && strncmp(specs[i].longname, a + 2, len) == 0) {
                *val = eq ? eq + 1 : NULL;
                return &specs[i];
            }
    } else if (a[0] == '-' && a[1] && a[2] == '\0') {
        for (int i = 0; i < IO_NOPTS; i++)
            if (specs[i].shortname == a[1])
                return &specs[i];
    }
    return NULL;
}

static uint64_t clock_seed(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int iv_opts_parse(int argc, char **argv, IvOptions *o) {
    memset(o, 0, sizeof *o);
    o->count = 10;
    for (int i = 0; i < IV_TOPIC_COUNT; i++)
        o->topics[i] = (IvTopic)i;
    o->ntopics = IV_TOPIC_COUNT;
    o->all_topics = 1;
    int seed_set = 0;
    for (int i = 1; i < argc; i++) {
        const char *val;
        char vb[72];
        const IvOptSpec *s = find(argv[i], &val);
        if (!s) {
            iv_error("'%s' is not an option; allowed: see 'ddplab interview --help'",
                     cli_opt_shown(argv[i], vb, sizeof vb));
            return -1;
        }
        if (s->id == IO_HELP)
            return 1;
        if (!s->arg && val) {
            iv_error("--%s: takes no value (got '%s')", s->longname,
                     cli_opt_shown(val, vb, sizeof vb));
            return -1;
        }
        if (s->arg && !val) {
            if (i + 1 >= argc) {
                iv_error("--%s: missing value; allowed: %s", s->longname, s->arg);
                return -1;
            }
            val = argv[++i];
        }
        int rc = 0;
        switch (s->id) {
        case IO_COUNT: rc = parse_count(val, o); break;
        case IO_TOPIC: rc = parse_topics(val, o); break;
        case IO_SEED: rc = parse_seed(val, o); seed_set = 1; break;
        case IO_NONINT: o->non_interactive = 1; break;
        case IO_ANSWERS: o->answers = val; break;
        default: break;
        }
        if (rc != 0)
            return -1;
    }
    if (o->non_interactive && o->answers) {
        iv_error("--answers: cannot be combined with --non-interactive; allowed: one of them");
        return -1;
    }
    if (!seed_set)
        o->seed = clock_seed();
    return 0;
}

// ----------------------------------------------------------------------------
// the drill

typedef struct {
    int asked[IV_TOPIC_COUNT], right[IV_TOPIC_COUNT], skipped[IV_TOPIC_COUNT];
} IvScore;

// Reads one line from f into buf (without its end of line); a longer line
// is cut. Returns 0, or -1 at the end of the input.
static int read_line(FILE *f, char *buf, size_t len) {
    if (!fgets(buf, (int)len, f))
        return -1;
    size_t n = strlen(buf);
    if (n > 0 && buf[n - 1] != '\n' && !feof(f)) {
        int c;
        while ((c = fgetc(f)) != EOF && c != '\n')
            ;
    }
    buf[strcspn(buf, "\r\n")] = '\0';
    return 0;
}

static char *trim(char *s) {
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        s[--n] = '\0';
    return s;
}

static void print_question(const IvQuestion *q, int i, int count) {
    printf("\n[%d/%d] %s\n  ", i + 1, count, iv_topic_name(q->topic));
    wrap(stdout, 2, 2, q->text);
    if (q->nvalues == 0) {
        for (int c = 0; c < IV_NCHOICES; c++) {
            printf("  %c) ", 'a' + c);
            wrap(stdout, 5, 5, q->choice[c]);
        }
        printf("  answer: a letter, a-%c\n", 'a' + IV_NCHOICES - 1);
        return;
    }
    char line[400] = "answer:";
    for (int k = 0; k < q->nvalues; k++) {
        char t[64];
        iv_append(line, sizeof line, "%s %s%s%s (%s)", k ? ", then" : "", q->val[k].name,
                  q->val[k].unit[0] && !strstr(q->val[k].name, q->val[k].unit) ? " in " : "",
                  q->val[k].unit[0] && !strstr(q->val[k].name, q->val[k].unit)
                      ? q->val[k].unit : "",
                  iv_tolerance_str(&q->val[k], t, sizeof t));
    }
    printf("  ");
    wrap(stdout, 2, 4, line);
}

// "13.48 GB per GPU", "steps = 14, 1792.00 MiB sent per rank", "c) ...".
static const char *expected_words(const IvQuestion *q, char *buf, size_t len) {
    buf[0] = '\0';
    if (q->nvalues == 0) {
        snprintf(buf, len, "%c) %s", 'a' + q->correct, q->choice[q->correct]);
        return buf;
    }
    for (int k = 0; k < q->nvalues; k++) {
        const IvValue *v = &q->val[k];
        char x[48];
        size_t ul = strlen(v->unit);
        iv_value_str(v, v->value, x, sizeof x);
        if (ul && strncmp(v->name, v->unit, ul) == 0)
            iv_append(buf, len, "%s%s %s", k ? ", " : "", x, v->name);
        else
            iv_append(buf, len, "%s%s = %s%s%s", k ? ", " : "", v->name, x, ul ? " " : "",
                      v->unit);
    }
    return buf;
}

static void print_after(const IvQuestion *q) {
    printf("  why: ");
    wrap(stdout, 7, 4, q->explain);
    printf("  see it: %s\n", q->command);
    if (q->command_note[0])
        printf("          (%s)\n", q->command_note);
}

// Grades one answer (NULL: skipped) and prints the verdict.
static void judge(const IvQuestion *q, const char *answer, IvScore *sc) {
    char words[800], why[400], line[1400];
    sc->asked[q->topic]++;
    expected_words(q, words, sizeof words);
    if (!answer) {
        sc->skipped[q->topic]++;
        snprintf(line, sizeof line, "skipped; the answer: %s", words);
    } else {
        int g = iv_grade(q, answer, why, sizeof why);
        sc->right[q->topic] += g == 1;
        if (g == 1)
            snprintf(line, sizeof line, "right: %s", words);
        else if (g == 0 && q->nvalues > 0) // why names each expected value that was missed
            snprintf(line, sizeof line, "wrong: %s", why);
        else
            snprintf(line, sizeof line, "wrong: %s; the answer: %s", why, words);
    }
    printf("  ");
    wrap(stdout, 2, 4, line);
    print_after(q);
}

static void print_score(const IvScore *sc) {
    int asked = 0, right = 0, skipped = 0;
    for (int t = 0; t < IV_TOPIC_COUNT; t++) {
        asked += sc->asked[t];
        right += sc->right[t];
        skipped += sc->skipped[t];
    }
    printf("\nscore: %d/%d right, %d skipped, %d wrong\n", right, asked, skipped,
           asked - right - skipped);
    for (int t = 0; t < IV_TOPIC_COUNT; t++)
        if (sc->asked[t])
            printf("  %-12s %d/%d right, %d skipped\n", iv_topic_name((IvTopic)t),
                   sc->right[t], sc->asked[t], sc->skipped[t]);
}

static void print_header(const IvOptions *o) {
    char topics[160] = "", repeat[200];
    for (int i = 0; i < o->ntopics; i++)
        iv_append(topics, sizeof topics, "%s%s", i ? ", " : "", iv_topic_name(o->topics[i]));
    snprintf(repeat, sizeof repeat, "ddplab interview --seed %llu --count %d",
             (unsigned long long)o->seed, o->count);
    if (!o->all_topics) {
        iv_append(repeat, sizeof repeat, " --topic ");
        for (int i = 0; i < o->ntopics; i++)
            iv_append(repeat, sizeof repeat, "%s%s", i ? "," : "", iv_topic_name(o->topics[i]));
    }
    printf("ddplab interview: %d question%s, seed %llu\n", o->count, o->count == 1 ? "" : "s",
           (unsigned long long)o->seed);
    fputs("topics: ", stdout); // eleven names: wrapped within 79 columns
    wrap(stdout, 8, 8, topics);
    printf("again: %s\n", repeat);
    printf("answers: the number(s) asked, or a letter; empty or 'skip' skips; 'quit' stops\n");
}


int interview_main(int argc, char **argv) {
    IvOptions o;
    int p = iv_opts_parse(argc, argv, &o);
    if (p == 1) {
        interview_help(stdout);
        return CLI_EXIT_OK;
    }
    if (p < 0)
        return CLI_EXIT_USAGE;
    FILE *in = stdin;
    if (o.answers) {
        in = fopen(o.answers, "r");
        // a directory opens, but its first read fails: refused here, before
        // the drill starts, like a file that does not open
        struct stat st;
        int e = in == NULL                                             ? errno
                : fstat(fileno(in), &st) == 0 && S_ISDIR(st.st_mode) ? EISDIR
                                                                       : 0;
        if (e != 0) {
            char vb[72];
            if (in)
                fclose(in);
            iv_error("--answers: cannot read '%s': %s; allowed: a readable file, one answer "
                     "per line", cli_opt_shown(o.answers, vb, sizeof vb), strerror(e));
            return CLI_EXIT_USAGE;
        }
    }
    IvTopic *topic_of = calloc((size_t)o.count, sizeof *topic_of);
    uint64_t *seeds = calloc((size_t)o.count, sizeof *seeds);
    uint64_t *asked = calloc((size_t)o.count, sizeof *asked); // hashes of the texts so far
    int *ordinals = calloc((size_t)o.count, sizeof *ordinals);
    if (!topic_of || !seeds || !asked || !ordinals) {
        free(topic_of);
        free(seeds);
        free(asked);
        free(ordinals);
        if (in != stdin)
            fclose(in);
        iv_error("out of memory");
        return CLI_EXIT_INTERNAL;
    }
    iv_plan_drill(o.seed, o.topics, o.ntopics, o.count, topic_of, seeds, ordinals);
    print_header(&o);
    // echo what was read when it does not show on a terminal already
    int echo = o.non_interactive || o.answers || !isatty(fileno(stdin));
    IvScore sc;
    memset(&sc, 0, sizeof sc);
    int rc = CLI_EXIT_OK, i;
    for (i = 0; i < o.count; i++) {
        IvQuestion q;
        char err[512] = "", buf[1024], exp[128];
        if (iv_generate_fresh(topic_of[i], seeds[i], ordinals[i], o.count, asked, i, &q, err,
                           sizeof err) != 0) {
            iv_error("question %d (%s): %s", i + 1, iv_topic_name(topic_of[i]), err);
            rc = CLI_EXIT_INTERNAL;
            break;
        }
        asked[i] = iv_text_hash(q.text);
        print_question(&q, i, o.count);
        printf("answer> ");
        fflush(stdout);
        const char *answer;
        if (o.non_interactive) {
            answer = iv_expected(&q, exp, sizeof exp);
        } else if (read_line(in, buf, sizeof buf) != 0) {
            printf("\n(end of the answers: the drill stops after %d question%s)\n", i,
                   i == 1 ? "" : "s");
            break;
        } else {
            answer = trim(buf);
        }
        if (echo)
            printf("%s\n", answer);
        if (strcmp(answer, "quit") == 0 || strcmp(answer, "q") == 0) {
            printf("(quit: the drill stops after %d question%s)\n", i, i == 1 ? "" : "s");
            break;
        }
        int skip = !*answer || strcmp(answer, "skip") == 0 || strcmp(answer, "s") == 0;
        judge(&q, skip ? NULL : answer, &sc);
    }
    if (rc == CLI_EXIT_OK)
        print_score(&sc);
    free(topic_of);
    free(seeds);
    free(asked);
    free(ordinals);
    if (in != stdin)
        fclose(in);
    return rc;
}
