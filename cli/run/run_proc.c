// cli/run/run_proc.c: what `ddplab run --rendezvous SPEC` adds to a run (see
// run_proc.h): the checks, and the per-process traces with their merge.
#include "run/run_proc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/cli.h"            // defines: CLI_EXIT_*
#include "cuda_rdzv.h"           // defines: cuda_rdzv_parse, cuda_rdzv_identity
#include "engine/comm.h"         // defines: sim_barrier
#include "report/merge_traces.h" // defines: merge_traces_files

int run_proc_parse(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v, void *dest) {
    (void)cx;
    CudaRdzvSpec spec;
    char err[768];
    if (cuda_rdzv_parse(v->text, &spec, err, sizeof err) != SIM_OK) {
        run_error("--%s: %s", row->name, err);
        return -1;
    }
    ((RunOptions *)dest)->rendezvous = v->text;
    return 0;
}

// The same prefix as cuda_rdzv_parse's; tcp, env and mpi name no file.
const char *run_proc_file(const char *spec) {
    return strncmp(spec, "file:", 5) == 0 ? spec + 5 : NULL;
}

RunParse run_proc_check(RunOptions *o) {
    if (o->rendezvous == NULL)
        return RUN_PARSE_OK;
    if (strcmp(o->backend, "cuda") != 0) {
        run_error("--rendezvous: needs --backend cuda (the %s backend runs every rank in this "
                  "process); allowed: --backend cuda --rendezvous %s", o->backend, o->rendezvous);
        return RUN_PARSE_ERROR;
    }
    if (cli_viz_wanted(&o->viz)) {
        run_error("--rendezvous: cannot be combined with --viz, --png, --gif or --plot (each "
                  "process holds its own rank's events only); allowed: --trace FILE.ddptrace, "
                  "then ddplab replay FILE.ddptrace");
        return RUN_PARSE_ERROR;
    }
    CudaRdzvIdentity id;
    CudaRdzvSpec spec;
    char err[768];
    if (cuda_rdzv_identity(cuda_rdzv_getenv, NULL, &id, err, sizeof err) != SIM_OK ||
        cuda_rdzv_parse(o->rendezvous, &spec, err, sizeof err) != SIM_OK ||
        cuda_rdzv_resolve(&spec, &id, err, sizeof err) != SIM_OK) {
        run_error("--rendezvous: %s", err);
        return RUN_PARSE_ERROR;
    }
    if (o->nranks != id.world_size) {
        run_error("--ranks: '%d' is not the world of %d process%s that %s started; allowed: "
                  "-n %d (one rank per process)", o->nranks, id.world_size,
                  id.world_size == 1 ? "" : "es", id.launcher, id.world_size);
        return RUN_PARSE_ERROR;
    }
    o->proc_rank = id.rank;
    if (id.rank != 0) { // rank 0 writes the run's files; the others' errors still print
        o->metrics = NULL;
        o->diagnosis = NULL;
    }
    return RUN_PARSE_OK;
}

// "TRACE.rankR" in a malloc'ed string (NULL when memory runs out).
static char *rank_path(const char *trace, int rank) {
    size_t n = strlen(trace) + 24;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s.rank%d", trace, rank);
    return p;
}

void run_proc_prepare(const RunOptions *o) {
    if (o->rendezvous == NULL || o->trace == NULL || o->proc_rank != 0)
        return;
    // No other rank can have written this run's file yet: they need the
    // rendezvous, which rank 0 has not opened.
    for (int r = 0; r < o->nranks; r++) {
        char *p = rank_path(o->trace, r);
        if (p)
            (void)unlink(p);
        free(p);
    }
}

static SimStatus barrier_rank(SimRank *r, void *arg) {
    (void)arg;
    return sim_barrier(r);
}

// How to merge the files by hand (rank 0), with the ranks whose file is
// not readable here, if any.
static void merge_hint(const RunOptions *o, const char *missing) {
    printf("trace: merge the %d ranks' files (%s.rank0 .. .rank%d%s%s) with: ddplab "
           "merge-traces %s %s.rank*\n", o->nranks, o->trace, o->nranks - 1,
           missing[0] ? "; not readable here: ranks " : "", missing, o->trace, o->trace);
}

// Rank 0, after the barrier: every file readable here is merged into TRACE.
static int merge_here(const RunOptions *o) {
    int R = o->nranks, rc = CLI_EXIT_OK;
    char **in = calloc((size_t)R, sizeof *in);
    char missing[160] = "";
    size_t at = 0;
    for (int r = 0; in && r < R; r++) {
        in[r] = rank_path(o->trace, r);
        if (in[r] && access(in[r], R_OK) != 0 && at + 16 < sizeof missing)
            at += (size_t)snprintf(missing + at, sizeof missing - at, "%s%d", at ? ", " : "", r);
    }
    int ok = in != NULL;
    for (int r = 0; ok && r < R; r++)
        ok = in[r] != NULL;
    if (!ok) {
        run_error("--trace: out of memory for %d ranks' file names", R);
        rc = CLI_EXIT_INTERNAL;
    } else if (missing[0]) {
        merge_hint(o, missing); // each machine kept its own files
    } else {
        MergeTracesResult res;
        char err[1200];
        if (merge_traces_files_ex(o->trace, (const char *const *)in, R, 1, &res, err,
                                  sizeof err) != SIM_OK) {
            run_error("--trace: cannot merge the ranks' files: %s", err);
            rc = CLI_EXIT_INTERNAL;
        } else {
            size_t n = strlen(o->trace);
            int bin = n >= 9 && strcmp(o->trace + n - 9, ".ddptrace") == 0;
            int jsonl = n >= 6 && strcmp(o->trace + n - 6, ".jsonl") == 0;
            printf("trace: %s (%zu events of %d ranks, merged from their files; %s)\n", o->trace,
                   res.events, R, bin ? "for ddplab replay" : jsonl ? "JSON lines"
                                                               : "open it in https://ui.perfetto.dev");
            merge_traces_say_alignment(stdout, &res);
        }
    }
    for (int r = 0; in && r < R; r++)
        free(in[r]);
    free(in);
    return rc;
}

int run_proc_trace(const RunOptions *o, SimWorld *w, int rc) {
    int me = o->proc_rank;
    char *mine = rank_path(o->trace, me);
    SimStatus st = mine ? sim_trace_write_bin(w->trace, mine) : SIM_ENOMEM;
    if (st != SIM_OK) {
        run_error("--trace: cannot write '%s': %s", mine ? mine : o->trace, sim_strerror(st));
        free(mine);
        return CLI_EXIT_INTERNAL;
    }
    printf("trace: %s (rank %d's %zu events)\n", mine, me, sim_trace_rank_count(w->trace, me));
    free(mine);
    if (rc != CLI_EXIT_OK) { // a failed world holds no barrier: merge by hand
        if (me == 0)
            merge_hint(o, "");
        return CLI_EXIT_OK;
    }
    // Once every rank has passed the barrier, every rank's file is written.
    if (sim_world_run(w, barrier_rank, NULL) != SIM_OK) {
        run_error("--trace: the ranks' barrier before the merge of their traces failed: %s",
                  sim_world_error(w));
        if (me == 0)
            merge_hint(o, "");
        return CLI_EXIT_DIST;
    }
    return me == 0 ? merge_here(o) : CLI_EXIT_OK;
}
