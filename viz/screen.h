// viz/screen.h: the terminal, for the programs that draw canvases on it
// (the ncurses view, the lesson player): open it with newterm, copy a
// canvas out (curses then sends only the cells that changed), read keys.
// No curses types here: only screen_curses.c and view_curses_colors.c
// include curses.h. In a build without ncurses every open fails and says
// what to install (screen_stub.c).
#ifndef DDPLAB_VIZ_SCREEN_H
#define DDPLAB_VIZ_SCREEN_H

#include <stddef.h>
#include <stdio.h>

#include "base/status.h" // defines: SimStatus
#include "canvas.h"      // defines: VizCanvas

typedef struct VizScreen VizScreen;

// Starts curses on out (written to) and in (read from) with terminal type
// term (NULL: $TERM), as newterm does, leaving the process's own stdout
// alone. unicode < 0 decides from the locale's character set (UTF-8 and a
// wide-character ncurses: box drawing and blocks); 0 forces ASCII. At most
// one screen is open at a time. NULL with err set when the terminal cannot
// be used (no such TERM, not a terminal, no ncurses in this build).
VizScreen *viz_screen_open(FILE *out, FILE *in, const char *term, int unicode, char *err,
                           size_t errlen);
// Restores the terminal (endwin) and frees the screen; NULL is a no-op.
void viz_screen_close(VizScreen *s);
// Gives the terminal back for a while (endwin: a command then prints as
// usual); the next show takes it again and repaints.
void viz_screen_suspend(VizScreen *s);
void viz_screen_size(const VizScreen *s, int *w, int *h);
// Pretends the terminal is w x h (the benchmark's virtual terminal).
SimStatus viz_screen_resize(VizScreen *s, int w, int h);
int viz_screen_unicode(const VizScreen *s);
int viz_screen_colors(const VizScreen *s); // colours shown (0: monochrome)
// Copies c to the screen at (0, 0): erase, a cell at a time, refresh, so
// curses sends only the cells that changed since the last frame.
void viz_screen_show(VizScreen *s, const VizCanvas *c);
// Makes the next show repaint everything (after a resize).
void viz_screen_invalidate(VizScreen *s);

enum {
    VIZ_SCREEN_NOKEY = -1,   // timeout
    VIZ_SCREEN_RESIZED = -2, // the terminal changed size
};
// The next key within timeout_ms (0: only what is queued; < 0: wait): ASCII,
// a VIZ_KEY_* code (player.h), or VIZ_SCREEN_NOKEY / VIZ_SCREEN_RESIZED.
int viz_screen_key(VizScreen *s, int timeout_ms);

#endif
