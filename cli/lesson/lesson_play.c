// cli/lesson/lesson_play.c: one lesson played from its first item to its last
// (lesson_play.h). The blocks run in this process (lesson_run.h) in a
// scratch directory of their own; their facts (lesson_facts.h) stay until
// the lesson ends, for the questions that follow them.
#include "lesson/lesson_play.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/cli.h"           // defines: CLI_EXIT_*
#include "core/viz_cli.h"       // defines: cli_viz_at
#include "learn/lesson_facts.h" // defines: LessonFacts, lesson_fact
#include "learn/lesson_grade.h" // defines: lesson_grade_shown, lesson_choice_order
#include "learn/lesson_text.h"  // defines: lesson_text_wrap
#include "lesson/lesson_run.h"  // defines: LessonSession, lesson_run_block
#include "lesson/lesson_signals.h" // defines: lesson_signals_catch
#include "views.h"              // defines: viz_text_frame, viz_curses_run, viz_sdl_run

enum {
    PLAY_TAIL_LINES = 12, // of a failed block's output, in its message
    PLAY_ASK_TRIES = 5,   // answers that are not of the question's type before it is skipped
    PLAY_MAX_CHOICES = 26, // a) to z): every choice a question can have
};

typedef struct {
    const Lesson *l;
    const LessonPlayOpts *o;
    LessonPlayResult *res;
    LessonSession session;
    LessonFacts *facts; // [l->nruns]
    char *since;        // the narrative since the last pause (heap, may be NULL)
    size_t since_n;
    int eof;            // the answers ended: later questions are skipped
} Play;

// One line on stderr, "LESSON:LINE: ...", after the transcript so far; a
// failure (fails = 1) is counted, a note is not.
static void report(Play *p, int line, int fails, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void report(Play *p, int line, int fails, const char *fmt, ...) {
    fflush(p->o->out);
    fprintf(stderr, "%s:%d: ", p->l->path, line);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    p->res->failures += fails;
}
#define failure(p, line, ...) report(p, line, 1, __VA_ARGS__)

static void since_add(Play *p, const char *text) {
    size_t n = strlen(text);
    char *s = realloc(p->since, p->since_n + n + 3);
    if (s == NULL)
        return; // the view then shows less narrative; nothing else depends on it
    p->since = s;
    if (p->since_n > 0) {
        memcpy(s + p->since_n, "\n\n", 2);
        p->since_n += 2;
    }
    memcpy(s + p->since_n, text, n + 1);
    p->since_n += n;
}

static void since_clear(Play *p) {
    p->since_n = 0;
    if (p->since)
        p->since[0] = '\0';
}

// Reads one line of input into buf (without its newline). 0, or -1 at the
// end of the input.
static int read_line(Play *p, char *buf, size_t len) {
    if (p->eof || lesson_signals_caught() || fgets(buf, (int)len, p->o->in) == NULL) {
        p->eof = 1; // a signal interrupts the read (the handler does not restart it)
        buf[0] = '\0';
        return -1;
    }
    size_t n = strlen(buf);
    if (n > 0 && buf[n - 1] == '\n')
        buf[--n] = '\0';
    else { // a line longer than buf: the rest is dropped
        int c;
        while ((c = fgetc(p->o->in)) != EOF && c != '\n')
            ;
    }
    return 0;
}

// ---------------------------------------------------------------------------
// Runs

// The last n lines of s, each led by "  | ", on stderr.
static void print_tail(const char *s, int n) {
    size_t len = strlen(s);
    while (len > 0 && s[len - 1] == '\n')
        len--;
    size_t at = len;
    for (int k = 0; k < n && at > 0; k++) {
        at--;
        while (at > 0 && s[at - 1] != '\n')
            at--;
    }
    if (len == 0) {
        fprintf(stderr, "  | (it printed nothing)\n");
        return;
    }
    for (const char *q = s + at; q < s + len;) {
        const char *nl = memchr(q, '\n', (size_t)(s + len - q));
        size_t k = nl ? (size_t)(nl - q) : (size_t)(s + len - q);
        fprintf(stderr, "  | %.*s\n", (int)k, q);
        q += k + 1;
    }
}

// "-> exit 0; 2 iterations, loss 1.526, 361.2 us simulated, 686 events"
static void print_summary(Play *p, const LessonRun *r, LessonFacts *f) {
    FILE *out = p->o->out;
    fprintf(out, "-> exit %d", f->exit_code);
    if (f->exit_code != r->expect_exit)
        fprintf(out, " (the lesson expects %d)", r->expect_exit);
    if (f->has_trace) {
        double v;
        char why[256];
        int it = viz_model_iterations(f->model);
        fprintf(out, "; %d iteration%s", it, it == 1 ? "" : "s");
        char fig[64];
        // the figures a question's answer is measured against (lesson_grade_figure)
        if (lesson_fact(f, "loss", &v, why, sizeof why) == 0) {
            lesson_grade_figure("loss", v, fig, sizeof fig);
            fprintf(out, ", loss %s", fig);
        }
        if (lesson_fact(f, "sim_us", &v, why, sizeof why) == 0) {
            lesson_grade_figure("sim_us", v, fig, sizeof fig);
            fprintf(out, ", %s us simulated", fig);
        }
        fprintf(out, ", %zu events in the trace", f->trace.n);
    }
    fputc('\n', out);
}

// The words a view shows at a pause: the caption, then the narrative since
// the last pause; a key hint first in the interactive views.
// The words beside a pause's frame: its caption, and in a full-screen view
// (which hides the terminal) also the narrative since the last pause; the
// text view printed that narrative just above the frame.
static char *pause_text(Play *p, const LessonPause *ps, int interactive) {
    const char *hint = interactive ? "[q: back to the lesson]  " : "";
    const char *cap = ps->caption && *ps->caption ? ps->caption : "";
    size_t since = interactive ? p->since_n : 0;
    size_t n = strlen(hint) + strlen(cap) + since + 8;
    char *s = malloc(n);
    if (s != NULL)
        snprintf(s, n, "%s%s%s%s", hint, cap, since && (*cap || *hint) ? "\n\n" : "",
                 since ? p->since : "");
    return s;
}

static void text_frame(Play *p, LessonFacts *f, size_t at, const char *words) {
    FILE *out = p->o->out;
    int w = p->o->width < 80 ? 80 : p->o->width > 1000 ? 1000 : p->o->width;
    if (viz_text_frame(f->model, at, w, p->o->unicode, words, out) != SIM_OK)
        fprintf(out, "(the frame at event %zu could not be drawn)\n", at);
}

static void show_pause(Play *p, LessonFacts *f, const LessonPause *ps) {
    FILE *out = p->o->out;
    if (!f->has_trace) {
        failure(p, ps->line, "pause %s: the command left no trace to pause in (exit %d)", ps->pos,
                f->exit_code);
        return;
    }
    char prog[512];
    snprintf(prog, sizeof prog, "%s:%d: pause", p->l->path, ps->line);
    fflush(out);
    size_t at = cli_viz_at(f->model, ps->pos, prog);
    if (at == SIZE_MAX) {
        p->res->failures++;
        return;
    }
    int interactive = strcmp(p->o->viz, "text") != 0;
    char *words = pause_text(p, ps, interactive);
    fprintf(out, "\n-- pause at %s (event %zu of %zu) --\n", ps->pos, at,
            viz_model_count(f->model));
    if (interactive) {
        VizSource src = {&f->trace, f->model, NULL, 0};
        viz_source_poll(&src);
        VizViewOpts vo;
        viz_view_opts_default(&vo);
        vo.start = at;
        vo.lesson = words;
        char err[512] = "";
        fflush(out);
        SimStatus st = strcmp(p->o->viz, "sdl") == 0 ? viz_sdl_run(&src, &vo, err, sizeof err)
                                                      : viz_curses_run(&src, &vo, err, sizeof err);
        if (st != SIM_OK) {
            fprintf(out, "(the %s view could not open: %s; the frame as text instead)\n",
                    p->o->viz, err[0] ? err : sim_strerror(st));
            free(words);
            words = pause_text(p, ps, 0);
            text_frame(p, f, at, words);
        }
    } else {
        text_frame(p, f, at, words);
        if (p->o->wait_enter && !p->o->non_interactive) {
            char buf[64];
            fprintf(out, "(Enter: go on) ");
            fflush(out);
            read_line(p, buf, sizeof buf);
        }
    }
    free(words);
    since_clear(p);
}

static void play_run(Play *p, int k) {
    const LessonRun *r = &p->l->runs[k];
    LessonFacts *f = &p->facts[k];
    FILE *out = p->o->out;
    fprintf(out, "\n$ ddplab %s\n", r->command);
    fflush(out);
    char err[512];
    if (lesson_run_block(&p->session, r, f, err, sizeof err) != 0) {
        failure(p, r->line, "cannot run `%s`: %s", r->command, err);
        return;
    }
    fwrite(f->output, 1, f->output_len, out);
    if (f->output_len > 0 && f->output[f->output_len - 1] != '\n')
        fputc('\n', out);
    print_summary(p, r, f);
    if (f->exit_code != r->expect_exit) {
        failure(p, r->line, "`ddplab %s` ended with exit %d, but the lesson expects %d; the last "
                "lines it printed:", r->command, f->exit_code, r->expect_exit);
        print_tail(f->output, PLAY_TAIL_LINES);
    }
    for (int i = 0; i < r->npauses; i++)
        show_pause(p, f, &r->pauses[i]);
}

// ---------------------------------------------------------------------------
// Questions

// The fact a number question is graded against: 1 with *v, 0 when there is
// none (after saying why: a failure when checking).
static int question_fact(Play *p, const LessonQuestion *q, double *v) {
    if (q->type != LESSON_Q_NUMBER || q->check == NULL)
        return 0;
    char why[512];
    if (q->run < 0 || q->run >= p->l->nruns) {
        snprintf(why, sizeof why, "no run block comes before it");
    } else if (p->facts[q->run].output == NULL) {
        snprintf(why, sizeof why, "its run (line %d) could not be run",
                 p->l->runs[q->run].line);
    } else if (lesson_fact(&p->facts[q->run], q->check, v, why, sizeof why) == 0) {
        return 1;
    }
    if (p->o->non_interactive)
        failure(p, q->line, "check %s: %s", q->check, why);
    else
        fprintf(p->o->out, "(the run's %s is not known: %s; graded against the lesson's "
                "answer)\n", q->check, why);
    return 0;
}

// The order the choices of question k are shown in: as written with
// --non-interactive (a stable transcript) and for answers read from a file
// or a pipe (a prepared list of letters stays valid); shuffled anew on every
// play at a terminal, so that a learner remembers reasons, not letters.
static void choice_order(Play *p, int k, int *order) {
    const LessonQuestion *q = &p->l->questions[k];
    unsigned long seed = 0;
    if (!p->o->non_interactive && isatty(fileno(p->o->in))) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        seed = ((unsigned long)ts.tv_sec * 1000003ul + (unsigned long)ts.tv_nsec) ^
               ((unsigned long)(k + 1) * 0x9E3779B9ul);
        seed |= 1; // never 0, which means "as written"
    }
    lesson_choice_order(q, seed, order);
}

static void ask(Play *p, int k) {
    const LessonQuestion *q = &p->l->questions[k];
    FILE *out = p->o->out;
    int w = p->o->width;
    fprintf(out, "\nQuestion %d of %d\n", k + 1, p->l->nquestions);
    lesson_text_wrap(out, q->ask, w, 0);
    int order[PLAY_MAX_CHOICES]; // the parser allows one choice per letter
    choice_order(p, k, order);
    for (int i = 0; i < q->nchoices; i++) {
        // "a) text": the letter leads, the text hangs under itself
        char mark[8];
        snprintf(mark, sizeof mark, "%c) ", 'a' + i);
        lesson_text_item(out, mark, lesson_choice_text(q, order[i]), w, 2);
    }
    double fact;
    int have = question_fact(p, q, &fact);
    const char *kind = q->type == LESSON_Q_NUMBER   ? "a number"
                       : q->type == LESSON_Q_CHOICE ? "a letter"
                                                    : "a word";
    char buf[256];
    LessonGrade g = LESSON_GRADE_SKIP;
    for (int tries = 0; tries < PLAY_ASK_TRIES; tries++) {
        fprintf(out, "Your answer (%s; Enter skips): ", kind);
        if (p->o->non_interactive) {
            snprintf(buf, sizeof buf, "%s", q->answer ? q->answer : "");
            fprintf(out, "%s\n", buf);
        } else {
            fflush(out);
            if (read_line(p, buf, sizeof buf) == 0 && !isatty(fileno(p->o->in)))
                fprintf(out, "%s\n", buf); // a scripted answer, for the transcript
            else if (p->eof)
                fputc('\n', out);
        }
        g = lesson_grade_shown(q, order, buf, have ? &fact : NULL);
        if (g != LESSON_GRADE_INVALID || p->o->non_interactive)
            break;
        fprintf(out, "'%s' is not %s.\n", buf, kind);
    }
    char right[512];
    lesson_grade_right_shown(q, order, have ? &fact : NULL, right, sizeof right);
    p->res->asked++;
    if (g == LESSON_GRADE_RIGHT)
        p->res->right++;
    lesson_text_item(out,
                     g == LESSON_GRADE_RIGHT  ? "Right: "
                     : g == LESSON_GRADE_SKIP ? "Skipped. The answer: "
                                              : "Not quite. The answer: ",
                     right, w, 0);
    if (q->explain && *q->explain)
        lesson_text_wrap(out, q->explain, w, 0);
    if (p->o->non_interactive && have && g != LESSON_GRADE_RIGHT) {
        char num[64];
        lesson_grade_number(fact, num, sizeof num);
        if (q->varies) // the figure is this machine's: a note, not a failure
            report(p, q->line, 0, "note: the recorded answer is %s, this machine computed %s "
                   "(it varies with %s)", q->answer ? q->answer : "(none)", num, q->varies);
        else
            failure(p, q->line, "the recorded answer is %s but the run computed %s (fact %s)",
                    q->answer ? q->answer : "(none)", num, q->check);
    } else if (p->o->non_interactive && g != LESSON_GRADE_RIGHT && q->type != LESSON_Q_NUMBER) {
        failure(p, q->line, "the recorded answer '%s' does not grade as right",
                q->answer ? q->answer : "");
    }
}

// ---------------------------------------------------------------------------

// The title (unless the narrative opens with it) and the header's facts.
static void print_header(const Lesson *l, FILE *out) {
    const char *title = l->title ? l->title : l->id;
    const char *first = l->nitems > 0 && l->items[0].kind == LESSON_ITEM_TEXT && l->items[0].text
                            ? l->items[0].text
                            : "";
    if (strncmp(first, title, strlen(title)) != 0) {
        fprintf(out, "%s\n", title);
        for (size_t i = strlen(title); i > 0; i--)
            fputc('=', out);
        fputc('\n', out);
    }
    fprintf(out, "[lesson %s: %s, about %d minute%s", l->id, l->difficulty, l->minutes,
            l->minutes == 1 ? "" : "s");
    if (l->nprereqs > 0) {
        fprintf(out, "; take first:");
        for (int i = 0; i < l->nprereqs; i++)
            fprintf(out, "%s %s", i ? "," : "", l->prereqs[i]);
    }
    fputs("]\n", out);
}

int lesson_play(const Lesson *l, const LessonPlayOpts *o, LessonPlayResult *res) {
    memset(res, 0, sizeof *res);
    Play p = {.l = l, .o = o, .res = res};
    char err[512];
    if (lesson_session_open(&p.session, o->backend, err, sizeof err) != 0) {
        fprintf(stderr, "ddplab lesson: %s\n", err);
        return CLI_EXIT_INTERNAL;
    }
    p.facts = calloc(l->nruns > 0 ? (size_t)l->nruns : 1, sizeof *p.facts);
    if (p.facts == NULL) {
        lesson_session_close(&p.session);
        fprintf(stderr, "ddplab lesson: out of memory\n");
        return CLI_EXIT_INTERNAL;
    }
    for (int i = 0; i < l->nruns; i++)
        lesson_facts_init(&p.facts[i]);
    // Ctrl-C, a closed terminal or kill end the lesson between its items
    LessonSignals sg;
    lesson_signals_catch(&sg);
    print_header(l, o->out);
    for (int i = 0; i < l->nitems && !lesson_signals_caught(); i++) {
        const LessonItem *it = &l->items[i];
        if (it->kind == LESSON_ITEM_TEXT && it->text) {
            fputc('\n', o->out);
            lesson_text_wrap(o->out, it->text, o->width, 0);
            since_add(&p, it->text);
        } else if (it->kind == LESSON_ITEM_RUN) {
            play_run(&p, it->index);
        } else if (it->kind == LESSON_ITEM_QUESTION) {
            ask(&p, it->index);
        }
        fflush(o->out);
    }
    res->completed = !lesson_signals_caught();
    if (res->completed)
        fprintf(o->out, "\nEnd of the lesson: %d of %d question%s answered right.\n",
                res->right, res->asked, res->asked == 1 ? "" : "s");
    if (res->failures > 0)
        fprintf(stderr, "%s: %d check%s failed\n", l->path, res->failures,
                res->failures == 1 ? "" : "s");
    for (int i = 0; i < l->nruns; i++)
        lesson_facts_free(&p.facts[i]);
    free(p.facts);
    free(p.since);
    lesson_session_close(&p.session);
    fflush(o->out);
    lesson_signals_release(&sg);
    return res->failures > 0 ? CLI_EXIT_CHECK : CLI_EXIT_OK;
}
