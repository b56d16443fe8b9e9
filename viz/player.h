// viz/player.h: the controls shared by the ncurses and SDL2 views: a cursor
// over the events (fractional while playing, so SDL2 can animate between
// events), play / pause, speed, jumps, the selected rank, clock and zoom.
// Pure state; keys arrive as plain ints (ASCII, or the VIZ_KEY_* codes
// below), so the logic is tested without a terminal.
//
// Keys: space play/pause; n / p next / previous event; N / P next /
// previous iteration; ] / [ next / previous event of the chosen kind;
// k choose that kind (cycles: bucket launch, all-gather, collective, ...);
// + / - speed; r / R next / previous rank; t simulated / wall clock; z zoom
// the timeline (iteration, 1/2, 1/4, ... of it); g go to (type an event
// number or iN for iteration N, Enter); Home / End; ? help; q quit.
#ifndef DDPLAB_VIZ_PLAYER_H
#define DDPLAB_VIZ_PLAYER_H

#include <stddef.h>

#include "scene.h" // defines: VizModel, VizJump, VizSceneOpts

enum {
    VIZ_KEY_LEFT = 0x1000,
    VIZ_KEY_RIGHT,
    VIZ_KEY_UP,
    VIZ_KEY_DOWN,
    VIZ_KEY_HOME,
    VIZ_KEY_END,
    VIZ_KEY_ENTER,
    VIZ_KEY_BACKSPACE,
    VIZ_KEY_ESCAPE,
    VIZ_KEY_PAGE_UP,   // the player: as P
    VIZ_KEY_PAGE_DOWN, // the player: as N
    VIZ_KEY_TAB,
    VIZ_KEY_BACKTAB,
    VIZ_ZOOM_LEVELS = 8,
};

typedef struct {
    double pos;          // the cursor: event index, fractional while playing
    size_t available;    // events that may be shown (grows in a live run)
    int live_done;       // 1: no more events will come
    int playing;
    int speed;           // index into the speed table (events per second)
    double rate;         // > 0: events per second instead of the table's (a
                         // lesson's pace); + and - go back to the table
    int nranks;
    int selected_rank;
    int use_wall;
    int zoom;            // 0: the whole iteration; k: 1/2^k of it around the cursor
    VizJump jump;        // what ] and [ look for
    int help;            // the help overlay is shown
    int quit;
    int goto_mode;       // typing a target after g
    char goto_buf[24];
    char message[96];    // one-off feedback ("no later bucket launch")
} VizPlayer;

// available = the trace's events now; starts paused at event 0, speed 10/s.
void viz_player_init(VizPlayer *p, size_t available, int nranks);
// Points ] and [ at what the trace is about: FSDP all-gathers, else DDP
// bucket launches, else collectives (m may be NULL: nothing changes).
void viz_player_suggest_jump(VizPlayer *p, const VizModel *m);
// Handles one key. Returns 1 when the view must be redrawn.
int viz_player_key(VizPlayer *p, const VizModel *m, int key);
// Advances a playing cursor by dt seconds of wall time (stops at the last
// available event; in a live run it waits there for more). Returns 1 when
// the event under the cursor changed.
int viz_player_tick(VizPlayer *p, const VizModel *m, double dt);
// The event under the cursor, and how far (0..1) the cursor is towards the
// next one (for smooth animation).
size_t viz_player_index(const VizPlayer *p);
double viz_player_frac(const VizPlayer *p);
double viz_player_speed(const VizPlayer *p); // events per second
// Scene options from the player's state (clock, zoom window, rank lanes).
void viz_player_scene_opts(const VizPlayer *p, const VizModel *m, int timeline_cols,
                           VizSceneOpts *o);
// The status line: "paused  event 120/590  10/s  rank 0  ]/[ bucket-launch
// ? help  q quit  space play  n/p step ...". Events are numbered from 0 (as g
// takes them); the iteration is the header's.
void viz_player_status(const VizPlayer *p, char *buf, size_t len);

// The keys the help overlays list, in order: the key, what it does, and 1
// for those of the window alone (the mouse, saving a PNG). n: how many.
typedef struct {
    const char *key, *what;
    int window_only;
} VizHelpKey;
const VizHelpKey *viz_player_help_keys(int *n);

#endif
