// viz/view_curses_internal.h: the parts of the ncurses view, shared by
// view_curses*.c and the frame benchmark (bench/viz_curses_frame.c). No
// curses types here: the screen is opaque, so only view_curses_screen.c and
// view_curses_colors.c include curses.h.
//
//   view_curses_frame.c    scene + layout + canvas of one frame (pure)
//   view_curses_screen.c   the terminal: newterm, keys, copying a canvas out,
//                          the atexit guard that restores the terminal
//   view_curses_colors.c   VizStyle -> colour pair or monochrome attributes,
//                          and code point -> what the terminal can show
//   view_curses.c          viz_curses_run: the loop, signals
#ifndef DDPLAB_VIZ_VIEW_CURSES_INTERNAL_H
#define DDPLAB_VIZ_VIEW_CURSES_INTERNAL_H

#include <stddef.h>
#include <stdio.h>

#include "base/status.h" // defines: SimStatus
#include "canvas.h"      // defines: VizCanvas
#include "layout.h"      // defines: VizLayout
#include "player.h"      // defines: VizPlayer
#include "scene.h"       // defines: VizModel, VizScene

// ---------------------------------------------------------------------------
// One frame, without a terminal: the scene at the player's cursor, laid out
// on w x h cells and drawn onto the canvas.

typedef struct {
    VizScene *scene;     // for the model it was made for (NULL until then)
    const VizModel *scene_model;
    VizCanvas canvas;    // w x h of the last frame
    VizLayout layout;
    int timeline_cols;   // the lane width the last layout chose (the next
                         // scene is built for it; 0 until the first layout)
    int ok;              // 0: the last frame was too small (layout.why says so)
    char status[256];    // the player's status line of the last frame
} VizCursesFrame;

void viz_curses_frame_init(VizCursesFrame *f);
void viz_curses_frame_free(VizCursesFrame *f);
// Draws the frame for p's cursor on m (m NULL: a live run before its
// first event, drawn as a waiting message) at w x h. On a grid under
// VIZ_MIN_W x VIZ_MIN_H the canvas holds only the centred "needs at least
// 80x24" message and f->ok is 0. SIM_ENOMEM; SIM_EINVAL for w or h < 1.
SimStatus viz_curses_frame_draw(VizCursesFrame *f, VizModel *m, const VizPlayer *p, int w,
                                int h, int unicode, const char *lesson);
// Centres one line of text (cut to the width) on a blank canvas.
void viz_curses_frame_message(VizCanvas *c, const char *text);

// ---------------------------------------------------------------------------
// The terminal.

typedef struct VizCursesScreen VizCursesScreen;

// Starts curses on out (written to) and in (read from) with terminal type
// term (NULL: $TERM), as newterm does, leaving the process's own stdout
// alone. unicode < 0 decides from the locale's character set (UTF-8 and a
// wide-character ncurses: box drawing and blocks); 0 forces ASCII. At most
// one screen is open at a time. NULL with err set when the terminal cannot
// be used (no such TERM, not a terminal).
VizCursesScreen *viz_curses_screen_open(FILE *out, FILE *in, const char *term, int unicode,
                                        char *err, size_t errlen);
// Restores the terminal (endwin) and frees the screen; NULL is a no-op.
void viz_curses_screen_close(VizCursesScreen *s);
void viz_curses_screen_size(const VizCursesScreen *s, int *w, int *h);
// Pretends the terminal is w x h (the benchmark's virtual terminal).
SimStatus viz_curses_screen_resize(VizCursesScreen *s, int w, int h);
int viz_curses_screen_unicode(const VizCursesScreen *s);
int viz_curses_screen_colors(const VizCursesScreen *s); // colours shown (0: monochrome)
// Copies c to the screen at (0, 0): erase, a cell at a time, refresh, so
// curses sends only the cells that changed since the last frame.
void viz_curses_screen_show(VizCursesScreen *s, const VizCanvas *c);
// Makes the next show repaint everything (after a resize).
void viz_curses_screen_invalidate(VizCursesScreen *s);

enum {
    VIZ_CURSES_NOKEY = -1,     // timeout
    VIZ_CURSES_RESIZED = -2,   // the terminal changed size
};
// The next key within timeout_ms (0: only what is queued; < 0: wait): ASCII,
// a VIZ_KEY_* code, or VIZ_CURSES_NOKEY / VIZ_CURSES_RESIZED.
int viz_curses_screen_key(VizCursesScreen *s, int timeout_ms);

// ---------------------------------------------------------------------------
// Styles (view_curses_colors.c, used by the screen).

typedef struct {
    int colors;                     // 1: colour pairs were set up
    unsigned long attr[VIZ_STYLE_COUNT]; // curses attributes (attr_t) per style
    short pair[VIZ_STYLE_COUNT];    // colour pair per style (0: the default)
} VizCursesStyles;

// Sets up the colour pairs (when the terminal has colours and use_colors)
// and the attributes of every style; call after newterm.
void viz_curses_styles_init(VizCursesStyles *st, int use_colors);

#endif
