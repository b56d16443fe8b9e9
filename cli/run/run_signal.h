// cli/run/run_signal.h: Ctrl-C (SIGINT), SIGTERM and SIGHUP while `ddplab run`
// trains. The ranks stop within a few tens of milliseconds whatever
// --watchdog is, no output file is left half written or as a temporary, and
// the program ends with 128 + the signal (130 for SIGINT, 143 for SIGTERM,
// 129 for SIGHUP) after one line saying where it stopped.
//
// How: the handler only notes the signal (an atomic int that this module
// owns). Two things watch the note, because neither alone stops every rank:
//   - a watcher thread, started around the run, polls it every 20 ms and
//     cancels the world (sim_world_cancel): ranks waiting in a collective,
//     and every later collective, fail at once;
//   - the training loop asks it at every step boundary
//     (SimTrainConfig.should_stop): a rank that runs no collective (one
//     rank, --strategy single) stops before its next step.
// The handlers are in place only from run_signal_begin to run_signal_end;
// they are not installed for a signal that was ignored when the run began
// (a job started with nohup or in the background of a script). While the
// run is stopping, a second signal takes its default action: a second
// Ctrl-C ends the process at once. The ncurses view, which handles these
// signals itself while it is open, hands them on to these handlers when it
// closes (viz/view_curses.c raises them again), so the live view stops the
// run the same way.
#ifndef DDPLAB_CLI_RUN_SIGNAL_H
#define DDPLAB_CLI_RUN_SIGNAL_H

#include <pthread.h>
#include <signal.h>

#include "engine/world.h" // defines: SimWorld
#include "run/run.h"      // defines: RunOptions
#include "train/train.h"  // defines: SimTrainConfig, SimTrainer

enum { RUN_SIGNAL_COUNT = 3 }; // SIGINT, SIGTERM, SIGHUP

// One run's handlers and watcher. Lives on the caller's stack from begin
// to end.
typedef struct {
    struct sigaction old[RUN_SIGNAL_COUNT]; // the handlers to put back
    int installed[RUN_SIGNAL_COUNT];        // 1: ours replaced old[k]
    SimWorld *world;                        // what the watcher cancels
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int watching;   // 1: the watcher thread exists (joined by run_signal_end_run)
    int run_over;   // under lock: the run has returned; the watcher leaves
    int at_end_run; // the signal seen by run_signal_end_run (0: none)
} RunSignals;

// Installs the handlers, points c->hooks.should_stop at the note, and starts the
// watcher for w. If the thread cannot be created, the step boundary check
// still stops the ranks (those waiting in a collective then wait for the
// watchdog).
void run_signal_begin(RunSignals *s, SimWorld *w, SimTrainConfig *c);
// After the ranks have returned: stops and joins the watcher (no thread is
// left), and returns the signal that arrived so far (0: none). The handlers
// stay, so that the files the run writes next are not cut short by one.
int run_signal_end_run(RunSignals *s);
// Puts the old handlers back. rc is the run's exit code so far. A signal
// that arrived after run_signal_end_run (while the files were written,
// which were then completed) is reported in one line and makes the code
// 128 + signal; otherwise rc is returned. When a handler of the caller's
// own was in place (a lesson playing the run), the signal is raised again
// for it to see, as the ncurses view does.
int run_signal_end(RunSignals *s, int rc);

// The signal noted since run_signal_begin (0: none). Any thread.
int run_signal_caught(void);
// "SIGINT", "SIGTERM", "SIGHUP" or "signal N" (in a static buffer for the
// last case: one thread at a time).
const char *run_signal_name(int sig);

// The line for a run stopped by sig, on stderr, e.g.
//   ddplab run: interrupted by SIGINT at step 13 of 1000; --metrics 'm.jsonl'
//   holds steps 1 to 12, no other file was written (the last checkpoint,
//   'ck.st' at step 12, is intact)
// ("nothing was written" without --save or a metrics line). t0 is rank 0's
// trainer, read after the ranks returned; m the closed --metrics log. The
// checkpoint named by --save is read back and checked (checksum) before it
// is called intact. Returns the exit code, 128 + sig.
int run_signal_interrupted(const RunOptions *o, const SimTrainConfig *c, const SimTrainer *t0,
                           const RunMetrics *m, int sig);

#endif
