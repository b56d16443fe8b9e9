// cli/report/compare_text.c: the text of `ddplab compare`: a line per file, the
// metadata that differs, the table of tensors (largest ULP first), and the
// summary.
#include <inttypes.h>
#include <string.h>

#include "report/compare.h"

// Enough digits to tell neighbouring values of the dtype apart: 9 for
// fp32, 5 for fp16 (4 would do for bf16). Integers are printed whole.
static const char *fmt_value(double v, SimDtype dt, char *buf, size_t len) {
    if (!sim_dtype_is_float(dt))
        snprintf(buf, len, "%.0f", v);
    else
        snprintf(buf, len, dt == SIM_FP32 ? "%.9g" : "%.5g", v);
    return buf;
}

// A NaN against a number has no distance: UINT64_MAX stands for it (in a
// float tensor; in an int64 one it is a real |a - b|).
static const char *fmt_ulp(uint64_t u, SimDtype dt, char *buf, size_t len) {
    if (u == UINT64_MAX && sim_dtype_is_float(dt))
        snprintf(buf, len, "nan");
    else
        snprintf(buf, len, "%" PRIu64, u);
    return buf;
}

static const char *fmt_shape(const SimStTensor *t, char *buf, size_t len) {
    size_t n = (size_t)snprintf(buf, len, "[");
    for (int d = 0; d < t->ndim && n < len; d++)
        n += (size_t)snprintf(buf + n, len - n, "%s%" PRId64, d ? ", " : "", t->shape[d]);
    if (n < len)
        snprintf(buf + n, len - n, "]");
    return buf;
}

static void print_file(FILE *out, const CompareResult *r, int side) {
    const SimStFile *f = &r->f[side];
    const char *step = sim_stfile_meta(f, "step");
    fprintf(out, "%c: %s: %d tensors", side ? 'B' : 'A', r->path[side], f->ntensors);
    if (step != NULL)
        fprintf(out, ", step %s", step);
    fprintf(out, ", %s\n", f->checked ? "checksum verified" : "no checksum");
}

static void print_meta(FILE *out, const CompareResult *r) {
    if (r->nmeta == 0)
        return;
    fprintf(out, "metadata that differs (\"checksum\" aside):\n");
    for (int i = 0; i < r->nmeta; i++) {
        const CompareMeta *m = &r->meta[i];
        fprintf(out, "  %s: %s | %s\n", m->key, m->a ? m->a : "(absent)",
                m->b ? m->b : "(absent)");
    }
}

// Widths of the two columns whose contents vary most: name and shape.
static void widths(const CompareResult *r, const CompareOptions *o, int *wn, int *ws) {
    *wn = 4;
    *ws = 5;
    char sh[256];
    for (int i = 0; compare_shown(r, o, i); i++) {
        int n = (int)strlen(r->rows[i].name);
        int s = (int)strlen(fmt_shape(r->rows[i].a, sh, sizeof sh));
        *wn = n > *wn ? n : *wn;
        *ws = s > *ws ? s : *ws;
    }
}

static void print_row(FILE *out, const CompareRow *row, int wn, int ws) {
    const SimUlpStats *s = &row->st;
    SimDtype dt = row->a->dtype;
    char sh[256], nd[48], ulp[24], va[40], vb[40], where[112] = "-";
    snprintf(nd, sizeof nd, "%" PRId64 " (%.3g%%)", s->ndiff,
             s->n > 0 ? 100.0 * (double)s->ndiff / (double)s->n : 0.0);
    if (s->argmax >= 0)
        snprintf(where, sizeof where, "%" PRId64 ": %s vs %s", s->argmax,
                 fmt_value(s->a_at, dt, va, sizeof va), fmt_value(s->b_at, dt, vb, sizeof vb));
    fprintf(out, "  %-*s  %-5s  %-*s  %10" PRId64 "  %17s  %10s  %10.3g  %10.3g  %s\n", wn,
            row->name, sim_dtype_name(dt), ws, fmt_shape(row->a, sh, sizeof sh), s->n, nd,
            fmt_ulp(s->max_ulp, dt, ulp, sizeof ulp), s->max_abs, s->max_rel, where);
}

static void print_table(FILE *out, const CompareResult *r, const CompareOptions *o) {
    int listed = r->count[COMPARE_DIFF] + (o->all ? r->count[COMPARE_SAME] : 0);
    int shown = 0;
    while (compare_shown(r, o, shown))
        shown++;
    if (listed == 0)
        return;
    fprintf(out, "\n%s, the largest ULP first (%d of %d shown):\n",
            o->all ? "tensors in both files" : "tensors that differ", shown, listed);
    int wn, ws;
    widths(r, o, &wn, &ws);
    fprintf(out, "  %-*s  %-5s  %-*s  %10s  %17s  %10s  %10s  %10s  %s\n", wn, "name", "dtype",
            ws, "shape", "elements", "differing", "max ULP", "max |a-b|", "max rel",
            "where: index: A vs B");
    for (int i = 0; i < shown; i++)
        print_row(out, &r->rows[i], wn, ws);
}

// Tensors in one file only, or with another dtype or shape.
static void print_mismatches(FILE *out, const CompareResult *r) {
    static const char *what[] = {[COMPARE_DTYPE] = "dtype differs",
                                 [COMPARE_SHAPE] = "shape differs",
                                 [COMPARE_ONLY_A] = "only in A",
                                 [COMPARE_ONLY_B] = "only in B"};
    char sa[256], sb[256];
    for (int i = 0; i < r->nrows; i++) {
        const CompareRow *row = &r->rows[i];
        if (row->kind < COMPARE_DTYPE)
            continue;
        fprintf(out, "  %s: %s", what[row->kind], row->name);
        if (row->kind == COMPARE_DTYPE || row->kind == COMPARE_SHAPE)
            fprintf(out, ": %s %s vs %s %s", sim_dtype_name(row->a->dtype),
                    fmt_shape(row->a, sa, sizeof sa), sim_dtype_name(row->b->dtype),
                    fmt_shape(row->b, sb, sizeof sb));
        fputc('\n', out);
    }
}

static void print_summary(FILE *out, const CompareResult *r) {
    int both = r->count[COMPARE_SAME] + r->count[COMPARE_DIFF];
    fprintf(out, "\nsummary: of %d tensors in both files with the same dtype and shape, "
            "%d identical, %d differing\n", both, r->count[COMPARE_SAME], r->count[COMPARE_DIFF]);
    print_mismatches(out, r);
    if (r->worst >= 0) {
        const CompareRow *w = &r->rows[r->worst];
        char ulp[24], va[40], vb[40];
        fprintf(out, "  largest ULP: %s in %s at index %" PRId64 " (%s vs %s)\n",
                fmt_ulp(w->st.max_ulp, w->a->dtype, ulp, sizeof ulp), w->name, w->st.argmax,
                fmt_value(w->st.a_at, w->a->dtype, va, sizeof va),
                fmt_value(w->st.b_at, w->a->dtype, vb, sizeof vb));
    }
    if (compare_identical(r))
        fprintf(out, "result: identical: all %d tensors are bit-identical%s\n", r->nrows,
                r->nmeta ? " (the metadata differs)" : "");
    else
        fprintf(out, "result: the files differ in %d of %d tensors\n",
                r->nrows - r->count[COMPARE_SAME], r->nrows);
}

void compare_print_text(FILE *out, const CompareResult *r, const CompareOptions *o) {
    print_file(out, r, 0);
    print_file(out, r, 1);
    print_meta(out, r);
    print_table(out, r, o);
    print_summary(out, r);
}
