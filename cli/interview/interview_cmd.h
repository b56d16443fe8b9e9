// cli/interview/interview_cmd.h: `ddplab interview`, the interview drill.
#ifndef DDPLAB_CLI_INTERVIEW_CMD_H
#define DDPLAB_CLI_INTERVIEW_CMD_H

#include <stdio.h>

// `ddplab interview ...`: argv[0] is "interview". Returns an exit code.
int interview_main(int argc, char **argv);
void interview_help(FILE *out);

#endif
