// cli/core/viz_cli.c: the view options' checks and showing a trace with them
// (their rows are in viz_opts.c): --viz picks the renderer (text frames on
// stdout, the ncurses screen, the SDL2 window), --png draws one frame
// offscreen, --gif animates a span of events (viz_gif.c), --plot /
// --plot-memory write charts of the whole trace.
#include "core/viz_cli.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/cli.h"  // defines: CLI_EXIT_*
#include "core/opts.h" // defines: cli_opt_shown, cli_opt_output_problem
#include "base/errbuf.h" // defines: sim_errbuf_fail
#include "chart.h"     // defines: viz_chart_write, viz_chart_available
#include "gif.h"       // defines: viz_gif_available
#include "plots.h"     // defines: viz_plot_loss, viz_plot_memory

static int fail(const char *prog, const char *opt, const char *value, const char *what,
                const char *allowed) {
    char shown[80];
    fprintf(stderr, "%s: --%s: '%s' %s; allowed: %s\n", prog, opt,
            cli_opt_shown(value, shown, sizeof shown), what, allowed);
    return -1;
}

static int parse_int(const char *s, long lo, long hi, long *out) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

// --at: N (an event), iN (iteration N's first event), KIND or KIND:K (the
// K-th event of that kind, from 0). Checked against the trace later;
// here only the form.
int cli_viz_at_ok(const char *s) {
    long v;
    if (parse_int(s, 0, LONG_MAX, &v) == 0)
        return 1;
    if (s[0] == 'i' && parse_int(s + 1, 0, INT32_MAX, &v) == 0)
        return 1;
    char name[32];
    size_t n = strcspn(s, ":");
    if (n == 0 || n >= sizeof name)
        return 0;
    memcpy(name, s, n);
    name[n] = '\0';
    if (viz_jump_parse(name) < 0)
        return 0;
    return s[n] == '\0' || parse_int(s + n + 1, 0, LONG_MAX, &v) == 0;
}

static int check_out(const char *prog, const char *opt, const char *path) {
    const char *what, *allowed;
    if (path != NULL && cli_opt_output_problem(path, &what, &allowed))
        return fail(prog, opt, path, what, allowed);
    return 0;
}

// A chart's file: a format charts are written as, in a build that draws them.
static int check_chart(const char *prog, const char *opt, const char *path) {
    if (path == NULL)
        return 0;
    if (!viz_chart_format_ok(path)) {
        fprintf(stderr, "%s: %s %s: unknown chart format: the file name must end in "
                VIZ_CHART_FORMATS "\n", prog, opt, path);
        return -1;
    }
    char why[256];
    if (!viz_chart_available(why, sizeof why)) {
        fprintf(stderr, "%s: %s: %s\n", prog, opt, why);
        return -1;
    }
    return 0;
}

// --gif and its options: the file, a build that can draw and encode it,
// and no --from, --to, --gif-* without it.
static int check_gif(const CliViz *v, const char *prog) {
    if (v->gif == NULL) {
        if (!v->gif_opts)
            return 0;
        fprintf(stderr, "%s: --from, --to and --gif-* choose what --gif animates; allowed: "
                "add --gif FILE.gif (--at chooses the frame of --png and the views)\n", prog);
        return -1;
    }
    if (check_out(prog, "gif", v->gif))
        return -1;
    if (!viz_sdl_available()) {
        fprintf(stderr, "%s: --gif draws its frames with the SDL2 view, which this build lacks "
                "(apt-get install libsdl2-dev libsdl2-ttf-dev libcairo2-dev libpango1.0-dev, "
                "then rebuild); --viz text shows the same frames as text\n", prog);
        return -1;
    }
    if (!viz_gif_available()) {
        fprintf(stderr, "%s: --gif needs giflib, which this build lacks (apt-get install "
                "libgif-dev, then rebuild); --png draws one frame\n", prog);
        return -1;
    }
    return 0;
}

int cli_viz_check(const CliViz *v, const char *prog) {
    if (check_out(prog, "png", v->png) || check_out(prog, "plot", v->plot_loss) ||
        check_out(prog, "plot-memory", v->plot_memory))
        return -1;
    if (v->png && !viz_sdl_available()) {
        fprintf(stderr, "%s: --png draws the frame with SDL2, which this build lacks "
                "(apt-get install libsdl2-dev libcairo2-dev libpango1.0-dev, then rebuild); "
                "--viz text shows the same frame as text\n", prog);
        return -1;
    }
    if (check_gif(v, prog) != 0)
        return -1;
    if (check_chart(prog, "--plot", v->plot_loss) ||
        check_chart(prog, "--plot-memory", v->plot_memory))
        return -1;
    if (v->mode && strcmp(v->mode, "ncurses") == 0 && !viz_curses_available()) {
        fprintf(stderr, "%s: --viz ncurses: this build has no ncurses (apt-get install "
                "libncurses-dev, then rebuild); --viz text works everywhere\n", prog);
        return -1;
    }
    if (v->mode && strcmp(v->mode, "sdl") == 0 && !viz_sdl_available()) {
        fprintf(stderr, "%s: --viz sdl: this build has no SDL2 (apt-get install libsdl2-dev "
                "libcairo2-dev libpango1.0-dev, then rebuild); try --viz ncurses\n", prog);
        return -1;
    }
    return 0;
}

int cli_viz_wanted(const CliViz *v) {
    return v->mode || v->png || v->gif || v->plot_loss || v->plot_memory;
}

int cli_viz_interactive(const CliViz *v) {
    return v->mode && strcmp(v->mode, "text") != 0;
}

size_t cli_viz_find_at(VizModel *m, const char *at, size_t deflt, char *why, size_t whylen) {
    size_t n = viz_model_count(m);
    if (at == NULL)
        return deflt;
    long v;
    if (parse_int(at, 0, LONG_MAX, &v) == 0) {
        if ((size_t)v < n)
            return (size_t)v;
        snprintf(why, whylen, "the trace has %zu events (0 to %zu)", n, n - 1);
        return SIZE_MAX;
    }
    if (at[0] == 'i' && parse_int(at + 1, 0, INT32_MAX, &v) == 0) {
        size_t i = viz_model_iteration_start(m, (int)v);
        if (i == SIZE_MAX)
            snprintf(why, whylen, "the trace has %d iterations (i0 to i%d)",
                     viz_model_iterations(m), viz_model_iterations(m) - 1);
        return i;
    }
    if (!cli_viz_at_ok(at)) {
        snprintf(why, whylen, "not a position (N, iN or KIND[:K])");
        return SIZE_MAX;
    }
    char name[32];
    size_t len = strcspn(at, ":");
    memcpy(name, at, len);
    name[len] = '\0';
    long k = 0;
    if (at[len] == ':')
        parse_int(at + len + 1, 0, LONG_MAX, &k);
    VizJump kind = (VizJump)viz_jump_parse(name);
    size_t i = SIZE_MAX;
    for (long seen = 0;; seen++) {
        i = viz_model_next(m, i, kind, +1);
        if (i == SIZE_MAX || seen == k)
            break;
    }
    if (i == SIZE_MAX)
        snprintf(why, whylen, "the trace has no such event (fewer than %ld of kind %s)", k + 1,
                 name);
    return i;
}

// --at against the trace: the event index, or SIZE_MAX after a message.
static size_t resolve_at(VizModel *m, const char *at, size_t deflt, const char *prog) {
    char why[160] = "";
    size_t i = cli_viz_find_at(m, at, deflt, why, sizeof why);
    if (i == SIZE_MAX)
        fprintf(stderr, "%s: --at %s: %s\n", prog, at, why);
    return i;
}

size_t cli_viz_at(VizModel *m, const char *at, const char *prog) {
    if (!cli_viz_at_ok(at)) {
        fprintf(stderr, "%s: --at %s: not a position (N, iN or KIND[:K])\n", prog, at);
        return SIZE_MAX;
    }
    return resolve_at(m, at, 0, prog);
}

// Builds one of the trace's charts (plots.h) and draws it into path.
typedef SimStatus (*PlotFn)(const VizModel *m, VizPlot *p, char *err, size_t errlen);
static SimStatus write_plot(const VizModel *m, PlotFn build, const char *path, char *err,
                            size_t errlen) {
    VizPlot *p = malloc(sizeof *p); // large: series, panels and their texts
    if (p == NULL)
        return sim_errbuf_fail(err, errlen, SIM_ENOMEM, "out of memory");
    SimStatus st = build(m, p, err, errlen);
    if (st == SIM_OK)
        st = viz_chart_write(&p->chart, path, err, errlen);
    viz_plot_free(p);
    free(p);
    return st;
}

int cli_viz_pictures(VizSource *src, const CliViz *v, const char *prog) {
    char err[512];
    if (src->model == NULL)
        return CLI_EXIT_OK;
    if (v->plot_loss) {
        if (write_plot(src->model, viz_plot_loss, v->plot_loss, err, sizeof err) != SIM_OK) {
            fprintf(stderr, "%s: --plot: %s\n", prog, err);
            return CLI_EXIT_INTERNAL;
        }
        printf("plot: %s (loss per iteration)\n", v->plot_loss);
    }
    if (v->plot_memory) {
        if (write_plot(src->model, viz_plot_memory, v->plot_memory, err, sizeof err) !=
            SIM_OK) {
            fprintf(stderr, "%s: --plot-memory: %s\n", prog, err);
            return CLI_EXIT_INTERNAL;
        }
        printf("plot: %s (device memory by category per rank)\n", v->plot_memory);
    }
    if (v->png) {
        size_t last = viz_model_count(src->model) - 1;
        size_t at = resolve_at(src->model, v->at, last, prog);
        if (at == SIZE_MAX)
            return CLI_EXIT_USAGE;
        VizViewOpts o;
        viz_view_opts_default(&o);
        if (viz_sdl_png(src->model, at, 0.0, &o, v->png, err, sizeof err) != SIM_OK) {
            fprintf(stderr, "%s: --png: %s\n", prog, err);
            return CLI_EXIT_INTERNAL;
        }
        printf("frame: %s (event %zu of %zu)\n", v->png, at, viz_model_count(src->model));
    }
    if (v->gif)
        return cli_viz_gif(src->model, v, prog);
    return CLI_EXIT_OK;
}

int cli_viz_show(VizSource *src, const CliViz *v, const char *prog) {
    viz_source_poll(src);
    if (src->model == NULL) {
        fprintf(stderr, "%s: the trace has no events to show\n", prog);
        return CLI_EXIT_CHECK;
    }
    if (src->live == NULL) { // a live run's pictures come when it has ended
        int rc = cli_viz_pictures(src, v, prog);
        if (rc != CLI_EXIT_OK || v->mode == NULL)
            return rc;
    }
    VizViewOpts o;
    viz_view_opts_default(&o);
    o.should_stop = v->should_stop;
    if (v->stop_mask)
        o.stop_mask = v->stop_mask;
    if (v->width)
        o.width = v->width;
    if (v->speed > 0)
        o.speed = v->speed;
    o.unicode = !v->ascii;
    if (v->at) {
        size_t at = resolve_at(src->model, v->at, 0, prog);
        if (at == SIZE_MAX)
            return CLI_EXIT_USAGE;
        o.start = at;
    }
    o.autoplay = src->live != NULL;
    o.tty_out = v->tty;
    char err[512] = "";
    SimStatus st;
    if (strcmp(v->mode, "text") == 0)
        st = viz_text_run(src, &o, stdout, err, sizeof err);
    else if (strcmp(v->mode, "ncurses") == 0)
        st = viz_curses_run(src, &o, err, sizeof err);
    else
        st = viz_sdl_run(src, &o, err, sizeof err);
    if (st == SIM_OK)
        return CLI_EXIT_OK;
    fprintf(stderr, "%s: --viz %s: %s\n", prog, v->mode, err[0] ? err : sim_strerror(st));
    return st == SIM_ENOTSUP || st == SIM_EINVAL ? CLI_EXIT_USAGE : CLI_EXIT_INTERNAL;
}
