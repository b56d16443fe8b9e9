// cli/lesson/lesson_tui_draw.c: the lesson screen drawn onto a canvas
// (lesson_tui_internal.h): where the panes go at this size, the narrative
// so far, the view of the run (an embedded frame of viz/frame.h, or the
// command's output), the question pane and the status line.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout.h" // defines: VIZ_EMBED_MIN_W, VIZ_EMBED_MIN_H
#include "lesson/lesson_tui_internal.h"

typedef struct {
    VizRect view;      // the title line and the frame under it
    VizRect narrative; // the title line and the text
    VizRect ask;       // the question pane (may be empty)
    int side;          // narrative left, view right
} TuiPanes;

// ---------------------------------------------------------------------------
// Shared pieces

void lesson_tui_bar(VizCanvas *c, int x, int y, int w, VizStyle st, const char *text) {
    VizRect r = {x, y, w, 1};
    viz_canvas_fill(c, r, ' ', st);
    viz_canvas_text(c, x + 1, y, w - 2, st, text);
}

int lesson_tui_draw_lines(VizCanvas *c, VizRect r, const TuiLines *d, int top) {
    int k = 0;
    for (; k < r.h && top + k < d->n; k++)
        if (top + k >= 0)
            viz_canvas_text(c, r.x, r.y + k, r.w, d->line[top + k].style, d->line[top + k].text);
    return k;
}

void lesson_tui_overlay(VizCanvas *c, const char *title, const char *const *lines, int n) {
    int w = 0;
    for (int i = 0; i < n; i++) {
        int k = (int)strlen(lines[i]);
        w = k > w ? k : w;
    }
    w += 4;
    if (w > c->w - 2)
        w = c->w - 2;
    int h = n + 2 < c->h - 2 ? n + 2 : c->h - 2;
    VizRect r = {(c->w - w) / 2, (c->h - h) / 2, w, h};
    viz_canvas_fill(c, r, ' ', VIZ_STYLE_NORMAL);
    viz_canvas_box(c, r, VIZ_STYLE_TITLE, title);
    for (int i = 0; i < n && i < h - 2; i++)
        viz_canvas_text(c, r.x + 2, r.y + 1 + i, w - 4, VIZ_STYLE_NORMAL, lines[i]);
}

// ---------------------------------------------------------------------------
// The narrative so far

// What a block printed, less its configuration table (the line above
// says it in one line, and o shows it whole): the step lines, the summary,
// the tables the lesson's questions read. Each line as printed, led by two
// blanks.
static void doc_output(TuiLesson *s, const char *out) {
    int in_table = 0, table_done = 0;
    for (const char *p = out; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        int row = n > 0 && (p[0] == '+' || p[0] == '|');
        if (!table_done && row)
            in_table = 1;
        else if (in_table && !row)
            in_table = 0, table_done = 1;
        // the trace's path is the lesson's scratch file: nothing to keep
        if (!in_table && strncmp(p, "trace: ", 7) != 0) {
            char line[512];
            snprintf(line, sizeof line, "  %.*s", (int)(n < sizeof line - 3 ? n : sizeof line - 3), p);
            lesson_tui_lines_add(&s->doc, line, VIZ_STYLE_NORMAL);
        }
        p = nl ? nl + 1 : p + n;
    }
}

static void doc_run(TuiLesson *s, int k, int w) {
    const LessonFacts *f = &s->facts[k];
    char head[64];
    snprintf(head, sizeof head, "> run %d of %d", k + 1, s->l->nruns);
    lesson_tui_lines_add(&s->doc, head, VIZ_STYLE_TITLE);
    lesson_tui_lines_wrap(&s->doc, s->config[k] ? s->config[k] : s->l->runs[k].command, w, 2,
                          VIZ_STYLE_DIM);
    if (f->output == NULL)
        return;
    doc_output(s, f->output);
    char res[160];
    int n = snprintf(res, sizeof res, "  exit %d", f->exit_code);
    if (f->has_trace)
        snprintf(res + n, sizeof res - (size_t)n, "; %d iteration%s, %zu events in the trace",
                 viz_model_iterations(f->model), viz_model_iterations(f->model) == 1 ? "" : "s",
                 f->trace.n);
    lesson_tui_lines_add(&s->doc, res, VIZ_STYLE_DIM);
}

static void doc_pause(TuiLesson *s, const TuiStop *st, int w) {
    const LessonPause *p = &s->l->runs[st->run].pauses[st->pause];
    char head[96];
    snprintf(head, sizeof head, "|| pause at %s", p->pos);
    lesson_tui_lines_add(&s->doc, head, VIZ_STYLE_TITLE);
    if (p->caption[0])
        lesson_tui_lines_wrap(&s->doc, p->caption, w, 3, VIZ_STYLE_CAPTION);
}

// A question already past: what was asked and how it went.
static void doc_question(TuiLesson *s, int qi, int w) {
    const LessonQuestion *q = &s->l->questions[qi];
    const TuiAnswer *a = &s->answers[qi];
    char head[32];
    snprintf(head, sizeof head, "Question %d: ", qi + 1);
    lesson_tui_lines_item(&s->doc, head, q->ask, w, VIZ_STYLE_DIM);
    if (a->mark == TUI_MARK_NONE)
        return;
    char line[640];
    snprintf(line, sizeof line, "  %s%s%s", a->mark == TUI_MARK_RIGHT ? "right: " :
             a->mark == TUI_MARK_SKIP ? "skipped; the answer: " : "not quite; the answer: ",
             lesson_tui_ask_right(s, qi), "");
    lesson_tui_lines_wrap(&s->doc, line, w, 0,
                          a->mark == TUI_MARK_RIGHT ? VIZ_STYLE_DONE : VIZ_STYLE_WARN);
}

// The summary at the end: the score, each missed question with its
// explanation, what to read next.
static void doc_summary(TuiLesson *s, int w) {
    int asked, right, open;
    lesson_tui_score(s, &asked, &right, &open);
    char line[256];
    snprintf(line, sizeof line, "End of the lesson: %d of %d question%s answered right%s.", right,
             s->l->nquestions, s->l->nquestions == 1 ? "" : "s",
             open ? " (some not answered)" : "");
    lesson_tui_lines_add(&s->doc, "", VIZ_STYLE_NORMAL);
    lesson_tui_lines_add(&s->doc, line, VIZ_STYLE_TITLE);
    int missed = 0;
    for (int q = 0; q < s->l->nquestions; q++) {
        const TuiAnswer *a = &s->answers[q];
        if (a->mark == TUI_MARK_RIGHT)
            continue;
        if (missed++ == 0)
            lesson_tui_lines_add(&s->doc, "What to look at again:", VIZ_STYLE_TITLE);
        const LessonQuestion *lq = &s->l->questions[q];
        snprintf(line, sizeof line, "Question %d: ", q + 1);
        lesson_tui_lines_item(&s->doc, line, lq->ask, w, VIZ_STYLE_NORMAL);
        char ans[600];
        snprintf(ans, sizeof ans, "%s%s", a->mark == TUI_MARK_NONE ? "not answered" : "the answer: ",
                 a->mark == TUI_MARK_NONE ? "" : lesson_tui_ask_right(s, q));
        lesson_tui_lines_item(&s->doc, "  ", ans, w, VIZ_STYLE_WARN);
        if (lq->explain && *lq->explain && a->mark != TUI_MARK_NONE)
            lesson_tui_lines_wrap(&s->doc, lq->explain, w, 2, VIZ_STYLE_NORMAL);
    }
    if (missed > 0)
        lesson_tui_lines_add(&s->doc, "m: review what I missed (those questions again)",
                             VIZ_STYLE_SELECTED);
    if (s->next_id) {
        snprintf(line, sizeof line, "Read next: %s (%s), the next lesson in the menu.",
                 s->next_title ? s->next_title : s->next_id, s->next_id);
        lesson_tui_lines_wrap(&s->doc, line, w, 0, VIZ_STYLE_NORMAL);
    }
    lesson_tui_lines_add(&s->doc, s->up_word && strcmp(s->up_word, "quit") == 0
                                      ? "q: quit (your progress is kept)"
                                      : "q: back to the menu (your progress is kept)",
                         VIZ_STYLE_DIM);
}

// Rebuilds the narrative pane's lines up to the current stop at width w.
static void doc_build(TuiLesson *s, int w) {
    lesson_tui_lines_clear(&s->doc);
    int item = 0, first_of_run = -1;
    for (int k = 0; k <= s->cur && k < s->nstops; k++) {
        const TuiStop *st = &s->stops[k];
        if (k == s->cur)
            s->doc_stop_line = s->doc.n;
        for (; item < st->item && item < s->l->nitems; item++) {
            const LessonItem *it = &s->l->items[item];
            if (it->kind == LESSON_ITEM_TEXT && it->text) {
                if (s->doc.n > 0)
                    lesson_tui_lines_add(&s->doc, "", VIZ_STYLE_NORMAL);
                lesson_tui_lines_wrap(&s->doc, it->text, w, 0, VIZ_STYLE_NORMAL);
            }
        }
        if (k == s->cur && s->running)
            break; // the block it needs is running: the text up to it only
        if ((st->kind == TUI_STOP_PAUSE || st->kind == TUI_STOP_RUN) && st->run != first_of_run) {
            first_of_run = st->run;
            lesson_tui_lines_add(&s->doc, "", VIZ_STYLE_NORMAL);
            doc_run(s, st->run, w);
        }
        if (st->kind == TUI_STOP_PAUSE)
            doc_pause(s, st, w);
        else if (st->kind == TUI_STOP_QUESTION && k < s->cur)
            doc_question(s, st->question, w);
        else if (st->kind == TUI_STOP_END)
            doc_summary(s, w);
        item = st->item + 1; // the stop's own item (a run, a question) is drawn above
    }
}

// ---------------------------------------------------------------------------
// Panes

static int min_view_h(void) {
    return VIZ_EMBED_MIN_H + 1; // its title line and the smallest frame
}

static TuiPanes panes(const TuiLesson *s, int W, int H, int ask_lines) {
    TuiPanes p;
    memset(&p, 0, sizeof p);
    int avail = H - 1; // the status line
    if (s->full_view) {
        p.view = (VizRect){0, 0, W, avail};
        return p;
    }
    if (W >= TUI_SIDE_W) {
        int lw = W * 9 / 20;
        p.side = 1;
        p.view = (VizRect){lw + 1, 0, W - lw - 1, avail};
        int ah = ask_lines > 0 ? ask_lines + 1 : 0;
        if (ah > avail - 6)
            ah = avail - 6;
        p.narrative = (VizRect){0, 0, lw, avail - ah};
        p.ask = (VizRect){0, avail - ah, lw, ah};
        return p;
    }
    int vh = ask_lines > 0 ? avail * 2 / 5 : avail / 2;
    if (vh < min_view_h())
        vh = min_view_h();
    int rest = avail - vh;
    int ah = ask_lines > 0 ? ask_lines + 1 : 0;
    if (ah > rest - 3)
        ah = rest - 3; // the narrative keeps its title and two lines
    p.view = (VizRect){0, 0, W, vh};
    p.narrative = (VizRect){0, vh, W, rest - ah};
    p.ask = (VizRect){0, vh + rest - ah, W, ah};
    return p;
}

static void draw_narrative(TuiLesson *s, VizCanvas *c, VizRect r) {
    VizRect body = {r.x + 1, r.y + 1, r.w - 2, r.h - 1};
    doc_build(s, body.w); // a few hundred lines: cheap enough for every frame drawn
    if (s->narr_follow) {
        int top = s->doc_stop_line;
        if (top > s->doc.n - body.h)
            top = s->doc.n - body.h;
        s->narr_top = top < 0 ? 0 : top;
    }
    s->narr_rows = body.h;
    s->narr_more = s->narr_top + body.h < s->doc.n;
    lesson_tui_draw_lines(c, body, &s->doc, s->narr_top);
    char title[384];
    // where the lesson stands first: a long title is what gets cut, and the
    // scroll marks go over its end
    snprintf(title, sizeof title, "%s %d of %d: %s", s->review ? "Review, section" : "Section",
             s->cur + 1, s->nstops, s->l->title ? s->l->title : s->l->id);
    VizStyle st = s->focus == TUI_FOCUS_LESSON ? VIZ_STYLE_STATUS : VIZ_STYLE_TITLE;
    lesson_tui_bar(c, r.x, r.y, r.w, st, title);
    char marks[48];
    snprintf(marks, sizeof marks, " %s%s%s ", s->narr_top > 0 ? "^ more above" : "",
             s->narr_top > 0 && s->narr_more ? ", " : "", s->narr_more ? "v more below" : "");
    int n = (int)strlen(marks);
    if (n > 2)
        viz_canvas_text(c, r.x + r.w - n, r.y, n, st, marks);
}

// Lines of text (the command's output, the card before any run) in r.
static void draw_text_body(VizCanvas *c, VizRect r, const char *text, int top) {
    int line = 0;
    for (const char *p = text; p && *p && line - top < r.h;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        if (line >= top) {
            char buf[512];
            snprintf(buf, sizeof buf, "%.*s", (int)(n < sizeof buf - 1 ? n : sizeof buf - 1), p);
            viz_canvas_text(c, r.x, r.y + line - top, r.w, VIZ_STYLE_NORMAL, buf);
        }
        line++;
        p = nl ? nl + 1 : p + n;
    }
}

static void draw_view(TuiLesson *s, VizCanvas *c, VizRect r) {
    int k = lesson_tui_view_run(s);
    char title[512];
    VizRect body = {r.x, r.y + 1, r.w, r.h - 1};
    VizStyle ts = s->focus == TUI_FOCUS_VIEW ? VIZ_STYLE_STATUS : VIZ_STYLE_TITLE;
    if (s->running) {
        lesson_tui_bar(c, r.x, r.y, r.w, ts, "View");
        snprintf(title, sizeof title, "\n  running run %d of %d:\n  ddplab %s\n\n  The view "
                 "opens when it is done.", s->pending_run + 1, s->l->nruns,
                 s->l->runs[s->pending_run].command);
        draw_text_body(c, body, title, 0);
        return;
    }
    if (k < 0 || s->facts[k].output == NULL) {
        lesson_tui_bar(c, r.x, r.y, r.w, ts, "View");
        snprintf(title, sizeof title,
                 "\n  %s\n\n  The view of the lesson's runs opens here, at the first pause the\n"
                 "  lesson names. About %d minutes; %d run%s, %d question%s.",
                 s->l->title ? s->l->title : s->l->id, s->l->minutes, s->l->nruns,
                 s->l->nruns == 1 ? "" : "s", s->l->nquestions, s->l->nquestions == 1 ? "" : "s");
        draw_text_body(c, body, title, 0);
        return;
    }
    TuiRunView *v = &s->views[k];
    snprintf(title, sizeof title, "%s run %d of %d: %s", s->focus == TUI_FOCUS_VIEW ? "[view]" : "View,",
             k + 1, s->l->nruns, s->config[k] ? s->config[k] : s->l->runs[k].command);
    lesson_tui_bar(c, r.x, r.y, r.w, ts, title);
    if (v->show_output || !s->facts[k].has_trace || !v->opened) {
        draw_text_body(c, (VizRect){body.x + 1, body.y, body.w - 1, body.h}, s->facts[k].output,
                       v->output_top);
        return;
    }
    if (viz_frame_draw_embed(&v->frame, s->facts[k].model, &v->player, body.w, body.h,
                             c->unicode) == SIM_OK)
        viz_canvas_blit(c, body.x, body.y, &v->frame.canvas, &body);
}

static void draw_ask(VizCanvas *c, VizRect r, const TuiLines *ask) {
    if (r.h <= 0)
        return;
    viz_canvas_hline(c, r.x, r.y, r.w, VIZ_STYLE_DIM);
    VizRect body = {r.x + 1, r.y + 1, r.w - 2, r.h - 1};
    // the end of the pane matters most (the field, the verdict): when the
    // question does not fit, its first lines give way
    int top = ask->n > body.h ? ask->n - body.h : 0;
    lesson_tui_draw_lines(c, body, ask, top);
}

// The status line: where the lesson stands, then the keys of the level.
static void draw_status(TuiLesson *s, VizCanvas *c) {
    int asked, right, open;
    lesson_tui_score(s, &asked, &right, &open);
    char buf[768];
    const TuiStop *st = &s->stops[s->cur];
    const char *up = s->up_word ? s->up_word : "menu";
    int n = snprintf(buf, sizeof buf, "%d/%d right  ", right, s->l->nquestions);
    size_t room = sizeof buf - (size_t)n;
    // The keys by importance: a narrow line cuts the end of the list, and
    // "q" and "? help" come early enough to stay.
    if (s->confirm_leave) {
        snprintf(buf + n, room, "Leave the lesson? %d question%s not answered yet; your place is "
                 "kept.  y or q: leave   n: stay", open, open == 1 ? "" : "s");
    } else if (s->focus == TUI_FOCUS_VIEW) {
        int k = lesson_tui_view_run(s);
        if (k >= 0 && s->views[k].show_output) {
            snprintf(buf + n, room, "VIEW (output)  q back  up/down PgUp/PgDn scroll  o the view"
                     "  f full size");
        } else if (k >= 0) {
            // the player's own line, whose q here goes back to the lesson
            char ps[sizeof s->views[k].frame.status];
            snprintf(ps, sizeof ps, "%s", s->views[k].frame.status);
            char *qq = strstr(ps, "q quit");
            if (qq != NULL)
                memcpy(qq, "q back", 6);
            snprintf(buf + n, room, "VIEW  %s  o output  f full size", ps);
        }
    } else if (s->message[0]) {
        snprintf(buf + n, room, "%s   q %s  ? help", s->message, up);
    } else if (st->kind == TUI_STOP_QUESTION && s->answers[st->question].mark == TUI_MARK_NONE) {
        snprintf(buf + n, room, "type the answer, Enter submits (twice empty: skip)  q %s  ? help  "
                 "Tab view  up/down scroll", up);
    } else if (st->kind == TUI_STOP_END) {
        snprintf(buf + n, room, "the end  m review what I missed  q %s  ? help  left back  "
                 "up/down scroll", up);
    } else {
        int k = lesson_tui_view_run(s);
        const char *kind = k >= 0 && s->views[k].opened ? viz_jump_name(s->views[k].player.jump)
                                                        : NULL;
        snprintf(buf + n, room, "%s  q %s  ? help  Tab view  left back  up/down scroll  "
                 "space play  ]/[ %s  o output  f full",
                 s->narr_more ? "Enter more" : "Enter go on", up, kind ? kind : "event");
    }
    lesson_tui_bar(c, 0, c->h - 1, c->w, VIZ_STYLE_STATUS, buf);
}

static const char *const tui_help_lines[] = {
    "At the lesson (the narrative and the question):",
    "  Enter or right   go on to the next stop (a pause, a question, the end)",
    "  left             back to the previous stop",
    "  up/down PgUp/Dn  scroll the narrative; End follows the lesson again",
    "  a letter, digits an answer, sent with Enter; Enter twice empty skips",
    "  space ] [ + -    play, next / previous event of the lesson's kind, speed",
    "  Tab or v         the view: then every key goes to it",
    "  o                the run's whole output (its configuration table)",
    "  f                the view at full size, and back",
    "  q or Esc         back to the menu (asks when questions are open)",
    "In the view:",
    "  space play/pause (at the lesson's pace; it stops at the next pause)",
    "  n/p event  N/P iteration  ]/[ event of the kind  k choose the kind",
    "  +/- speed  r/R rank  t clock  z zoom  g go to  Home/End",
    "  Tab, Esc or q    back to the lesson",
    "Any key closes this help.",
};

void lesson_tui_draw(TuiLesson *s, VizCanvas *c) {
    viz_canvas_clear(c);
    if (c->w < TUI_MIN_W || c->h < TUI_MIN_H) {
        char msg[128];
        snprintf(msg, sizeof msg, "the terminal is %dx%d; the lessons need at least %dx%d "
                 "(q goes back)", c->w, c->h, TUI_MIN_W, TUI_MIN_H);
        viz_frame_message(c, msg);
        return;
    }
    TuiLines ask = {0};
    int aw = c->w >= TUI_SIDE_W ? c->w * 9 / 20 - 2 : c->w - 2;
    lesson_tui_ask_lines(s, aw, &ask);
    TuiPanes p = panes(s, c->w, c->h, ask.n);
    draw_view(s, c, p.view);
    if (!s->full_view) {
        draw_narrative(s, c, p.narrative);
        draw_ask(c, p.ask, &ask);
        if (p.side)
            for (int y = 0; y < c->h - 1; y++)
                viz_canvas_put(c, p.view.x - 1, y, c->unicode ? 0x2502 : '|', VIZ_STYLE_DIM);
    }
    draw_status(s, c);
    if (s->help)
        lesson_tui_overlay(c, "keys", tui_help_lines,
                           (int)(sizeof tui_help_lines / sizeof tui_help_lines[0]));
    lesson_tui_lines_free(&ask);
}
