// viz/view_curses_colors.c: what each VizStyle looks like in a terminal. With
// colours: a foreground colour (one of the 8 basic ones, or a 256-colour
// shade when the terminal has them) on the terminal's own background, plus
// bold / dim where it helps. Without colours (or with NO_COLOR set):
// bold, dim, underline and reverse video, chosen so that neighbours that
// must be told apart (the phases, the bucket states) look different.
#define _XOPEN_SOURCE 700
#define _XOPEN_SOURCE_EXTENDED 1

#ifdef DDPLAB_HAVE_NCURSESW
#include <ncursesw/curses.h>
#else
#include <curses.h>
#endif

#include "view_curses_internal.h"

typedef struct {
    short fg8;         // COLOR_* (-1: the terminal's default)
    short fg256;       // xterm-256 index (-1: use fg8)
    unsigned long col; // extra attributes with colours
    unsigned long mono;// attributes without colours
} StyleLook;

// Indexed by VizStyle (the memory categories follow VIZ_STYLE_MEM_FIRST in
// SimMemCat order).
static StyleLook style_look(int st) {
    const unsigned long B = A_BOLD, D = A_DIM, U = A_UNDERLINE, R = A_REVERSE;
    switch (st) {
    case VIZ_STYLE_DIM: return (StyleLook){-1, 244, D, D};
    case VIZ_STYLE_TITLE: return (StyleLook){COLOR_CYAN, 75, B, B};
    case VIZ_STYLE_SELECTED: return (StyleLook){COLOR_YELLOW, 220, B, B | U};
    case VIZ_STYLE_CURSOR: return (StyleLook){-1, -1, R | B, R};
    case VIZ_STYLE_STATUS: return (StyleLook){-1, -1, R, R};
    case VIZ_STYLE_CAPTION: return (StyleLook){-1, -1, B, B};
    case VIZ_STYLE_WARN: return (StyleLook){COLOR_RED, 196, B, R | B};
    case VIZ_STYLE_FORWARD: return (StyleLook){COLOR_GREEN, 34, 0, 0};
    case VIZ_STYLE_BACKWARD: return (StyleLook){COLOR_BLUE, 33, B, B};
    case VIZ_STYLE_OPTIMIZER: return (StyleLook){COLOR_MAGENTA, 170, 0, U};
    case VIZ_STYLE_OTHER: return (StyleLook){COLOR_WHITE, 250, 0, D};
    case VIZ_STYLE_COMM: return (StyleLook){COLOR_CYAN, 44, 0, B | U};
    case VIZ_STYLE_EXPOSED: return (StyleLook){COLOR_RED, 160, B, R};
    case VIZ_STYLE_HOST: return (StyleLook){COLOR_YELLOW, 178, 0, U};
    case VIZ_STYLE_WAIT: return (StyleLook){COLOR_YELLOW, 136, D, D};
    case VIZ_STYLE_FILLING: return (StyleLook){COLOR_YELLOW, 220, 0, 0};
    case VIZ_STYLE_REDUCING: return (StyleLook){COLOR_CYAN, 51, B, B};
    case VIZ_STYLE_DONE: return (StyleLook){COLOR_GREEN, 40, 0, D};
    case VIZ_STYLE_GATHERED: return (StyleLook){COLOR_MAGENTA, 201, B, B};
    case VIZ_STYLE_CHUNK: return (StyleLook){COLOR_YELLOW, 226, B, R | B};
    case VIZ_STYLE_MEM_FIRST + SIM_MEM_OTHER: return (StyleLook){COLOR_WHITE, 250, 0, 0};
    case VIZ_STYLE_MEM_FIRST + SIM_MEM_PARAM: return (StyleLook){COLOR_BLUE, 33, 0, B};
    case VIZ_STYLE_MEM_FIRST + SIM_MEM_PARAM_SHARD: return (StyleLook){COLOR_CYAN, 37, 0, 0};
    case VIZ_STYLE_MEM_FIRST + SIM_MEM_PARAM_LOWP: return (StyleLook){COLOR_BLUE, 69, D, D};
    case VIZ_STYLE_MEM_FIRST + SIM_MEM_GRAD: return (StyleLook){COLOR_RED, 203, 0, B};
    case VIZ_STYLE_MEM_FIRST + SIM_MEM_GRAD_SHARD: return (StyleLook){COLOR_MAGENTA, 168, 0, 0};
    case VIZ_STYLE_MEM_FIRST + SIM_MEM_OPTIM: return (StyleLook){COLOR_YELLOW, 214, 0, B};
    case VIZ_STYLE_MEM_FIRST + SIM_MEM_ACT: return (StyleLook){COLOR_GREEN, 71, 0, 0};
    case VIZ_STYLE_MEM_FIRST + SIM_MEM_COMM: return (StyleLook){COLOR_CYAN, 44, 0, U};
    case VIZ_STYLE_MEM_FIRST + SIM_MEM_BACKING: return (StyleLook){COLOR_WHITE, 240, D, D};
    default: return (StyleLook){-1, -1, 0, 0}; // VIZ_STYLE_NORMAL
    }
}

void viz_curses_styles_init(VizCursesStyles *st, int use_colors) {
    st->colors = 0;
    if (use_colors && has_colors() && start_color() == OK) {
        // The terminal's own background (and default foreground) where it
        // allows it, black otherwise.
        short bg = use_default_colors() == OK ? -1 : COLOR_BLACK;
        int rich = COLORS >= 256;
        st->colors = 1;
        for (int k = 0; k < VIZ_STYLE_COUNT; k++) {
            StyleLook l = style_look(k);
            short fg = rich && l.fg256 >= 0 ? l.fg256 : l.fg8;
            if (fg < 0 && bg < 0)
                fg = -1;
            else if (fg < 0)
                fg = COLOR_WHITE;
            st->pair[k] = 0;
            if (k + 1 < COLOR_PAIRS && (fg >= 0 || bg >= 0) &&
                init_pair((short)(k + 1), fg, bg) == OK)
                st->pair[k] = (short)(k + 1);
            st->attr[k] = l.col;
            // A basic colour asked for dim grey: dim default text instead.
            if (!rich && k == VIZ_STYLE_DIM)
                st->attr[k] = A_DIM;
        }
        return;
    }
    for (int k = 0; k < VIZ_STYLE_COUNT; k++) {
        st->pair[k] = 0;
        st->attr[k] = style_look(k).mono;
    }
}
