// viz/view_sdl_internal.h: the parts of the SDL2 view that its files, its
// tests and the frame-rate benchmark share (not part of the public API;
// only view_sdl*.c, their tests and bench/viz_sdl_fps.c include it).
//
// The view paints each frame with cairo (paint.h) into an image surface of
// the output's size, and uploads that surface into one streaming texture
// that the window shows. What does not change between frames is kept: the
// scene at the cursor and the scene at the next instant (the target of the
// tweens) are rebuilt only when the event under the cursor or the options
// change, the layout with them; a frame whose inputs (those scenes and the
// tween's fraction) did not change is not painted again at all. So a frame
// of pure animation costs one paint and one upload.
//
// The same painter draws the PNG, SVG and in-memory frames offscreen
// (viz_sdl_png, viz_sdl_frame): a view without a renderer, whose surface is
// the only output.
#ifndef DDPLAB_VIZ_VIEW_SDL_INTERNAL_H
#define DDPLAB_VIZ_VIEW_SDL_INTERNAL_H

#include <SDL.h>
#include <cairo.h>
#include <stddef.h>
#include <stdint.h>

#include "layout.h" // defines: VizLayout, VizDrawOpts
#include "paint.h"  // defines: VizPaint, VizBox
#include "player.h" // defines: VizPlayer
#include "image.h"  // defines: VizImage
#include "scene.h"  // defines: VizModel, VizScene
#include "views.h"  // defines: VizSource, VizViewOpts

enum {
    VIZ_SDL_PNG_W = 1600, // viz_sdl_png's default size
    VIZ_SDL_PNG_H = 1000,
    VIZ_SDL_WIN_W = 1440, // the window's first size (shrunk to the display)
    VIZ_SDL_WIN_H = 900,
};

// ---------------------------------------------------------------------------
// The frame (view_sdl_frame.c)

// Where the cursor stands between two instants of simulated time: events
// [a, b) share ev[a].sim_start = t_a (b: the first later event, t_b its
// start); u (0..1) is how far the cursor (i + frac) has moved from a to b.
// next_ok = 0 when there is no later event to move towards.
typedef struct {
    size_t a, b;
    double t_a, t_b, u;
    int next_ok;
} VizSdlInstant;

// What a scene was built from; it is rebuilt only when this changes.
typedef struct {
    size_t index, count, available;
    int selected, use_wall, zoom, timeline_cols, w, h;
} VizSdlDrawn;

// What a painted frame was painted from; the frame is painted again only
// when this changes.
typedef struct {
    VizSdlDrawn at;
    size_t next_index; // SIZE_MAX: no tween
    double u;
    int help;
    const char *lesson;
    char status[256];
    char message[256]; // non-empty: the frame is this message
} VizSdlPainted;

typedef struct {
    SDL_Renderer *ren;       // NULL offscreen
    SDL_Texture *tex;        // the painted surface, uploaded (window only)
    cairo_surface_t *surf;   // [px_h rows of px_w pixels] CAIRO_FORMAT_RGB24
    cairo_t *cr;
    VizPaint paint;
    VizPaintCache *cache;    // the painter's layers kept between frames (NULL:
                             // none, every frame paints all)
    double scale;            // output pixels per layout pixel (HiDPI: 2)
    int px_w, px_h;          // the output in pixels
    int fits;                // 1: the output holds VIZ_MIN_W x VIZ_MIN_H cells
    VizScene *scene, *next_scene;
    VizLayout layout;        // of scene, on the output
    VizSdlDrawn drawn, next_drawn;
    int have_frame, have_next;
    int timeline_cols;       // asked of the scene: two per layout column
    VizSdlInstant instant;
    VizSdlPainted painted;   // what the surface holds
    int painted_ok;
    char message[160];       // shown instead of the scene (waiting)
    // counters, for tests and the benchmark
    unsigned long frames, paints, uploads, scenes_built;
} VizSdlView;

// Sets up a view drawing with ren (NULL: offscreen) at scale (output
// pixels per layout pixel). SIM_ENOMEM; on failure v holds nothing.
SimStatus viz_sdl_view_init(VizSdlView *v, SDL_Renderer *ren, double scale, char *err,
                            size_t errlen);
void viz_sdl_view_free(VizSdlView *v);
// The output is w x h pixels now: a surface (and texture) of that size.
// SIM_ENOMEM.
SimStatus viz_sdl_view_resize(VizSdlView *v, int w, int h);
// Brings the scenes and the painted surface up to date for player p over
// model m (NULL: nothing to show yet, the message says why). SIM_ENOMEM, or
// the scene's failure.
SimStatus viz_sdl_view_paint(VizSdlView *v, VizModel *m, const VizPlayer *p,
                             const char *lesson);
// viz_sdl_view_paint, then the surface into the texture and onto the
// renderer's target; does not present.
SimStatus viz_sdl_view_frame(VizSdlView *v, VizModel *m, const VizPlayer *p,
                             const char *lesson);
// Paints the frame of the scenes built last onto another cairo context of
// the same size (an SVG or PDF surface). SIM_ENOMEM.
SimStatus viz_sdl_view_paint_to(VizSdlView *v, cairo_t *cr, const VizPlayer *p,
                                const char *lesson);
// The painted surface as an RGB image (allocated here; release with
// viz_image_free). SIM_ENOMEM.
SimStatus viz_sdl_view_image(const VizSdlView *v, VizImage *img, char *err, size_t errlen);
// The cell under pixel (x, y) of the output: 1 and *cx, *cy, or 0 outside
// the grid.
int viz_sdl_view_cell_at(const VizSdlView *v, int x, int y, int *cx, int *cy);

// ---------------------------------------------------------------------------
// Time between events (view_sdl_anim.c)

// The instant the cursor pos (event index + fraction) of model m stands in,
// with `available` events shown (see VizSdlInstant).
VizSdlInstant viz_sdl_instant(const VizModel *m, size_t available, double pos);

// ---------------------------------------------------------------------------
// Offscreen (view_sdl_rgba.c)

// A view without a renderer, w x h, with its scenes built for event i at
// frac of the way to the next event, and painted. SIM_EINVAL for i out of
// range or a size the layout cannot use (err says which), SIM_ENOMEM.
SimStatus viz_sdl_offscreen(VizModel *m, size_t i, double frac, const VizViewOpts *o, int w,
                            int h, VizSdlView *v, VizPlayer *p, char *err, size_t errlen);

// ---------------------------------------------------------------------------
// The interactive window (view_sdl.c, view_sdl_input.c)

typedef struct {
    VizSource *src;
    VizViewOpts opts;
    SDL_Window *win;
    SDL_Renderer *ren;
    int vsync;             // the renderer says its presents wait for the display
    double present_s;      // how long the last present took (a real vsync blocks)
    float scale;           // output pixels per window coordinate (HiDPI)
    VizSdlView view;
    VizPlayer player;
    int player_ready;      // the player was set up (the model exists)
    int dirty;             // something changed: draw a frame
    int dragging;          // panning the timeline
    double drag_x;         // where the drag was last (output pixels)
    int save;              // save the next frame as a PNG
    int ever_fit;          // the window was large enough at least once
    int quit;
    char saved[128];       // the last PNG written
    unsigned long quit_after; // frames before a scripted quit (0: never)
} VizSdlApp;

// Opens the window (SDL video must start and a display exist, or
// SDL_VIDEODRIVER names a driver on purpose: dummy, offscreen).
// SIM_ENOTSUP with a message that suggests --viz ncurses when it cannot;
// on failure everything is released.
SimStatus viz_sdl_app_open(VizSdlApp *a, VizSource *src, const VizViewOpts *o, char *err,
                           size_t errlen);
// The window's output changed size (or resolution): sizes the surface to it.
SimStatus viz_sdl_app_resize(VizSdlApp *a);
// Handles one SDL event (keys, mouse, window, quit) (view_sdl_input.c).
void viz_sdl_app_event(VizSdlApp *a, const SDL_Event *e);
// Advances the player by dt seconds, pulls live events, draws a frame when
// anything changed, saves it when asked, presents. SIM_OK or a failure.
SimStatus viz_sdl_app_frame(VizSdlApp *a, double dt, char *err, size_t errlen);
void viz_sdl_app_close(VizSdlApp *a);
// The player key of an SDL key press (arrows, Home, End, Enter, Backspace,
// Escape), or 0 when the key arrives as text (letters, space, + - ? ...).
int viz_sdl_key(SDL_Keycode sym);
// The first event on `rank` at or nearest time t (seconds on the clock
// use_wall chooses) among the first n events of tr; rank -1: any rank.
size_t viz_sdl_event_near(const VizTrace *tr, size_t n, double t, int rank, int use_wall);

#endif
