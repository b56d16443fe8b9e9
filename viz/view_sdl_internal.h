// viz/view_sdl_internal.h: the parts of the SDL2 view that its files, its
// tests and the frame-rate benchmark share (not part of the public API;
// only view_sdl*.c, their tests and bench/viz_sdl_fps.c include it).
//
// The view draws in three layers:
//   1. the canvas (layout.h + viz_draw): one glyph and one background per
//      cell, rendered once per change into a texture, row by row (a row is
//      redrawn only when one of its cells changed);
//   2. tweens of the bars (memory bars in the rank boxes, bucket bars): a
//      bar grows or shrinks smoothly towards the frame of the next instant
//      of simulated time (view_sdl_anim.c);
//   3. the chunks of the running collective step, travelling from the
//      sender's node box to the receiver's, at the cursor's fractional
//      position between the step's start and end.
// Every frame starts from the cached canvas texture, so a frame of pure
// animation costs one texture copy plus the overlays.
#ifndef DDPLAB_VIZ_VIEW_SDL_INTERNAL_H
#define DDPLAB_VIZ_VIEW_SDL_INTERNAL_H

#include <SDL.h>
#include <SDL_ttf.h>
#include <stddef.h>
#include <stdint.h>

#include "canvas.h" // defines: VizCanvas, VizCell, VizStyle
#include "layout.h" // defines: VizLayout
#include "player.h" // defines: VizPlayer
#include "image.h"  // defines: VizImage
#include "scene.h"  // defines: VizModel, VizScene
#include "views.h"  // defines: VizSource, VizViewOpts

#define VIZ_SDL_FONT_DIR "/usr/share/fonts/truetype/dejavu/"
#define VIZ_SDL_FONT_FILE VIZ_SDL_FONT_DIR "DejaVuSansMono.ttf"
#define VIZ_SDL_FONT_BOLD VIZ_SDL_FONT_DIR "DejaVuSansMono-Bold.ttf"

enum {
    VIZ_SDL_FONT_PT = 15,       // DejaVu Sans Mono 15 px: 9 x 18 cells
    VIZ_SDL_PNG_W = 1600,       // viz_sdl_png's default size
    VIZ_SDL_PNG_H = 1000,
    VIZ_SDL_WIN_W = 1440,       // the window's first size (shrunk to the display)
    VIZ_SDL_WIN_H = 900,
    // Styles of the view's own text, after the canvas's (VIZ_STYLE_COUNT).
    VIZ_SDL_STYLE_ON_CHUNK = VIZ_STYLE_COUNT, // a chunk's number on its square
    VIZ_SDL_STYLE_COUNT,
};

typedef struct {
    uint8_t r, g, b;
} VizSdlRgb;

// How a style looks: glyph colour, cell background, bold face.
typedef struct {
    VizSdlRgb fg, bg;
    int bold;
} VizSdlLook;

// The look of style st (0 .. VIZ_SDL_STYLE_COUNT - 1; others look NORMAL).
const VizSdlLook *viz_sdl_look(int st);
// The window's background (the background of VIZ_STYLE_NORMAL).
VizSdlRgb viz_sdl_background(void);
// The colour of chunk c (chunks are told apart by colour, 8 of them).
VizSdlRgb viz_sdl_chunk_colour(int c);

// ---------------------------------------------------------------------------
// Glyphs (view_sdl_font.c): a TTF font and a cache of one texture per
// (code point, style), made on first use. Cell size: the advance of 'M' by
// the font's height.

typedef struct {
    uint64_t key;      // (code point << 8 | style) + 1; 0: empty slot
    SDL_Texture *tex;  // NULL when the glyph renders as nothing
    int w, h;
} VizSdlGlyph;

typedef struct {
    SDL_Renderer *ren;
    TTF_Font *regular, *bold;
    int cell_w, cell_h;
    VizSdlGlyph *slot; // [cap] open addressing, cap a power of two
    size_t cap, used;
    size_t made;       // textures made since open (the cache's misses)
} VizSdlFont;

// Opens path (NULL: DejaVu Sans Mono) at pt pixels, and its bold face (the
// "-Bold" file beside it, else the regular face emboldened). TTF_Init must
// have been called. SIM_ENOTSUP with a message naming the package when the
// font cannot be opened, SIM_ENOMEM.
SimStatus viz_sdl_font_open(VizSdlFont *f, SDL_Renderer *ren, const char *path, int pt,
                            char *err, size_t errlen);
void viz_sdl_font_close(VizSdlFont *f);
// The glyph of cp in style st, made now when new; NULL when the font has
// neither it nor '?' (or memory ran out).
const VizSdlGlyph *viz_sdl_glyph(VizSdlFont *f, uint32_t cp, int st);
// Draws cp in style st in the cell whose top-left pixel is (x, y); box
// drawing and block elements are drawn as rectangles, so lines and bars
// join seamlessly; the background is not drawn.
void viz_sdl_draw_glyph(VizSdlFont *f, int x, int y, uint32_t cp, int st);

// Box drawing (U+2500..U+257F, the light, heavy and double lines) and block
// elements (U+2580..U+259F) as rectangles in cell r: 1 when cp is one of
// them and was drawn, 0 when the font must draw it.
int viz_sdl_draw_shape(SDL_Renderer *ren, SDL_Rect r, uint32_t cp, VizSdlRgb fg,
                       VizSdlRgb bg);
// Eighths of a cell that the bar character cp fills from the left: 8 for a
// full block, 1..7 for U+258F..U+2589, 0 for anything else.
int viz_sdl_bar_eighths(uint32_t cp);
// The arms of box-drawing character cp as a mask: 1 left, 2 up, 4 right,
// 8 down; 0 for anything else.
int viz_sdl_box_arms(uint32_t cp);

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

// What a canvas was drawn from; a frame redraws the canvas only when this
// changes.
typedef struct {
    size_t index, count, available;
    int selected, use_wall, zoom, help, cols, rows, timeline_cols;
    const char *lesson;
    char status[256];
} VizSdlDrawn;

typedef struct {
    SDL_Renderer *ren;
    VizSdlFont font;
    int px_w, px_h;          // the output in pixels
    int cols, rows;          // the cell grid that fits in it
    int fits;                // 1: the grid holds VIZ_MIN_W x VIZ_MIN_H
    VizCanvas canvas;        // the frame at the cursor
    VizCanvas next;          // the frame at the next instant (tween target)
    VizCell *shown;          // [rows * cols] what cells_tex holds now
    SDL_Texture *cells_tex;  // the canvas rendered (NULL: no render targets,
                             // the cells are drawn straight every frame)
    int cells_ok;            // cells_tex holds `shown`
    SDL_Texture *chunk_tex;  // a white rounded square, tinted per chunk
    int chunk_px;
    VizScene *scene, *next_scene;
    VizLayout layout, next_layout;
    VizSdlDrawn drawn, next_drawn;
    int have_frame, have_next;
    int timeline_cols;       // asked of the scene (the layout's last answer)
    VizSdlInstant instant;
    unsigned long canvas_gen; // bumped whenever the canvas is redrawn
    struct VizSdlWay *ways;  // [ways_cap] the chunks' ways on canvas ways_gen
    int nways, ways_cap;
    unsigned long ways_gen;
    char message[160];       // shown instead of the scene (too small, waiting)
    // counters, for tests and the benchmark
    unsigned long frames, rows_drawn, scenes_built;
} VizSdlView;

enum { VIZ_SDL_PATH_MAX = 24 };

// A polyline in output pixels.
typedef struct {
    int n;
    double x[VIZ_SDL_PATH_MAX], y[VIZ_SDL_PATH_MAX];
    int drawn; // 1: it follows an arrow of the canvas; 0: a straight line
} VizSdlPath;

// The way of one transfer of the running step, cached per canvas.
typedef struct VizSdlWay {
    VizSdlPath path;
    int ok;   // drawn
    int slot; // earlier transfers on the same way
} VizSdlWay;

// Sets up a view drawing with ren (font path NULL: DejaVu Sans Mono) at pt
// pixels. SIM_ENOTSUP (no font), SIM_ENOMEM; on failure v holds nothing.
SimStatus viz_sdl_view_init(VizSdlView *v, SDL_Renderer *ren, const char *font, int pt,
                            char *err, size_t errlen);
void viz_sdl_view_free(VizSdlView *v);
// The output is w x h pixels now: sizes the grid to it. SIM_ENOMEM.
SimStatus viz_sdl_view_resize(VizSdlView *v, int w, int h);
// Draws the frame for player p over model m (NULL: nothing to show yet,
// the message says why) into the renderer's current target; does not
// present. SIM_ENOMEM, or the scene's failure.
SimStatus viz_sdl_view_frame(VizSdlView *v, VizModel *m, const VizPlayer *p,
                             const char *lesson);
// The renderer's current target as an RGB image (allocated here; release
// with viz_image_free). SIM_ENOMEM, SIM_EIO with SDL's reason.
SimStatus viz_sdl_read_image(SDL_Renderer *ren, int w, int h, VizImage *img, char *err,
                             size_t errlen);
// The cell under pixel (x, y) of the output: 1 and *cx, *cy, or 0 outside
// the grid.
int viz_sdl_view_cell_at(const VizSdlView *v, int x, int y, int *cx, int *cy);

// ---------------------------------------------------------------------------
// Animation (view_sdl_anim.c)

// The instant the cursor pos (event index + fraction) of model m stands in,
// with `available` events shown (see VizSdlInstant).
VizSdlInstant viz_sdl_instant(const VizModel *m, size_t available, double pos);
// How far (0..1) the running collective step of s has got at the instant:
// the instant's time t_a + u (t_b - t_a) between step_t0 and step_t1.
double viz_sdl_step_progress(const VizScene *s, const VizSdlInstant *in);

// The way chunk transfer x travels: along the arrow the canvas draws for it
// (from its tail beside the sender, round its corners, to its head beside
// the receiver; where the arrow runs on a lane below the nodes, from the
// sender's box down to it and up to the receiver's), or straight from box
// edge to box edge when the canvas has no arrow for it. 0 when either
// rank's node is not shown.
int viz_sdl_chunk_path(const VizSdlView *v, const VizXfer *x, VizSdlPath *p);
// The point at fraction f (0..1) of p's length, and the unit direction of
// the segment it is on.
void viz_sdl_path_at(const VizSdlPath *p, double f, double *x, double *y, double *dx,
                     double *dy);
// Where chunk transfer x of the running step stands at `progress` (0..1):
// the centre of its square in pixels, and its side; `slot` > 0 moves it
// beside earlier transfers on the same way. 0 when it is not shown.
int viz_sdl_chunk_place(const VizSdlView *v, const VizXfer *x, double progress, int slot,
                        double *cx, double *cy, int *side);
// Draws the tweened bars and the travelling chunks over the canvas.
void viz_sdl_draw_overlays(VizSdlView *v);
// Draws cells [x0, x1) of row y of canvas c (backgrounds and glyphs) at
// their place in the output.
void viz_sdl_draw_cells(VizSdlView *v, const VizCanvas *c, int y, int x0, int x1);

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
    int dragging;          // scrubbing on the timeline
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
// The window's output changed size (or resolution): sizes the grid to it.
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

#endif
