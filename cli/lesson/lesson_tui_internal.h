// cli/lesson/lesson_tui_internal.h: the parts of the full-screen lesson
// player (lesson_tui.h). Everything here but lesson_tui.c is pure: keys in,
// state and a canvas out, so the tests drive it without a terminal.
//
//   lesson_tui_doc.c     a lesson cut into stops (pauses, runs, questions,
//                        the end) and the narrative pane's lines up to one
//   lesson_tui_config.c  a run block's configuration in one line, from the
//                        table the command printed
//   lesson_tui_lesson.c  the lesson screen's state: the stop shown, focus,
//                        answers, the view's player; what each key does
//   lesson_tui_ask.c     the question pane: the answer field and grading
//   lesson_tui_draw.c    the lesson screen drawn onto a canvas
//   lesson_tui_menu.c    the menu: list, search, filters, drawing
//   lesson_tui.c         the terminal loop, signals, progress
//
// The screen, top to bottom on a terminal under 150 columns (side by side,
// narrative left and view right, from 150):
//   view pane       a title line (the run and its configuration in one
//                   line) and the view of the run at the pause (or the
//                   command's output, key o)
//   narrative pane  a title line and the lesson's text so far, scrollable
//   question pane   the current question, its answer field, and the
//                   feedback, which stays until the learner goes on
//   status line     where the lesson stands and the keys that work now
#ifndef DDPLAB_CLI_LESSON_TUI_INTERNAL_H
#define DDPLAB_CLI_LESSON_TUI_INTERNAL_H

#include <stddef.h>

#include "canvas.h"                // defines: VizCanvas, VizStyle
#include "frame.h"                 // defines: VizFrame
#include "learn/lesson.h"          // defines: Lesson
#include "learn/lesson_catalog.h"  // defines: LessonCatalog
#include "learn/lesson_facts.h"    // defines: LessonFacts
#include "learn/lesson_progress.h" // defines: LessonProgress
#include "player.h"                // defines: VizPlayer

enum {
    TUI_SIDE_W = 150,      // narrative and view side by side from this width
    TUI_MIN_W = 80,        // the smallest screen the player lays out
    TUI_MIN_H = 24,
    TUI_ANSWER_MAX = 63,   // characters of an answer
    TUI_PACE_S = 30,       // seconds playing takes from one pause to the next
};

// ---------------------------------------------------------------------------
// Stops (lesson_tui_doc.c)

typedef enum {
    TUI_STOP_PAUSE = 0, // a pause of a run block: the view at its event
    TUI_STOP_RUN,       // a run block without pauses: its output
    TUI_STOP_QUESTION,
    TUI_STOP_END,       // the summary
} TuiStopKind;

typedef struct {
    TuiStopKind kind;
    int item;     // the lesson item it belongs to (END: nitems)
    int run;      // PAUSE, RUN: the run block; QUESTION: the latest run before it (-1)
    int pause;    // PAUSE: the pause of that run
    int question; // QUESTION: the question
} TuiStop;

// The stops of l in order, the END stop last. *stops is heap [*n].
int lesson_tui_stops(const Lesson *l, TuiStop **stops, int *n);

// A line of a pane: text (UTF-8, heap) and its style.
typedef struct {
    char *text;
    VizStyle style;
} TuiLine;

typedef struct {
    TuiLine *line; // [n]
    int n, cap;
} TuiLines;

void lesson_tui_lines_free(TuiLines *d);
void lesson_tui_lines_clear(TuiLines *d);
// Appends text wrapped at width the way lesson_text_wrap does (indent
// blanks before each line).
void lesson_tui_lines_wrap(TuiLines *d, const char *text, int width, int indent, VizStyle st);
// Appends "mark text" with the text hanging under itself (lesson_text_item).
void lesson_tui_lines_item(TuiLines *d, const char *mark, const char *text, int width,
                           VizStyle st);
void lesson_tui_lines_add(TuiLines *d, const char *text, VizStyle st);

// ---------------------------------------------------------------------------
// A run block's configuration (lesson_tui_config.c)

// "run: ddp (4 ranks, backend cpu); mlp:16,64,64,4; batch 32 per rank; loss: mean over the
// ranks...; --steps 2 --bucket-cap-mb 0.004": the rows strategy, model, batch
// and loss shown of the table the command printed (where it printed one),
// then the options the block set that those do not show. Heap.
char *lesson_tui_config_line(const LessonRun *r, const char *output);

// ---------------------------------------------------------------------------
// The lesson screen (lesson_tui_lesson.c, lesson_tui_ask.c, lesson_tui_draw.c)

typedef enum { TUI_FOCUS_LESSON = 0, TUI_FOCUS_VIEW } TuiFocus;

// What the lesson screen asks of its host after a key.
typedef enum {
    TUI_DO_NOTHING = 0,
    TUI_DO_RUN,   // run block `pending_run` before the next frame (it takes a while)
    TUI_DO_LEAVE, // back to the menu
} TuiDo;

// The marks of lesson_progress.h, one per question.
enum { TUI_MARK_NONE = '-', TUI_MARK_RIGHT = 'r', TUI_MARK_WRONG = 'w', TUI_MARK_SKIP = 's' };

typedef struct {
    char mark;                     // TUI_MARK_*
    char given[TUI_ANSWER_MAX + 1]; // what the learner typed (as shown)
    int order[26];                 // choice questions: the order shown (lesson_choice_order)
    int ordered;                   // 1: order holds this attempt's
    char right[512];               // the right answer as shown, after grading
} TuiAnswer;

typedef struct {
    VizPlayer player;
    VizFrame frame;
    int opened;      // the player was set up for the trace
    int show_output; // 1: the pane shows the command's output, not the view
    int output_top;  // first line of the output shown
} TuiRunView;

typedef struct {
    const Lesson *l;
    LessonFacts *facts;  // [l->nruns], filled as blocks run (facts[k].output != NULL)
    char **config;       // [l->nruns] lesson_tui_config_line, once run
    TuiStop *stops;
    int nstops;
    int cur;             // the stop shown
    int reached;         // the furthest stop reached
    TuiAnswer *answers;  // [l->nquestions]
    TuiRunView *views;   // [l->nruns]
    TuiFocus focus;
    int full_view;       // f: the view takes the screen but the status line
    int help;            // ? overlay
    int confirm_leave;   // q with questions unanswered: asking
    int review;          // going through the missed questions only
    int pending_run;     // TUI_DO_RUN: this block (-1: none)
    int pending_stop;    // the stop to show once it has run
    int running;         // 1 while the host runs pending_run (drawn as such)
    int narr_top;        // first narrative line shown (-1: follow the stop)
    int narr_follow;     // 1: scroll to the current stop's text
    int narr_rows;       // narrative lines the last frame showed
    int narr_more;       // 1: the last frame left narrative below unseen
    char typed[TUI_ANSWER_MAX + 1]; // the answer field
    int skip_armed;      // Enter on the empty field once: the next one skips
    char message[160];   // a one-off line in the status
    unsigned long seed;  // of the choice orders (0: as written)
    const char *next_id, *next_title; // what to read next (the index's next lesson)
    const char *up_word; // where q goes from the lesson: "menu" (NULL) or "quit"
    TuiLines doc;        // the narrative as last drawn (for scrolling)
    int doc_stop_line;   // the doc line where the current stop's text starts
} TuiLesson;

// Sets up s for l (facts: [l->nruns], initialised, owned by the caller).
// answers: progress marks to start from (NULL: none). 0, or -1 (memory).
int lesson_tui_lesson_init(TuiLesson *s, const Lesson *l, LessonFacts *facts,
                           unsigned long seed, const char *answers);
void lesson_tui_lesson_free(TuiLesson *s);
// Goes to stop k (clamped); what it needs run first comes back as TUI_DO_RUN.
TuiDo lesson_tui_goto(TuiLesson *s, int k);
// Starts the review of the missed questions (from the first one). 0 when
// none was missed.
int lesson_tui_review(TuiLesson *s);
// The first stop of the review (a missed question, or the pause before it).
int lesson_tui_review_first(const TuiLesson *s);
// The host ran block k (facts[k] filled): the screen goes on to where it
// was going. Returns what to do next (another block may be needed).
TuiDo lesson_tui_ran(TuiLesson *s, int k);
// One key (a VIZ_KEY_* code or ASCII).
TuiDo lesson_tui_key(TuiLesson *s, int key);
// A playing view moves on by dt seconds. 1 when it must be redrawn.
int lesson_tui_tick(TuiLesson *s, double dt);
// 1 while the view plays (the host then wakes up often).
int lesson_tui_playing(const TuiLesson *s);
// Questions asked, right, and not yet asked; the marks as a string
// ([nquestions + 1]).
void lesson_tui_score(const TuiLesson *s, int *asked, int *right, int *open);
void lesson_tui_marks(const TuiLesson *s, char *buf, size_t len);
// The run whose view the screen shows at the current stop (-1: none yet).
int lesson_tui_view_run(const TuiLesson *s);

// The question pane (lesson_tui_ask.c). A key while the current stop is an
// unanswered question: 1 when it was the answer field's.
int lesson_tui_ask_key(TuiLesson *s, int key);
// The pane's lines at width w.
void lesson_tui_ask_lines(TuiLesson *s, int w, TuiLines *out);
// Sets the choice order of question q for this attempt.
void lesson_tui_ask_order(TuiLesson *s, int q);
// The right answer as question q shows it (its choices in their order, a
// number from its run's fact): filled when it was answered, and for an
// answer kept from an earlier play (its mark only) the first time it is
// drawn; "" while q has no answer.
const char *lesson_tui_ask_right(TuiLesson *s, int q);

// Draws the lesson screen onto c (its size is the screen's).
void lesson_tui_draw(TuiLesson *s, VizCanvas *c);

// ---------------------------------------------------------------------------
// The menu (lesson_tui_menu.c)

typedef enum {
    TUI_MENU_NOTHING = 0,
    TUI_MENU_OPEN,      // open entry `chosen`
    TUI_MENU_REVIEW,    // open entry `chosen` in review mode
    TUI_MENU_INTERVIEW, // the interview drill
    TUI_MENU_QUIT,
} TuiMenuDo;

typedef struct {
    const LessonCatalog *cat;
    const LessonProgress *progress;
    char **texts;        // [cat->n] the headings of each lesson (for the search)
    int *shown;          // [cat->n] indices of the entries that pass the filters
    int nshown;
    int sel;             // index into shown
    int top;             // first list row shown
    int id_width;        // columns of the id column
    int track;           // 0 all, 1 lessons, 2 spot-the-bug
    int level;           // 0 all, 1 beginner, 2 intermediate, 3 advanced
    char search[48];
    int searching;       // typing after /
    int help;
    int chosen;          // TUI_MENU_OPEN: the catalog entry
    char message[160];
} TuiMenu;

int lesson_tui_menu_init(TuiMenu *m, const LessonCatalog *cat, const LessonProgress *p);
void lesson_tui_menu_free(TuiMenu *m);
// Recomputes the shown entries (after the filters or the progress changed).
void lesson_tui_menu_filter(TuiMenu *m);
// Puts the selection on catalog entry k when it is shown.
void lesson_tui_menu_select(TuiMenu *m, int k);
TuiMenuDo lesson_tui_menu_key(TuiMenu *m, int key, int page_rows);
void lesson_tui_menu_draw(TuiMenu *m, VizCanvas *c);

// ---------------------------------------------------------------------------
// Shared drawing (lesson_tui_draw.c)

// A title bar: text on the row in the title style, filling w.
void lesson_tui_bar(VizCanvas *c, int x, int y, int w, VizStyle st, const char *text);
// Lines d->line[top ...] in r; returns the lines drawn.
int lesson_tui_draw_lines(VizCanvas *c, VizRect r, const TuiLines *d, int top);
// A framed box of lines centred on c (help, confirmations).
void lesson_tui_overlay(VizCanvas *c, const char *title, const char *const *lines, int n);

#endif
