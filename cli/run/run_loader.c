// cli/run/run_loader.c: the input pipeline's options of `ddplab run`
// (--loader-workers, --prefetch, --sample-cost, --pin-memory): their rows of
// the option table (run_opts.c), their checks against the rest, the engine's
// SimDataStage (sim/data/data_stage.h) and the run report's line of data wait.
#include "run/run.h"

#include <stddef.h>
#include <string.h>

#include "run/run_opts.h" // defines: run_loader_rows

#define LOADER_MAX_WORKERS 1024
#define LOADER_MAX_PREFETCH 1024
#define LOADER_MAX_SAMPLE_COST 3600.0 // seconds: an hour per sample is already absurd
#define LOADER_REPORT_RANKS 8         // ranks named one by one in the report line

#define AT(field) .offset = offsetof(RunOptions, field)

static const char *const bits[] = {"0", "1", NULL};

// The first data-stage option given other than --sample-cost, and its value:
// without a cost it would silently change nothing (run_loader_check).
static int note_loader(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v,
                       void *dest) {
    (void)cx;
    RunOptions *o = dest;
    if (o->loader_flag == NULL) {
        o->loader_flag = row->name;
        o->loader_value = v->text;
    }
    return 0;
}

static int set_prefetch(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v,
                        void *dest) {
    ((RunOptions *)dest)->prefetch_text = v->text;
    return note_loader(cx, row, v, dest);
}

static int check_sample_cost(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v,
                             void *dest) {
    (void)dest;
    if (v->x < 0 || v->x > LOADER_MAX_SAMPLE_COST)
        return cli_optab_fail(cx, row->name, v->text, v->x < 0 ? "is negative" : "is out of range",
                              row->allowed);
    return 0;
}

static const CliOptRow rows[] = {
    {.name = "loader-workers", .kind = CLI_OPT_INT, .metavar = "N", .lo = 0,
     .hi = LOADER_MAX_WORKERS, .deflt = "0", .apply = note_loader,
     .store = CLI_STORE_INT, AT(loader_workers),
     .help = "the input pipeline in simulated time (with\n"
             "--sample-cost): DataLoader(num_workers=N).\n"
             "0: the training loop loads each batch itself"},
    {.name = "prefetch", .kind = CLI_OPT_INT, .metavar = "F", .lo = 1,
     .hi = LOADER_MAX_PREFETCH, .deflt = "2", .apply = set_prefetch,
     .store = CLI_STORE_INT, AT(prefetch),
     .help = "batches each loader worker keeps ready ahead\n"
             "(DataLoader's prefetch_factor; needs workers)"},
    {.name = "sample-cost", .kind = CLI_OPT_REAL, .metavar = "SECONDS",
     .what = "a number of seconds",
     .allowed = "a number of seconds from 0 to 3600, e.g. 0.001", .deflt = "0",
     .apply = check_sample_cost, .store = CLI_STORE_REAL, AT(sample_cost),
     .help = "simulated time one loader worker spends\n"
             "reading and decoding one sample; 0: the data\n"
             "stage is free and left out of the timeline"},
    {.name = "pin-memory", .kind = CLI_OPT_ENUM, .words = bits, .what = "0 or 1", .deflt = "1",
     .apply = note_loader, .store = CLI_STORE_INT, AT(pin_memory),
     .help = "batches in pinned host memory: the copy to\n"
             "the device runs at full bandwidth, off the\n"
             "compute stream (0: pageable, slower, blocking)"},
};

const CliOptRow *run_loader_rows(int *n) {
    *n = (int)(sizeof rows / sizeof rows[0]);
    return rows;
}

RunParse run_loader_check(RunOptions *o) {
    // DataLoader raises "prefetch_factor option could only be specified in
    // multiprocessing" when num_workers is 0
    if (o->prefetch_text && o->loader_workers == 0)
        return run_opt_fail("prefetch", o->prefetch_text,
                            "needs loader workers (DataLoader takes prefetch_factor only with "
                            "num_workers > 0)", "--loader-workers 1 or more with --prefetch, or "
                            "leave --prefetch out");
    // workers, prefetch or pinning without a cost would silently change nothing
    if (o->loader_flag && o->sample_cost == 0)
        return run_opt_fail(o->loader_flag, o->loader_value, "has no effect without "
                            "--sample-cost (the data stage is free and left out of the "
                            "timeline)", "--sample-cost SECONDS above 0 with it, or leave it out");
    return RUN_PARSE_OK;
}

void run_loader_config(const RunOptions *o, SimDataStage *out) {
    sim_data_stage_default(out);
    if (o->sample_cost <= 0)
        return; // all zero but the defaults: no stage
    out->workers = o->loader_workers;
    out->prefetch = o->prefetch;
    out->sample_cost = o->sample_cost;
    out->pin_memory = o->pin_memory;
    // DataParallel: one process's loader draws the whole batch for every device
    out->main_rank_only = strcmp(o->strategy, "dp") == 0;
}

// One rank's share: wait over its steps' simulated time (from its first
// batch request to the end of its compute stream).
static double share_of(const SimDataStageStats *s, const SimRank *r, double *span) {
    *span = r->clock[SIM_STREAM_COMPUTE] - s->start_s;
    return *span > 0 ? 100.0 * s->wait_s / *span : 0;
}

void run_loader_report(const RunOptions *o, const SimTrainer *t, const SimWorld *w) {
    if (o->sample_cost <= 0 || t == NULL || w == NULL)
        return;
    char how[160];
    if (o->loader_workers == 0)
        snprintf(how, sizeof how, "the loop loads (0 workers), %g s/sample, %s copies",
                 o->sample_cost, o->pin_memory ? "pinned" : "pageable");
    else
        snprintf(how, sizeof how, "%d worker%s x prefetch %d, %g s/sample, %s copies",
                 o->loader_workers, o->loader_workers == 1 ? "" : "s", o->prefetch,
                 o->sample_cost, o->pin_memory ? "pinned" : "pageable");
    printf("  data wait (%s):", how);
    int shown = 0, worst = -1;
    double worst_share = -1, sum_share = 0;
    int nstage = 0;
    for (int i = 0; i < o->nranks; i++) {
        const SimDataStageStats *s = &t[i].data_stage.stats;
        if (s->batches == 0)
            continue; // no stage on this rank (DataParallel's devices > 0, another process)
        double span = 0, share = share_of(s, &w->ranks[i], &span);
        nstage++;
        sum_share += share;
        if (share > worst_share) {
            worst_share = share;
            worst = i;
        }
        if (shown < LOADER_REPORT_RANKS) {
            printf("%s rank %d %.1f%% (%.6f s of %.6f s; %lld of %lld batches waited)",
                   shown ? "," : "", i, share, s->wait_s, span, (long long)s->waits,
                   (long long)s->batches);
            shown++;
        }
    }
    if (nstage > shown)
        printf(", ...; %d ranks: mean %.1f%%, most rank %d %.1f%%", nstage, sum_share / nstage,
               worst, worst_share);
    if (nstage == 0)
        printf(" no batches");
    printf("\n");
    fflush(stdout);
}
