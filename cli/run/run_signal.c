// cli/run/run_signal.c: stopping `ddplab run` on SIGINT, SIGTERM and SIGHUP (see
// run_signal.h): the handler, the watcher thread, and the one line that
// says where the run stopped.
#include "run/run_signal.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "formats/safetensors.h" // defines: sim_stfile_load, sim_stfile_meta

// The handler writes the note from whichever thread the kernel picked, and
// ranks and the watcher read it: a lock-free atomic is both safe in a
// handler (C11 7.14.1.1) and free of data races between threads, which a
// plain volatile sig_atomic_t is not.
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "the signal note must be lock-free");

static const int run_signals[RUN_SIGNAL_COUNT] = {SIGINT, SIGTERM, SIGHUP};

// The first signal since run_signal_begin (0: none). Written only by the
// handler (and cleared by begin, before the handlers are installed).
static atomic_int run_signal_note;

enum { RUN_SIGNAL_POLL_MS = 20 }; // the watcher's period

static void run_on_signal(int sig) {
    int none = 0;
    if (atomic_compare_exchange_strong(&run_signal_note, &none, sig))
        return;
    // A second signal while the run stops: its default action, now.
    // (signal and raise are async-signal-safe.)
    signal(sig, SIG_DFL);
    raise(sig);
}

int run_signal_caught(void) {
    return atomic_load(&run_signal_note);
}

const char *run_signal_name(int sig) {
    static char other[24];
    switch (sig) {
    case SIGINT:
        return "SIGINT";
    case SIGTERM:
        return "SIGTERM";
    case SIGHUP:
        return "SIGHUP";
    default:
        snprintf(other, sizeof other, "signal %d", sig);
        return other;
    }
}

// SimTrainConfig.should_stop.
static int run_should_stop(void *arg) {
    (void)arg;
    return run_signal_caught() != 0;
}

// ----------------------------------------------------------------------------
// the watcher

// now + ms on CLOCK_MONOTONIC (the clock the condition variable waits on).
static struct timespec run_deadline(int ms) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_nsec += (long)ms * 1000000L;
    ts.tv_sec += ts.tv_nsec / 1000000000L;
    ts.tv_nsec %= 1000000000L;
    return ts;
}

static void *run_watcher(void *arg) {
    RunSignals *s = arg;
    int cancelled = 0;
    pthread_mutex_lock(&s->lock);
    while (!s->run_over) {
        int sig = run_signal_caught();
        if (sig != 0 && !cancelled) {
            char why[96];
            snprintf(why, sizeof why, "interrupted by %s", run_signal_name(sig));
            pthread_mutex_unlock(&s->lock);
            sim_world_cancel(s->world, why); // takes the backend's locks: not under ours
            pthread_mutex_lock(&s->lock);
            cancelled = 1;
            continue;
        }
        struct timespec until = run_deadline(RUN_SIGNAL_POLL_MS);
        int rc = pthread_cond_timedwait(&s->wake, &s->lock, &until);
        if (rc != 0 && rc != ETIMEDOUT && rc != EINTR)
            break; // cannot wait: the step boundary check still stops the ranks
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

// Starts the watcher with every signal blocked in it, so that a signal is
// handled by a thread doing real work (and the watcher never is).
static void run_watch_start(RunSignals *s) {
    pthread_condattr_t ca;
    if (pthread_condattr_init(&ca) != 0)
        return;
    int ok = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) == 0 &&
             pthread_cond_init(&s->wake, &ca) == 0;
    pthread_condattr_destroy(&ca);
    if (!ok)
        return;
    if (pthread_mutex_init(&s->lock, NULL) != 0) {
        pthread_cond_destroy(&s->wake);
        return;
    }
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    s->watching = pthread_create(&s->thread, NULL, run_watcher, s) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!s->watching) {
        pthread_mutex_destroy(&s->lock);
        pthread_cond_destroy(&s->wake);
    }
}

// ----------------------------------------------------------------------------
// begin and end

void run_signal_begin(RunSignals *s, SimWorld *w, SimTrainConfig *c) {
    memset(s, 0, sizeof *s);
    s->world = w;
    atomic_store(&run_signal_note, 0);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = run_on_signal;
    sigemptyset(&sa.sa_mask);
    for (int k = 0; k < RUN_SIGNAL_COUNT; k++)
        sigaddset(&sa.sa_mask, run_signals[k]); // one handler at a time
    sa.sa_flags = SA_RESTART; // the ranks' waits and writes go on; the note stops them
    for (int k = 0; k < RUN_SIGNAL_COUNT; k++) {
        if (sigaction(run_signals[k], NULL, &s->old[k]) != 0 ||
            s->old[k].sa_handler == SIG_IGN)
            continue; // ignored on entry: stays ignored
        s->installed[k] = sigaction(run_signals[k], &sa, NULL) == 0;
    }
    c->hooks.should_stop = run_should_stop;
    c->hooks.should_stop_arg = NULL;
    run_watch_start(s);
}

int run_signal_end_run(RunSignals *s) {
    if (s->watching) {
        pthread_mutex_lock(&s->lock);
        s->run_over = 1;
        pthread_cond_signal(&s->wake);
        pthread_mutex_unlock(&s->lock);
        pthread_join(s->thread, NULL);
        pthread_mutex_destroy(&s->lock);
        pthread_cond_destroy(&s->wake);
        s->watching = 0;
    }
    s->at_end_run = run_signal_caught();
    return s->at_end_run;
}

int run_signal_end(RunSignals *s, int rc) {
    if (s->watching)
        run_signal_end_run(s);
    int sig = run_signal_caught();
    int caller_handles = 0;
    for (int k = 0; k < RUN_SIGNAL_COUNT; k++) {
        if (!s->installed[k])
            continue;
        sigaction(run_signals[k], &s->old[k], NULL);
        s->installed[k] = 0;
        if (run_signals[k] == sig)
            caller_handles = (s->old[k].sa_flags & SA_SIGINFO) ||
                             (s->old[k].sa_handler != SIG_DFL && s->old[k].sa_handler != SIG_IGN);
    }
    atomic_store(&run_signal_note, 0);
    if (sig == 0)
        return rc;
    if (s->at_end_run == 0) {
        fflush(stdout);
        fprintf(stderr, "ddplab run: interrupted by %s after the run had finished; the files "
                        "it was writing were completed\n", run_signal_name(sig));
        rc = 128 + sig;
    }
    if (caller_handles) {
        fflush(NULL);
        raise(sig); // the caller's handler notes it (a lesson stops after this block)
    }
    return rc;
}

// ----------------------------------------------------------------------------
// the line

// What the checkpoint at path says of itself, in out: "the last checkpoint,
// 'ck.st' at step 12, is intact", or why it is not, or "" without --save.
static void run_ckpt_note(const char *path, char *out, size_t n) {
    out[0] = '\0';
    if (path == NULL)
        return;
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(out, n, " (no checkpoint had been saved yet)");
        return;
    }
    SimStFile f;
    char err[512];
    if (sim_stfile_load(&f, path, err, sizeof err) != SIM_OK) {
        snprintf(out, n, " (the checkpoint cannot be read: %s)", err);
        return;
    }
    const char *step = sim_stfile_meta(&f, "step");
    snprintf(out, n, " (the last checkpoint, '%s'%s%s, is intact)", path,
             step ? " at step " : "", step ? step : "");
    sim_stfile_free(&f);
}

int run_signal_interrupted(const RunOptions *o, const SimTrainConfig *c, const SimTrainer *t0,
                           const RunMetrics *m, int sig) {
    int64_t end = c->loop.stop_after > 0 && c->loop.stop_after < c->loop.steps ? c->loop.stop_after : c->loop.steps;
    char where[96];
    if (t0->step >= end)
        snprintf(where, sizeof where, "after its last step (%lld)", (long long)t0->step);
    else
        snprintf(where, sizeof where, "at step %lld of %lld", (long long)t0->step + 1,
                 (long long)c->loop.steps);
    char ck[700], log[700] = "";
    run_ckpt_note(o->save, ck, sizeof ck);
    // the metrics log keeps the steps that finished (run_metrics.h)
    if (m && m->last > 0)
        snprintf(log, sizeof log, "--metrics '%.500s' holds steps %lld to %lld, ", m->path,
                 (long long)m->first, (long long)m->last);
    const char *rest = o->save ? "no other file" : log[0] ? "nothing else" : "nothing";
    fflush(stdout);
    fprintf(stderr, "ddplab run: interrupted by %s %s; %s%s was written%s\n",
            run_signal_name(sig), where, log, rest, ck);
    return 128 + sig;
}
