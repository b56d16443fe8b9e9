// cli/run/run_compare_report.c: the report of a comparison (run_compare.h).
//
// Where bits first differ says what made the difference, because every
// stage has one input and one kind of work:
//   local gradients differ, and nothing differed before    the kernels
//   synchronised gradients differ, the local ones do not    the collective
//   parameters after the step differ, the gradients do not  the optimizer
// and what the two sides were told to do differently names the part of it:
// TF32 or the backends' kernels; the all_reduce algorithm, NCCL's order,
// bucket boundaries or the division convention; the optimizer's settings,
// or clipping, whose total norm mixes every tensor's gradients. A tensor
// that first differs after something else did inherits the difference.
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "base/ulp.h" // defines: SimUlpStats, sim_ulp_compare
#include "run/run_compare.h"

static const char *const stage_name[RUN_CMP_STAGES] = {
    "initial weights", "local gradients", "synchronised gradients",
    "parameters after the step"};

typedef struct {
    int64_t step; // -1: never
    int stage;
} CmpPos;

// What the sides were told to do differently, by the kind of work it touches.
typedef struct {
    char compute[160], order[160], buckets[160], division[160], optim[160], init[160];
    int backends;       // the sides ran on different backends
    int nccl;           // one side's collectives were NCCL's
    int mixes;          // clipping or the scaler: the step reads every gradient
} CmpDiff;

// ----------------------------------------------------------------------------
// where bits differ

static int64_t steps_recorded(const RunCompareSide *s) {
    int64_t n = s->steps_cap;
    for (int r = 0; r < s->nranks; r++)
        if (s->steps_done[r] < n)
            n = s->steps_done[r];
    return n;
}

static int differs(const RunCompareSide *a, const RunCompareSide *b, int64_t step, int stage,
                   int param) {
    for (int r = 0; r < a->nranks; r++)
        if (*run_compare_hash_at(a, step, stage, r, param) !=
            *run_compare_hash_at(b, step, stage, r, param))
            return 1;
    return 0;
}

// The first (step, stage) at which param (-1: any) differs on some rank.
static CmpPos first_diff(const RunCompareSide *a, const RunCompareSide *b, int64_t steps,
                         int param) {
    for (int64_t step = 0; step <= steps; step++)
        for (int st = step == 0 ? 0 : 1; st < (step == 0 ? 1 : RUN_CMP_STAGES); st++)
            for (int p = param < 0 ? 0 : param; p < (param < 0 ? a->nparams : param + 1); p++)
                if (differs(a, b, step, st, p))
                    return (CmpPos){step, st};
    return (CmpPos){-1, 0};
}

static int before(CmpPos x, CmpPos y) {
    return x.step >= 0 && (x.step < y.step || (x.step == y.step && x.stage < y.stage));
}

// ----------------------------------------------------------------------------
// what the sides were told to do differently

static void add(char *dst, size_t len, const char *word) {
    size_t n = strlen(dst);
    snprintf(dst + n, len - n, "%s%s", n ? " " : "", word);
}

// Sorts side B's extra words (options and their values) by what they touch.
static void classify(CmpDiff *d, const char *const *extra, int nextra) {
    static const struct {
        const char *prefix;
        size_t field; // offset of the CmpDiff string
    } kinds[] = {
        {"--tf32", offsetof(CmpDiff, compute)},         {"--amp", offsetof(CmpDiff, compute)},
        {"--model", offsetof(CmpDiff, compute)},        {"--algo", offsetof(CmpDiff, order)},
        {"--coll-impl", offsetof(CmpDiff, order)},
        {"--bucket-cap-mb", offsetof(CmpDiff, buckets)},
        {"--last-bucket-cap", offsetof(CmpDiff, buckets)},
        {"--gradient-as-bucket-view", offsetof(CmpDiff, buckets)},
        {"--comm-hook", offsetof(CmpDiff, division)},   {"--lr", offsetof(CmpDiff, optim)},
        {"--optimizer", offsetof(CmpDiff, optim)},      {"--momentum", offsetof(CmpDiff, optim)},
        {"--weight-decay", offsetof(CmpDiff, optim)},   {"--betas", offsetof(CmpDiff, optim)},
        {"--eps", offsetof(CmpDiff, optim)},            {"--nesterov", offsetof(CmpDiff, optim)},
        {"--clip-grad-norm", offsetof(CmpDiff, optim)}, {"--seed", offsetof(CmpDiff, init)},
        {"--init", offsetof(CmpDiff, init)}};
    char *cur = NULL;
    for (int i = 0; i < nextra; i++) {
        const char *w = extra[i];
        if (w[0] == '-') {
            cur = NULL;
            for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
                size_t n = strlen(kinds[k].prefix);
                if (strncmp(w, kinds[k].prefix, n) == 0 && (w[n] == '\0' || w[n] == '='))
                    cur = (char *)d + kinds[k].field;
            }
        }
        if (cur)
            add(cur, 160, w);
    }
}

static void find_diff(CmpDiff *d, const RunCompareSide *a, const RunCompareSide *b,
                      const char *const *extra, int nextra) {
    memset(d, 0, sizeof *d);
    classify(d, extra, nextra);
    d->backends = strcmp(a->o->backend, b->o->backend) != 0;
    d->nccl = strstr(a->describe, "nccl") != NULL || strstr(b->describe, "nccl") != NULL;
    const SimOptimFlags *fa = &a->o->opt, *fb = &b->o->opt;
    d->mixes = fa->clip_grad_norm > 0 || fb->clip_grad_norm > 0 ||
               fa->amp.amp == SIM_FP16 || fb->amp.amp == SIM_FP16; // the scaler's inf check
}

// ----------------------------------------------------------------------------
// causes

// Appends "; text (words)" to a cause (": text" for its first part).
static void part(char *out, size_t len, int *nparts, const char *text, const char *words) {
    size_t n = strlen(out);
    snprintf(out + n, len - n, "%s%s%s%s%s", (*nparts)++ ? "; " : ": ", text,
             words && words[0] ? " (" : "", words ? words : "", words && words[0] ? ")" : "");
}

static void cause_compute(char *out, size_t len, const CmpDiff *d) {
    int k = 0;
    snprintf(out, len, "the kernels, on identical inputs");
    if (strstr(d->compute, "--tf32"))
        part(out, len, &k, "TF32 matrix products, inputs rounded to a 10-bit mantissa", NULL);
    if (d->backends)
        part(out, len, &k, "the backends' kernels: a matrix product adds its terms in "
                           "another order; other exp and tanh", NULL);
    if (d->compute[0])
        part(out, len, &k, "the settings", d->compute);
    if (k == 0)
        part(out, len, &k, "no setting differs: a kernel is not deterministic", NULL);
}

static void cause_collective(char *out, size_t len, const CmpDiff *d) {
    int k = 0;
    snprintf(out, len, "the collective, on identical local gradients");
    if (d->order[0])
        part(out, len, &k, "reduction order: another algorithm", d->order);
    if (d->nccl)
        part(out, len, &k, "reduction order: NCCL adds along its own ring or tree", NULL);
    if (d->buckets[0])
        part(out, len, &k, "bucket boundaries: a ring's chunks start at other elements, so "
                           "an element's terms are added in another order", d->buckets);
    if (d->division[0])
        part(out, len, &k, "the division convention: what divides by the world size, and "
                           "in which precision", d->division);
    if (k == 0)
        part(out, len, &k, d->backends ? "the backends' reduction kernels"
                                       : "no setting differs: the collective is not "
                                         "deterministic", NULL);
}

static void cause_optimizer(char *out, size_t len, const CmpDiff *d, int mixed_in) {
    int k = 0;
    snprintf(out, len, "the optimizer step, on identical gradients of this tensor");
    if (mixed_in)
        part(out, len, &k, "clipping or the scaler: one norm or inf check over every "
                           "tensor's gradients, some of which differed", NULL);
    if (d->optim[0])
        part(out, len, &k, "the optimizer's settings", d->optim);
    if (k == 0)
        part(out, len, &k, d->backends ? "the backends' optimizer kernels"
                                       : "no setting differs: the update is not "
                                         "deterministic", NULL);
}

// Why a tensor first differs at `at`, the run's first difference being `first`.
static void cause_of(char *out, size_t len, const CmpDiff *d, CmpPos at, CmpPos first,
                     int mixed_in) {
    if (before(first, at) && !(at.stage == 3 && mixed_in))
        snprintf(out, len, "carried over: the run already differed at step %" PRId64 ", %s",
                 first.step, stage_name[first.stage]);
    else if (at.stage == 0)
        snprintf(out, len, "the initial weights: %s",
                 d->init[0] ? d->init : "the backends drew or broadcast them differently");
    else if (at.stage == 1)
        cause_compute(out, len, d);
    else if (at.stage == 2)
        cause_collective(out, len, d);
    else
        cause_optimizer(out, len, d, mixed_in);
}

// ----------------------------------------------------------------------------
// printing

static const float *stage_row(const RunCompareSide *s, int stage, int rank) {
    return s->step1 + ((size_t)stage * (size_t)s->nranks + (size_t)rank) * (size_t)s->total;
}

// Step 1's stages (INIT is step 0): the largest difference over every rank
// and tensor, and where it is.
static void print_step1(const RunCompareSide *a, const RunCompareSide *b) {
    printf("step 1, stage by stage (the largest difference over every rank and tensor):\n");
    printf("  %-27s %8s %18s  %s\n", "stage", "max ULP", "differing", "where");
    for (int st = 0; st < RUN_CMP_STAGES; st++) {
        SimUlpStats all = {0};
        all.argmax = -1;
        int wr = -1, wp = -1;
        uint64_t best = 0;
        for (int r = 0; r < a->nranks; r++)
            for (int p = 0; p < a->nparams; p++) {
                SimUlpStats u;
                sim_ulp_compare(SIM_FP32, stage_row(a, st, r) + a->offset[p],
                                stage_row(b, st, r) + b->offset[p], a->numel[p], &u);
                if (u.ndiff > 0 && (wr < 0 || u.max_ulp > best)) {
                    best = u.max_ulp;
                    wr = r;
                    wp = p;
                    all.a_at = u.a_at;
                    all.b_at = u.b_at;
                    all.argmax = u.argmax;
                }
                all.n += u.n;
                all.ndiff += u.ndiff;
            }
        char cnt[48];
        snprintf(cnt, sizeof cnt, "%" PRId64 "/%" PRId64, all.ndiff, all.n);
        printf("  %-27s %8" PRIu64 " %18s", stage_name[st], best, cnt);
        if (wr >= 0)
            printf("  %s, rank %d, element %" PRId64 ": %.9g against %.9g", a->names[wp], wr,
                   all.argmax, all.a_at, all.b_at);
        printf("\n");
    }
}

typedef struct {
    char text[640];
} CmpCause;
enum { CMP_MAX_CAUSES = 16 };

// The index of text in causes (added when new).
static int cause_index(CmpCause *causes, int *n, const char *text) {
    for (int i = 0; i < *n; i++)
        if (strcmp(causes[i].text, text) == 0)
            return i;
    if (*n == CMP_MAX_CAUSES)
        return *n - 1; // cannot happen: a cause is a stage, with or without mixing
    snprintf(causes[*n].text, sizeof causes[*n].text, "%s", text);
    return (*n)++;
}

static uint64_t print_tensors(const RunCompareSide *a, const RunCompareSide *b,
                              const CmpDiff *d, int64_t steps, CmpPos first) {
    printf("final parameters, tensor by tensor (every rank; side A against side B):\n");
    printf("  %-24s %10s %18s %8s %11s  %-35s %s\n", "tensor", "elements", "differing",
           "max ULP", "max |a-b|", "first differs", "cause");
    CmpCause causes[CMP_MAX_CAUSES];
    int ncauses = 0, ndiff = 0, healed = 0; // differ at the end; differed, then agreed
    uint64_t worst = 0;
    for (int p = 0; p < a->nparams; p++) {
        SimUlpStats acc = {0};
        acc.argmax = -1;
        for (int r = 0; r < a->nranks; r++) {
            SimUlpStats u;
            const float *xa = a->last + (size_t)r * (size_t)a->total + a->offset[p];
            const float *xb = b->last + (size_t)r * (size_t)b->total + b->offset[p];
            sim_ulp_compare(SIM_FP32, xa, xb, a->numel[p], &u);
            sim_ulp_merge(&acc, &u);
        }
        worst = acc.max_ulp > worst ? acc.max_ulp : worst;
        CmpPos at = first_diff(a, b, steps, p);
        char cnt[48], where[64] = "never", key[16] = "";
        snprintf(cnt, sizeof cnt, "%" PRId64 " (%.1f%%)", acc.ndiff,
                 acc.n ? 100.0 * (double)acc.ndiff / (double)acc.n : 0.0);
        if (at.step >= 0) {
            char text[640];
            // the step mixes tensors: some other tensor's gradients differed
            int mixed = d->mixes && at.stage == 3 && before(first, at) &&
                        first.step == at.step;
            cause_of(text, sizeof text, d, at, first, mixed);
            snprintf(key, sizeof key, "[%d]", cause_index(causes, &ncauses, text) + 1);
            snprintf(where, sizeof where, "step %" PRId64 ", %s", at.step,
                     stage_name[at.stage]);
        }
        ndiff += acc.ndiff > 0;
        healed += acc.ndiff == 0 && at.step >= 0;
        printf("  %-24s %10" PRId64 " %18s %8" PRIu64 " %11.3g  %-35s %s\n", a->names[p],
               a->numel[p], cnt, acc.max_ulp, acc.max_abs, where, key);
    }
    for (int i = 0; i < ncauses; i++)
        printf("  [%d] %s\n", i + 1, causes[i].text);
    printf("summary: %d of %d tensors differ after %" PRId64 " steps on %d ranks", ndiff,
           a->nparams, steps, a->nranks);
    if (healed)
        printf(" (%d more differed on the way, and their final bits agree)", healed);
    if (ndiff)
        printf("; the largest difference is %" PRIu64 " ULP%s", worst, worst == 1 ? "" : "s");
    printf("\n");
    return worst;
}

uint64_t run_compare_report(const RunCompareSide *a, const RunCompareSide *b,
                            const char *const *extra, int nextra) {
    if (a->nparams != b->nparams || a->total != b->total) {
        printf("comparison: the two sides built different models (%d and %d tensors): "
               "nothing to compare tensor by tensor\n", a->nparams, b->nparams);
        return UINT64_MAX;
    }
    int64_t steps = steps_recorded(a) < steps_recorded(b) ? steps_recorded(a)
                                                          : steps_recorded(b);
    CmpDiff d;
    find_diff(&d, a, b, extra, nextra);
    printf("== comparison\nside A: %s%s%s%s\nside B: %s%s%s%s\n", a->label,
           a->describe[0] ? " (" : "", a->describe, a->describe[0] ? ")" : "", b->label,
           b->describe[0] ? " (" : "", b->describe, b->describe[0] ? ")" : "");
    print_step1(a, b);
    CmpPos first = first_diff(a, b, steps, -1);
    if (first.step < 0) {
        printf("bit-identical: every tensor at every stage of all %" PRId64 " steps, on "
               "every rank\n", steps);
    } else {
        char text[640];
        cause_of(text, sizeof text, &d, first, first, 0);
        printf("first difference: step %" PRId64 ", %s: %s\n", first.step,
               stage_name[first.stage], text);
    }
    return print_tensors(a, b, &d, steps, first);
}
