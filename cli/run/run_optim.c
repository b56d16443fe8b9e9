// cli/run/run_optim.c: the optimizer family's options (--optimizer, --lr, ...,
// --amp) as rows of `ddplab run`'s option table, made from the engine's own
// table (sim/model/optim_flags.h): its names, placeholders and help, and its
// setter as every row's apply, so that the engine keeps the one definition
// and its own messages.
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "model/optim_flags.h" // defines: sim_optim_flags_table, sim_optim_flags_set
#include "run/run.h"           // defines: RunOptions, run_error
#include "run/run_opts.h"      // defines: run_optim_rows

enum { OPTIM_MAX_ROWS = 32, OPTIM_MAX_WORDS = 8 };

static CliOptRow rows[OPTIM_MAX_ROWS];
static int nrows;
// A placeholder such as "sgd|adam|adamw" split into its words, per row.
static char word_text[OPTIM_MAX_ROWS][64];
static const char *words[OPTIM_MAX_ROWS][OPTIM_MAX_WORDS + 1];
static pthread_once_t made = PTHREAD_ONCE_INIT;

static int set_flag(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v,
                    void *dest) {
    (void)cx;
    char err[512];
    if (sim_optim_flags_set(&((RunOptions *)dest)->opt, row->name, v->text, err, sizeof err) !=
        SIM_OK) {
        run_error("%s", err);
        return -1;
    }
    return 0;
}

// Words of a placeholder "a|b|c" into row i's words (NULL when it has none).
static const char *const *split_words(int i, const char *metavar) {
    if (metavar == NULL || strchr(metavar, '|') == NULL)
        return NULL;
    snprintf(word_text[i], sizeof word_text[i], "%s", metavar);
    int n = 0;
    for (char *p = word_text[i]; p && n < OPTIM_MAX_WORDS; n++) {
        words[i][n] = p;
        p = strchr(p, '|');
        if (p)
            *p++ = '\0';
    }
    words[i][n] = NULL;
    return words[i];
}

static void make_rows(void) {
    int n = 0;
    const SimOptimFlagInfo *f = sim_optim_flags_table(&n);
    for (int i = 0; i < n && i < OPTIM_MAX_ROWS; i++) {
        const char *const *w = split_words(i, f[i].metavar);
        rows[i] = (CliOptRow){
            .name = f[i].name,
            // the engine checks every value: the kinds here only say what it is
            .kind = f[i].metavar == NULL ? CLI_OPT_FLAG : w ? CLI_OPT_NAME : CLI_OPT_STRING,
            .metavar = f[i].metavar,
            .help = f[i].help,
            .words = w,
            .apply = set_flag,
        };
    }
    nrows = n < OPTIM_MAX_ROWS ? n : OPTIM_MAX_ROWS;
}

const CliOptRow *run_optim_rows(int *n) {
    pthread_once(&made, make_rows);
    *n = nrows;
    return rows;
}
