// cli/lesson/lesson_tui_lesson.c: the lesson screen's state and what each
// key does to it (lesson_tui_internal.h). The screen shows one stop at a
// time; the blocks run when a stop first needs them (the host runs them,
// TUI_DO_RUN, and says so on screen while they do).
//
// Keys are read at one of two levels, named in the status line: the
// lesson (the narrative, the question's answer field) and the view (Tab:
// every key goes to the view's player until Tab, Esc or q). q goes up one
// level: view -> lesson -> menu (asking first when questions are open).
// Keys typed for the view never reach the answer field.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/viz_cli.h" // defines: cli_viz_find_at
#include "lesson/lesson_tui_internal.h"

int lesson_tui_lesson_init(TuiLesson *s, const Lesson *l, LessonFacts *facts,
                           unsigned long seed, const char *marks) {
    memset(s, 0, sizeof *s);
    s->l = l;
    s->facts = facts;
    s->seed = seed;
    s->pending_run = -1;
    s->narr_follow = 1;
    size_t nr = l->nruns > 0 ? (size_t)l->nruns : 1;
    size_t nq = l->nquestions > 0 ? (size_t)l->nquestions : 1;
    s->config = calloc(nr, sizeof *s->config);
    s->views = calloc(nr, sizeof *s->views);
    s->answers = calloc(nq, sizeof *s->answers);
    if (s->config == NULL || s->views == NULL || s->answers == NULL ||
        lesson_tui_stops(l, &s->stops, &s->nstops) != 0) {
        lesson_tui_lesson_free(s);
        return -1;
    }
    for (int k = 0; k < l->nruns; k++)
        viz_frame_init(&s->views[k].frame);
    for (int q = 0; q < l->nquestions; q++) {
        char m = marks && (int)strlen(marks) > q ? marks[q] : TUI_MARK_NONE;
        s->answers[q].mark = strchr("rws", m) && m ? m : TUI_MARK_NONE;
    }
    return 0;
}

void lesson_tui_lesson_free(TuiLesson *s) {
    if (s->l != NULL && s->views != NULL)
        for (int k = 0; k < s->l->nruns; k++)
            viz_frame_free(&s->views[k].frame);
    if (s->l != NULL && s->config != NULL)
        for (int k = 0; k < s->l->nruns; k++)
            free(s->config[k]);
    free(s->config);
    free(s->views);
    free(s->answers);
    free(s->stops);
    lesson_tui_lines_free(&s->doc);
    memset(s, 0, sizeof *s);
}

// ---------------------------------------------------------------------------
// Score

void lesson_tui_score(const TuiLesson *s, int *asked, int *right, int *open) {
    *asked = *right = *open = 0;
    for (int q = 0; q < s->l->nquestions; q++) {
        char m = s->answers[q].mark;
        *asked += m != TUI_MARK_NONE;
        *right += m == TUI_MARK_RIGHT;
        *open += m == TUI_MARK_NONE;
    }
}

void lesson_tui_marks(const TuiLesson *s, char *buf, size_t len) {
    size_t n = 0;
    for (int q = 0; q < s->l->nquestions && n + 1 < len; q++)
        buf[n++] = s->answers[q].mark;
    if (len > 0)
        buf[n] = '\0';
}

int lesson_tui_view_run(const TuiLesson *s) {
    if (s->nstops == 0)
        return -1;
    return s->stops[s->cur].run;
}

// ---------------------------------------------------------------------------
// Going from stop to stop

// The first block at or before stop k's item that has not run yet (-1: none).
static int first_unrun(const TuiLesson *s, int k) {
    int upto = s->stops[k].item;
    for (int i = 0; i <= upto && i < s->l->nitems; i++) {
        const LessonItem *it = &s->l->items[i];
        if (it->kind == LESSON_ITEM_RUN && s->facts[it->index].output == NULL)
            return it->index;
    }
    return -1;
}

// The kind of event a pause is about, for ] and [ ("bucket-launch:2" ->
// bucket launches); the model's own suggestion for "i1" or an event number.
static void view_jump_kind(VizPlayer *p, const VizModel *m, const char *pos) {
    char name[32];
    size_t n = strcspn(pos, ":");
    if (n < sizeof name) {
        memcpy(name, pos, n);
        name[n] = '\0';
        int k = viz_jump_parse(name);
        if (k > VIZ_JUMP_ITERATION && k < VIZ_JUMP_COUNT) {
            p->jump = (VizJump)k;
            return;
        }
    }
    viz_player_suggest_jump(p, m);
}

// The event of pause i of run k (SIZE_MAX: none; the text mode reports it).
static size_t pause_event(TuiLesson *s, int k, int i) {
    char why[160];
    LessonFacts *f = &s->facts[k];
    if (!f->has_trace || i < 0 || i >= s->l->runs[k].npauses)
        return SIZE_MAX;
    return cli_viz_find_at(f->model, s->l->runs[k].pauses[i].pos, SIZE_MAX, why, sizeof why);
}

// Where playing from the pause at event `at` stops: the run's next pause
// after it, or the trace's end.
static size_t pause_next_event(TuiLesson *s, int k, size_t at) {
    size_t end = viz_model_count(s->facts[k].model) - 1, best = end;
    for (int i = 0; i < s->l->runs[k].npauses; i++) {
        size_t e = pause_event(s, k, i);
        if (e != SIZE_MAX && e > at && e < best)
            best = e;
    }
    return best;
}

// Puts run k's view at stop st: paused on the pause's event, ] and [ on
// the pause's kind, and a pace that plays to the next pause in about
// TUI_PACE_S seconds.
static void view_at_stop(TuiLesson *s, const TuiStop *st) {
    int k = st->run;
    if (k < 0 || !s->facts[k].has_trace)
        return;
    TuiRunView *v = &s->views[k];
    LessonFacts *f = &s->facts[k];
    size_t n = viz_model_count(f->model);
    if (!v->opened) {
        viz_player_init(&v->player, n, f->trace.nranks);
        v->opened = 1;
    }
    if (st->kind != TUI_STOP_PAUSE) {
        v->show_output = st->kind == TUI_STOP_RUN;
        return;
    }
    v->show_output = 0;
    size_t at = pause_event(s, k, st->pause);
    if (at == SIZE_MAX)
        at = 0;
    v->player.pos = (double)at;
    v->player.playing = 0;
    view_jump_kind(&v->player, f->model, s->l->runs[k].pauses[st->pause].pos);
    double span = (double)(pause_next_event(s, k, at) - at);
    double rate = span / TUI_PACE_S;
    // two significant digits are enough for a pace, and read better
    double scale = 1;
    while (rate >= 100 * scale)
        scale *= 10;
    rate = rate < 1 ? 1 : (double)(long)(rate / scale + 0.5) * scale;
    v->player.rate = rate;
}

TuiDo lesson_tui_goto(TuiLesson *s, int k) {
    if (k < 0)
        k = 0;
    if (k >= s->nstops)
        k = s->nstops - 1;
    int r = first_unrun(s, k);
    if (r >= 0) {
        s->pending_run = r;
        s->pending_stop = k;
        return TUI_DO_RUN;
    }
    s->pending_run = -1;
    s->cur = k;
    if (k > s->reached)
        s->reached = k;
    const TuiStop *st = &s->stops[k];
    view_at_stop(s, st);
    if (st->kind == TUI_STOP_QUESTION && s->answers[st->question].mark == TUI_MARK_NONE)
        lesson_tui_ask_order(s, st->question);
    s->typed[0] = '\0';
    s->skip_armed = 0;
    s->focus = TUI_FOCUS_LESSON;
    s->narr_follow = 1;
    s->confirm_leave = 0;
    return TUI_DO_NOTHING;
}

TuiDo lesson_tui_ran(TuiLesson *s, int k) {
    if (k >= 0 && k < s->l->nruns && s->config[k] == NULL)
        s->config[k] = lesson_tui_config_line(&s->l->runs[k], s->facts[k].output);
    return lesson_tui_goto(s, s->pending_stop);
}

// Review mode: the missed questions, each with the pause just before it.
static int review_wants(const TuiLesson *s, int k) {
    const TuiStop *st = &s->stops[k];
    if (st->kind == TUI_STOP_END)
        return 1;
    if (st->kind == TUI_STOP_QUESTION)
        return s->answers[st->question].mark != TUI_MARK_RIGHT;
    const TuiStop *nx = &s->stops[k + 1];
    return nx->kind == TUI_STOP_QUESTION && nx->run == st->run &&
           s->answers[nx->question].mark != TUI_MARK_RIGHT;
}

static int next_stop(const TuiLesson *s, int from, int dir) {
    int k = from + dir;
    while (s->review && k > 0 && k < s->nstops - 1 && !review_wants(s, k))
        k += dir;
    return k < 0 ? 0 : k >= s->nstops ? s->nstops - 1 : k;
}

int lesson_tui_review_first(const TuiLesson *s) {
    for (int k = 0; k < s->nstops; k++)
        if (review_wants(s, k))
            return k;
    return s->nstops - 1;
}

int lesson_tui_review(TuiLesson *s) {
    int missed = 0;
    for (int q = 0; q < s->l->nquestions; q++)
        if (s->answers[q].mark != TUI_MARK_RIGHT) {
            s->answers[q].mark = TUI_MARK_NONE; // asked again, in a new order
            missed++;
        }
    if (missed == 0)
        return 0;
    s->review = 1;
    return missed;
}

// ---------------------------------------------------------------------------
// Keys

static int at_open_question(const TuiLesson *s) {
    const TuiStop *st = &s->stops[s->cur];
    return st->kind == TUI_STOP_QUESTION && s->answers[st->question].mark == TUI_MARK_NONE;
}

static TuiRunView *shown_view(TuiLesson *s) {
    int k = lesson_tui_view_run(s);
    return k >= 0 && s->views[k].opened ? &s->views[k] : NULL;
}

// q (or Esc) at the lesson level.
static TuiDo lesson_up(TuiLesson *s) {
    int asked, right, open;
    lesson_tui_score(s, &asked, &right, &open);
    if (open > 0 && s->stops[s->cur].kind != TUI_STOP_END) {
        s->confirm_leave = 1;
        return TUI_DO_NOTHING;
    }
    return TUI_DO_LEAVE;
}

static TuiDo confirm_key(TuiLesson *s, int key) {
    s->confirm_leave = 0;
    if (key == 'y' || key == 'Y' || key == 'q' || key == VIZ_KEY_ENTER)
        return TUI_DO_LEAVE;
    return TUI_DO_NOTHING;
}

// Scrolls the narrative by dy lines (it stops following the stop).
static void narr_scroll(TuiLesson *s, int dy) {
    int top = s->narr_top + dy;
    int last = s->doc.n - (s->narr_rows > 0 ? s->narr_rows : 1);
    s->narr_top = top < 0 ? 0 : top > last ? (last < 0 ? 0 : last) : top;
    s->narr_follow = 0;
}

// Keys that mean the same at the lesson level as in the view: play,
// jumps, speed. 1 when the key was one of them.
static int view_shared_key(TuiLesson *s, int key) {
    TuiRunView *v = shown_view(s);
    if (strchr(" ][+-", key) == NULL || key == 0)
        return 0;
    if (v == NULL || v->show_output) {
        snprintf(s->message, sizeof s->message, "no view here: this stop shows no trace");
        return 1;
    }
    viz_player_key(&v->player, s->facts[lesson_tui_view_run(s)].model, key);
    return 1;
}

static TuiDo view_key(TuiLesson *s, int key) {
    TuiRunView *v = shown_view(s);
    if (v == NULL || key == VIZ_KEY_TAB || key == VIZ_KEY_ESCAPE ||
        (key == 'q' && !v->player.goto_mode && !v->player.help)) {
        s->focus = TUI_FOCUS_LESSON;
        return TUI_DO_NOTHING;
    }
    if (key == 'o') {
        v->show_output = !v->show_output || !s->facts[lesson_tui_view_run(s)].has_trace;
        return TUI_DO_NOTHING;
    }
    if (key == 'f') {
        s->full_view = !s->full_view;
        return TUI_DO_NOTHING;
    }
    if (v->show_output) {
        int dy = key == VIZ_KEY_UP ? -1 : key == VIZ_KEY_DOWN ? 1 : key == VIZ_KEY_PAGE_UP ? -10
                 : key == VIZ_KEY_PAGE_DOWN ? 10 : 0;
        v->output_top = v->output_top + dy < 0 ? 0 : v->output_top + dy;
        return TUI_DO_NOTHING;
    }
    viz_player_key(&v->player, s->facts[lesson_tui_view_run(s)].model, key);
    return TUI_DO_NOTHING;
}

static TuiDo lesson_key(TuiLesson *s, int key) {
    if (at_open_question(s) && lesson_tui_ask_key(s, key))
        return TUI_DO_NOTHING;
    switch (key) {
    case 'q':
    case VIZ_KEY_ESCAPE:
        return lesson_up(s);
    case VIZ_KEY_ENTER:
    case VIZ_KEY_RIGHT:
        // like a pager: the rest of the narrative first, then the next stop
        if (s->narr_more && s->narr_rows > 1) {
            narr_scroll(s, s->narr_rows - 1);
            return TUI_DO_NOTHING;
        }
        if (s->cur + 1 >= s->nstops) {
            snprintf(s->message, sizeof s->message, "the end of the lesson: q goes back to the menu");
            return TUI_DO_NOTHING;
        }
        return lesson_tui_goto(s, next_stop(s, s->cur, +1));
    case VIZ_KEY_LEFT:
        return lesson_tui_goto(s, next_stop(s, s->cur, -1));
    case VIZ_KEY_UP:
    case 'k':
        narr_scroll(s, -1);
        return TUI_DO_NOTHING;
    case VIZ_KEY_DOWN:
    case 'j':
        narr_scroll(s, +1);
        return TUI_DO_NOTHING;
    case VIZ_KEY_PAGE_UP:
        narr_scroll(s, -8);
        return TUI_DO_NOTHING;
    case VIZ_KEY_PAGE_DOWN:
        narr_scroll(s, +8);
        return TUI_DO_NOTHING;
    case VIZ_KEY_HOME:
        narr_scroll(s, -s->doc.n);
        return TUI_DO_NOTHING;
    case VIZ_KEY_END:
        s->narr_follow = 1;
        return TUI_DO_NOTHING;
    case VIZ_KEY_TAB:
    case 'v':
        if (shown_view(s) == NULL)
            snprintf(s->message, sizeof s->message, "no run yet: the view opens at the first run");
        else
            s->focus = TUI_FOCUS_VIEW;
        return TUI_DO_NOTHING;
    case 'o':
    case 'f':
        return shown_view(s) ? view_key(s, key) : TUI_DO_NOTHING;
    case 'm':
        if (s->stops[s->cur].kind == TUI_STOP_END) {
            if (lesson_tui_review(s) == 0)
                snprintf(s->message, sizeof s->message, "nothing to review: every answer was right");
            else
                return lesson_tui_goto(s, lesson_tui_review_first(s));
        }
        return TUI_DO_NOTHING;
    case '?':
        s->help = 1;
        return TUI_DO_NOTHING;
    default:
        view_shared_key(s, key);
        return TUI_DO_NOTHING;
    }
}

TuiDo lesson_tui_key(TuiLesson *s, int key) {
    s->message[0] = '\0';
    if (s->help) {
        s->help = 0; // any key closes the help, and does nothing else
        return TUI_DO_NOTHING;
    }
    if (s->confirm_leave)
        return confirm_key(s, key);
    if (s->focus == TUI_FOCUS_VIEW)
        return view_key(s, key);
    return lesson_key(s, key);
}

int lesson_tui_playing(const TuiLesson *s) {
    int k = lesson_tui_view_run(s);
    return k >= 0 && s->views[k].opened && s->views[k].player.playing;
}

int lesson_tui_tick(TuiLesson *s, double dt) {
    int k = lesson_tui_view_run(s);
    if (k < 0 || !s->views[k].opened || !s->views[k].player.playing)
        return 0;
    VizPlayer *p = &s->views[k].player;
    size_t before = viz_player_index(p);
    int changed = viz_player_tick(p, s->facts[k].model, dt);
    // Playing stops at the lesson's next pause, so that its caption is read
    // at the event it is about.
    for (int i = 0; i < s->l->runs[k].npauses; i++) {
        size_t e = pause_event(s, k, i);
        if (e != SIZE_MAX && e > before && (double)e <= p->pos) {
            p->pos = (double)e;
            p->playing = 0;
            snprintf(s->message, sizeof s->message,
                     "the view reached the lesson's next pause (%s): Enter goes on to it",
                     s->l->runs[k].pauses[i].pos);
            return 1;
        }
    }
    return changed;
}
