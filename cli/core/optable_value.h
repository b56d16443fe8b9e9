// cli/core/optable_value.h: an option's value as its row's kind reads it, and
// its store into the command's options (the parser's part, optable.c).
#ifndef DDPLAB_CLI_OPTABLE_VALUE_H
#define DDPLAB_CLI_OPTABLE_VALUE_H

#include "core/optable.h" // defines: CliOptRow, CliOptValue, CliOptCtx

// Checks text against the row's kind and fills *v. Returns 0, or -1 after
// one line on stderr in the table's wording.
int cli_optab_value(const CliOptCtx *cx, const CliOptRow *row, const char *text,
                    CliOptValue *v);
// Writes v into the row's field of dest, as its store says (nothing for
// CLI_STORE_NONE).
void cli_optab_store(const CliOptRow *row, const CliOptValue *v, void *dest);

#endif
