// cli/run/run_viz.c: `ddplab run --viz ...`: the run's description for the
// trace, and the two ways a run is shown. Text frames, --png and the charts
// come after the run, from its trace. The interactive views (ncurses, SDL2)
// watch it live: the ranks run on a thread of their own while the view
// runs here, fed through the trace's tap (viz/views.h's VizLive); the
// run's own printing is held in a file meanwhile and shown after the view
// closes, so it does not scribble over the screen.
#include "run/run.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/cli.h"       // defines: CLI_EXIT_*
#include "run/run_signal.h" // defines: run_signal_caught
#include "views.h"          // defines: VizLive, VizSource

void run_viz_info(const RunOptions *o, const SimTrainConfig *c, SimWorld *w) {
    if (w->trace == NULL)
        return;
    SimTraceInfo info;
    memset(&info, 0, sizeof info);
    char model[96];
    sim_model_spec_str(&c->model, model, sizeof model);
    int per = o->nranks / (o->nodes > 0 ? o->nodes : 1);
    int len = snprintf(info.title, sizeof info.title, "%s  %s  R=%d (%d node%s x %d)",
                       o->strategy, model, o->nranks, o->nodes, o->nodes == 1 ? "" : "s",
                       per);
    if (len > 0 && (size_t)len < sizeof info.title) {
        size_t n = (size_t)len;
        if (strcmp(o->strategy, "ddp") == 0)
            snprintf(info.title + n, sizeof info.title - n, "  bucket_cap %g MiB",
                     o->ddp.buckets.bucket_cap_mb);
        else if (run_fsdp_is_strategy(o->strategy))
            snprintf(info.title + n, sizeof info.title - n, "  %s",
                     sim_fsdp_sharding_name(o->fsdp.sharding));
    }
    const char *how = w->ops->describe ? w->ops->describe(w->ctx) : NULL;
    size_t used = strlen(info.title);
    if (how && how[0] && used + 4 < sizeof info.title) // e.g. "cuda: 4 ranks on 1 GPU, ..."
        snprintf(info.title + used, sizeof info.title - used, "  %s: %s", w->ops->name, how);
    snprintf(info.strategy, sizeof info.strategy, "%s", o->strategy);
    snprintf(info.profile, sizeof info.profile, "%s", o->profile ? o->profile : "");
    info.device_capacity = o->device_memory;
    info.nodes = o->nodes;
    sim_trace_set_info(w->trace, &info);
}

int run_viz_after(const RunOptions *o, SimWorld *w) {
    if (!cli_viz_wanted(&o->viz) || cli_viz_interactive(&o->viz) || w->trace == NULL)
        return CLI_EXIT_OK;
    VizTrace t;
    if (viz_trace_from_sim(w->trace, &t, "run") != SIM_OK) {
        run_error("--viz: out of memory for the trace's %d ranks", o->nranks);
        return CLI_EXIT_INTERNAL;
    }
    VizSource src = {&t, NULL, NULL, 0};
    char err[256];
    src.model = viz_model_new(&t, err, sizeof err);
    int rc = CLI_EXIT_OK;
    if (src.model == NULL)
        run_error("--viz: %s", err);
    else
        rc = cli_viz_show(&src, &o->viz, "ddplab run");
    viz_model_free(src.model);
    viz_trace_free(&t);
    return rc;
}

typedef struct {
    SimWorld *w;
    SimRankMain fn;
    void *arg;
    VizLive *live;
    SimStatus st;
} LiveRun;

static void *live_thread(void *p) {
    LiveRun *lr = p;
    lr->st = sim_world_run(lr->w, lr->fn, lr->arg);
    viz_live_finish(lr->live, lr->st);
    return NULL;
}

// Copies what the run printed (held in cap) to the real stdout.
static void replay_output(FILE *cap) {
    fflush(cap);
    rewind(cap);
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, cap)) > 0)
        fwrite(buf, 1, n, stdout);
    fflush(stdout);
}

// Polls until the first events arrive (the view needs a model) or the run
// ends. Returns 1 when there is something to show.
static int wait_first_events(VizSource *src) {
    struct timespec nap = {0, 2000000}; // 2 ms
    for (;;) {
        viz_source_poll(src);
        if (src->model != NULL)
            return 1;
        if (viz_live_done(src->live)) {
            viz_source_poll(src);
            return src->model != NULL;
        }
        nanosleep(&nap, NULL);
    }
}

// Runs the view on this thread while the ranks run on another; the
// status of the ranks' run in *st. Returns the view's exit code.
static int show_live(const CliViz *v, LiveRun *lr, VizSource *src, FILE *tty) {
    pthread_t th;
    if (pthread_create(&th, NULL, live_thread, lr) != 0) {
        lr->st = sim_world_run(lr->w, lr->fn, lr->arg); // no thread: run, then show
        viz_live_finish(lr->live, lr->st);
        if (!wait_first_events(src))
            return CLI_EXIT_OK;
        return cli_viz_show(src, v, "ddplab run");
    }
    int rc = CLI_EXIT_OK;
    if (wait_first_events(src) && !run_signal_caught()) // Ctrl-C before the view: none
        rc = cli_viz_show(src, v, "ddplab run");
    viz_live_detach(lr->live);
    if (!viz_live_done(lr->live) && !run_signal_caught()) {
        fprintf(tty, "ddplab run: the view closed; the run goes on to its end (Ctrl-C "
                     "stops it)...\n");
        fflush(tty);
    }
    pthread_join(th, NULL);
    return rc;
}

SimStatus run_viz_live(const RunOptions *o, SimWorld *w, SimRankMain fn, void *arg,
                       int *view_rc) {
    *view_rc = CLI_EXIT_OK;
    VizLive *live = viz_live_new();
    VizTrace t;
    if (live == NULL ||
        viz_trace_init(&t, o->nranks, sim_trace_info(w->trace), "live") != SIM_OK) {
        viz_live_free(live);
        run_error("--viz: out of memory");
        *view_rc = CLI_EXIT_INTERNAL;
        return sim_world_run(w, fn, arg);
    }
    sim_trace_set_tap(w->trace, viz_live_tap, live);
    fflush(stdout);
    fflush(stderr);
    // The terminal for the view; the run's printing into cap meanwhile.
    int out_fd = dup(STDOUT_FILENO), err_fd = dup(STDERR_FILENO);
    FILE *cap = tmpfile();
    FILE *tty = out_fd >= 0 ? fdopen(out_fd, "w") : NULL;
    LiveRun lr = {w, fn, arg, live, SIM_OK};
    VizSource src = {&t, NULL, live, 0};
    if (cap == NULL || tty == NULL || err_fd < 0) {
        run_error("--viz: cannot set the terminal aside for the view");
        *view_rc = CLI_EXIT_INTERNAL;
        lr.st = sim_world_run(w, fn, arg);
    } else {
        dup2(fileno(cap), STDOUT_FILENO);
        dup2(fileno(cap), STDERR_FILENO);
        CliViz v = o->viz;
        v.tty = tty;
        v.should_stop = run_signal_caught; // Ctrl-C closes the window too
        *view_rc = show_live(&v, &lr, &src, tty);
        fflush(stdout);
        fflush(stderr);
        dup2(out_fd, STDOUT_FILENO);
        dup2(err_fd, STDERR_FILENO);
        replay_output(cap);
        if (*view_rc == CLI_EXIT_OK && !run_signal_caught()) { // interrupted: no pictures
            viz_source_poll(&src);
            *view_rc = cli_viz_pictures(&src, &o->viz, "ddplab run");
        }
    }
    sim_trace_set_tap(w->trace, NULL, NULL);
    if (cap)
        fclose(cap);
    if (tty)
        fclose(tty); // closes out_fd
    else if (out_fd >= 0)
        close(out_fd);
    if (err_fd >= 0)
        close(err_fd);
    viz_model_free(src.model);
    viz_trace_free(&t);
    viz_live_free(live);
    return lr.st;
}
