// cli/lesson/lesson_tui_doc.c: a lesson cut into the stops the full-screen
// player goes through, and the lines of its panes (lesson_tui_internal.h).
// Text is wrapped by lesson_text.h into a memory stream and cut into
// lines, so the panes wrap exactly as the text mode does.
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "learn/lesson_text.h" // defines: lesson_text_wrap, lesson_text_item
#include "lesson/lesson_tui_internal.h"

static int stops_push(TuiStop **v, int *n, int *cap, TuiStop s) {
    if (*n == *cap) {
        int c = *cap ? 2 * *cap : 16;
        TuiStop *t = realloc(*v, (size_t)c * sizeof *t);
        if (t == NULL)
            return -1;
        *v = t;
        *cap = c;
    }
    (*v)[(*n)++] = s;
    return 0;
}

int lesson_tui_stops(const Lesson *l, TuiStop **stops, int *n) {
    TuiStop *v = NULL;
    int nv = 0, cap = 0, last_run = -1, rc = 0;
    for (int i = 0; i < l->nitems && rc == 0; i++) {
        const LessonItem *it = &l->items[i];
        if (it->kind == LESSON_ITEM_RUN) {
            const LessonRun *r = &l->runs[it->index];
            last_run = it->index;
            if (r->npauses == 0)
                rc = stops_push(&v, &nv, &cap,
                                (TuiStop){TUI_STOP_RUN, i, it->index, -1, -1});
            for (int k = 0; k < r->npauses && rc == 0; k++)
                rc = stops_push(&v, &nv, &cap, (TuiStop){TUI_STOP_PAUSE, i, it->index, k, -1});
        } else if (it->kind == LESSON_ITEM_QUESTION) {
            rc = stops_push(&v, &nv, &cap,
                            (TuiStop){TUI_STOP_QUESTION, i, last_run, -1, it->index});
        }
    }
    if (rc == 0)
        rc = stops_push(&v, &nv, &cap, (TuiStop){TUI_STOP_END, l->nitems, last_run, -1, -1});
    if (rc != 0) {
        free(v);
        return -1;
    }
    *stops = v;
    *n = nv;
    return 0;
}

// ---------------------------------------------------------------------------
// Lines

void lesson_tui_lines_clear(TuiLines *d) {
    for (int i = 0; i < d->n; i++)
        free(d->line[i].text);
    d->n = 0;
}

void lesson_tui_lines_free(TuiLines *d) {
    lesson_tui_lines_clear(d);
    free(d->line);
    memset(d, 0, sizeof *d);
}

// Appends one line of n bytes.
static void lines_addn(TuiLines *d, const char *text, size_t n, VizStyle st) {
    if (d->n == d->cap) {
        int c = d->cap ? 2 * d->cap : 64;
        TuiLine *t = realloc(d->line, (size_t)c * sizeof *t);
        if (t == NULL)
            return; // the pane then shows less; nothing else depends on it
        d->line = t;
        d->cap = c;
    }
    char *s = malloc(n + 1);
    if (s == NULL)
        return;
    memcpy(s, text, n);
    s[n] = '\0';
    d->line[d->n++] = (TuiLine){s, st};
}

void lesson_tui_lines_add(TuiLines *d, const char *text, VizStyle st) {
    lines_addn(d, text, strlen(text), st);
}

// Cuts what a wrapping function wrote into lines.
static void lines_split(TuiLines *d, const char *buf, size_t len, VizStyle st) {
    while (len > 0 && buf[len - 1] == '\n')
        len--;
    for (size_t at = 0; at < len;) {
        const char *nl = memchr(buf + at, '\n', len - at);
        size_t k = nl ? (size_t)(nl - (buf + at)) : len - at;
        lines_addn(d, buf + at, k, st);
        at += k + 1;
    }
}

void lesson_tui_lines_wrap(TuiLines *d, const char *text, int width, int indent, VizStyle st) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (f == NULL)
        return;
    lesson_text_wrap(f, text, width < 20 ? 20 : width, indent);
    fclose(f);
    lines_split(d, buf, len, st);
    free(buf);
}

void lesson_tui_lines_item(TuiLines *d, const char *mark, const char *text, int width,
                           VizStyle st) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (f == NULL)
        return;
    lesson_text_item(f, mark, text, width < 20 ? 20 : width, 0);
    fclose(f);
    lines_split(d, buf, len, st);
    free(buf);
}
