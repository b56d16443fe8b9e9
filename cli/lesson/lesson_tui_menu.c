// cli/lesson/lesson_tui_menu.c: the menu of the full-screen lesson player
// (lesson_tui_internal.h): the lessons by section with progress marks, a
// search over titles and topics (the lessons' headings), filters by track
// and level, and the selected lesson's details.
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lesson/lesson_tui_internal.h"

static const char *const menu_tracks[] = {NULL, "lessons", "spot-the-bug"};
static const char *const menu_levels[] = {NULL, "beginner", "intermediate", "advanced"};

// The words a search looks in: id, title, section, level and every
// heading of the lesson's file. Heap.
static char *menu_text(const LessonEntry *e) {
    size_t cap = 1024, n = 0;
    char *t = malloc(cap);
    if (t == NULL)
        return NULL;
    n = (size_t)snprintf(t, cap, "%s %s %s %s %s\n", e->id ? e->id : "", e->title ? e->title : "",
                         e->section ? e->section : "", e->difficulty ? e->difficulty : "",
                         e->track ? e->track : "");
    if (n >= cap)
        n = cap - 1;
    FILE *f = fopen(e->path, "r");
    char line[512];
    while (f && fgets(line, sizeof line, f)) {
        if (line[0] != '#')
            continue;
        size_t k = strlen(line);
        if (n + k + 1 > cap) {
            char *u = realloc(t, 2 * (n + k + 1));
            if (u == NULL)
                break;
            t = u;
            cap = 2 * (n + k + 1);
        }
        memcpy(t + n, line, k + 1);
        n += k;
    }
    if (f)
        fclose(f);
    for (size_t i = 0; i < n; i++)
        t[i] = (char)tolower((unsigned char)t[i]);
    return t;
}

int lesson_tui_menu_init(TuiMenu *m, const LessonCatalog *cat, const LessonProgress *p) {
    memset(m, 0, sizeof *m);
    m->cat = cat;
    m->progress = p;
    size_t n = cat->n > 0 ? (size_t)cat->n : 1;
    m->texts = calloc(n, sizeof *m->texts);
    m->shown = calloc(n, sizeof *m->shown);
    if (m->texts == NULL || m->shown == NULL) {
        lesson_tui_menu_free(m);
        return -1;
    }
    m->id_width = 8;
    for (int i = 0; i < cat->n; i++) {
        m->texts[i] = cat->e[i].error ? NULL : menu_text(&cat->e[i]);
        int n = cat->e[i].id ? (int)strlen(cat->e[i].id) : 0;
        m->id_width = n > m->id_width ? (n < 26 ? n : 26) : m->id_width;
    }
    lesson_tui_menu_filter(m);
    return 0;
}

void lesson_tui_menu_free(TuiMenu *m) {
    if (m->texts)
        for (int i = 0; i < m->cat->n; i++)
            free(m->texts[i]);
    free(m->texts);
    free(m->shown);
    memset(m, 0, sizeof *m);
}

// Every word of the search appears in the lesson's text.
static int menu_matches(const TuiMenu *m, int i) {
    if (m->search[0] == '\0')
        return 1;
    if (m->texts[i] == NULL)
        return 0;
    char q[sizeof m->search];
    snprintf(q, sizeof q, "%s", m->search);
    for (char *w = strtok(q, " "); w; w = strtok(NULL, " ")) {
        for (char *c = w; *c; c++)
            *c = (char)tolower((unsigned char)*c);
        if (strstr(m->texts[i], w) == NULL)
            return 0;
    }
    return 1;
}

void lesson_tui_menu_filter(TuiMenu *m) {
    int was = m->nshown > 0 && m->sel < m->nshown ? m->shown[m->sel] : -1;
    m->nshown = 0;
    for (int i = 0; i < m->cat->n; i++) {
        const LessonEntry *e = &m->cat->e[i];
        if (m->track && (e->track == NULL || strcmp(e->track, menu_tracks[m->track]) != 0))
            continue;
        if (m->level && (e->difficulty == NULL || strcmp(e->difficulty, menu_levels[m->level])))
            continue;
        if (!menu_matches(m, i))
            continue;
        m->shown[m->nshown++] = i;
    }
    m->sel = 0;
    for (int k = 0; k < m->nshown; k++)
        if (m->shown[k] == was)
            m->sel = k;
}

void lesson_tui_menu_select(TuiMenu *m, int k) {
    for (int i = 0; i < m->nshown; i++)
        if (m->shown[i] == k)
            m->sel = i;
}

static void menu_move(TuiMenu *m, int d) {
    int s = m->sel + d;
    m->sel = s < 0 ? 0 : s >= m->nshown ? (m->nshown > 0 ? m->nshown - 1 : 0) : s;
}

static TuiMenuDo menu_search_key(TuiMenu *m, int key) {
    size_t n = strlen(m->search);
    if (key == VIZ_KEY_ENTER) {
        m->searching = 0;
    } else if (key == VIZ_KEY_ESCAPE) {
        m->searching = 0;
        m->search[0] = '\0';
    } else if (key == VIZ_KEY_BACKSPACE) {
        if (n > 0)
            m->search[n - 1] = '\0';
    } else if (key == VIZ_KEY_UP || key == VIZ_KEY_DOWN) {
        menu_move(m, key == VIZ_KEY_UP ? -1 : 1);
        return TUI_MENU_NOTHING;
    } else if (key >= 0x20 && key < 0x7f && n + 1 < sizeof m->search) {
        m->search[n] = (char)key;
        m->search[n + 1] = '\0';
    } else {
        return TUI_MENU_NOTHING;
    }
    lesson_tui_menu_filter(m);
    return TUI_MENU_NOTHING;
}

static TuiMenuDo menu_open(TuiMenu *m, TuiMenuDo what) {
    if (m->nshown == 0) {
        snprintf(m->message, sizeof m->message, "no lesson matches: Esc clears the search");
        return TUI_MENU_NOTHING;
    }
    int k = m->shown[m->sel];
    if (m->cat->e[k].error) {
        snprintf(m->message, sizeof m->message, "%s", m->cat->e[k].error);
        return TUI_MENU_NOTHING;
    }
    if (what == TUI_MENU_REVIEW) {
        const LessonProgressEntry *p = lesson_progress_find(m->progress, m->cat->e[k].id);
        if (p == NULL || p->answers == NULL || strpbrk(p->answers, "ws") == NULL) {
            snprintf(m->message, sizeof m->message, "nothing to review in %s: no missed answer "
                     "kept", m->cat->e[k].id);
            return TUI_MENU_NOTHING;
        }
    }
    m->chosen = k;
    return what;
}

TuiMenuDo lesson_tui_menu_key(TuiMenu *m, int key, int page_rows) {
    m->message[0] = '\0';
    if (m->help) {
        m->help = 0;
        return TUI_MENU_NOTHING;
    }
    if (m->searching)
        return menu_search_key(m, key);
    switch (key) {
    case 'q': return TUI_MENU_QUIT;
    case VIZ_KEY_UP:
    case 'k': menu_move(m, -1); break;
    case VIZ_KEY_DOWN:
    case 'j': menu_move(m, 1); break;
    case VIZ_KEY_PAGE_UP: menu_move(m, -(page_rows > 1 ? page_rows - 1 : 1)); break;
    case VIZ_KEY_PAGE_DOWN: menu_move(m, page_rows > 1 ? page_rows - 1 : 1); break;
    case VIZ_KEY_HOME:
    case 'g': m->sel = 0; break;
    case VIZ_KEY_END:
    case 'G': menu_move(m, m->nshown); break;
    case VIZ_KEY_ENTER:
    case VIZ_KEY_RIGHT: return menu_open(m, TUI_MENU_OPEN);
    case 'm': return menu_open(m, TUI_MENU_REVIEW);
    case 'i': return TUI_MENU_INTERVIEW;
    case '/':
        m->searching = 1;
        break;
    case 't':
        m->track = (m->track + 1) % 3;
        lesson_tui_menu_filter(m);
        break;
    case 'l':
        m->level = (m->level + 1) % 4;
        lesson_tui_menu_filter(m);
        break;
    case VIZ_KEY_ESCAPE:
        m->search[0] = '\0';
        m->track = m->level = 0;
        lesson_tui_menu_filter(m);
        break;
    case '?':
    case 'h': m->help = 1; break;
    default: break;
    }
    return TUI_MENU_NOTHING;
}

// ---------------------------------------------------------------------------
// Drawing

// "[x]" finished, "[~]" started, "[ ]" not yet.
static void menu_mark(const LessonProgressEntry *p, char *mark, char *score, size_t len) {
    snprintf(mark, 4, "%s", p == NULL ? "[ ]" : p->completed ? "[x]" : "[~]");
    score[0] = '\0';
    if (p != NULL && p->asked > 0)
        snprintf(score, len, "%d/%d", p->right, p->asked);
}

// The list's rows: a section's title where the section changes, then its
// entries. row_entry[r] is the shown index (-1: a title row).
static int menu_rows(const TuiMenu *m, int *row_entry, int cap) {
    int n = 0;
    const char *section = NULL;
    for (int k = 0; k < m->nshown && n < cap; k++) {
        const LessonEntry *e = &m->cat->e[m->shown[k]];
        if (section == NULL || strcmp(section, e->section) != 0) {
            section = e->section;
            if (n > 0 && n < cap)
                row_entry[n++] = -2; // a blank row between sections
            if (n < cap)
                row_entry[n++] = -1 - 1000 - k; // the title of k's section
        }
        if (n < cap)
            row_entry[n++] = k;
    }
    return n;
}

static void menu_draw_row(const TuiMenu *m, VizCanvas *c, int y, int re) {
    if (re == -2)
        return;
    if (re < -1) {
        const LessonEntry *e = &m->cat->e[m->shown[-(re + 1 + 1000)]];
        viz_canvas_text(c, 1, y, c->w - 2, VIZ_STYLE_TITLE, e->section[0] ? e->section : "Lessons");
        return;
    }
    int i = m->shown[re];
    const LessonEntry *e = &m->cat->e[i];
    VizStyle st = re == m->sel ? VIZ_STYLE_SELECTED : VIZ_STYLE_NORMAL;
    char line[512], mark[4], score[32];
    if (e->error) {
        snprintf(line, sizeof line, " %3d  [!] %s", i + 1, e->error);
    } else {
        menu_mark(lesson_progress_find(m->progress, e->id), mark, score, sizeof score);
        snprintf(line, sizeof line, " %3d  %s %-*.*s %-12s %3d min %5s  %s", i + 1, mark,
                 m->id_width, m->id_width, e->id, e->difficulty, e->minutes, score, e->title);
    }
    if (re == m->sel)
        viz_canvas_fill(c, (VizRect){0, y, c->w, 1}, ' ', st);
    viz_canvas_text(c, 0, y, c->w, st, line);
}

// The selected lesson's details, under the list.
static void menu_draw_detail(const TuiMenu *m, VizCanvas *c, VizRect r) {
    viz_canvas_hline(c, r.x, r.y, r.w, VIZ_STYLE_DIM);
    if (m->nshown == 0) {
        viz_canvas_text(c, 1, r.y + 1, r.w - 2, VIZ_STYLE_WARN,
                        "No lesson matches the search and filters (Esc clears them).");
        return;
    }
    const LessonEntry *e = &m->cat->e[m->shown[m->sel]];
    if (e->error)
        return;
    const LessonProgressEntry *p = lesson_progress_find(m->progress, e->id);
    char a[512], b[256];
    snprintf(a, sizeof a, "%s", e->title);
    viz_canvas_text(c, 1, r.y + 1, r.w - 2, VIZ_STYLE_TITLE, a);
    if (p == NULL)
        snprintf(b, sizeof b, "not started");
    else if (p->completed)
        snprintf(b, sizeof b, "finished; %d of %d right in the last play%s", p->right, p->asked,
                 p->answers && strpbrk(p->answers, "ws") ? " (m: review the missed ones)" : "");
    else
        snprintf(b, sizeof b, "started: Enter resumes at section %d", p->at + 1);
    snprintf(a, sizeof a, "ddplab lesson %s   %s, about %d minute%s, %s track", e->id,
             e->difficulty, e->minutes, e->minutes == 1 ? "" : "s", e->track);
    viz_canvas_text(c, 1, r.y + 2, r.w - 2, VIZ_STYLE_NORMAL, a);
    viz_canvas_text(c, 1, r.y + 3, r.w - 2, p && p->completed ? VIZ_STYLE_DONE : VIZ_STYLE_NORMAL, b);
}

static const char *const menu_help_lines[] = {
    "up/down or j/k   move;  PgUp/PgDn, Home/End",
    "Enter or right   open the lesson (a started one resumes where it was)",
    "/                search titles and topics (Enter keeps it, Esc clears)",
    "t                track: all, lessons, spot-the-bug",
    "l                level: all, beginner, intermediate, advanced",
    "m                review the questions missed in the lesson's last play",
    "i                the interview drill (ddplab interview)",
    "Esc              clear the search and filters",
    "q                quit",
    "Marks: [x] finished  [~] started  [ ] not yet;  N/M right in the last play",
    "Any key closes this help.",
};

void lesson_tui_menu_draw(TuiMenu *m, VizCanvas *c) {
    viz_canvas_clear(c);
    int finished = 0;
    for (int i = 0; i < m->cat->n; i++) {
        const LessonProgressEntry *p =
            m->cat->e[i].id ? lesson_progress_find(m->progress, m->cat->e[i].id) : NULL;
        finished += p && p->completed;
    }
    char t[256];
    snprintf(t, sizeof t, "ddplab lessons: %d, %d finished", m->cat->n, finished);
    lesson_tui_bar(c, 0, 0, c->w, VIZ_STYLE_TITLE, t);
    snprintf(t, sizeof t, "track: %s   level: %s   search: %s%s   (%d shown)",
             m->track ? menu_tracks[m->track] : "all", m->level ? menu_levels[m->level] : "all",
             m->search[0] || m->searching ? m->search : "(none: / searches)",
             m->searching ? "_" : "", m->nshown);
    viz_canvas_text(c, 1, 1, c->w - 2, m->searching ? VIZ_STYLE_SELECTED : VIZ_STYLE_DIM, t);
    VizRect list = {0, 2, c->w, c->h - 2 - 5};
    int cap = 2 * m->cat->n + 8, *rows = malloc((size_t)cap * sizeof *rows);
    int n = rows ? menu_rows(m, rows, cap) : 0, selrow = 0;
    for (int r = 0; r < n; r++)
        if (rows[r] == m->sel)
            selrow = r;
    if (selrow < m->top + 1)
        m->top = selrow > 0 ? selrow - 1 : 0; // the section's title stays in sight
    if (selrow >= m->top + list.h)
        m->top = selrow - list.h + 1;
    for (int r = m->top; r < n && r - m->top < list.h; r++)
        menu_draw_row(m, c, list.y + r - m->top, rows[r]);
    free(rows);
    menu_draw_detail(m, c, (VizRect){0, c->h - 5, c->w, 4});
    lesson_tui_bar(c, 0, c->h - 1, c->w, VIZ_STYLE_STATUS,
                   m->message[0] ? m->message
                   : m->searching ? "type to search titles and topics  Enter keep  Esc clear  "
                                    "up/down move"
                                  : "up/down move  Enter open  / search  t track  l level  "
                                    "m review  i interview  ? help  q quit");
    if (m->help)
        lesson_tui_overlay(c, "keys: the menu", menu_help_lines,
                           (int)(sizeof menu_help_lines / sizeof menu_help_lines[0]));
}
