// cli/core/viz_opts.c: the view options as rows of an option table
// (core/optable.h), which `ddplab run` lists in its own table and `ddplab
// replay` sets one by one (cli_viz_set): the same names, values and
// messages in both.
#include <ctype.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/optable.h" // defines: CliOptRow, cli_optab_set, cli_optab_reject
#include "core/viz_cli.h" // defines: CliViz
#include "gif.h"          // defines: VIZ_GIF_MAX_SIDE

static const char *const modes[] = {"text", "ncurses", "sdl", "none", NULL};
// viz_jump_parse's names, in the order the help lists them
static const char *const jumps[] = {"iteration", "phase", "bucket-launch", "bucket-done", "coll",
                                    "coll-step", "gather", "free", "reduce", "memory-peak",
                                    "marker", "fault", "any", NULL};

static int set_mode(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v,
                    void *dest) {
    (void)cx, (void)row;
    ((CliViz *)dest)->mode = strcmp(v->text, "none") != 0 ? v->text : NULL;
    return 0;
}

// The stop list "iteration,bucket-launch" as a mask of VizJump bits (the
// row's kind has checked every word).
static int set_stops(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v,
                     void *dest) {
    (void)cx, (void)row;
    CliViz *viz = dest;
    viz->stop_mask = 0;
    for (const char *p = v->text; *p;) {
        size_t n = strcspn(p, ",");
        char name[32];
        snprintf(name, sizeof name, "%.*s", (int)n, p);
        viz->stop_mask |= 1u << viz_jump_parse(name);
        p += n + (p[n] == ',');
    }
    return 0;
}

static int check_speed(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v,
                       void *dest) {
    (void)dest;
    return v->x > 0 && v->x <= 1e6 ? 0 : cli_optab_reject(cx, row, v->text);
}

static int check_at(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v,
                    void *dest) {
    (void)dest;
    return cli_viz_at_ok(v->text) ? 0 : cli_optab_reject(cx, row, v->text);
}

// --from, --to: a position as --at takes it; remembered as a --gif option.
static int check_gif_at(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v,
                        void *dest) {
    ((CliViz *)dest)->gif_opts = 1;
    return check_at(cx, row, v, dest);
}

// --gif-fps, --gif-tween: the kind checked the range.
static int note_gif(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v,
                    void *dest) {
    (void)cx, (void)row, (void)v;
    ((CliViz *)dest)->gif_opts = 1;
    return 0;
}

// --gif-size WxH, each side from 1 to 8192 pixels (too small for the
// layout is said when the first frame is drawn, with the least it needs).
static int set_gif_size(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v,
                        void *dest) {
    CliViz *viz = dest;
    char *end;
    long w = strtol(v->text, &end, 10), h = 0;
    int ok = end != v->text && (*end == 'x' || *end == 'X') && isdigit((unsigned char)v->text[0]);
    if (ok) {
        const char *hs = end + 1;
        h = strtol(hs, &end, 10);
        ok = end != hs && *end == '\0' && isdigit((unsigned char)hs[0]);
    }
    if (!ok || w < 1 || h < 1 || w > VIZ_GIF_MAX_SIDE || h > VIZ_GIF_MAX_SIDE)
        return cli_optab_reject(cx, row, v->text);
    viz->gif_w = (int)w;
    viz->gif_h = (int)h;
    viz->gif_opts = 1;
    return 0;
}

#define AT(field) .offset = offsetof(CliViz, field)

static const CliOptRow rows[] = {
    {.name = "viz", .kind = CLI_OPT_ENUM, .metavar = "text|ncurses|sdl", .words = modes,
     .what = "a view", .apply = set_mode,
     .help = "show the run: text = frames on stdout at each\n"
             "--viz-stops event; ncurses = the terminal\n"
             "view; sdl = an animated window (keys in both:\n"
             "space play, n/p step, N/P iteration, ]/[ next\n"
             "event of a kind, k choose it, +/- speed, r rank,\n"
             "t clock, z zoom, g go to, ? help, q quit)"},
    {.name = "viz-stops", .kind = CLI_OPT_LIST, .metavar = "LIST", .words = jumps,
     .what = "a list of event kinds", .deflt = "iteration", .apply = set_stops,
     .store = CLI_STORE_TEXT, AT(stops),
     .help = "text: frames at these events:\n"
             "iteration, phase, bucket-launch, bucket-done,\n"
             "coll, coll-step, gather, free, reduce,\n"
             "memory-peak, marker, fault, any"},
    {.name = "viz-width", .kind = CLI_OPT_INT, .lo = 80, .hi = 1000, .what = "a width",
     .allowed = "80 to 1000 columns", .deflt = "120", .store = CLI_STORE_INT,
     AT(width), .help = "text: columns of a frame, 80-1000"},
    {.name = "viz-speed", .kind = CLI_OPT_REAL, .metavar = "S", .what = "a speed",
     .allowed = "events per second, 0 < S <= 1e6", .deflt = "10",
     .apply = check_speed, .store = CLI_STORE_REAL, AT(speed),
     .help = "events per second when playing"},
    {.name = "ascii", .kind = CLI_OPT_FLAG, .store = CLI_STORE_INT, AT(ascii),
     .help = "text: plain ASCII frames (no box drawing)"},
    {.name = "at", .kind = CLI_OPT_STRING, .metavar = "POS", .what = "a position",
     .allowed = "an event number N, iN (iteration N), or KIND[:K] (the K-th bucket-launch, "
                "gather, ... from 0)",
     .deflt = "the start; --png: the end", .apply = check_at,
     .store = CLI_STORE_TEXT, AT(at),
     .help = "open at an event: N, iN (iteration N), or\n"
             "KIND[:K], the K-th event of a kind from 0\n"
             "(bucket-launch:2)"},
    {.name = "png", .kind = CLI_OPT_PATH, .metavar = "FILE.png",
     .store = CLI_STORE_TEXT, AT(png),
     .help = "draw the frame at --at to a PNG (SDL2,\n"
             "offscreen: no display needed)"},
    {.name = "gif", .kind = CLI_OPT_PATH, .metavar = "FILE.gif",
     .store = CLI_STORE_TEXT, AT(gif),
     .help = "animate --from .. --to into a looping GIF,\n"
             "frame for frame what the window shows\n"
             "(SDL2, offscreen: no display needed)"},
    {.name = "from", .kind = CLI_OPT_STRING, .metavar = "POS", .what = "a position",
     .allowed = "an event number N, iN (iteration N), or KIND[:K] (the K-th bucket-launch, "
                "gather, ... from 0)",
     .deflt = "--at, else the start", .apply = check_gif_at, .store = CLI_STORE_TEXT,
     AT(from), .help = "--gif: its first event, as --at takes it"},
    {.name = "to", .kind = CLI_OPT_STRING, .metavar = "POS", .what = "a position",
     .allowed = "an event number N, iN (iteration N), or KIND[:K] (the K-th bucket-launch, "
                "gather, ... from 0)",
     .deflt = "the end of --from's iteration", .apply = check_gif_at,
     .store = CLI_STORE_TEXT, AT(to),
     .help = "--gif: its last event (included), as --at\n"
             "takes it; by default 200 events at most,\n"
             "and 600 frames in all"},
    {.name = "gif-size", .kind = CLI_OPT_STRING, .metavar = "WxH", .what = "a size",
     .allowed = "WIDTHxHEIGHT in pixels, 1 to 8192 each (e.g. 1200x750)", .deflt = "1600x1000",
     .apply = set_gif_size, .help = "--gif: the frames' size in pixels"},
    {.name = "gif-fps", .kind = CLI_OPT_INT, .lo = 1, .hi = 50, .what = "a frame rate",
     .allowed = "1 to 50 frames per second", .deflt = "10", .apply = note_gif,
     .store = CLI_STORE_INT, AT(gif_fps),
     .help = "--gif: frames per second (the last frame\n"
             "stays at least 1 s before the loop restarts)"},
    {.name = "gif-tween", .kind = CLI_OPT_INT, .metavar = "K", .lo = 0, .hi = 30,
     .what = "a number of frames", .allowed = "0 to 30 frames between two events",
     .deflt = "0", .apply = note_gif, .store = CLI_STORE_INT, AT(gif_tween),
     .help = "--gif: K frames between two events, the\n"
             "chunks and bars moving as in the window\n"
             "(N events: N + (N-1)K frames)"},
    {.name = "plot", .kind = CLI_OPT_PATH, .metavar = "FILE.png",
     .store = CLI_STORE_TEXT, AT(plot_loss),
     .help = "the loss per iteration as a chart (.png, .svg or .pdf)"},
    {.name = "plot-memory", .kind = CLI_OPT_PATH, .metavar = "FILE.png",
     .store = CLI_STORE_TEXT, AT(plot_memory),
     .help = "device memory over time by category, a panel per rank when they differ"},
};
#define NROWS (int)(sizeof rows / sizeof rows[0])

const CliOptRow *cli_viz_rows(int *n) {
    *n = NROWS;
    return rows;
}

int cli_viz_is_option(const char *name) {
    for (int i = 0; i < NROWS; i++)
        if (strcmp(name, rows[i].name) == 0)
            return 1;
    return 0;
}

int cli_viz_set(CliViz *v, const char *prog, const char *name, const char *value) {
    CliOptCtx cx = {prog, v, NULL};
    return cli_optab_set(rows, NROWS, &cx, name, value);
}

void cli_viz_help(FILE *out) {
    CliOptSection s = {.title = CLI_VIZ_HELP_TITLE, .rows = rows, .nrows = NROWS};
    cli_optab_help_section(out, &s);
}
