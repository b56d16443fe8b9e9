// viz/view_curses.c: viz_curses_run, the interactive terminal view. Each
// frame: pull what a live run added (viz_source_poll), move a playing
// cursor, draw the scene at the cursor when anything changed
// (view_curses_frame.c) and copy it to the terminal (view_curses_screen.c),
// then wait for a key for at most one frame's time.
//
// The terminal is restored on every way out: quitting, errors, an exit()
// elsewhere (the screen's atexit guard), and SIGINT / SIGTERM / SIGHUP,
// whose handlers only note the signal; the loop sees it within one frame,
// restores the terminal, puts the previous handlers back and raises the
// signal again, so the process ends as the signal meant it to.
#define _XOPEN_SOURCE 700

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "view_curses_internal.h"
#include "views.h"

enum {
    CURSES_FRAME_MS_MIN = 10,  // playing fast: at most 100 frames a second
    CURSES_FRAME_MS_MAX = 50,  // playing slowly: still notice keys and signals
    CURSES_IDLE_LIVE_MS = 100, // paused while a live run adds events
    CURSES_IDLE_MS = 250,      // paused on a finished trace
    CURSES_KEYS_PER_FRAME = 64,
};

static const int curses_signals[] = {SIGINT, SIGTERM, SIGHUP};
enum { CURSES_NSIGNALS = 3 };

// The signal that asked the view to stop (0: none). Written by the handler.
static volatile sig_atomic_t curses_stop_signal;

static void curses_on_signal(int sig) {
    curses_stop_signal = sig;
}

int viz_curses_available(void) {
    return 1;
}

static double curses_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// Events the view may show now, and whether more will come.
static void curses_sync_player(VizPlayer *p, const VizSource *src) {
    size_t n = src->model ? viz_model_count(src->model) : 0;
    p->available = src->settled < n ? src->settled : n;
    p->live_done = src->live == NULL || viz_live_done(src->live);
    if (src->trace->nranks > p->nranks)
        p->nranks = src->trace->nranks;
}

// The speed step nearest to (at least) the events per second asked for.
static void curses_set_speed(VizPlayer *p, double speed) {
    if (!(speed > 0))
        return;
    for (int k = 0; k < 32 && viz_player_speed(p) < speed; k++) {
        double before = viz_player_speed(p);
        viz_player_key(p, NULL, '+');
        if (viz_player_speed(p) == before)
            break;
    }
    for (int k = 0; k < 32 && viz_player_speed(p) > speed; k++) {
        double before = viz_player_speed(p);
        viz_player_key(p, NULL, '-');
        if (viz_player_speed(p) == before || viz_player_speed(p) < speed) {
            if (viz_player_speed(p) < speed)
                viz_player_key(p, NULL, '+');
            break;
        }
    }
    p->message[0] = '\0';
}

// How long to wait for a key before the next frame.
static int curses_wait_ms(const VizPlayer *p) {
    if (p->playing) {
        int ms = (int)(1000.0 / viz_player_speed(p));
        return ms < CURSES_FRAME_MS_MIN ? CURSES_FRAME_MS_MIN
               : ms > CURSES_FRAME_MS_MAX ? CURSES_FRAME_MS_MAX
                                          : ms;
    }
    return p->live_done ? CURSES_IDLE_MS : CURSES_IDLE_LIVE_MS;
}

// The loop proper, between opening and closing the screen.
static SimStatus curses_loop(VizScreen *scr, VizSource *src, const VizViewOpts *o,
                             char *err, size_t errlen) {
    VizPlayer p;
    VizFrame f;
    viz_frame_init(&f);
    viz_player_init(&p, 0, src->trace->nranks);
    curses_sync_player(&p, src);
    curses_set_speed(&p, o->speed);
    int start_pending = o->start > 0;
    p.playing = o->autoplay != 0;
    int fitted = 0, dirty = 1, suggested = 0;
    char why[128] = "";
    SimStatus st = SIM_OK;
    double last = curses_now();
    while (!p.quit && curses_stop_signal == 0) {
        if (viz_source_poll(src)) {
            if (!suggested && src->model != NULL) {
                viz_player_suggest_jump(&p, src->model);
                suggested = 1;
            }
            curses_sync_player(&p, src);
            dirty = 1;
        }
        // The event to open at, once it is there (or the last one of a
        // finished trace shorter than that).
        if (start_pending && (p.available > o->start || (p.live_done && p.available > 0))) {
            p.pos = (double)(o->start < p.available ? o->start : p.available - 1);
            start_pending = 0;
            dirty = 1;
        }
        double now = curses_now();
        if (viz_player_tick(&p, src->model, now - last))
            dirty = 1;
        last = now;
        if (dirty) {
            int w, h;
            viz_screen_size(scr, &w, &h);
            st = viz_frame_draw(&f, src->model, &p, w, h, viz_screen_unicode(scr),
                                       o->lesson);
            if (st != SIM_OK) {
                snprintf(err, errlen, "drawing the frame for event %zu: %s",
                         viz_player_index(&p), sim_strerror(st));
                break;
            }
            viz_screen_show(scr, &f.canvas);
            if (f.ok)
                fitted = 1;
            else
                snprintf(why, sizeof why, "%s", f.layout.why);
            dirty = 0;
        }
        int key = viz_screen_key(scr, curses_wait_ms(&p));
        for (int k = 0; key != VIZ_SCREEN_NOKEY && k < CURSES_KEYS_PER_FRAME && !p.quit; k++) {
            if (key == VIZ_SCREEN_RESIZED) {
                viz_screen_invalidate(scr);
                dirty = 1;
            } else if (viz_player_key(&p, src->model, key)) {
                dirty = 1;
            }
            key = viz_screen_key(scr, 0);
        }
    }
    viz_frame_free(&f);
    if (st == SIM_OK && !fitted && curses_stop_signal == 0) {
        snprintf(err, errlen, "%s", why[0] ? why : "the terminal is too small");
        st = SIM_EINVAL;
    }
    return st;
}

SimStatus viz_curses_run(VizSource *src, const VizViewOpts *o, char *err, size_t errlen) {
    static const VizViewOpts defaults; // zero: every option at its default
    if (o == NULL)
        o = &defaults;
    if (err != NULL && errlen > 0)
        err[0] = '\0';
    char scratch[8];
    if (err == NULL || errlen == 0) {
        err = scratch;
        errlen = sizeof scratch;
    }
    if (src == NULL || src->trace == NULL) {
        snprintf(err, errlen, "no trace to show");
        return SIM_EINVAL;
    }
    FILE *out = o->tty_out ? o->tty_out : stdout;
    fflush(out);
    if (!isatty(fileno(out))) {
        snprintf(err, errlen, "the ncurses view needs a terminal to draw on, and %s is not one; "
                              "use --viz text",
                 o->tty_out ? "its output" : "standard output");
        return SIM_ENOTSUP;
    }
    if (!isatty(STDIN_FILENO)) {
        snprintf(err, errlen, "the ncurses view reads keys from a terminal, and standard input "
                              "is not one; use --viz text");
        return SIM_ENOTSUP;
    }
    // Our handlers go in before newterm: ncurses then leaves these signals
    // to us instead of installing its own.
    struct sigaction old[CURSES_NSIGNALS], sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = curses_on_signal;
    sigemptyset(&sa.sa_mask);
    curses_stop_signal = 0;
    for (int k = 0; k < CURSES_NSIGNALS; k++)
        sigaction(curses_signals[k], &sa, &old[k]);
    // Unicode follows the locale (o->unicode is the text view's choice).
    VizScreen *scr = viz_screen_open(out, stdin, NULL, -1, err, errlen);
    SimStatus st = scr ? curses_loop(scr, src, o, err, errlen) : SIM_ENOTSUP;
    viz_screen_close(scr);
    for (int k = 0; k < CURSES_NSIGNALS; k++)
        sigaction(curses_signals[k], &old[k], NULL);
    int sig = curses_stop_signal;
    curses_stop_signal = 0;
    if (sig != 0) {
        raise(sig); // with the caller's handler back: by default, the end
        snprintf(err, errlen, "stopped by signal %d", sig);
        return SIM_OK;
    }
    return st;
}
