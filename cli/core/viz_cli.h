// cli/core/viz_cli.h: the view options that `ddplab run` and `ddplab replay`
// share (--viz, --viz-stops, --viz-width, --viz-speed, --at, --png, --gif
// and its --from, --to, --gif-size, --gif-fps, --gif-tween, --plot,
// --plot-memory, --ascii): their rows (viz_opts.c), their checks, and
// showing a trace with them (viz_cli.c; the animation: viz_gif.c).
#ifndef DDPLAB_CLI_VIZ_CLI_H
#define DDPLAB_CLI_VIZ_CLI_H

#include <stddef.h>
#include <stdio.h>

#include "views.h" // defines: VizSource

typedef struct {
    const char *mode;        // --viz: "text", "ncurses", "sdl" (NULL: no view)
    const char *stops;       // --viz-stops LIST (text frames; NULL: iteration)
    unsigned stop_mask;      // parsed stops (bit per VizJump)
    int width;               // --viz-width (text; 0: 120)
    double speed;            // --viz-speed events per second (0: the view's default)
    const char *at;          // --at N | iN | KIND[:K] (NULL: the start; --png: the end)
    const char *png;         // --png FILE: the frame at --at, drawn offscreen
    const char *gif;         // --gif FILE: the frames --from .. --to, animated
    const char *from, *to;   // --from POS, --to POS (NULL: see cli_viz_gif_range)
    int gif_w, gif_h;        // --gif-size WxH (0: --png's size)
    int gif_fps;             // --gif-fps N (0: CLI_VIZ_GIF_FPS)
    int gif_tween;           // --gif-tween K: frames between two events
    int gif_opts;            // an option of the --gif family was given
    const char *plot_loss;   // --plot FILE.png: loss per iteration
    const char *plot_memory; // --plot-memory FILE.png: device memory per rank
    int ascii;               // --ascii: text frames without Unicode
    FILE *tty;               // where an interactive view draws (NULL: stdout)
    int (*should_stop)(void); // polled by the window (VizViewOpts.should_stop)
} CliViz;

struct CliOptRow;
// The options' rows (*n of them), for a command's option table: their fields
// are CliViz's (the section's dest_offset says where the command keeps it).
const struct CliOptRow *cli_viz_rows(int *n);
// Their section's title in --help.
#define CLI_VIZ_HELP_TITLE "view options (ddplab run and ddplab replay):"
// 1 when `name` (without dashes) is one of these options.
int cli_viz_is_option(const char *name);
// Stores one option's value. Returns 0, or -1 after printing
// "PROG: --opt: 'value' is ...; allowed: ..." on stderr.
int cli_viz_set(CliViz *v, const char *prog, const char *name, const char *value);
// Checks the options together (output files writable, --png needs SDL2,
// ...). Returns 0 or -1 after printing why.
int cli_viz_check(const CliViz *v, const char *prog);
// Whether s has the form --at takes (N, iN, KIND or KIND:K); lesson pauses
// use the same grammar.
int cli_viz_at_ok(const char *s);
// Whether any view or picture was asked for (a run then keeps its trace).
int cli_viz_wanted(const CliViz *v);
// 1 when the chosen view is interactive (ncurses, SDL2 window) and must
// run live beside the engine.
int cli_viz_interactive(const CliViz *v);
// --gif: the defaults, and the most frames one animation may hold.
enum {
    CLI_VIZ_GIF_FPS = 10,
    CLI_VIZ_GIF_SPAN = 200,       // events after --from when --to is not given
    CLI_VIZ_GIF_MAX_FRAMES = 600, // a minute at 10 frames a second
    CLI_VIZ_GIF_HOLD_CS = 100,    // the last frame stays at least 1 s before the loop
};
// The events --gif animates, first .. last (inclusive): --from (else --at,
// else the start) to --to (else the end of first's iteration, at most
// CLI_VIZ_GIF_SPAN - 1 events on). 0, or -1 after printing why.
int cli_viz_gif_range(VizModel *m, const CliViz *v, const char *prog, size_t *first,
                      size_t *last);
// Writes --gif: the frames of cli_viz_gif_range, K in-between frames
// after each event but the last (--gif-tween), with progress on stderr
// when it is a terminal. Returns an exit code (CLI_EXIT_*), after printing
// any problem.
int cli_viz_gif(VizModel *m, const CliViz *v, const char *prog);

// The help lines of these options, in the style of the commands' help.
void cli_viz_help(FILE *out);

// Shows src as asked: plots and --png first, then the view. Returns an exit
// code (CLI_EXIT_*), after printing any problem as "PROG: ...".
int cli_viz_show(VizSource *src, const CliViz *v, const char *prog);
// Only the plots and --png (used after a live view ended).
int cli_viz_pictures(VizSource *src, const CliViz *v, const char *prog);
// A position as --at takes it (N, iN, KIND[:K]) in model m: the event
// index, or SIZE_MAX after printing "PROG: --at POS: why" on stderr.
size_t cli_viz_at(VizModel *m, const char *at, const char *prog);
// The same without printing: SIZE_MAX with why set (at NULL: deflt).
size_t cli_viz_find_at(VizModel *m, const char *at, size_t deflt, char *why, size_t whylen);

#endif
