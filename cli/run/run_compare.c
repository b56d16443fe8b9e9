// cli/run/run_compare.c: `ddplab run --compare-backends A,B` and `--compare-with
// OPTIONS`: the command line is run twice, as side A and side B, each
// recording what its ranks hold at every stage of every step
// (run_compare_capture.c), and the two records are compared
// (run_compare_report.c). Also --algo, the collectives' algorithm, whose
// choice is one of the things a comparison can isolate.
//
// Side A is the command without the --compare-* options (plus --backend A);
// side B adds --backend B and OPTIONS after it, so that they override what
// the command said: both sides go through the ordinary parser and checks.
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"       // defines: sim_algo_parse
#include "core/cli.h"        // defines: CLI_EXIT_*
#include "run/run_compare.h" // defines: RunCompareSide
#include "run/run_opts.h"    // defines: run_compare_rows

enum { CMP_MAX_EXTRA = 64 }; // words in --compare-with

// ----------------------------------------------------------------------------
// options

#define AT(field) .offset = offsetof(RunOptions, field)

static const char *const algos[] = {"auto", "ring", "tree", "dbtree", "naive", "direct", "nccl",
                                    NULL};

static int set_algo(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v,
                    void *dest) {
    (void)cx, (void)row;
    RunOptions *o = dest;
    (void)sim_algo_parse(v->text, &o->algo); // one of the row's words
    o->algo_text = v->text;
    return 0;
}

static int set_compare_backends(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v,
                                void *dest) {
    const char *comma = strchr(v->text, ',');
    if (comma == NULL || comma == v->text || comma[1] == '\0' || strchr(comma + 1, ','))
        return cli_optab_fail(cx, row->name, v->text, "is not two backends",
                              "A,B such as cpu,cuda");
    ((RunOptions *)dest)->compare_backends = v->text;
    return 0;
}

static int set_compare_with(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v,
                            void *dest) {
    if (strspn(v->text, " \t") == strlen(v->text))
        return cli_optab_fail(cx, row->name, v->text, "names no option",
                              "options of 'ddplab run', e.g. '--algo ring'");
    if (strstr(v->text, "--compare-"))
        return cli_optab_fail(cx, row->name, v->text, "cannot hold another comparison",
                              "options other than --compare-*");
    ((RunOptions *)dest)->compare_with = v->text;
    return 0;
}

static const CliOptRow rows[] = {
    {.name = "algo", .kind = CLI_OPT_ENUM, .metavar = "NAME", .words = algos,
     .what = "a collective algorithm", .deflt = "auto", .apply = set_algo,
     .help = "the collectives' algorithm (as NCCL_ALGO picks\n"
             "NCCL's): ring, tree (binomial), dbtree (NCCL's\n"
             "Tree: two binary trees, pipelined, for\n"
             "all_reduce; the ring for the others), naive,\n"
             "direct, or nccl (per call, as NCCL's tuner:\n"
             "ring, or dbtree for an all_reduce the cost\n"
             "model prices lower). ddp, dp and layer-owner:\n"
             "any; fsdp and zero: all but tree (no tree\n"
             "reduce_scatter). auto: direct on simulated\n"
             "ranks. The sums' order, and so their last bits,\n"
             "depends on it"},
    {.name = "compare-backends", .kind = CLI_OPT_LIST, .metavar = "A,B",
     .apply = set_compare_backends,
     .help = "run the configuration twice, on backend A and\n"
             "on backend B (cpu,cuda; cpu,cpu checks that\n"
             "runs repeat bit for bit), and report per tensor\n"
             "the largest difference in ULPs and where it\n"
             "comes from: the step and stage (initial\n"
             "weights, local gradients, synchronised\n"
             "gradients, parameters after the step) where\n"
             "bits first differ, and the cause (kernels,\n"
             "TF32, the collective's reduction order, bucket\n"
             "boundaries, division convention, optimizer)"},
    {.name = "compare-with", .kind = CLI_OPT_STRING, .metavar = "'OPTIONS'",
     .apply = set_compare_with, .file = CLI_FILE_OPTIONS,
     .help = "the same comparison against this command with\n"
             "OPTIONS added (split at spaces), e.g.\n"
             "'--algo ring --bucket-cap-mb 0.01'; with\n"
             "--compare-backends they apply to side B"},
    {.name = "compare-max-ulp", .kind = CLI_OPT_INT, .metavar = "N", .lo = 0, .hi = LLONG_MAX,
     .what = "a whole number of ULPs", .allowed = "0 or more",
     .store = CLI_STORE_I64, AT(compare_max_ulp),
     .help = "with a comparison: exit 1 when a final\n"
             "parameter differs by more than N ULPs (0:\n"
             "demand bit-identical results) [no check]"},
};

const CliOptRow *run_compare_rows(int *n) {
    *n = (int)(sizeof rows / sizeof rows[0]);
    return rows;
}

// Options a comparison cannot take: each side would write the same file,
// or has no values to compare, or is not one world.
static RunParse check_compare_alone(const RunOptions *o, const char *flag, const char *val) {
    const char *no[][2] = {
        {"trace", o->trace},          {"metrics", o->metrics},
        {"save", o->save},            {"rendezvous", o->rendezvous}};
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
        if (no[i][1])
            return run_opt_fail(no[i][0], no[i][1],
                            "cannot be combined with a comparison (the two runs would "
                            "write the same file)",
                            "leave it out; run each side alone to keep its files");
    if (o->phantom)
        return run_opt_fail(flag, val, "cannot be combined with --phantom (no values to compare)",
                        "without --phantom");
    if (o->faults.n > 0)
        return run_opt_fail(flag, val, "cannot be combined with --fault (a run that fails has "
                        "nothing to compare)", "without --fault");
    if (o->elastic_max > 0)
        return run_opt_fail(flag, val, "cannot be combined with --elastic", "without --elastic");
    if (cli_viz_wanted(&o->viz))
        return run_opt_fail(flag, val, "cannot be combined with a view (two runs)",
                        "without --viz; watch each side with its own run");
    return RUN_PARSE_OK;
}

RunParse run_compare_check(RunOptions *o) {
    if (o->algo_text && run_fsdp_is_strategy(o->strategy) && o->algo == SIM_ALGO_TREE)
        return run_opt_fail("algo", o->algo_text, "has no reduce_scatter or all_gather, which "
                        "fsdp and the ZeRO stages need", "auto, ring, naive, direct");
    const char *flag = o->compare_backends ? "compare-backends" : "compare-with";
    const char *val = o->compare_backends ? o->compare_backends : o->compare_with;
    if (val == NULL) {
        char n[32];
        snprintf(n, sizeof n, "%lld", (long long)o->compare_max_ulp);
        if (o->compare_max_ulp >= 0)
            return run_opt_fail("compare-max-ulp", n, "needs a comparison",
                            "with --compare-backends A,B or --compare-with OPTIONS");
        return RUN_PARSE_OK;
    }
    if ((o->tf32 || o->coll_impl) && o->compare_backends &&
        strstr(o->compare_backends, "cuda") == NULL) {
        run_error("%s: applies to the cuda side of --compare-backends, and neither side of "
                  "'%s' is cuda; allowed: a pair with cuda (cpu,cuda), or leave it out",
                  o->tf32 ? "--tf32" : "--coll-impl", o->compare_backends);
        return RUN_PARSE_ERROR;
    }
    const char *ok[] = {"single", "ddp", "dp"};
    int known = run_fsdp_is_strategy(o->strategy);
    for (size_t i = 0; i < 3; i++)
        known |= strcmp(o->strategy, ok[i]) == 0;
    if (!known)
        return run_opt_fail("strategy", o->strategy,
                        "cannot be compared stage by stage (it has no synchronised gradients "
                        "to read at one point of a step; compare two checkpoints with "
                        "'ddplab compare A.st B.st')",
                        "single, ddp, dp, fsdp, fsdp2, zero1, zero2, zero3");
    return check_compare_alone(o, flag, val);
}

// ----------------------------------------------------------------------------
// the two command lines

// An option of a command line, and whether a value may follow it.
typedef struct {
    const char *name;
    int valued;
} CmpOpt;

// 1 when word a is one of opts[0 .. n) (a valued one also as --name=value);
// *takes_next: its value is the next word.
static int is_opt(const char *a, const CmpOpt *opts, size_t n, int *takes_next) {
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(opts[i].name);
        if (strncmp(a, opts[i].name, len) == 0 &&
            (a[len] == '\0' || (opts[i].valued && a[len] == '='))) {
            *takes_next = opts[i].valued && a[len] == '\0';
            return 1;
        }
    }
    return 0;
}

static const CmpOpt compare_opts[] = {
    {"--compare-backends", 1}, {"--compare-with", 1}, {"--compare-max-ulp", 1}};
// Options that only the cuda backend takes: with --compare-backends they go
// to the cuda side(s) alone.
static const CmpOpt cuda_opts[] = {{"--tf32", 0}, {"--coll-impl", 1}};

enum { CMP_MAX_DROPPED = 8 };

typedef struct {
    char **argv;   // [argc + 1], the words of one side's command line
    int argc;
    int extra_at;  // argv[extra_at ..] are the words of --compare-with
    char *words;   // --compare-with split (side B), owned
    const char *dropped[CMP_MAX_DROPPED]; // cuda's own options left out of this
    int ndropped;  // side (another backend), with their values
    char label[200];
} CmpArgs;

// The command without its --compare-* options (and, for a side on another
// backend than cuda, without cuda's own options), then --backend NAME
// (NULL: none) and the words of extra (NULL: none).
static int build_args(CmpArgs *c, int argc, char **argv, const char *backend, size_t blen,
                      const char *extra) {
    memset(c, 0, sizeof *c);
    c->argv = calloc((size_t)argc + 3 + CMP_MAX_EXTRA + 1, sizeof *c->argv);
    if (c->argv == NULL)
        return 0;
    int not_cuda = backend != NULL && !(blen == 4 && strncmp(backend, "cuda", 4) == 0);
    for (int i = 0; i < argc; i++) {
        int next = 0;
        if (i > 0 && is_opt(argv[i], compare_opts, 3, &next)) {
            i += next;
            continue;
        }
        if (i > 0 && not_cuda && is_opt(argv[i], cuda_opts, 2, &next)) {
            for (int k = 0; k <= next && i + k < argc && c->ndropped < CMP_MAX_DROPPED; k++)
                c->dropped[c->ndropped++] = argv[i + k];
            i += next;
            continue;
        }
        c->argv[c->argc++] = argv[i];
    }
    size_t wlen = (backend ? blen + 1 : 0) + (extra ? strlen(extra) + 1 : 0) + 1;
    c->words = calloc(wlen, 1);
    if (c->words == NULL)
        return 0;
    char *w = c->words;
    int n = snprintf(c->label, sizeof c->label, "%s", backend ? "" : "this command");
    if (backend) {
        memcpy(w, backend, blen);
        c->argv[c->argc++] = "--backend";
        c->argv[c->argc++] = w;
        n += snprintf(c->label + n, sizeof c->label - (size_t)n, "--backend %.*s", (int)blen,
                      backend);
        if (c->ndropped) // dropped[0] is an option's name (its value follows)
            n += snprintf(c->label + n, sizeof c->label - (size_t)n,
                          " (without cuda's own options, such as %.*s)",
                          (int)strcspn(c->dropped[0], "="), c->dropped[0]);
        w += blen + 1;
    }
    c->extra_at = c->argc;
    if (extra) {
        strcpy(w, extra);
        snprintf(c->label + n, sizeof c->label - (size_t)n, "%s%s", backend ? " " : " with ",
                 extra);
        for (char *tok = strtok(w, " \t"); tok; tok = strtok(NULL, " \t")) {
            if (c->argc >= argc + 3 + CMP_MAX_EXTRA)
                return 0;
            c->argv[c->argc++] = tok;
        }
    }
    return 1;
}

static void free_args(CmpArgs *c) {
    free(c->argv);
    free(c->words);
}

// Parses one side's command line; a bad word is reported with the side.
// Returns an exit code: CLI_EXIT_OK when the side can run.
static int parse_side(CmpArgs *c, const char *side, RunOptions *o) {
    RunParse p = run_opts_parse(c->argc, c->argv, o);
    if (p == RUN_PARSE_UNAVAILABLE) {
        run_error("side %s of the comparison (%s) cannot run (above)", side, c->label);
        return CLI_EXIT_INTERNAL;
    }
    if (p != RUN_PARSE_OK) {
        run_error("side %s of the comparison (%s) is not a valid run (above)", side,
                  c->label);
        return CLI_EXIT_USAGE;
    }
    return CLI_EXIT_OK;
}

// ----------------------------------------------------------------------------
// the runs

static int run_side(const char *side, CmpArgs *c, RunOptions *o, RunCompareSide *rec) {
    printf("== side %s: %s\n", side, c->label);
    fflush(stdout);
    memset(rec, 0, sizeof *rec);
    pthread_mutex_init(&rec->lock, NULL);
    rec->o = o;
    rec->nranks = o->nranks;
    snprintf(rec->label, sizeof rec->label, "%s", c->label);
    o->compare_side = rec;
    SimDataset ds;
    SimTrainConfig cfg;
    int rc = run_prepare(o, &ds, &cfg);
    if (rc == CLI_EXIT_OK)
        rc = run_once(o, &cfg);
    sim_dataset_free(&ds);
    if (rc == CLI_EXIT_OK && rec->error[0]) {
        run_error("side %s: cannot record its tensors: %s", side, rec->error);
        rc = CLI_EXIT_INTERNAL;
    } else if (rc != CLI_EXIT_OK) {
        run_error("side %s (%s) failed (exit code %d): nothing to compare", side, c->label,
                  rc);
    }
    printf("\n");
    return rc;
}

// Sharded sides compare element by element only when each rank holds the
// same elements on both; 0 when they do.
static int same_layout(const RunCompareSide *a, const RunCompareSide *b) {
    for (int r = 0; a->layout && b->layout && r < a->nranks; r++)
        if (a->layout[r] != b->layout[r]) {
            run_error("the two sides shard the parameters differently (rank %d holds other "
                      "elements: another wrap policy or sharding strategy?): compare the "
                      "checkpoints of full state dicts with 'ddplab compare A.st B.st'", r);
            return 1;
        }
    return 0;
}

static int compare_sides(CmpArgs *ca, CmpArgs *cb, const RunOptions *o) {
    RunOptions oa, ob;
    int prc = parse_side(ca, "A", &oa);
    if (prc == CLI_EXIT_OK)
        prc = parse_side(cb, "B", &ob);
    if (prc != CLI_EXIT_OK)
        return prc;
    if (oa.nranks != ob.nranks) {
        run_error("the two sides run %d and %d ranks: a comparison needs the same world "
                  "(and the same data on each rank)", oa.nranks, ob.nranks);
        return CLI_EXIT_USAGE;
    }
    if ((run_fsdp_is_strategy(oa.strategy) || run_fsdp_is_strategy(ob.strategy)) &&
        strcmp(oa.strategy, ob.strategy) != 0) {
        run_error("the two sides run --strategy %s and %s: sharded runs compare shard by "
                  "shard, so both sides need the same strategy", oa.strategy, ob.strategy);
        return CLI_EXIT_USAGE;
    }
    RunCompareSide a, b;
    int rc = run_side("A", ca, &oa, &a);
    if (rc == CLI_EXIT_OK) {
        rc = run_side("B", cb, &ob, &b);
        if (rc == CLI_EXIT_OK && same_layout(&a, &b) != 0)
            rc = CLI_EXIT_USAGE;
        if (rc == CLI_EXIT_OK) {
            // what side B was told that side A was not: cuda's own options
            // that only one side kept, then --compare-with's words
            const char *diff[2 * CMP_MAX_DROPPED + CMP_MAX_EXTRA];
            int nd = 0;
            const CmpArgs *one = ca->ndropped && !cb->ndropped ? ca
                                 : cb->ndropped && !ca->ndropped ? cb : NULL;
            for (int i = 0; one && i < one->ndropped; i++)
                diff[nd++] = one->dropped[i];
            for (int i = cb->extra_at; i < cb->argc && nd < (int)(sizeof diff / sizeof *diff); i++)
                diff[nd++] = cb->argv[i];
            uint64_t worst = run_compare_report(&a, &b, diff, nd);
            if (o->compare_max_ulp >= 0 && worst > (uint64_t)o->compare_max_ulp) {
                run_error("--compare-max-ulp %lld: a final parameter differs by %llu ULPs",
                          (long long)o->compare_max_ulp, (unsigned long long)worst);
                rc = CLI_EXIT_CHECK;
            }
        }
        run_compare_side_free(&b);
    }
    run_compare_side_free(&a);
    return rc;
}

int run_compare_main(int argc, char **argv, RunOptions *o) {
    const char *pair = o->compare_backends;
    const char *comma = pair ? strchr(pair, ',') : NULL;
    CmpArgs ca, cb;
    int ok = build_args(&ca, argc, argv, pair, pair ? (size_t)(comma - pair) : 0, NULL) &&
             build_args(&cb, argc, argv, pair ? comma + 1 : NULL,
                        pair ? strlen(comma + 1) : 0, o->compare_with);
    int rc = CLI_EXIT_INTERNAL;
    if (!ok)
        run_error("--compare-with: too many words (at most %d)", CMP_MAX_EXTRA);
    else
        rc = compare_sides(&ca, &cb, o);
    free_args(&ca);
    free_args(&cb);
    return ok ? rc : CLI_EXIT_USAGE;
}
