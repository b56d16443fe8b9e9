// cli/lesson/lesson_signals.h: how a lesson ends on Ctrl-C, a closed
// terminal or kill (SIGINT, SIGHUP, SIGTERM), in both players: the handler
// only notes the signal; the player sees it between its steps (a block that
// is running finishes first; the watchdog bounds it), removes its scratch
// directory, restores the terminal, and then the signal is raised again
// with the caller's handlers back, so the process ends as it meant to.
//
//   LessonSignals sg;
//   lesson_signals_catch(&sg);
//   while (!lesson_signals_caught()) ... one step ...
//   ... clean up ...
//   lesson_signals_release(&sg);   // raises the noted signal, if any
#ifndef DDPLAB_CLI_LESSON_SIGNALS_H
#define DDPLAB_CLI_LESSON_SIGNALS_H

#include <signal.h>

enum { LESSON_NSIGNALS = 3 };

typedef struct {
    struct sigaction old[LESSON_NSIGNALS];
} LessonSignals;

// Installs the noting handler (no SA_RESTART: a waiting read returns).
void lesson_signals_catch(LessonSignals *s);
// The signal noted since the catch (0: none).
int lesson_signals_caught(void);
// Puts the old handlers back, then raises the noted signal (if any).
void lesson_signals_release(LessonSignals *s);

#endif
