// cli/report/merge_traces.c: `ddplab merge-traces OUT IN...` and the merge that
// `ddplab run --rendezvous` does on rank 0 (see merge_traces.h). The inputs
// are read with the views' loader (viz/vtrace.h), their events put back
// into one engine trace (sim/trace/trace_merge.h) and written by its writers, so
// a merged trace is byte for byte what one process running every rank
// would have written, but for the wall times: each process's own clock,
// which merge_traces_files_ex can align on a collective.
#include "report/merge_traces.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"         // defines: SIM_COLL_*
#include "core/cli.h"          // defines: CLI_EXIT_*
#include "core/opts.h"         // defines: cli_opt_output_problem
#include "trace/trace_merge.h" // defines: sim_trace_absorb, sim_trace_add_dropped
#include "vtrace.h"            // defines: VizTrace, viz_trace_load

// The events a .ddptrace file's run dropped beyond its per-rank limit: the
// header's u64 at byte 32 (sim/trace/trace_bin.c), which the views' loader does
// not keep. 0 for JSON lines, which do not say.
static size_t header_dropped(const char *path) {
    unsigned char h[40];
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return 0;
    size_t got = fread(h, 1, sizeof h, f);
    fclose(f);
    if (got != sizeof h || memcmp(h, "DDPTRACE", 8) != 0)
        return 0;
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | h[32 + i];
    return (size_t)v;
}

static SimStatus fail(SimStatus st, char *err, size_t errlen, const char *fmt, const char *a,
                      const char *b) {
    snprintf(err, errlen, fmt, a, b);
    return st;
}

// Which input holds each rank's events (-1: none); SIM_EINVAL when a rank's
// events are in two inputs.
static SimStatus find_owners(const VizTrace *t, int n, int nranks, int *owner,
                             const char *const *in, char *err, size_t errlen) {
    for (int r = 0; r < nranks; r++)
        owner[r] = -1;
    for (int i = 0; i < n; i++)
        for (size_t k = 0; k < t[i].n; k++) {
            int r = t[i].ev[k].rank;
            if (r < 0 || r >= nranks)
                return fail(SIM_EINVAL, err, errlen, "%s: an event's rank is outside the "
                            "trace's ranks%s", in[i], "");
            if (owner[r] == -1)
                owner[r] = i;
            else if (owner[r] != i) {
                snprintf(err, errlen, "rank %d's events are in both '%s' and '%s'; allowed: "
                         "each rank's events in one input (the files of one run, each once)",
                         r, in[owner[r]], in[i]);
                return SIM_EINVAL;
            }
        }
    return SIM_OK;
}

static void note_missing(const int *owner, int nranks, MergeTracesResult *res) {
    size_t at = 0;
    res->missing = 0;
    res->missing_list[0] = '\0';
    for (int r = 0; r < nranks; r++) {
        if (owner[r] >= 0)
            continue;
        if (at + 16 < sizeof res->missing_list) {
            at += (size_t)snprintf(res->missing_list + at, sizeof res->missing_list - at,
                                   "%s%d", res->missing ? ", " : "", r);
            res->listed++;
        }
        res->missing++;
    }
}

// ----------------------------------------------------------------------------
// One wall clock for every process

static int symmetric(const SimEvent *e) {
    return e->kind == SIM_EV_COLL &&
           (e->coll == SIM_COLL_ALL_REDUCE || e->coll == SIM_COLL_ALL_GATHER ||
            e->coll == SIM_COLL_REDUCE_SCATTER || e->coll == SIM_COLL_BARRIER);
}

// The input's lowest rank's symmetric collective with sequence number seq
// (any: the one with the smallest), or NULL.
static const SimEvent *anchor_of(const VizTrace *t, int any, uint64_t seq) {
    int low = -1;
    for (size_t k = 0; k < t->n; k++)
        if (low < 0 || t->ev[k].rank < low)
            low = t->ev[k].rank;
    const SimEvent *best = NULL;
    for (size_t k = 0; k < t->n; k++) {
        const SimEvent *e = &t->ev[k];
        if (e->rank != low || !symmetric(e))
            continue;
        if (any ? best == NULL || e->seq < best->seq : e->seq == seq)
            best = e;
    }
    return best;
}

static void align_wall(VizTrace *t, int n, const char *const *in, MergeTracesResult *res) {
    const SimEvent *a0 = anchor_of(&t[0], 1, 0);
    if (a0 == NULL) {
        snprintf(res->align_note, sizeof res->align_note,
                 "%s has no all_reduce, all_gather, reduce_scatter or barrier to align on", in[0]);
        return;
    }
    double *off = malloc((size_t)n * sizeof *off), least = 0;
    if (off == NULL) {
        snprintf(res->align_note, sizeof res->align_note, "out of memory");
        return;
    }
    for (int i = 0; i < n; i++) {
        const SimEvent *e = anchor_of(&t[i], 0, a0->seq);
        if (e == NULL) {
            snprintf(res->align_note, sizeof res->align_note,
                     "%s has no collective number %llu to align on", in[i],
                     (unsigned long long)a0->seq);
            free(off);
            return;
        }
        off[i] = a0->wall_end - e->wall_end;
        least = i == 0 || off[i] < least ? off[i] : least;
    }
    res->aligned = 1;
    res->align_seq = a0->seq;
    for (int i = 0; i < n; i++) {
        off[i] -= least; // no wall time becomes negative
        if (off[i] > res->align_max_s)
            res->align_max_s = off[i];
        for (size_t k = 0; k < t[i].n; k++) {
            t[i].ev[k].wall_start += off[i];
            t[i].ev[k].wall_end += off[i];
        }
    }
    free(off);
}

// The loaded inputs into one engine trace, written to out.
static SimStatus write_merged(const char *out, const VizTrace *t, int n, const int *owner,
                              int nranks, const SimTraceInfo *info, const char *const *in,
                              MergeTracesResult *res, char *err, size_t errlen) {
    SimTrace *m = sim_trace_new(nranks, 0);
    if (m == NULL)
        return fail(SIM_ENOMEM, err, errlen, "%s%s: out of memory for the merged trace", out, "");
    sim_trace_set_info(m, info);
    SimStatus st = SIM_OK;
    for (int i = 0; i < n && st == SIM_OK; i++) {
        st = sim_trace_absorb(m, t[i].ev, t[i].n);
        size_t d = header_dropped(in[i]);
        int r = 0;
        while (r < nranks - 1 && owner[r] != i)
            r++;
        sim_trace_add_dropped(m, r, d);
        res->dropped += d;
        res->events += t[i].n;
    }
    if (st != SIM_OK)
        snprintf(err, errlen, "%s: cannot merge: %s", out, sim_strerror(st));
    else if ((st = sim_trace_write_auto(m, out)) != SIM_OK) {
        snprintf(err, errlen, "%s: cannot write: %s", out, sim_strerror(st));
        res->write_failed = 1;
    }
    sim_trace_free(m);
    return st;
}

SimStatus merge_traces_files(const char *out, const char *const *in, int n,
                             MergeTracesResult *res, char *err, size_t errlen) {
    return merge_traces_files_ex(out, in, n, 0, res, err, errlen);
}

SimStatus merge_traces_files_ex(const char *out, const char *const *in, int n, int align,
                                MergeTracesResult *res, char *err, size_t errlen) {
    MergeTracesResult local;
    if (res == NULL)
        res = &local;
    memset(res, 0, sizeof *res);
    if (n < 1)
        return fail(SIM_EINVAL, err, errlen, "no input trace%s%s", "", "");
    for (int i = 0; i < n; i++)
        if (strcmp(in[i], out) == 0)
            return fail(SIM_EINVAL, err, errlen, "'%s' is both an input and the output%s; "
                        "allowed: an output of its own", out, "");
    VizTrace *t = calloc((size_t)n, sizeof *t);
    if (t == NULL)
        return SIM_ENOMEM;
    SimStatus st = SIM_OK;
    int nranks = 1, loaded = 0;
    const SimTraceInfo *info = NULL;
    for (; loaded < n && st == SIM_OK; loaded++) {
        st = viz_trace_load(in[loaded], &t[loaded], err, errlen);
        if (st != SIM_OK)
            break;
        VizTrace *ti = &t[loaded];
        if (ti->nranks > nranks)
            nranks = ti->nranks;
        if (ti->info.title[0] == '\0')
            continue;
        if (info == NULL)
            info = &ti->info;
        else if (strcmp(info->title, ti->info.title) != 0) {
            snprintf(err, errlen, "'%s' and '%s' are traces of different runs ('%s' and '%s'); "
                     "allowed: the files of one run", in[0], in[loaded], info->title,
                     ti->info.title);
            st = SIM_EINVAL;
        }
    }
    int *owner = st == SIM_OK ? malloc((size_t)nranks * sizeof *owner) : NULL;
    if (st == SIM_OK && owner == NULL)
        st = SIM_ENOMEM;
    if (st == SIM_OK)
        st = find_owners(t, n, nranks, owner, in, err, errlen);
    if (st == SIM_OK) {
        SimTraceInfo none;
        memset(&none, 0, sizeof none);
        none.nodes = 1;
        res->nranks = nranks;
        note_missing(owner, nranks, res);
        if (align && n > 1)
            align_wall(t, n, in, res);
        st = write_merged(out, t, n, owner, nranks, info ? info : &none, in, res, err, errlen);
    }
    free(owner);
    for (int i = 0; i < n; i++)
        viz_trace_free(&t[i]);
    free(t);
    return st;
}

// ----------------------------------------------------------------------------
// The command

void merge_traces_help(FILE *out) {
    fputs("usage: ddplab merge-traces OUT IN...\n"
          "\n"
          "Merges the traces of one run's processes into one. `ddplab run --rendezvous\n"
          "SPEC --trace TRACE` writes one file per process, TRACE.rankR, with the events\n"
          "of its rank R, and rank 0 merges them into TRACE itself when it can read every\n"
          "process's file (a filesystem they share). When the processes ran on machines\n"
          "that share none, gather the files and merge them here.\n"
          "\n"
          "The inputs are .ddptrace or JSON lines traces (any ranks each, but each rank's\n"
          "events in one input); OUT is written by its name: FILE.ddptrace (binary, for\n"
          "ddplab replay), FILE.jsonl (JSON lines), anything else Chrome trace JSON.\n"
          "Simulated times come from each process's own clock: without a host meeting\n"
          "between processes, a collective starts at each rank's own arrival.\n"
          "\n"
          "Measured (wall) times come from each process's own clock too, which started\n"
          "when that process did. Since every process leaves a symmetric collective\n"
          "(all_reduce, all_gather, reduce_scatter, barrier) at nearly the same instant,\n"
          "the inputs are shifted so that the end of the first such collective coincides,\n"
          "which puts every rank's measured times on one clock for `ddplab replay` (key\n"
          "w) and `ddplab report --clock wall`. The output line says by how much.\n"
          "\n"
          "options:\n"
          "      --no-align  keep each input's wall times as its process recorded them\n"
          "  -h, --help      print this help\n"
          "\n"
          "example:\n"
          "  torchrun --nproc-per-node 4 ... ddplab run --backend cuda --rendezvous env \\\n"
          "      --strategy ddp -n 8 --trace run.ddptrace\n"
          "  scp node1:run.ddptrace.rank[4-7] .\n"
          "  ddplab merge-traces run.ddptrace run.ddptrace.rank*\n"
          "  ddplab replay run.ddptrace\n"
          "\n"
          "exit codes:\n",
          out);
    cli_print_exit_codes(out);
}

// "wall clocks: ..." after a merge: the shift, or why there was none.
void merge_traces_say_alignment(FILE *out, const MergeTracesResult *res) {
    if (res->aligned)
        fprintf(out, "wall clocks: aligned on the end of collective #%llu (inputs shifted by up "
                "to %.3f ms)\n", (unsigned long long)res->align_seq, res->align_max_s * 1e3);
    else if (res->align_note[0])
        fprintf(out, "wall clocks: left as each process recorded them: %s\n", res->align_note);
}

// OUT IN... (argv[0] is the command's name, the options taken out).
static int merge_traces_cmd(const char *prog, int argc, char **argv, int align);

int merge_traces_main(int argc, char **argv) {
    const char *prog = "ddplab merge-traces";
    int align = 1, nargs = 1;
    char **args = calloc((size_t)argc + 1, sizeof *args);
    if (args == NULL)
        return CLI_EXIT_INTERNAL;
    args[0] = argv[0];
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            merge_traces_help(stdout);
            free(args);
            return CLI_EXIT_OK;
        }
        if (strcmp(argv[i], "--no-align") == 0) {
            align = 0;
            continue;
        }
        if (argv[i][0] == '-' && argv[i][1] != '\0') {
            fprintf(stderr, "%s: '%s' is not an option; allowed: [--no-align] OUT IN... (see %s "
                    "--help)\n", prog, argv[i], prog);
            free(args);
            return CLI_EXIT_USAGE;
        }
        args[nargs++] = argv[i];
    }
    int rc = merge_traces_cmd(prog, nargs, args, align);
    free(args);
    return rc;
}

static int merge_traces_cmd(const char *prog, int argc, char **argv, int align) {
    if (argc < 3) {
        fprintf(stderr, "%s: %s; allowed: OUT IN... (see %s --help)\n", prog,
                argc < 2 ? "no output and no input" : "no input trace", prog);
        return CLI_EXIT_USAGE;
    }
    const char *what, *allowed;
    if (cli_opt_output_problem(argv[1], &what, &allowed)) {
        fprintf(stderr, "%s: OUT: '%s' %s; allowed: %s\n", prog, argv[1], what, allowed);
        return CLI_EXIT_USAGE;
    }
    char err[1024] = "";
    MergeTracesResult res;
    SimStatus st = merge_traces_files_ex(argv[1], (const char *const *)argv + 2, argc - 2, align,
                                         &res, err, sizeof err);
    if (st != SIM_OK) {
        fprintf(stderr, "%s: %s\n", prog, err);
        return res.write_failed || st == SIM_ENOMEM ? CLI_EXIT_INTERNAL : CLI_EXIT_USAGE;
    }
    printf("trace: %s (%zu events of %d rank%s from %d file%s", argv[1], res.events, res.nranks,
           res.nranks == 1 ? "" : "s", argc - 2, argc == 3 ? "" : "s");
    if (res.dropped)
        printf("; %zu more were dropped by the runs", res.dropped);
    printf(")\n");
    merge_traces_say_alignment(stdout, &res);
    if (res.missing)
        fprintf(stderr, "%s: note: %d rank%s (%s%s) had no events in the inputs\n", prog,
                res.missing, res.missing == 1 ? "" : "s", res.missing_list,
                res.missing > res.listed ? ", ..." : "");
    return CLI_EXIT_OK;
}
