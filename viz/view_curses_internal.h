// viz/view_curses_internal.h: what the ncurses parts share beyond the
// public frame.h and screen.h: the styles of the cells. No curses types
// here either.
//
//   frame.c                scene + layout + canvas of one frame (pure; frame.h)
//   screen_curses.c        the terminal: newterm, keys, copying a canvas out,
//                          the atexit guard that restores the terminal (screen.h)
//   view_curses_colors.c   VizStyle -> colour pair or monochrome attributes,
//                          and code point -> what the terminal can show
//   view_curses.c          viz_curses_run: the loop, signals
#ifndef DDPLAB_VIZ_VIEW_CURSES_INTERNAL_H
#define DDPLAB_VIZ_VIEW_CURSES_INTERNAL_H

#include "canvas.h" // defines: VIZ_STYLE_COUNT
#include "frame.h"  // defines: VizFrame
#include "screen.h" // defines: VizScreen

typedef struct {
    int colors;                     // 1: colour pairs were set up
    unsigned long attr[VIZ_STYLE_COUNT]; // curses attributes (attr_t) per style
    short pair[VIZ_STYLE_COUNT];    // colour pair per style (0: the default)
} VizCursesStyles;

// Sets up the colour pairs (when the terminal has colours and use_colors)
// and the attributes of every style; call after newterm.
void viz_curses_styles_init(VizCursesStyles *st, int use_colors);

#endif
