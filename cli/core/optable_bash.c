// cli/core/optable_bash.c: the bash completion script made from the commands'
// option tables (see optable_docs.h): the commands, then per command its
// options, and after an option the words it takes (an item of a list after
// the last comma), file names where it takes a file, nothing where it takes
// a number or a spec.
#include "core/optable_docs.h"

#include <string.h>

// Every name of the rows of t (-n and --ranks), space-separated.
static void option_words(FILE *out, const CliOptTable *t) {
    const char *sep = "";
    for (int s = 0; s < t->nsections; s++) {
        int n;
        const CliOptRow *rows = cli_optab_rows(&t->sections[s], &n);
        for (int i = 0; i < n; i++) {
            if (rows[i].shortname)
                fprintf(out, "%s-%c", sep, rows[i].shortname), sep = " ";
            fprintf(out, "%s--%s", sep, rows[i].name);
            sep = " ";
        }
    }
}

// The case pattern of a row's names: "-n|--ranks".
static void row_pattern(FILE *out, const CliOptRow *row) {
    if (row->shortname)
        fprintf(out, "-%c|", row->shortname);
    fprintf(out, "--%s", row->name);
}

static void row_values(FILE *out, const CliOptRow *row) {
    fputs("        ", out);
    row_pattern(out, row);
    if (row->words) {
        fputs(")\n            _ddplab_words", out);
        fputs(row->kind == CLI_OPT_LIST ? " list" : " one", out);
        for (int i = 0; row->words[i]; i++)
            fprintf(out, " %s", row->words[i]);
        fputs("\n            return ;;\n", out);
    } else if (row->kind == CLI_OPT_PATH) {
        fputs(")\n            COMPREPLY=($(compgen -f -- \"$cur\"))\n            return ;;\n", out);
    } else {
        fputs(") return ;;\n", out); // a number or a spec: nothing to offer
    }
}

static void command_case(FILE *out, const CliOptTable *t) {
    fprintf(out, "    %s)\n        case \"$prev\" in\n", t->name);
    for (int s = 0; s < t->nsections; s++) {
        int n;
        const CliOptRow *rows = cli_optab_rows(&t->sections[s], &n);
        for (int i = 0; i < n; i++)
            if (rows[i].kind != CLI_OPT_FLAG)
                row_values(out, &rows[i]);
    }
    fputs("        esac\n        words=\"", out);
    option_words(out, t);
    fputs("\" ;;\n", out);
}

static void command_names(FILE *out, const CliOptProgram *p) {
    for (int i = 0; i < p->ncommands; i++)
        fprintf(out, "%s ", p->commands[i].name);
    fputs("help completion", out);
}

void cli_optab_bash(FILE *out, const CliOptProgram *p) {
    fputs("# bash completion for ddplab, made by 'ddplab completion bash' from the\n"
          "# commands' option tables. Load it with:  source <(ddplab completion bash)\n"
          "\n"
          "# _ddplab_words one|list WORD...: the words that complete $cur (for a list,\n"
          "# the item after its last comma)\n"
          "_ddplab_words() {\n"
          "    local how=$1 pre=\"\" last=$cur\n"
          "    shift\n"
          "    if [ \"$how\" = list ] && [[ $cur == *,* ]]; then\n"
          "        pre=${cur%,*},\n"
          "        last=${cur##*,}\n"
          "    fi\n"
          "    COMPREPLY=($(compgen -P \"$pre\" -W \"$*\" -- \"$last\"))\n"
          "}\n"
          "\n"
          "_ddplab() {\n"
          "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} words=\"\"\n"
          "    COMPREPLY=()\n"
          "    # --opt=value: bash splits at '=' (COMP_WORDBREAKS)\n"
          "    if [ \"$cur\" = \"=\" ]; then\n"
          "        cur=\"\"\n"
          "    elif [ \"$prev\" = \"=\" ] && [ \"$COMP_CWORD\" -ge 2 ]; then\n"
          "        prev=${COMP_WORDS[COMP_CWORD-2]}\n"
          "    fi\n"
          "    if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
          "        words=\"",
          out);
    command_names(out, p);
    fputs(" --help --version\"\n"
          "        COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
          "        return\n"
          "    fi\n"
          "    case \"${COMP_WORDS[1]}\" in\n",
          out);
    for (int i = 0; i < p->ncommands; i++)
        if (p->commands[i].table)
            command_case(out, p->commands[i].table);
    fputs("    help)\n        [ \"$COMP_CWORD\" -eq 2 ] && words=\"", out);
    command_names(out, p);
    fputs("\" ;;\n"
          "    completion)\n        [ \"$COMP_CWORD\" -eq 2 ] && words=\"bash\" ;;\n"
          "    *)\n"
          "        words=\"--help\" ;;\n"
          "    esac\n"
          "    COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
          "}\n"
          "complete -o bashdefault -o default -F _ddplab ddplab\n",
          out);
}
