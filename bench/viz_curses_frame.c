// bench/viz_curses_frame.c: how long the ncurses view takes to draw a frame.
// A DDP run of R ranks (16 by default: an mlp on blobs, a few steps, CPU
// ranks) is traced in-process; then frames for events spread over the whole
// trace are drawn on a virtual terminal of W x H cells (200 x 60 by
// default): curses writes the escape sequences of an xterm-256color to
// /dev/null, so the figure covers the scene, the layout, the canvas, the
// copy into curses and curses' own diffing and output, but no real
// terminal's rendering. Prints the mean, p99 and max against the 5 ms
// target (a frame at 100 frames per second leaves half the time to spare).
//
//   viz_curses_frame [--ranks R] [--steps S] [--frames N] [--width W]
//                    [--height H] [--ascii]
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu_backend.h"
#include "data/dataset.h"
#include "engine/world.h"
#include "model/model.h"
#include "model/optim_flags.h"
#include "strategy/ddp.h"
#include "train/train.h"
#include "view_curses_internal.h"
#include "vtrace.h"

enum { BENCH_MAX_RANKS = 64, BENCH_WARMUP = 20 };
static const double BENCH_TARGET_MS = 5.0;

typedef struct {
    SimTrainer tr[BENCH_MAX_RANKS];
} BenchRun;

static SimStatus bench_rank(SimRank *r, void *arg) {
    BenchRun *b = arg;
    SimStatus st = sim_train_run(r, b->tr);
    sim_train_free(&b->tr[r->rank], r);
    return st;
}

// Trains R ranks for `steps` steps with DDP and copies the whole trace.
static SimStatus bench_trace(int R, int steps, VizTrace *out) {
    char err[512];
    SimSynthSpec sp;
    SimDataset ds;
    SimModelSpec spec;
    memset(&ds, 0, sizeof ds);
    char text[96];
    snprintf(text, sizeof text, "blobs:n=%d,features=16,classes=4", R * 8 * steps);
    SimStatus st = sim_dataset_synth_parse(text, &sp, err, sizeof err);
    if (st == SIM_OK)
        st = sim_dataset_synth(&ds, &sp, err, sizeof err);
    if (st == SIM_OK)
        st = sim_model_parse("mlp:16,64,64,64,4", &spec, err, sizeof err);
    if (st != SIM_OK) {
        fprintf(stderr, "viz_curses_frame: %s\n", err);
        sim_dataset_free(&ds);
        return st;
    }
    SimTrainConfig cfg;
    sim_train_config_default(&cfg);
    cfg.model = spec;
    cfg.data.set = &ds;
    cfg.data.batch = 8;
    cfg.loop.steps = steps;
    if (sim_optim_flags_set(&cfg.opt, "lr", "0.1", err, sizeof err) != SIM_OK ||
        sim_optim_flags_validate(&cfg.opt, err, sizeof err) != SIM_OK) {
        fprintf(stderr, "viz_curses_frame: %s\n", err);
        sim_dataset_free(&ds);
        return SIM_EINVAL;
    }
    SimDdpOptions ddp;
    sim_ddp_options_default(&ddp);
    ddp.buckets.bucket_cap_mb = 0.02; // several buckets, so several launches
    cfg.strategy = &sim_ddp_strategy;
    cfg.strategy_cfg = &ddp;
    BenchRun *b = calloc(1, sizeof *b);
    if (b == NULL) {
        sim_dataset_free(&ds);
        return SIM_ENOMEM;
    }
    for (int i = 0; i < R; i++)
        b->tr[i].cfg = &cfg;
    SimWorldConfig wc;
    sim_world_config_default(&wc);
    wc.nranks = R;
    wc.trace = 1;
    wc.watchdog_s = 60;
    SimWorld w;
    st = sim_world_init(&w, &wc, &cpu_backend_ops);
    if (st == SIM_OK) {
        SimTraceInfo info;
        memset(&info, 0, sizeof info);
        snprintf(info.title, sizeof info.title, "ddp  mlp:16,64,64,64,4  R=%d (1 node x %d)", R,
                 R);
        snprintf(info.strategy, sizeof info.strategy, "ddp");
        info.nodes = 1;
        sim_trace_set_info(w.trace, &info);
        st = sim_world_run(&w, bench_rank, b);
    }
    if (st != SIM_OK) {
        const char *why = sim_world_error(&w);
        for (int i = 0; i < R; i++)
            if (b->tr[i].error[0]) {
                why = b->tr[i].error;
                break;
            }
        fprintf(stderr, "viz_curses_frame: the run failed: %s\n", why);
    } else {
        st = viz_trace_from_sim(w.trace, out, "bench");
    }
    sim_world_free(&w);
    free(b);
    sim_dataset_free(&ds);
    return st;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// This thread's CPU time: the frame's cost without the time other
// processes held the core (the wall-clock figures include it).
static double cpu_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    int R = 16, steps = 10, frames = 2000, W = 200, H = 60, ascii = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--ranks") == 0 && i + 1 < argc)
            R = atoi(argv[++i]);
        else if (strcmp(a, "--steps") == 0 && i + 1 < argc)
            steps = atoi(argv[++i]);
        else if (strcmp(a, "--frames") == 0 && i + 1 < argc)
            frames = atoi(argv[++i]);
        else if (strcmp(a, "--width") == 0 && i + 1 < argc)
            W = atoi(argv[++i]);
        else if (strcmp(a, "--height") == 0 && i + 1 < argc)
            H = atoi(argv[++i]);
        else if (strcmp(a, "--ascii") == 0)
            ascii = 1;
        else {
            fprintf(stderr,
                    "usage: %s [--ranks R] [--steps S] [--frames N] [--width W] [--height H] "
                    "[--ascii]\n",
                    argv[0]);
            return 2;
        }
    }
    if (R < 1 || R > BENCH_MAX_RANKS || steps < 1 || frames < 1 || W < 1 || H < 1) {
        fprintf(stderr, "viz_curses_frame: ranks 1..%d; steps, frames, sizes >= 1\n",
                BENCH_MAX_RANKS);
        return 2;
    }
    VizTrace t;
    memset(&t, 0, sizeof t);
    double t0 = now_s();
    if (bench_trace(R, steps, &t) != SIM_OK) {
        viz_trace_free(&t);
        return 1;
    }
    double run_s = now_s() - t0;
    char err[512] = "";
    VizModel *m = viz_model_new(&t, err, sizeof err);
    if (m == NULL) {
        fprintf(stderr, "viz_curses_frame: %s\n", err);
        viz_trace_free(&t);
        return 1;
    }
    FILE *out = fopen("/dev/null", "w"), *in = fopen("/dev/null", "r");
    VizScreen *scr =
        out && in ? viz_screen_open(out, in, "xterm-256color", ascii ? 0 : -1, err,
                                           sizeof err)
                  : NULL;
    if (scr == NULL || viz_screen_resize(scr, W, H) != SIM_OK) {
        fprintf(stderr, "viz_curses_frame: no virtual terminal: %s\n", err[0] ? err : "resize");
        viz_screen_close(scr);
        if (out)
            fclose(out);
        if (in)
            fclose(in);
        viz_model_free(m);
        viz_trace_free(&t);
        return 1;
    }
    int w, h;
    viz_screen_size(scr, &w, &h);
    size_t n = viz_model_count(m);
    VizPlayer p;
    viz_player_init(&p, n, t.nranks);
    VizFrame f;
    viz_frame_init(&f);
    double *ms = malloc((size_t)frames * sizeof *ms);
    double *ms_show = malloc((size_t)frames * sizeof *ms_show);
    double *ms_cpu = malloc((size_t)frames * sizeof *ms_cpu);
    double compose_total = 0, show_total = 0;
    int rc = ms && ms_show && ms_cpu ? 0 : 1;
    // Frames for events spread evenly over the trace (after a warm-up of
    // the first events), like a replay played back at high speed.
    for (int k = -BENCH_WARMUP; k < frames && rc == 0; k++) {
        size_t i = k < 0 ? (size_t)(BENCH_WARMUP + k)
                         : (frames > 1 ? (size_t)k * (n - 1) / (size_t)(frames - 1) : 0);
        p.pos = (double)(i < n ? i : n - 1);
        double ca = cpu_s(), a = now_s();
        if (viz_frame_draw(&f, m, &p, w, h, viz_screen_unicode(scr), NULL) !=
            SIM_OK) {
            fprintf(stderr, "viz_curses_frame: drawing event %zu failed\n", i);
            rc = 1;
            break;
        }
        double b = now_s();
        viz_screen_show(scr, &f.canvas);
        double c = now_s(), cc = cpu_s();
        if (k >= 0) {
            ms[k] = 1e3 * (c - a);
            ms_show[k] = 1e3 * (c - b);
            ms_cpu[k] = 1e3 * (cc - ca);
            compose_total += b - a;
            show_total += c - b;
        }
    }
    int fitted = f.ok;
    int unicode = viz_screen_unicode(scr), colors = viz_screen_colors(scr);
    viz_frame_free(&f);
    viz_screen_close(scr);
    fclose(out);
    fclose(in);
    if (rc == 0) {
        double sum = 0, sum_cpu = 0;
        for (int k = 0; k < frames; k++) {
            sum += ms[k];
            sum_cpu += ms_cpu[k];
        }
        qsort(ms, (size_t)frames, sizeof *ms, cmp_double);
        qsort(ms_show, (size_t)frames, sizeof *ms_show, cmp_double);
        qsort(ms_cpu, (size_t)frames, sizeof *ms_cpu, cmp_double);
        int k99 = (int)(0.99 * (frames - 1) + 0.5);
        double mean = sum / frames, p99 = ms[k99], mx = ms[frames - 1];
        printf("viz_curses_frame: %d ranks, %zu events (traced in %.2f s), %d frames on a "
               "%dx%d %s terminal (%s, %d colours)%s\n",
               t.nranks, n, run_s, frames, w, h, "xterm-256color", unicode ? "UTF-8" : "ASCII",
               colors, fitted ? "" : " [the layout did not fit]");
        printf("  frame time: mean %.3f ms  p99 %.3f ms  max %.3f ms\n", mean, p99, mx);
        printf("  CPU time of a frame: mean %.3f ms  p99 %.3f ms\n", sum_cpu / frames,
               ms_cpu[k99]);
        printf("  of the mean: scene + layout + canvas %.3f ms, copy to curses + output %.3f ms "
               "(p99 %.3f ms)\n",
               1e3 * compose_total / frames, 1e3 * show_total / frames, ms_show[k99]);
        printf("  target: p99 under %.1f ms: %s\n", BENCH_TARGET_MS,
               p99 < BENCH_TARGET_MS ? "PASS" : "FAIL");
    }
    free(ms);
    free(ms_show);
    free(ms_cpu);
    viz_model_free(m);
    viz_trace_free(&t);
    return rc;
}
