// viz/screen_curses.c: the terminal (screen.h), for the ncurses view and
// the lesson player. One screen at a time: the open one is remembered
// so that an exit() anywhere in the process still restores the terminal
// (the atexit guard). The character type of the locale is taken from the
// environment while the screen is open (for UTF-8 output) and put back
// when it closes; the rest of the locale (numbers above all) is never
// touched, so the run's own output keeps its decimal points.
#define _XOPEN_SOURCE 700
#define _XOPEN_SOURCE_EXTENDED 1

#ifdef DDPLAB_HAVE_NCURSESW
#include <ncursesw/curses.h>
#else
#include <curses.h>
#endif

#include <langinfo.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "view_curses_internal.h"

struct VizScreen {
    SCREEN *scr;
    int unicode;
    VizCursesStyles styles;
    char *old_ctype;  // LC_CTYPE before the screen opened (restored on close)
};

static VizScreen *screen_open_now; // the open screen, for the atexit guard
static int screen_guard_installed;

static void screen_atexit(void) {
    VizScreen *s = screen_open_now;
    if (s != NULL && s->scr != NULL) {
        set_term(s->scr);
        if (!isendwin())
            endwin();
    }
}

static void screen_restore_locale(VizScreen *s) {
    if (s->old_ctype != NULL) {
        setlocale(LC_CTYPE, s->old_ctype);
        free(s->old_ctype);
        s->old_ctype = NULL;
    }
}

VizScreen *viz_screen_open(FILE *out, FILE *in, const char *term, int unicode,
                                        char *err, size_t errlen) {
    if (screen_open_now != NULL) {
        snprintf(err, errlen, "an ncurses view is already open");
        return NULL;
    }
    if (term == NULL) {
        term = getenv("TERM");
        if (term == NULL || term[0] == '\0') {
            snprintf(err, errlen, "TERM is not set, so the terminal's type is unknown; "
                                  "set TERM or use --viz text");
            return NULL;
        }
    }
    VizScreen *s = calloc(1, sizeof *s);
    if (s == NULL) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    const char *cur = setlocale(LC_CTYPE, NULL);
    if (cur != NULL)
        s->old_ctype = strdup(cur);
    const char *loc = setlocale(LC_CTYPE, "");
    const char *codeset = loc ? nl_langinfo(CODESET) : "";
    int utf8 = codeset && (strcmp(codeset, "UTF-8") == 0 || strcmp(codeset, "utf8") == 0);
#ifdef DDPLAB_HAVE_NCURSESW
    s->unicode = unicode != 0 && utf8;
#else
    (void)utf8;
    (void)unicode;
    s->unicode = 0; // the narrow library cannot place a code point in a cell
#endif
    s->scr = newterm(term, out, in);
    if (s->scr == NULL) {
        snprintf(err, errlen, "cannot start ncurses on terminal type '%s' (is it in terminfo?); "
                              "use --viz text", term);
        screen_restore_locale(s);
        free(s);
        return NULL;
    }
    set_term(s->scr);
    screen_open_now = s;
    if (!screen_guard_installed && atexit(screen_atexit) == 0)
        screen_guard_installed = 1;
    cbreak(); // keys one at a time; ^C still raises SIGINT
    noecho();
    nonl();
    intrflush(stdscr, FALSE);
    keypad(stdscr, TRUE);
    leaveok(stdscr, TRUE);
    (void)curs_set(0);
    set_escdelay(25); // a lone Esc is a key, not the start of a sequence
    const char *nc = getenv("NO_COLOR");
    viz_curses_styles_init(&s->styles, nc == NULL || nc[0] == '\0');
    return s;
}

void viz_screen_close(VizScreen *s) {
    if (s == NULL)
        return;
    if (s->scr != NULL) {
        set_term(s->scr);
        if (!isendwin())
            endwin();
        delscreen(s->scr);
        s->scr = NULL;
    }
    if (screen_open_now == s)
        screen_open_now = NULL;
    screen_restore_locale(s);
    free(s);
}

void viz_screen_suspend(VizScreen *s) {
    set_term(s->scr);
    if (!isendwin())
        endwin();
}

void viz_screen_size(const VizScreen *s, int *w, int *h) {
    (void)s;
    int y, x;
    getmaxyx(stdscr, y, x);
    *w = x;
    *h = y;
}

SimStatus viz_screen_resize(VizScreen *s, int w, int h) {
    (void)s;
    return resizeterm(h, w) == OK ? SIM_OK : SIM_EINVAL;
}

int viz_screen_unicode(const VizScreen *s) {
    return s->unicode;
}

int viz_screen_colors(const VizScreen *s) {
    return s->styles.colors ? COLORS : 0;
}

void viz_screen_invalidate(VizScreen *s) {
    (void)s;
    clearok(curscr, TRUE);
}

// A code point the terminal can show in one cell, or '?'.
static wchar_t screen_glyph(const VizScreen *s, uint32_t ch) {
    if (ch >= 0x20 && ch < 0x7f)
        return (wchar_t)ch;
    if (!s->unicode || ch < 0x20 || ch == 0x7f)
        return L'?';
    return wcwidth((wchar_t)ch) == 1 ? (wchar_t)ch : L'?';
}

void viz_screen_show(VizScreen *s, const VizCanvas *c) {
    int W, H;
    viz_screen_size(s, &W, &H);
    if (isendwin())
        clearok(curscr, TRUE); // back from a suspend: repaint all of it
    int w = c->w < W ? c->w : W, h = c->h < H ? c->h : H;
    werase(stdscr);
    for (int y = 0; y < h; y++) {
        const VizCell *row = c->cells + (size_t)y * (size_t)c->w;
        for (int x = 0; x < w; x++) {
            int st = row[x].style < VIZ_STYLE_COUNT ? row[x].style : VIZ_STYLE_NORMAL;
            attr_t a = (attr_t)s->styles.attr[st];
            short pair = s->styles.pair[st];
            // erase left a blank in the default look: nothing to add.
            if (row[x].ch == ' ' && a == 0 && pair == 0)
                continue;
            wchar_t g = screen_glyph(s, row[x].ch);
#ifdef DDPLAB_HAVE_NCURSESW
            if (s->unicode) {
                wchar_t wc[2] = {g, L'\0'};
                cchar_t cc;
                if (setcchar(&cc, wc, a, pair, NULL) == OK)
                    (void)mvwadd_wch(stdscr, y, x, &cc);
                continue;
            }
#endif
            // The bottom-right cell returns ERR (the cursor cannot move on)
            // but is drawn.
            (void)mvwaddch(stdscr, y, x, (chtype)g | a | COLOR_PAIR(pair));
        }
    }
    wnoutrefresh(stdscr);
    doupdate();
}

int viz_screen_key(VizScreen *s, int timeout_ms) {
    (void)s;
    wtimeout(stdscr, timeout_ms);
    int k = wgetch(stdscr);
    switch (k) {
    case ERR: return VIZ_SCREEN_NOKEY;
    case KEY_RESIZE: return VIZ_SCREEN_RESIZED;
    case KEY_LEFT: return VIZ_KEY_LEFT;
    case KEY_RIGHT: return VIZ_KEY_RIGHT;
    case KEY_UP: return VIZ_KEY_UP;
    case KEY_DOWN: return VIZ_KEY_DOWN;
    case KEY_HOME: return VIZ_KEY_HOME;
    case KEY_END: return VIZ_KEY_END;
    case KEY_NPAGE: return VIZ_KEY_PAGE_DOWN;
    case KEY_PPAGE: return VIZ_KEY_PAGE_UP;
    case '\t': return VIZ_KEY_TAB;
    case KEY_BTAB: return VIZ_KEY_BACKTAB;
    case KEY_ENTER:
    case '\r':
    case '\n': return VIZ_KEY_ENTER;
    case KEY_BACKSPACE:
    case 127:
    case 8: return VIZ_KEY_BACKSPACE;
    case 27: return VIZ_KEY_ESCAPE;
    default: return k >= 0x20 && k < 0x7f ? k : VIZ_SCREEN_NOKEY;
    }
}
