// cli/lesson/lesson_signals.c: see lesson_signals.h. The noted signal is
// this module's one piece of state, written only by the handler.
#define _POSIX_C_SOURCE 200809L

#include "lesson/lesson_signals.h"

#include <string.h>

static const int lesson_signal_list[LESSON_NSIGNALS] = {SIGINT, SIGTERM, SIGHUP};

static volatile sig_atomic_t lesson_signal_noted;

static void lesson_on_signal(int sig) {
    lesson_signal_noted = sig;
}

void lesson_signals_catch(LessonSignals *s) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = lesson_on_signal;
    sigemptyset(&sa.sa_mask);
    lesson_signal_noted = 0;
    for (int k = 0; k < LESSON_NSIGNALS; k++)
        sigaction(lesson_signal_list[k], &sa, &s->old[k]);
}

int lesson_signals_caught(void) {
    return lesson_signal_noted;
}

void lesson_signals_release(LessonSignals *s) {
    for (int k = 0; k < LESSON_NSIGNALS; k++)
        sigaction(lesson_signal_list[k], &s->old[k], NULL);
    int sig = lesson_signal_noted;
    lesson_signal_noted = 0;
    if (sig != 0)
        raise(sig); // with the caller's handler back: by default, the end
}
