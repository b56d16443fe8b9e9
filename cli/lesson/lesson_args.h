// cli/lesson/lesson_args.h: the command line of `ddplab lesson` (lesson.c), as a
// parser of its own so that it can be checked without playing a lesson.
#ifndef DDPLAB_CLI_LESSON_ARGS_H
#define DDPLAB_CLI_LESSON_ARGS_H

typedef struct {
    const char *name;    // NAME|FILE, or NULL (the menu)
    const char *viz;     // NULL: chosen by the terminal
    const char *backend;
    const char *dir;
    int non_interactive;
    int list;
} LessonArgs;

// Parses argv[1..argc) (argv[0] is "lesson"); strings in a point into argv.
// Returns 0 to go on, -1 after printing the help (--help) on stdout, or
// CLI_EXIT_USAGE after printing one line on stderr.
int lesson_args_parse(int argc, char **argv, LessonArgs *a);
// --viz and --backend against this build. 0, or an exit code after printing
// one line on stderr.
int lesson_args_check(LessonArgs *a);

#endif
