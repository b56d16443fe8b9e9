// cli/core/viz_gif.c: --gif, the span of events --from .. --to animated
// into a looping GIF (viz/gif.h), each frame drawn by the SDL2 view
// offscreen exactly as the window shows that instant (viz_sdl_frame,
// viz/views.h), with --gif-tween K frames in between moving the chunks and
// bars as the window does while it plays.
#include "core/viz_cli.h"

#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/cli.h" // defines: CLI_EXIT_*
#include "gif.h"      // defines: viz_gif_write, VizGifSpec

enum { DEFAULT_W = 1600, DEFAULT_H = 1000 }; // --png's size (views.h, png_w)

// One position of --from / --to in m; `deflt` when pos is NULL. SIZE_MAX
// after printing "PROG: --OPT POS: why".
static size_t position(VizModel *m, const char *opt, const char *pos, size_t deflt,
                       const char *prog) {
    char why[160] = "";
    size_t i = cli_viz_find_at(m, pos, deflt, why, sizeof why);
    if (i == SIZE_MAX)
        fprintf(stderr, "%s: --%s %s: %s\n", prog, opt, pos, why);
    return i;
}

// The last event of first's iteration (the one before the next iteration
// begins), at most CLI_VIZ_GIF_SPAN - 1 events on.
static size_t default_last(VizModel *m, size_t first) {
    size_t n = viz_model_count(m);
    size_t next = viz_model_iteration_start(m, viz_model_iteration_of(m, first) + 1);
    size_t last = next != SIZE_MAX && next > first ? next - 1 : n - 1;
    if (last - first >= CLI_VIZ_GIF_SPAN)
        last = first + CLI_VIZ_GIF_SPAN - 1;
    return last;
}

int cli_viz_gif_range(VizModel *m, const CliViz *v, const char *prog, size_t *first,
                      size_t *last) {
    const char *from = v->from ? v->from : v->at;
    const char *from_opt = v->from ? "from" : "at";
    size_t a = position(m, from_opt, from, 0, prog);
    if (a == SIZE_MAX)
        return -1;
    size_t b = v->to ? position(m, "to", v->to, 0, prog) : default_last(m, a);
    if (b == SIZE_MAX)
        return -1;
    if (a > b) {
        fprintf(stderr, "%s: --%s %s (event %zu) comes after --to %s (event %zu); allowed: "
                "a --to at or after --%s\n", prog, from ? from_opt : "from", from ? from : "0",
                a, v->to, b, from ? from_opt : "from");
        return -1;
    }
    *first = a;
    *last = b;
    return 0;
}

// What the frames are drawn from: frame k is event first + k / (tween + 1),
// k % (tween + 1) / (tween + 1) of the way to the next.
typedef struct {
    VizModel *m;
    size_t first;
    int tween;
    int w, h;
    VizViewOpts opts;
    const char *prog;
    int progress;      // 1: say on stderr how far it got
} Anim;

static SimStatus draw_frame(void *ctx, size_t k, uint8_t *rgba, char *err, size_t errlen) {
    const Anim *a = ctx;
    size_t per = (size_t)a->tween + 1;
    size_t i = a->first + k / per;
    double frac = (double)(k % per) / (double)per;
    return viz_sdl_frame(a->m, i, frac, &a->opts, a->w, a->h, rgba, err, errlen);
}

// "frame k of N" on one line of the terminal, rewritten in place.
static void show_progress(void *ctx, int pass, size_t k, size_t n) {
    const Anim *a = ctx;
    if (!a->progress)
        return;
    fprintf(stderr, "\r%s: --gif: %s frame %zu of %zu ", a->prog,
            pass == 1 ? "choosing colours," : "writing,", k + 1, n);
    if (pass == 2 && k + 1 == n)
        fprintf(stderr, "\r%*s\r", 60, "");
    fflush(stderr);
}

// Every frame's delay: 1/fps, the last held long enough to see where the
// loop ends. NULL when memory runs out.
static int *frame_delays(size_t frames, int fps) {
    int *d = malloc(frames * sizeof *d);
    if (d == NULL)
        return NULL;
    int each = (100 + fps / 2) / fps;
    for (size_t k = 0; k < frames; k++)
        d[k] = each;
    if (d[frames - 1] < CLI_VIZ_GIF_HOLD_CS)
        d[frames - 1] = CLI_VIZ_GIF_HOLD_CS;
    return d;
}

// The frame count of events first .. last, or 0 after printing why it is
// too many.
static size_t frame_count(const CliViz *v, size_t first, size_t last, const char *prog) {
    size_t events = last - first + 1;
    size_t frames = events + (events - 1) * (size_t)v->gif_tween;
    if (frames <= CLI_VIZ_GIF_MAX_FRAMES)
        return frames;
    fprintf(stderr, "%s: --gif: events %zu to %zu make %zu frames%s, more than %d; narrow the "
            "span with --from and --to (for one iteration: --from iN alone)%s\n", prog, first,
            last, frames, v->gif_tween ? " with --gif-tween" : "", CLI_VIZ_GIF_MAX_FRAMES,
            v->gif_tween ? ", or lower --gif-tween" : "");
    return 0;
}

int cli_viz_gif(VizModel *m, const CliViz *v, const char *prog) {
    size_t first, last;
    if (cli_viz_gif_range(m, v, prog, &first, &last) != 0)
        return CLI_EXIT_USAGE;
    size_t frames = frame_count(v, first, last, prog);
    if (frames == 0)
        return CLI_EXIT_USAGE;
    Anim a = {m, first, v->gif_tween, v->gif_w > 0 ? v->gif_w : DEFAULT_W,
              v->gif_h > 0 ? v->gif_h : DEFAULT_H, {0}, prog, 0};
    viz_view_opts_default(&a.opts);
    a.progress = frames >= 20 && isatty(STDERR_FILENO);
    int fps = v->gif_fps > 0 ? v->gif_fps : CLI_VIZ_GIF_FPS;
    int *delays = frame_delays(frames, fps);
    if (delays == NULL) {
        fprintf(stderr, "%s: --gif: out of memory\n", prog);
        return CLI_EXIT_INTERNAL;
    }
    VizGifSpec s = {a.w, a.h, frames, 0, delays, draw_frame, &a, show_progress};
    char err[512] = "";
    SimStatus st = viz_gif_write(v->gif, &s, err, sizeof err);
    free(delays);
    if (a.progress && st != SIM_OK)
        fputc('\n', stderr);
    if (st != SIM_OK) {
        fprintf(stderr, "%s: --gif: %s\n", prog, err[0] ? err : sim_strerror(st));
        // a size too small for the layout is bad input; the rest is not the input's doing
        return st == SIM_EINVAL ? CLI_EXIT_USAGE : CLI_EXIT_INTERNAL;
    }
    printf("animation: %s (events %zu to %zu, %zu frames, %d fps, %d x %d)\n", v->gif, first,
           last, frames, fps, a.w, a.h);
    return CLI_EXIT_OK;
}
