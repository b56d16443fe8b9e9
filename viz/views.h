// viz/views.h: the three renderers of a scene, and the source they follow:
// a trace loaded from a file (replay) or one a running engine fills (live).
//
// Every view draws what layout.h lays out; they differ only in how cells
// reach the user. Each returns SIM_OK when the user quit normally,
// SIM_ENOTSUP when it was not built or cannot start here (err says why and
// what to use instead: no terminal, no display), SIM_EINVAL for a screen too
// small that never grew. The terminal is restored on every path out,
// signals included.
#ifndef DDPLAB_VIZ_VIEWS_H
#define DDPLAB_VIZ_VIEWS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/status.h" // defines: SimStatus
#include "scene.h"       // defines: VizModel, VizJump
#include "vtrace.h"      // defines: VizTrace

// A live run: the engine's tap copies every event into a queue; the view
// pulls them into its VizTrace between frames. Thread-safe.
typedef struct VizLive VizLive;
VizLive *viz_live_new(void);
void viz_live_free(VizLive *l);
// The SimTraceTap to install on the engine's trace (ctx = the VizLive).
void viz_live_tap(void *ctx, const SimEvent *ev);
// The engine finished (status of the run). The view keeps showing.
void viz_live_finish(VizLive *l, SimStatus st);
int viz_live_done(VizLive *l);
// The engine side, after finish and before it frees its trace (whose
// interned names the queued events point at): blocks until the view has
// pulled every queued event, or has gone (detach).
void viz_live_wait_drained(VizLive *l);
// The view side, when it closes: the engine need not wait for it any more.
void viz_live_detach(VizLive *l);

// What a view follows. trace and model always exist (the model is built at
// the first event of a live run). live is NULL in a replay.
typedef struct {
    VizTrace *trace;
    VizModel *model;
    VizLive *live;
    size_t settled;  // leading events no later event can precede
} VizSource;

// Pulls queued live events into the trace, re-syncs the model and updates
// settled (in a replay: settled = all). Returns 1 when anything changed.
int viz_source_poll(VizSource *src);

typedef struct {
    const char *lesson;    // narrative text, or NULL
    VizJump stops;         // text view: frames at these events (default ITERATION)
    unsigned stop_mask;    // text view: bit k set = stop at VizJump k (0: use stops)
    int width;             // text view: columns (0: 120); curses/sdl ignore
    int unicode;           // text view: 1 Unicode boxes and bars, 0 ASCII
    size_t start;          // the event to open at
    int autoplay;          // start playing (live runs do)
    double speed;          // events per second when playing (0: default)
    const char *png;       // sdl: save this frame as PNG and quit (no window)
    int png_w, png_h;      // sdl: its size in pixels (0: 1600 x 1000)
    const char *font;      // unused: the SDL view sets its text with pango (DejaVu Sans)
    FILE *tty_out;         // curses: the terminal stream (NULL: stdout)
    // sdl: asked once per pass of the window's loop; non-zero closes the
    // window as q would (a live run's Ctrl-C, which the run's own handler
    // caught). NULL: never. The curses view catches signals itself.
    int (*should_stop)(void);
} VizViewOpts;

void viz_view_opts_default(VizViewOpts *o);

// Text: one frame per stop from `start` on (and at `start` itself when it is
// not 0, and at the last event), separated by a rule line,
// each with the event index in its header. Follows a live source to its end.
SimStatus viz_text_run(VizSource *src, const VizViewOpts *o, FILE *out, char *err,
                       size_t errlen);
// One frame for event i at the given width.
SimStatus viz_text_frame(VizModel *m, size_t i, int width, int unicode, const char *lesson,
                         FILE *out);

SimStatus viz_curses_run(VizSource *src, const VizViewOpts *o, char *err, size_t errlen);
int viz_curses_available(void); // 1: built with ncurses

SimStatus viz_sdl_run(VizSource *src, const VizViewOpts *o, char *err, size_t errlen);
// Renders event i offscreen (software renderer, no display needed) and
// writes it as a PNG. frac animates towards event i + 1 (0..1).
SimStatus viz_sdl_png(VizModel *m, size_t i, double frac, const VizViewOpts *o,
                      const char *path, char *err, size_t errlen);
// Draws event i (frac of the way towards event i + 1, 0..1) as the window
// shows it, offscreen, into rgba: h rows of w pixels, 4 bytes a pixel in
// the order r, g, b, a (a = 255), top row first, no padding. The frames an
// animation export writes (viz/gif.h) come from here. SIM_EINVAL for i out
// of range or a size the layout cannot use, SIM_ENOTSUP without the view.
SimStatus viz_sdl_frame(VizModel *m, size_t i, double frac, const VizViewOpts *o, int w, int h,
                        uint8_t *rgba, char *err, size_t errlen);
int viz_sdl_available(void);    // 1: built with SDL2, cairo and pango

#endif
