// cli/run/run_loader.c: the input pipeline's options of `ddplab run`
// (--loader-workers, --prefetch, --sample-cost, --pin-memory): each value,
// their checks against the rest, the engine's SimDataStage (sim/data/data_stage.h)
// and the run report's line of data wait.
#include "run/run.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/opts.h"    // defines: cli_opt_shown
#include "run/run_opts.h" // defines: RunOptSpec, run_opt_spec

#define LOADER_MAX_WORKERS 1024
#define LOADER_MAX_PREFETCH 1024
#define LOADER_MAX_SAMPLE_COST 3600.0 // seconds: an hour per sample is already absurd
#define LOADER_REPORT_RANKS 8         // ranks named one by one in the report line

static RunParse bad(const RunOptSpec *s, const char *v, const char *what, const char *allowed) {
    char vbuf[72];
    run_error("--%s: '%s' %s; allowed: %s", s->longname, cli_opt_shown(v, vbuf, sizeof vbuf),
              what, allowed);
    return RUN_PARSE_ERROR;
}

// A whole number in lo..hi.
static RunParse whole(const RunOptSpec *s, const char *v, int lo, int hi, int *out) {
    char allowed[80];
    snprintf(allowed, sizeof allowed, "a whole number from %d to %d", lo, hi);
    char *end = NULL;
    errno = 0;
    long long x = v && (isdigit((unsigned char)v[0]) || v[0] == '-' || v[0] == '+')
                      ? strtoll(v, &end, 10) : 0;
    if (end == NULL || end == v || *end != '\0')
        return bad(s, v, "is not a whole number", allowed);
    if (errno == ERANGE || x < lo || x > hi)
        return bad(s, v, x < 0 ? "is negative" : "is out of range", allowed);
    *out = (int)x;
    return RUN_PARSE_OK;
}

RunParse run_loader_apply(const RunOptSpec *s, const char *v, RunOptions *o) {
    if (o->loader_flag == NULL && s->id != RO_SAMPLE_COST) {
        o->loader_flag = s->longname;
        o->loader_value = v;
    }
    switch (s->id) {
    case RO_LOADER_WORKERS: return whole(s, v, 0, LOADER_MAX_WORKERS, &o->loader_workers);
    case RO_PREFETCH:
        o->prefetch_text = v;
        return whole(s, v, 1, LOADER_MAX_PREFETCH, &o->prefetch);
    case RO_SAMPLE_COST: {
        char *end = NULL;
        errno = 0;
        double x = v ? strtod(v, &end) : NAN;
        if (end == NULL || end == v || *end != '\0' || errno == ERANGE || !isfinite(x))
            return bad(s, v, "is not a number of seconds",
                       "a number of seconds from 0 to 3600, e.g. 0.001");
        if (x < 0 || x > LOADER_MAX_SAMPLE_COST)
            return bad(s, v, x < 0 ? "is negative" : "is out of range",
                       "a number of seconds from 0 to 3600, e.g. 0.001");
        o->sample_cost = x;
        return RUN_PARSE_OK;
    }
    case RO_PIN_MEMORY:
        if (v == NULL || (strcmp(v, "0") != 0 && strcmp(v, "1") != 0))
            return bad(s, v, "is not 0 or 1", "0, 1");
        o->pin_memory = v[0] == '1';
        return RUN_PARSE_OK;
    default: return RUN_PARSE_OK;
    }
}

RunParse run_loader_check(RunOptions *o) {
    // DataLoader raises "prefetch_factor option could only be specified in
    // multiprocessing" when num_workers is 0
    if (o->prefetch_text && o->loader_workers == 0)
        return bad(run_opt_spec(RO_PREFETCH), o->prefetch_text,
                   "needs loader workers (DataLoader takes prefetch_factor only with "
                   "num_workers > 0)", "--loader-workers 1 or more with --prefetch, or leave "
                   "--prefetch out");
    // workers, prefetch or pinning without a cost would silently change nothing
    if (o->loader_flag && o->sample_cost == 0) {
        const RunOptSpec *s = NULL;
        for (int id = RO_LOADER_WORKERS; id <= RO_PIN_MEMORY; id++)
            if (strcmp(run_opt_spec((RunOptId)id)->longname, o->loader_flag) == 0)
                s = run_opt_spec((RunOptId)id);
        if (s)
            return bad(s, o->loader_value, "has no effect without --sample-cost (the data "
                       "stage is free and left out of the timeline)", "--sample-cost SECONDS "
                       "above 0 with it, or leave it out");
    }
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
