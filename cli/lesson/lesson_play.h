// cli/lesson/lesson_play.h: playing one lesson: its narrative wrapped to the
// terminal, each ```ddplab block shown, run and summed up in a line, the
// view opened at each of its pauses (a text frame, or the ncurses / SDL2
// view until q), and each question asked, answered and graded against the
// fact its run computed.
//
// With non_interactive set the player answers every question with the
// recorded answer and checks it against the fact: a lesson whose numbers
// went stale, whose commands end with another exit code than it expects,
// or whose pauses name no event fails (exit code 1), each problem reported
// as "FILE:LINE: ..." on stderr.
#ifndef DDPLAB_CLI_LESSON_PLAY_H
#define DDPLAB_CLI_LESSON_PLAY_H

#include <stdio.h>

#include "learn/lesson.h" // defines: Lesson

typedef struct {
    const char *viz;     // "text", "ncurses" or "sdl"
    int non_interactive; // answer with the recorded answers, and check them
    const char *backend; // --backend NAME for run and bench blocks, or NULL
    FILE *in;            // where answers come from (stdin)
    FILE *out;           // where the lesson goes (stdout: the blocks' output,
                         // captured from fd 1, is copied there)
    int width;           // columns of the narrative (text frames: at least 80)
    int unicode;         // text frames with box drawing
    int wait_enter;      // text view: wait for Enter at each pause
} LessonPlayOpts;

typedef struct {
    int asked, right;    // questions asked, and answered right
    int failures;        // checks that failed (see above)
    int completed;       // played to its end
} LessonPlayResult;

// Plays l. Returns CLI_EXIT_OK, CLI_EXIT_CHECK when a check failed, or
// CLI_EXIT_INTERNAL when the scratch directory could not be made.
int lesson_play(const Lesson *l, const LessonPlayOpts *o, LessonPlayResult *res);

#endif
