// cli/core/optable_docs.h: the documents made from the commands' option
// tables: the man page ddplab(1) (`ddplab help --man`) and the bash
// completion script (`ddplab completion bash`). The program (cli/main.c)
// lists its commands; those with a table get every option from it, the
// others their help text (man) or their name (completion).
#ifndef DDPLAB_CLI_OPTABLE_DOCS_H
#define DDPLAB_CLI_OPTABLE_DOCS_H

#include <stdio.h>

#include "core/optable.h" // defines: CliOptTable

typedef struct {
    const char *name;          // "run"
    const char *summary;       // one line
    const CliOptTable *table;  // NULL: a command without a table
    void (*help)(FILE *out);   // its --help (the man page's text for one without a table)
} CliOptCommand;

typedef struct {
    const char *version;       // "0.9.0"
    const char *description;   // what the program is, lines separated by '\n'
    const CliOptCommand *commands;
    int ncommands;
} CliOptProgram;

// ddplab(1) in roff (man macros): NAME, SYNOPSIS, DESCRIPTION, COMMANDS,
// a section per command, EXIT STATUS.
void cli_optab_man(FILE *out, const CliOptProgram *p);
// A bash script that completes the commands, each command's options and the
// words an option takes (files where it takes a file).
void cli_optab_bash(FILE *out, const CliOptProgram *p);

#endif
