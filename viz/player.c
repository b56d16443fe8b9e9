// viz/player.c: see player.h. The cursor is a double so that playing can
// advance it by fractions of an event per frame (speed x frame time); every
// jump puts it back on a whole event.
#include "player.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Events per second of each speed step (+ / - move along it).
static const int player_speeds[] = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 5000};
enum {
    PLAYER_NSPEEDS = (int)(sizeof player_speeds / sizeof player_speeds[0]),
    PLAYER_DEFAULT_SPEED = 3, // 10 events per second
};

// What k cycles through, in order: the things worth stopping at first.
static const VizJump player_jump_cycle[] = {
    VIZ_JUMP_BUCKET_LAUNCH, VIZ_JUMP_GATHER,      VIZ_JUMP_COLL,        VIZ_JUMP_COLL_STEP,
    VIZ_JUMP_PHASE,         VIZ_JUMP_ITERATION,   VIZ_JUMP_BUCKET_DONE, VIZ_JUMP_REDUCE,
    VIZ_JUMP_FREE,          VIZ_JUMP_MEMORY_PEAK, VIZ_JUMP_MARKER,      VIZ_JUMP_FAULT,
    VIZ_JUMP_ANY,
};
enum { PLAYER_NJUMPS = (int)(sizeof player_jump_cycle / sizeof player_jump_cycle[0]) };

void viz_player_init(VizPlayer *p, size_t available, int nranks) {
    memset(p, 0, sizeof *p);
    p->available = available;
    // A replay has every event from the start; a live view clears this
    // until its run finishes.
    p->live_done = 1;
    p->speed = PLAYER_DEFAULT_SPEED;
    p->nranks = nranks > 0 ? nranks : 1;
    p->jump = player_jump_cycle[0];
}

void viz_player_suggest_jump(VizPlayer *p, const VizModel *m) {
    static const VizJump order[] = {VIZ_JUMP_GATHER, VIZ_JUMP_BUCKET_LAUNCH, VIZ_JUMP_COLL};
    if (m == NULL)
        return;
    for (size_t k = 0; k < sizeof order / sizeof order[0]; k++)
        if (viz_model_next(m, SIZE_MAX, order[k], +1) != SIZE_MAX) {
            p->jump = order[k];
            return;
        }
}

size_t viz_player_index(const VizPlayer *p) {
    if (p->available == 0 || !(p->pos > 0))
        return 0;
    double last = (double)(p->available - 1);
    if (p->pos >= last)
        return p->available - 1;
    return (size_t)p->pos;
}

double viz_player_frac(const VizPlayer *p) {
    if (p->available == 0 || !(p->pos > 0))
        return 0;
    if (p->pos >= (double)(p->available - 1))
        return 0;
    return p->pos - floor(p->pos);
}

double viz_player_speed(const VizPlayer *p) {
    if (p->rate > 0)
        return p->rate;
    int k = p->speed < 0 ? 0 : p->speed >= PLAYER_NSPEEDS ? PLAYER_NSPEEDS - 1 : p->speed;
    return player_speeds[k];
}

// Puts the cursor on event i (clamped to what is available).
static void player_seek(VizPlayer *p, size_t i) {
    if (p->available == 0)
        i = 0;
    else if (i >= p->available)
        i = p->available - 1;
    p->pos = (double)i;
}

static void player_say(VizPlayer *p, const char *msg) {
    snprintf(p->message, sizeof p->message, "%s", msg);
}

// The jump kind's name as the user reads it ("bucket-launch").
static const char *player_jump_label(VizJump k) {
    const char *s = viz_jump_name(k);
    return s ? s : "?";
}

// N / P: the first event of the next / previous iteration. P from inside an
// iteration goes to an earlier iteration's start, not the current one's, so
// that N then P comes back to where N started.
static void player_iteration(VizPlayer *p, const VizModel *m, int dir) {
    if (m == NULL || viz_model_iterations(m) <= 0) {
        player_say(p, "no iterations in this trace");
        return;
    }
    size_t i = viz_player_index(p);
    int it = viz_model_iteration_of(m, i);
    int n = viz_model_iterations(m);
    int target = it + dir;
    if (dir < 0 && it >= 0 && target < 0 && viz_model_iteration_start(m, 0) < i)
        target = 0; // P inside iteration 0 goes back to its start
    size_t at = target >= 0 && target < n ? viz_model_iteration_start(m, target) : SIZE_MAX;
    if (at == SIZE_MAX || at >= p->available) {
        player_say(p, dir > 0 ? "no later iteration yet" : "no earlier iteration");
        return;
    }
    player_seek(p, at);
}

// ] / [: the next / previous event of the chosen kind.
static void player_jump(VizPlayer *p, const VizModel *m, int dir) {
    if (m == NULL) {
        player_say(p, "no events yet");
        return;
    }
    size_t at = viz_model_next(m, viz_player_index(p), p->jump, dir);
    if (at == SIZE_MAX || at >= p->available) {
        snprintf(p->message, sizeof p->message, "no %s %s", dir > 0 ? "later" : "earlier",
                 player_jump_label(p->jump));
        return;
    }
    player_seek(p, at);
}

// + / - from a lesson's pace: the table's next step above / below it.
static void player_leave_rate(VizPlayer *p, int dir) {
    int k = 0;
    if (dir > 0) {
        while (k + 1 < PLAYER_NSPEEDS && player_speeds[k] <= p->rate)
            k++;
    } else {
        k = PLAYER_NSPEEDS - 1;
        while (k > 0 && player_speeds[k] >= p->rate)
            k--;
    }
    p->speed = k;
    p->rate = 0;
}

static void player_cycle_jump(VizPlayer *p) {
    int k = 0;
    while (k < PLAYER_NJUMPS && player_jump_cycle[k] != p->jump)
        k++;
    p->jump = player_jump_cycle[(k + 1) % PLAYER_NJUMPS];
    snprintf(p->message, sizeof p->message, "] and [ now jump to: %s",
             player_jump_label(p->jump));
}

// The target typed after g: "120" is event 120, "i3" iteration 3.
static void player_goto(VizPlayer *p, const VizModel *m) {
    const char *s = p->goto_buf;
    int iteration = s[0] == 'i' || s[0] == 'I';
    if (iteration)
        s++;
    char *end = NULL;
    unsigned long long v = *s ? strtoull(s, &end, 10) : 0;
    if (*s == '\0' || end == NULL || *end != '\0' || *s == '-' || *s == '+') {
        snprintf(p->message, sizeof p->message,
                 "go to: type an event number or iN for iteration N");
        return;
    }
    if (iteration) {
        int n = m ? viz_model_iterations(m) : 0;
        size_t at = v < (unsigned long long)n ? viz_model_iteration_start(m, (int)v) : SIZE_MAX;
        if (at == SIZE_MAX || at >= p->available) {
            // numbered from 0, as the header and the captions number them
            if (n > 0)
                snprintf(p->message, sizeof p->message, "no iteration %llu (iterations 0..%d)",
                         v, n - 1);
            else
                snprintf(p->message, sizeof p->message, "no iteration %llu (none yet)", v);
            return;
        }
        player_seek(p, at);
        return;
    }
    if (v >= p->available) {
        snprintf(p->message, sizeof p->message, "no event %llu (events 0..%zu)", v,
                 p->available ? p->available - 1 : 0);
        return;
    }
    player_seek(p, (size_t)v);
}

// A key while typing the target of g.
static int player_goto_key(VizPlayer *p, const VizModel *m, int key) {
    size_t n = strlen(p->goto_buf);
    if (key == VIZ_KEY_ENTER || key == '\n' || key == '\r') {
        p->goto_mode = 0;
        p->playing = 0;
        player_goto(p, m);
    } else if (key == VIZ_KEY_ESCAPE || key == 'g' || key == 'q') {
        p->goto_mode = 0;
    } else if (key == VIZ_KEY_BACKSPACE || key == 127 || key == 8) {
        if (n > 0)
            p->goto_buf[n - 1] = '\0';
        else
            p->goto_mode = 0;
    } else if (((key >= '0' && key <= '9') || ((key == 'i' || key == 'I') && n == 0)) &&
               n + 1 < sizeof p->goto_buf) {
        p->goto_buf[n] = (char)key;
        p->goto_buf[n + 1] = '\0';
    } else {
        return 0;
    }
    return 1;
}

int viz_player_key(VizPlayer *p, const VizModel *m, int key) {
    p->message[0] = '\0';
    if (p->goto_mode)
        return player_goto_key(p, m, key);
    if (p->help && key != 'q' && key != 'Q') {
        p->help = 0; // any key closes the help (and does nothing else)
        return 1;
    }
    size_t i = viz_player_index(p);
    switch (key) {
    case ' ':
        p->playing = !p->playing;
        // Play from the end of a finished trace starts it over.
        if (p->playing && p->live_done && p->available > 0 && i + 1 >= p->available)
            p->pos = 0;
        if (p->playing)
            p->pos = floor(p->pos);
        break;
    case 'n':
    case VIZ_KEY_RIGHT:
        p->playing = 0;
        if (i + 1 < p->available)
            player_seek(p, i + 1);
        else
            player_say(p, p->live_done ? "this is the last event" : "waiting for more events");
        break;
    case 'p':
    case VIZ_KEY_LEFT:
        p->playing = 0;
        if (i > 0)
            player_seek(p, i - 1);
        else
            player_say(p, "this is the first event");
        break;
    case 'N':
    case VIZ_KEY_PAGE_DOWN:
        p->playing = 0;
        player_iteration(p, m, +1);
        break;
    case 'P':
    case VIZ_KEY_PAGE_UP:
        p->playing = 0;
        player_iteration(p, m, -1);
        break;
    case ']':
        p->playing = 0;
        player_jump(p, m, +1);
        break;
    case '[':
        p->playing = 0;
        player_jump(p, m, -1);
        break;
    case 'k':
        player_cycle_jump(p);
        break;
    case '+':
    case '=':
        if (p->rate > 0)
            player_leave_rate(p, +1);
        else if (p->speed + 1 < PLAYER_NSPEEDS)
            p->speed++;
        break;
    case '-':
    case '_':
        if (p->rate > 0)
            player_leave_rate(p, -1);
        else if (p->speed > 0)
            p->speed--;
        break;
    case 'r':
    case VIZ_KEY_DOWN:
        p->selected_rank = (p->selected_rank + 1) % p->nranks;
        break;
    case 'R':
    case VIZ_KEY_UP:
        p->selected_rank = (p->selected_rank + p->nranks - 1) % p->nranks;
        break;
    case 't':
        p->use_wall = !p->use_wall;
        player_say(p, p->use_wall ? "clock: measured wall time" : "clock: simulated time");
        break;
    case 'z':
        p->zoom = (p->zoom + 1) % VIZ_ZOOM_LEVELS;
        break;
    case 'Z':
        p->zoom = (p->zoom + VIZ_ZOOM_LEVELS - 1) % VIZ_ZOOM_LEVELS;
        break;
    case 'g':
        p->goto_mode = 1;
        p->goto_buf[0] = '\0';
        break;
    case VIZ_KEY_HOME:
        p->playing = 0;
        player_seek(p, 0);
        break;
    case VIZ_KEY_END:
        p->playing = 0;
        player_seek(p, p->available ? p->available - 1 : 0);
        break;
    case '?':
    case 'h':
        p->help = 1;
        break;
    case 'q':
    case 'Q':
        p->quit = 1;
        break;
    default:
        return 0;
    }
    return 1;
}

int viz_player_tick(VizPlayer *p, const VizModel *m, double dt) {
    (void)m;
    if (!p->playing || !(dt > 0))
        return 0;
    size_t before = viz_player_index(p);
    if (p->available == 0) {
        p->pos = 0;
        return 0;
    }
    double last = (double)(p->available - 1);
    p->pos += dt * viz_player_speed(p);
    if (p->pos >= last) {
        p->pos = last;
        if (p->live_done)
            p->playing = 0; // the end of a finished trace; a live one waits
    }
    return viz_player_index(p) != before;
}

// The clock at event i.
static double player_time(const SimEvent *ev, int wall, int end) {
    return wall ? (end ? ev->wall_end : ev->wall_start) : (end ? ev->sim_end : ev->sim_start);
}

// The span of time of the iteration event i belongs to (before the first
// iteration: from event 0 to it). 0 when the trace says nothing.
static double player_iteration_span(const VizModel *m, size_t i, int wall) {
    const VizTrace *t = viz_model_trace(m);
    size_t n = viz_model_count(m);
    if (t == NULL || n == 0 || i >= n)
        return 0;
    int it = viz_model_iteration_of(m, i);
    size_t a = it >= 0 ? viz_model_iteration_start(m, it) : 0;
    size_t b = it + 1 < viz_model_iterations(m) ? viz_model_iteration_start(m, it + 1) : SIZE_MAX;
    if (it < 0)
        b = viz_model_iterations(m) > 0 ? viz_model_iteration_start(m, 0) : SIZE_MAX;
    if (a >= n)
        return 0;
    double t0 = player_time(&t->ev[a], wall, 0), t1;
    if (b != SIZE_MAX && b < n) {
        t1 = player_time(&t->ev[b], wall, 0);
    } else {
        // The last iteration runs to the end of the trace: events are in
        // order of start, so the latest end is among the last few.
        t1 = t0;
        size_t from = n > 64 ? n - 64 : 0;
        for (size_t k = from < a ? a : from; k < n; k++) {
            double e = player_time(&t->ev[k], wall, 1);
            if (e > t1)
                t1 = e;
        }
    }
    return t1 > t0 ? t1 - t0 : 0;
}

void viz_player_scene_opts(const VizPlayer *p, const VizModel *m, int timeline_cols,
                           VizSceneOpts *o) {
    *o = viz_scene_opts_default();
    o->use_wall = p->use_wall;
    if (timeline_cols < 0)
        timeline_cols = 0;
    if (timeline_cols > VIZ_TIMELINE_MAX_COLS)
        timeline_cols = VIZ_TIMELINE_MAX_COLS;
    o->timeline_cols = timeline_cols;
    o->selected_rank = p->nranks > 0 ? p->selected_rank % p->nranks : 0;
    o->ntimeline_ranks = 0; // the scene picks lanes around the selected rank
    o->window = 0;          // the whole iteration
    if (p->zoom > 0 && m != NULL) {
        double span = player_iteration_span(m, viz_player_index(p), p->use_wall);
        if (span > 0)
            o->window = ldexp(span, -p->zoom);
    }
}

void viz_player_status(const VizPlayer *p, char *buf, size_t len) {
    if (len == 0)
        return;
    if (p->goto_mode) {
        snprintf(buf, len, "go to: %s_   (an event number, or iN for iteration N)  "
                           "Enter go  Esc cancel", p->goto_buf);
        return;
    }
    // The state first, then a message, then the keys: a narrow status line
    // cuts the key list, never the state or "? help  q quit".
    char extra[48] = "";
    if (p->zoom > 0 || p->use_wall)
        snprintf(extra, sizeof extra, "%s%s", p->use_wall ? "  wall clock" : "",
                 p->zoom > 0 ? "  zoom 1/" : "");
    if (p->zoom > 0) {
        size_t k = strlen(extra);
        snprintf(extra + k, sizeof extra - k, "%d", 1 << p->zoom);
    }
    const char *state = p->playing ? (p->live_done || viz_player_index(p) + 1 < p->available
                                          ? "playing"
                                          : "waiting")
                                   : "paused";
    // Event indices as g takes them (0-based), of the events available.
    int n = snprintf(buf, len, "%s  event %zu/%zu%s  %g/s  rank %d%s  ]/[ %s   %s%s? help  q quit"
                               "  space play  n/p step  N/P iter  k kind  +/- speed  g go to"
                               "  z zoom  r rank",
                     state, viz_player_index(p), p->available, p->live_done ? "" : "+",
                     viz_player_speed(p), p->selected_rank, extra, player_jump_label(p->jump),
                     p->message, p->message[0] ? "   " : "");
    (void)n;
}

const VizHelpKey *viz_player_help_keys(int *n) {
    static const VizHelpKey keys[] = {
        {"space", "play / pause", 0},
        {"n / p", "next / previous event", 0},
        {"N / P", "next / previous iteration", 0},
        {"] / [", "next / previous event of the chosen kind", 0},
        {"k", "choose that kind (bucket launch, all-gather, ...)", 0},
        {"+ / -", "faster / slower", 0},
        {"r / R", "next / previous rank", 0},
        {"t", "simulated / wall clock", 0},
        {"z", "zoom the timeline (iteration, 1/2, 1/4, ...)", 0},
        {"g", "go to: an event number or iN for iteration N, Enter", 0},
        {"Home / End", "first / last event", 0},
        {"s", "save the frame as a PNG", 1},
        {"wheel", "over the timeline: zoom; elsewhere: step", 1},
        {"click, drag", "timeline: go to that time, pan; a rank: select it", 1},
        {"?", "this help (any key closes it)", 0},
        {"q", "quit", 0},
    };
    *n = (int)(sizeof keys / sizeof keys[0]);
    return keys;
}
