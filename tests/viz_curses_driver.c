// tests/viz_curses_driver.c: the program test_viz_curses.sh drives from
// tmux. It trains a small DDP run in-process (an mlp on blobs, R CPU ranks,
// a few steps, the trace kept), copies the trace into a VizTrace and opens
// the ncurses view on it as a replay.
//
//   viz_curses_driver [--ranks R] [--steps S] [--autoplay] [--pidfile FILE]
//   viz_curses_driver --check     exit 0 when the view is built in, else 77
//
// Exit status: 0 quit normally; 2 the view refused (the terminal stayed
// too small: SIM_EINVAL); 77 no ncurses in this build; 1 anything else.
// A signal that stops the view ends the process with that signal.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "strategy/ddp.h"
#include "test_ddp_util.h"
#include "test_world.h"
#include "views.h"
#include "vtrace.h"

typedef struct {
    SimTrainer tr[TDDP_MAX_RANKS];
} DriverRun;

static SimStatus driver_rank(SimRank *r, void *arg) {
    DriverRun *d = arg;
    SimStatus st = sim_train_run(r, d->tr);
    sim_train_free(&d->tr[r->rank], r);
    return st;
}

// Trains R ranks for `steps` steps and copies the world's whole trace.
static SimStatus driver_trace(int R, int steps, VizTrace *out) {
    SimDataset ds;
    SimModelSpec spec;
    memset(&ds, 0, sizeof ds);
    SIM_CHECK(tddp_data_mlp(&ds, 64, "mlp:16,32,32,4", &spec));
    TddpRun cfg; // only for its training configuration
    tddp_config(&cfg, &ds, &spec, R, 8, steps);
    cfg.ddp.buckets.bucket_cap_mb = 0.004; // a few small buckets, so several launches
    cfg.cfg.strategy = &sim_ddp_strategy;
    cfg.cfg.strategy_cfg = &cfg.ddp;
    DriverRun *d = calloc(1, sizeof *d);
    if (d == NULL) {
        sim_dataset_free(&ds);
        return SIM_ENOMEM;
    }
    for (int i = 0; i < R; i++)
        d->tr[i].cfg = &cfg.cfg;
    SimWorld w;
    SimStatus st = tworld_init_cpu_nodes(&w, R, 1, 1, 30.0);
    if (st == SIM_OK) {
        SimTraceInfo info;
        memset(&info, 0, sizeof info);
        snprintf(info.title, sizeof info.title, "ddp  mlp:16,32,32,4  R=%d (1 node x %d)", R, R);
        snprintf(info.strategy, sizeof info.strategy, "ddp");
        snprintf(info.profile, sizeof info.profile, "cpu");
        info.nodes = 1;
        sim_trace_set_info(w.trace, &info);
        st = sim_world_run(&w, driver_rank, d);
    }
    if (st != SIM_OK) {
        const char *why = sim_world_error(&w);
        for (int i = 0; i < R; i++)
            if (d->tr[i].error[0]) {
                why = d->tr[i].error;
                break;
            }
        fprintf(stderr, "viz_curses_driver: the run failed: %s\n", why);
    } else {
        st = viz_trace_from_sim(w.trace, out, "run");
    }
    sim_world_free(&w);
    free(d);
    sim_dataset_free(&ds);
    return st;
}

int main(int argc, char **argv) {
    int R = 4, steps = 2, autoplay = 0;
    const char *pidfile = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--ranks") == 0 && i + 1 < argc)
            R = atoi(argv[++i]);
        else if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc)
            steps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--autoplay") == 0)
            autoplay = 1;
        else if (strcmp(argv[i], "--pidfile") == 0 && i + 1 < argc)
            pidfile = argv[++i];
        else if (strcmp(argv[i], "--check") == 0)
            return viz_curses_available() ? 0 : 77;
        else {
            fprintf(stderr, "usage: %s [--ranks R] [--steps S] [--autoplay] [--pidfile FILE]\n",
                    argv[0]);
            return 1;
        }
    }
    if (R < 1 || R > TDDP_MAX_RANKS || steps < 1) {
        fprintf(stderr, "viz_curses_driver: ranks 1..%d, steps >= 1\n", TDDP_MAX_RANKS);
        return 1;
    }
    if (!viz_curses_available()) {
        fprintf(stderr, "viz_curses_driver: built without ncurses\n");
        return 77;
    }
    VizTrace t;
    memset(&t, 0, sizeof t);
    if (driver_trace(R, steps, &t) != SIM_OK) {
        viz_trace_free(&t);
        return 1;
    }
    char err[512] = "";
    VizSource src = {.trace = &t, .model = viz_model_new(&t, err, sizeof err)};
    if (src.model == NULL) {
        fprintf(stderr, "viz_curses_driver: %s\n", err);
        viz_trace_free(&t);
        return 1;
    }
    src.settled = t.n;
    if (pidfile != NULL) {
        FILE *f = fopen(pidfile, "w");
        if (f != NULL) {
            fprintf(f, "%ld\n", (long)getpid());
            fclose(f);
        }
    }
    VizViewOpts o;
    memset(&o, 0, sizeof o);
    o.autoplay = autoplay;
    SimStatus st = viz_curses_run(&src, &o, err, sizeof err);
    printf("viz_curses_run: %s%s%s (%zu events)\n", sim_status_name(st), err[0] ? ": " : "", err,
           t.n);
    viz_model_free(src.model);
    viz_trace_free(&t);
    return st == SIM_OK ? 0 : st == SIM_EINVAL ? 2 : st == SIM_ENOTSUP ? 77 : 1;
}
