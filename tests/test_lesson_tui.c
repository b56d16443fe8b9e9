// tests/test_lesson_tui.c FIXTURES: the full-screen lesson player without a
// terminal. Its state is driven with keys as the terminal would send them,
// and the screen is drawn onto canvases of 80x24 and 140x45 and read back
// as text: the stops in order, the blocks run when a stop needs them, the
// narrative, the view and the status line on screen together at a pause,
// q one level up (the view, the lesson, then a question before leaving),
// view keys kept out of the answer field, feedback that stays after an
// answer, the summary and the review of missed questions, the one-line
// configuration, and the menu's moves, search and filters.
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "learn/lesson.h"
#include "learn/lesson_catalog.h"
#include "learn/lesson_progress.h"
#include "lesson/lesson_run.h"
#include "lesson/lesson_tui_internal.h"

static const char *fixtures;

// The canvas as text (heap).
static char *canvas_text(const VizCanvas *c) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    viz_canvas_write(c, f);
    fclose(f);
    return buf;
}

// Everything one played lesson needs.
typedef struct {
    Lesson l;
    LessonSession session;
    LessonFacts facts[8];
    TuiLesson s;
    VizCanvas c;
    char *text; // the last screen
} Fixture;

static int fixture_open(Fixture *x, const char *name, const char *marks, int w, int h) {
    memset(x, 0, sizeof *x);
    char path[512], err[512];
    snprintf(path, sizeof path, "%s/%s", fixtures, name);
    if (lesson_parse_file(path, &x->l, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    if (x->l.nruns > 8 || lesson_session_open(&x->session, NULL, err, sizeof err) != 0)
        return -1;
    for (int i = 0; i < 8; i++)
        lesson_facts_init(&x->facts[i]);
    if (lesson_tui_lesson_init(&x->s, &x->l, x->facts, 0, marks) != 0)
        return -1;
    return viz_canvas_init(&x->c, w, h, 1) == SIM_OK ? 0 : -1;
}

static void fixture_close(Fixture *x) {
    lesson_tui_lesson_free(&x->s);
    for (int i = 0; i < 8; i++)
        lesson_facts_free(&x->facts[i]);
    lesson_session_close(&x->session);
    lesson_free(&x->l);
    viz_canvas_free(&x->c);
    free(x->text);
}

// Does what the host does with d: runs the blocks the screen waits for.
static TuiDo fixture_do(Fixture *x, TuiDo d) {
    char err[512];
    while (d == TUI_DO_RUN) {
        int k = x->s.pending_run;
        if (lesson_run_block(&x->session, &x->l.runs[k], &x->facts[k], err, sizeof err) != 0)
            return TUI_DO_LEAVE;
        d = lesson_tui_ran(&x->s, k);
    }
    return d;
}

static TuiDo fixture_key(Fixture *x, int key) {
    return fixture_do(x, lesson_tui_key(&x->s, key));
}

static const char *fixture_draw(Fixture *x) {
    lesson_tui_draw(&x->s, &x->c);
    free(x->text);
    x->text = canvas_text(&x->c);
    return x->text;
}

// The last line of the screen (the status line).
static const char *last_line(const char *text) {
    size_t n = strlen(text);
    while (n > 0 && text[n - 1] == '\n')
        n--;
    while (n > 0 && text[n - 1] != '\n')
        n--;
    return text + n;
}

// play-tmux: one run with one pause, one number question (2 iterations).
static int check_pause_and_question(int w, int h) {
    Fixture x;
    CHECK(fixture_open(&x, "play-tmux.md", NULL, w, h) == 0);
    CHECK_EQ_INT(x.s.nstops, 3); // the pause, the question, the end
    CHECK_EQ_INT(x.s.stops[0].kind, TUI_STOP_PAUSE);
    CHECK_EQ_INT(x.s.stops[1].kind, TUI_STOP_QUESTION);
    CHECK_EQ_INT(x.s.stops[2].kind, TUI_STOP_END);
    // The first stop needs the block: the host runs it first.
    CHECK_EQ_INT(lesson_tui_goto(&x.s, 0), TUI_DO_RUN);
    CHECK_EQ_INT(x.s.pending_run, 0);
    CHECK_EQ_INT(fixture_do(&x, TUI_DO_RUN), TUI_DO_NOTHING);
    CHECK_EQ_INT(x.s.cur, 0);
    const char *t = fixture_draw(&x);
    CHECK_STR_CONTAINS(t, "A pause in the terminal view");
    // Enter pages through the narrative (the run's output: its step lines
    // and summary, without the configuration table) down to the caption
    for (int k = 0; k < 10 && x.s.narr_more; k++) {
        CHECK_STR_CONTAINS(last_line(t), "Enter more");
        fixture_key(&x, VIZ_KEY_ENTER);
        CHECK_EQ_INT(x.s.cur, 0);
        t = fixture_draw(&x);
    }
    CHECK(!x.s.narr_more);
    CHECK(strstr(t, "| Parameter ") == NULL); // the table is o's
    // narrative, caption, the view's header, the configuration, the status line
    CHECK_STR_CONTAINS(t, "Here the first bucket launches.");
    CHECK_STR_CONTAINS(t, "ddp (2 ranks");
    CHECK_STR_CONTAINS(t, "mlp:8,16,2");
    CHECK(strstr(t, "rank 1") || strstr(t, "r1 ")); // a box, or a compact rank line
    CHECK_STR_CONTAINS(last_line(t), "Enter go on");
    CHECK_STR_CONTAINS(last_line(t), "q menu");
    // the view opened at the pause's event, paused, ] and [ on bucket launches
    TuiRunView *v = &x.s.views[0];
    CHECK(v->opened);
    CHECK(!v->player.playing);
    CHECK_EQ_INT(v->player.jump, VIZ_JUMP_BUCKET_LAUNCH);
    CHECK(viz_model_is(x.facts[0].model, viz_player_index(&v->player), VIZ_JUMP_BUCKET_LAUNCH));
    CHECK(v->player.rate >= 1);
    // Tab: the view has the keys; q goes back to the lesson, one level
    fixture_key(&x, VIZ_KEY_TAB);
    CHECK_EQ_INT(x.s.focus, TUI_FOCUS_VIEW);
    CHECK_STR_CONTAINS(last_line(fixture_draw(&x)), "VIEW");
    size_t before = viz_player_index(&v->player);
    fixture_key(&x, 'n'); // the view's next event
    CHECK_EQ_INT(viz_player_index(&v->player), before + 1);
    CHECK_EQ_INT(fixture_key(&x, 'q'), TUI_DO_NOTHING);
    CHECK_EQ_INT(x.s.focus, TUI_FOCUS_LESSON);
    CHECK_EQ_INT(x.s.cur, 0);
    // on to the question
    CHECK_EQ_INT(fixture_key(&x, VIZ_KEY_ENTER), TUI_DO_NOTHING);
    CHECK_EQ_INT(x.s.cur, 1);
    t = fixture_draw(&x);
    CHECK_STR_CONTAINS(t, "Question 1 of 1");
    CHECK_STR_CONTAINS(t, "How many iterations did the run take?");
    CHECK_STR_CONTAINS(t, "Your answer (a number): _");
    CHECK_STR_CONTAINS(t, "Here the first bucket launches."); // the narrative stays
    // keys for the view never reach the answer field
    fixture_key(&x, ' ');
    fixture_key(&x, ']');
    CHECK_EQ_INT((int)strlen(x.s.typed), 0);
    // q with the question open: asked first, n stays
    CHECK_EQ_INT(fixture_key(&x, 'q'), TUI_DO_NOTHING);
    CHECK(x.s.confirm_leave);
    CHECK_STR_CONTAINS(last_line(fixture_draw(&x)), "Leave the lesson?");
    CHECK_EQ_INT(fixture_key(&x, 'n'), TUI_DO_NOTHING);
    CHECK(!x.s.confirm_leave);
    // a wrong answer: graded against the fact, the feedback stays
    fixture_key(&x, '3');
    CHECK_STR_CONTAINS(fixture_draw(&x), "Your answer (a number): 3_");
    fixture_key(&x, VIZ_KEY_ENTER);
    CHECK_EQ_INT(x.s.answers[0].mark, TUI_MARK_WRONG);
    t = fixture_draw(&x);
    CHECK_STR_CONTAINS(t, "Not quite. The answer: 2");
    CHECK_STR_CONTAINS(t, "Two steps, two iterations.");
    fixture_key(&x, VIZ_KEY_DOWN); // scrolling the narrative keeps it
    CHECK_STR_CONTAINS(fixture_draw(&x), "Not quite. The answer: 2");
    // the end: the summary, with the missed question and its explanation
    fixture_key(&x, VIZ_KEY_ENTER);
    CHECK_EQ_INT(x.s.cur, 2);
    t = fixture_draw(&x);
    CHECK_STR_CONTAINS(t, "End of the lesson: 0 of 1 question answered right.");
    CHECK_STR_CONTAINS(t, "What to look at again:");
    CHECK_STR_CONTAINS(t, "m: review what I missed");
    char marks[8];
    lesson_tui_marks(&x.s, marks, sizeof marks);
    CHECK(strcmp(marks, "w") == 0);
    // review: the question again (with its pause), answered right this time
    fixture_key(&x, 'm');
    CHECK(x.s.review);
    CHECK_EQ_INT(x.s.cur, 0);
    fixture_key(&x, VIZ_KEY_ENTER);
    CHECK_EQ_INT(x.s.cur, 1);
    CHECK_STR_CONTAINS(fixture_draw(&x), "(review)");
    fixture_key(&x, '2');
    fixture_key(&x, VIZ_KEY_ENTER);
    CHECK_STR_CONTAINS(fixture_draw(&x), "Right: 2");
    fixture_key(&x, VIZ_KEY_ENTER);
    CHECK_STR_CONTAINS(fixture_draw(&x), "End of the lesson: 1 of 1 question answered right.");
    // nothing open: q leaves at once
    CHECK_EQ_INT(fixture_key(&x, 'q'), TUI_DO_LEAVE);
    fixture_close(&x);
    return 0;
}

static int test_pause_and_question_80x24(void) {
    return check_pause_and_question(80, 24);
}

static int test_pause_and_question_140x45(void) {
    return check_pause_and_question(140, 45);
}

static int test_pause_and_question_wide(void) {
    return check_pause_and_question(180, 50);
}

// Resuming: the marks kept and the stop asked for; the blocks before it
// run; a kept answer's right answer is shown.
static int test_resume(void) {
    Fixture x;
    CHECK(fixture_open(&x, "play-tmux.md", "w", 100, 30) == 0);
    CHECK_EQ_INT(x.s.answers[0].mark, TUI_MARK_WRONG);
    CHECK_EQ_INT(fixture_do(&x, lesson_tui_goto(&x.s, 2)), TUI_DO_NOTHING);
    CHECK_EQ_INT(x.s.cur, 2);
    CHECK(x.facts[0].output != NULL); // the run before the stop was run
    CHECK_STR_CONTAINS(fixture_draw(&x), "End of the lesson: 0 of 1");
    // the answer a mark kept from the earlier play is shown, not left blank
    CHECK_STR_CONTAINS(x.text, "the answer: 2");
    fixture_key(&x, VIZ_KEY_LEFT); // back one stop: the question, answered
    CHECK_EQ_INT(x.s.cur, 1);
    CHECK_STR_CONTAINS(fixture_draw(&x), "Not quite. The answer: 2");
    fixture_close(&x);
    return 0;
}

// The configuration line of a run block, from its printed table.
static int test_config_line(void) {
    Fixture x;
    CHECK(fixture_open(&x, "play-tmux.md", NULL, 80, 24) == 0);
    fixture_do(&x, lesson_tui_goto(&x.s, 0));
    const char *c = x.s.config[0];
    CHECK(c != NULL);
    CHECK_STR_CONTAINS(c, "ddp (2 ranks, backend cpu)");
    CHECK_STR_CONTAINS(c, "; mlp:8,16,2");
    CHECK_STR_CONTAINS(c, "; batch ");
    CHECK_STR_CONTAINS(c, "; loss: mean over the ranks");
    CHECK_STR_CONTAINS(c, "--steps 2 --data blobs:n=64,features=8,classes=2");
    CHECK(strstr(c, "--strategy") == NULL); // shown by its row
    CHECK(strchr(c, '\n') == NULL);
    fixture_close(&x);
    return 0;
}

// A run block without pauses: its stop shows the command's output.
static int test_run_without_pause(void) {
    Fixture x;
    CHECK(fixture_open(&x, "play-plan.md", NULL, 80, 24) == 0);
    CHECK_EQ_INT(x.s.stops[0].kind, TUI_STOP_RUN);
    CHECK_EQ_INT(fixture_do(&x, lesson_tui_goto(&x.s, 0)), TUI_DO_NOTHING);
    const char *t = fixture_draw(&x);
    CHECK_STR_CONTAINS(t, "View, run 1 of");
    CHECK_STR_CONTAINS(t, "plan:");
    fixture_close(&x);
    return 0;
}

// The menu: arrows, search over titles and topics, filters.
static int test_menu(void) {
    LessonCatalog cat;
    LessonProgress p = {0};
    char err[512];
    CHECK(lesson_catalog_load(fixtures, NULL, &cat, err, sizeof err) == 0);
    CHECK_EQ_INT(cat.n, 5);
    TuiMenu m;
    CHECK(lesson_tui_menu_init(&m, &cat, &p) == 0);
    CHECK_EQ_INT(m.nshown, 5);
    CHECK_EQ_INT(m.sel, 0);
    lesson_tui_menu_key(&m, VIZ_KEY_DOWN, 10);
    lesson_tui_menu_key(&m, 'j', 10);
    CHECK_EQ_INT(m.sel, 2);
    lesson_tui_menu_key(&m, VIZ_KEY_UP, 10);
    CHECK_EQ_INT(m.sel, 1);
    CHECK_EQ_INT(lesson_tui_menu_key(&m, VIZ_KEY_ENTER, 10), TUI_MENU_OPEN);
    CHECK_EQ_INT(m.chosen, 1);
    VizCanvas c;
    CHECK(viz_canvas_init(&c, 80, 24, 1) == SIM_OK);
    lesson_tui_menu_draw(&m, &c);
    char *t = canvas_text(&c);
    CHECK_STR_CONTAINS(t, "Spot the bug");
    CHECK_STR_CONTAINS(t, "play-hang");
    CHECK_STR_CONTAINS(last_line(t), "/ search");
    free(t);
    // / searches (a heading's word counts), Enter keeps the search
    lesson_tui_menu_key(&m, '/', 10);
    for (const char *k = "hang"; *k; k++)
        lesson_tui_menu_key(&m, *k, 10);
    lesson_tui_menu_key(&m, VIZ_KEY_ENTER, 10);
    CHECK_EQ_INT(m.nshown, 1);
    CHECK(strcmp(cat.e[m.shown[0]].id, "play-hang") == 0);
    lesson_tui_menu_key(&m, VIZ_KEY_ESCAPE, 10); // clears it
    CHECK_EQ_INT(m.nshown, 5);
    lesson_tui_menu_key(&m, '/', 10);
    for (const char *k = "zzzz"; *k; k++)
        lesson_tui_menu_key(&m, *k, 10);
    CHECK_EQ_INT(m.nshown, 0);
    lesson_tui_menu_key(&m, VIZ_KEY_ESCAPE, 10);
    // t: the spot-the-bug track only
    lesson_tui_menu_key(&m, 't', 10);
    lesson_tui_menu_key(&m, 't', 10);
    CHECK_EQ_INT(m.nshown, 1);
    lesson_tui_menu_key(&m, 't', 10);
    CHECK_EQ_INT(m.nshown, 5);
    // ? opens the help, any key closes it; q quits
    lesson_tui_menu_key(&m, '?', 10);
    CHECK(m.help);
    CHECK_EQ_INT(lesson_tui_menu_key(&m, 'q', 10), TUI_MENU_NOTHING);
    CHECK_EQ_INT(lesson_tui_menu_key(&m, 'q', 10), TUI_MENU_QUIT);
    // review needs missed answers kept
    CHECK_EQ_INT(lesson_tui_menu_key(&m, 'm', 10), TUI_MENU_NOTHING);
    CHECK_STR_CONTAINS(m.message, "nothing to review");
    viz_canvas_free(&c);
    lesson_tui_menu_free(&m);
    lesson_catalog_free(&cat);
    return 0;
}

// The progress file keeps where a lesson was and its marks.
static int test_progress_at(void) {
    char dir[] = "/tmp/ddplab-tui-test.XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[600], err[512];
    snprintf(path, sizeof path, "%s/progress.json", dir);
    LessonProgress p = {0};
    CHECK(lesson_progress_record(&p, "x", 0, 1, 2, 1700000000) == 0);
    CHECK(lesson_progress_record_at(&p, "x", 5, "rw-") == 0);
    CHECK(lesson_progress_save(&p, path, err, sizeof err) == 0);
    lesson_progress_free(&p);
    CHECK(lesson_progress_load(&p, path, err, sizeof err) == 0);
    const LessonProgressEntry *e = lesson_progress_find(&p, "x");
    CHECK(e != NULL);
    CHECK_EQ_INT(e->at, 5);
    CHECK(e->answers && strcmp(e->answers, "rw-") == 0);
    lesson_progress_free(&p);
    remove(path);
    remove(dir);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: test_lesson_tui FIXTURES\n");
        return 2;
    }
    fixtures = argv[1];
    int failures = 0;
    RUN(test_pause_and_question_80x24);
    RUN(test_pause_and_question_140x45);
    RUN(test_pause_and_question_wide);
    RUN(test_resume);
    RUN(test_config_line);
    RUN(test_run_without_pause);
    RUN(test_menu);
    RUN(test_progress_at);
    return failures ? 1 : 0;
}
