// cli/lesson/lesson_tui.c: the full-screen lesson player's loop on the
// terminal (lesson_tui.h): the screen opened on its own copy of the
// terminal's descriptor (the blocks' output is captured from fd 1 and 2
// while they run, and must not reach the screen), keys read with a short
// timeout while a view plays, the blocks run when a stop needs them, and
// the progress file kept at every answer and when a lesson is left.
//
// SIGINT, SIGTERM and SIGHUP only note the signal (lesson_signals.h); the
// loop sees it within one frame, closes the screen, removes the lesson's
// scratch directory, and then the signal is raised again.
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/cli.h"                  // defines: CLI_EXIT_*
#include "interview/interview_cmd.h"   // defines: interview_main
#include "lesson/lesson_confine.h"     // defines: lesson_load
#include "lesson/lesson_run.h"         // defines: LessonSession, lesson_run_block
#include "lesson/lesson_signals.h"     // defines: lesson_signals_catch
#include "lesson/lesson_tui.h"
#include "lesson/lesson_tui_internal.h"
#include "screen.h"                    // defines: VizScreen
#include "views.h"                     // defines: viz_curses_available

enum {
    TUI_PLAY_MS = 30,   // a frame while the view plays
    TUI_IDLE_MS = 250,  // waiting for a key (signals are noticed this often)
};

typedef struct {
    const LessonTuiOpts *o;
    VizScreen *scr;
    VizCanvas canvas;
    int quit;           // the learner left the program
} Tui;

int lesson_tui_available(void) {
    return viz_curses_available() && isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
}

static double tui_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// A canvas of the screen's size, cleared. 0, or -1 (memory).
static int tui_canvas(Tui *t) {
    int w, h;
    viz_screen_size(t->scr, &w, &h);
    w = w < 1 ? 1 : w;
    h = h < 1 ? 1 : h;
    if (t->canvas.cells == NULL)
        return viz_canvas_init(&t->canvas, w, h, viz_screen_unicode(t->scr)) == SIM_OK ? 0 : -1;
    if (t->canvas.w != w || t->canvas.h != h)
        return viz_canvas_resize(&t->canvas, w, h) == SIM_OK ? 0 : -1;
    viz_canvas_clear(&t->canvas);
    return 0;
}

// The next key, VIZ_SCREEN_NOKEY, or VIZ_SCREEN_RESIZED (the next show
// then repaints everything).
static int tui_key(Tui *t, int timeout_ms) {
    int k = viz_screen_key(t->scr, timeout_ms);
    if (k == VIZ_SCREEN_RESIZED)
        viz_screen_invalidate(t->scr);
    return k;
}

// ---------------------------------------------------------------------------
// Progress

static void tui_save(Tui *t) {
    char err[512];
    if (t->o->progress_path && lesson_progress_save(t->o->progress, t->o->progress_path, err,
                                                     sizeof err) != 0)
        fprintf(stderr, "ddplab lesson: progress not saved: %s\n", err);
}

// Where the lesson stands, into the progress (and the file).
static void tui_note(Tui *t, const TuiLesson *s) {
    if (s->l->id == NULL || t->o->progress == NULL)
        return;
    int asked, right, open;
    lesson_tui_score(s, &asked, &right, &open);
    int end = s->stops[s->cur].kind == TUI_STOP_END;
    char marks[1024];
    lesson_tui_marks(s, marks, sizeof marks);
    if (lesson_progress_record(t->o->progress, s->l->id, end, right, asked, time(NULL)) == 0 &&
        lesson_progress_record_at(t->o->progress, s->l->id, end ? 0 : s->cur, marks) == 0)
        tui_save(t);
}

// ---------------------------------------------------------------------------
// A lesson

typedef struct {
    Lesson l;
    LessonSession session;
    LessonFacts *facts;
    TuiLesson s;
} TuiPlay;

static void play_free(TuiPlay *p) {
    lesson_tui_lesson_free(&p->s);
    for (int i = 0; p->facts && i < p->l.nruns; i++)
        lesson_facts_free(&p->facts[i]);
    free(p->facts);
    lesson_session_close(&p->session);
    lesson_free(&p->l);
}

// The status line while block k runs (the screen does not change meanwhile).
static void tui_show_running(Tui *t, TuiLesson *s, int k) {
    if (tui_canvas(t) != 0)
        return;
    // the narrative up to the block, and the view pane waiting for it
    int cur = s->cur;
    s->cur = s->pending_stop;
    s->running = 1;
    lesson_tui_draw(s, &t->canvas);
    s->running = 0;
    s->cur = cur;
    char msg[512];
    snprintf(msg, sizeof msg, "running block %d of %d: ddplab %s ...", k + 1, s->l->nruns,
             s->l->runs[k].command);
    lesson_tui_bar(&t->canvas, 0, t->canvas.h - 1, t->canvas.w, VIZ_STYLE_WARN, msg);
    viz_screen_show(t->scr, &t->canvas);
}

// Runs what the screen is waiting for; a block that cannot run at all is
// said in the status line, and its stop shows what it printed.
static void tui_run_pending(Tui *t, TuiPlay *p, TuiDo *d) {
    while (*d == TUI_DO_RUN && !lesson_signals_caught()) {
        int k = p->s.pending_run;
        tui_show_running(t, &p->s, k);
        char err[512] = "";
        if (lesson_run_block(&p->session, &p->l.runs[k], &p->facts[k], err, sizeof err) != 0) {
            free(p->facts[k].output);
            p->facts[k].output = strdup(err); // the stop then shows why
            p->facts[k].output_len = strlen(err);
        }
        *d = lesson_tui_ran(&p->s, k);
        if (err[0])
            snprintf(p->s.message, sizeof p->s.message, "block %d could not run: %.120s", k + 1, err);
    }
}

// The catalog's next lesson after the one at path, for the summary.
static void tui_next_lesson(const Tui *t, const char *path, TuiLesson *s) {
    const LessonCatalog *c = t->o->cat;
    for (int i = 0; c && i + 1 < c->n; i++)
        if (strcmp(c->e[i].path, path) == 0 && c->e[i + 1].id) {
            s->next_id = c->e[i + 1].id;
            s->next_title = c->e[i + 1].title;
        }
}

// Opens the lesson at path: resumed where it was left, or from the start;
// review: only the questions missed in its last play.
static int tui_open(Tui *t, TuiPlay *p, const char *path, int review, char *err, size_t errlen) {
    memset(p, 0, sizeof *p);
    if (lesson_load(path, &p->l, err, errlen) != 0)
        return -1;
    if (lesson_session_open(&p->session, t->o->backend, err, errlen) != 0) {
        lesson_free(&p->l);
        return -1;
    }
    p->facts = calloc(p->l.nruns > 0 ? (size_t)p->l.nruns : 1, sizeof *p->facts);
    for (int i = 0; p->facts && i < p->l.nruns; i++)
        lesson_facts_init(&p->facts[i]);
    const LessonProgressEntry *e =
        p->l.id && t->o->progress ? lesson_progress_find(t->o->progress, p->l.id) : NULL;
    int resume = e && e->at > 0 && !review;
    const char *marks = e && (resume || review) ? e->answers : NULL;
    if (p->facts == NULL || lesson_tui_lesson_init(&p->s, &p->l, p->facts, t->o->seed, marks)) {
        snprintf(err, errlen, "out of memory");
        play_free(p);
        return -1;
    }
    tui_next_lesson(t, path, &p->s);
    return resume ? e->at : 0;
}

// Plays one lesson until the learner leaves it (or the program).
static void tui_lesson(Tui *t, const char *path, int review, char *msg, size_t msglen) {
    TuiPlay p;
    char err[512];
    int at = tui_open(t, &p, path, review, err, sizeof err);
    if (at < 0) {
        snprintf(msg, msglen, "%s", err);
        return;
    }
    p.s.up_word = t->o->cat ? "menu" : "quit";
    TuiDo d;
    if (review && lesson_tui_review(&p.s) > 0)
        d = lesson_tui_goto(&p.s, lesson_tui_review_first(&p.s));
    else
        d = lesson_tui_goto(&p.s, at);
    tui_run_pending(t, &p, &d);
    if (at > 0 && p.s.pending_run < 0)
        snprintf(p.s.message, sizeof p.s.message,
                 "resumed at section %d of %d, where you left it (left goes back)", at + 1,
                 p.s.nstops);
    int last_stop = -1, dirty = 1;
    double last = tui_now();
    while (!lesson_signals_caught() && d != TUI_DO_LEAVE) {
        if (dirty && tui_canvas(t) == 0) {
            lesson_tui_draw(&p.s, &t->canvas);
            viz_screen_show(t->scr, &t->canvas);
            dirty = 0;
        }
        int key = tui_key(t, lesson_tui_playing(&p.s) ? TUI_PLAY_MS : TUI_IDLE_MS);
        double now = tui_now();
        dirty |= lesson_tui_tick(&p.s, now - last);
        last = now;
        if (key == VIZ_SCREEN_NOKEY)
            continue;
        if (key == VIZ_SCREEN_RESIZED) {
            dirty = 1;
            continue;
        }
        char before[1024], after[1024];
        lesson_tui_marks(&p.s, before, sizeof before);
        d = lesson_tui_key(&p.s, key);
        tui_run_pending(t, &p, &d);
        lesson_tui_marks(&p.s, after, sizeof after);
        if (p.s.cur != last_stop || strcmp(before, after) != 0) {
            tui_note(t, &p.s);
            last_stop = p.s.cur;
        }
        dirty = 1;
    }
    tui_note(t, &p.s);
    play_free(&p);
}

// ---------------------------------------------------------------------------
// The menu

// The interview drill on the plain terminal, then back.
static void tui_interview(Tui *t) {
    viz_screen_suspend(t->scr);
    printf("\n");
    char *argv[] = {"interview", NULL};
    interview_main(1, argv);
    printf("\n(Enter: back to the lessons) ");
    fflush(stdout);
    char line[64];
    if (fgets(line, sizeof line, stdin) == NULL)
        clearerr(stdin);
}

// The menu, with the selection on the lesson at path (NULL: the first)
// and msg in its status line (NULL: none).
static void tui_menu(Tui *t, const char *path, const char *msg) {
    TuiMenu m;
    if (lesson_tui_menu_init(&m, t->o->cat, t->o->progress) != 0)
        return;
    for (int i = 0; path && i < t->o->cat->n; i++)
        if (strcmp(t->o->cat->e[i].path, path) == 0)
            lesson_tui_menu_select(&m, i);
    if (msg)
        snprintf(m.message, sizeof m.message, "%s", msg);
    int dirty = 1;
    while (!lesson_signals_caught() && !t->quit) {
        if (dirty && tui_canvas(t) == 0) {
            lesson_tui_menu_draw(&m, &t->canvas);
            viz_screen_show(t->scr, &t->canvas);
            dirty = 0;
        }
        int key = tui_key(t, TUI_IDLE_MS);
        if (key == VIZ_SCREEN_NOKEY)
            continue;
        dirty = 1;
        if (key == VIZ_SCREEN_RESIZED)
            continue;
        TuiMenuDo d = lesson_tui_menu_key(&m, key, t->canvas.h - 7);
        if (d == TUI_MENU_QUIT) {
            t->quit = 1;
        } else if (d == TUI_MENU_OPEN || d == TUI_MENU_REVIEW) {
            tui_lesson(t, t->o->cat->e[m.chosen].path, d == TUI_MENU_REVIEW, m.message,
                       sizeof m.message);
            lesson_tui_menu_filter(&m);
            lesson_tui_menu_select(&m, m.chosen);
        } else if (d == TUI_MENU_INTERVIEW) {
            tui_interview(t);
        }
    }
    lesson_tui_menu_free(&m);
}

int lesson_tui_run(const LessonTuiOpts *o) {
    if (!lesson_tui_available()) {
        fprintf(stderr, "ddplab lesson: the full-screen player needs a terminal and ncurses; "
                "use --viz text\n");
        return CLI_EXIT_INTERNAL;
    }
    LessonSignals sg;
    lesson_signals_catch(&sg);
    // The screen writes to its own descriptor of the terminal: while a
    // block runs, fd 1 is the block's captured output.
    int fd = dup(STDOUT_FILENO);
    FILE *tty = fd >= 0 ? fdopen(fd, "w") : NULL;
    char err[512] = "";
    Tui t = {.o = o};
    t.scr = tty ? viz_screen_open(tty, stdin, NULL, -1, err, sizeof err) : NULL;
    int rc = CLI_EXIT_OK;
    if (t.scr == NULL) {
        fprintf(stderr, "ddplab lesson: %s\n", err[0] ? err : "cannot open the terminal");
        rc = CLI_EXIT_INTERNAL;
    } else if (o->path != NULL && o->cat != NULL) {
        // a lesson named on the command line, then the menu it belongs to
        char msg[512] = "";
        tui_lesson(&t, o->path, 0, msg, sizeof msg);
        tui_menu(&t, o->path, msg);
    } else if (o->path != NULL) {
        char msg[512] = "";
        tui_lesson(&t, o->path, 0, msg, sizeof msg);
        viz_screen_close(t.scr);
        t.scr = NULL;
        if (msg[0]) {
            fprintf(stderr, "ddplab lesson: %s\n", msg);
            rc = CLI_EXIT_USAGE;
        }
    } else {
        tui_menu(&t, NULL, NULL);
    }
    viz_screen_close(t.scr);
    viz_canvas_free(&t.canvas);
    if (tty)
        fclose(tty);
    else if (fd >= 0)
        close(fd);
    lesson_signals_release(&sg);
    return rc;
}
