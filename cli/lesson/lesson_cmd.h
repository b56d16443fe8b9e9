// cli/lesson/lesson_cmd.h: `ddplab lesson`, the lessons' menu and player.
#ifndef DDPLAB_CLI_LESSON_CMD_H
#define DDPLAB_CLI_LESSON_CMD_H

#include <stdio.h>

// `ddplab lesson [NAME|FILE] ...` (and `ddplab` alone: argv = {"lesson"}):
// the lessons' menu, or one lesson played. Returns an exit code.
int lesson_main(int argc, char **argv);
void lesson_help(FILE *out);

#endif
