// cli/report/compare_json.c: `ddplab compare --json`: the comparison as one JSON
// object on stdout:
//   {"a": {"path", "tensors", "step" (the metadata string, or null),
//          "checksum_verified"}, "b": {...},
//    "identical": true when every tensor is bit-identical,
//    "counts": {"compared", "identical", "differing", "dtype_mismatch",
//               "shape_mismatch", "only_in_a", "only_in_b"},
//    "listed": rows the table would hold without --top,
//    "tensors": [{"name", "dtype", "shape": [...], "elements", "differing",
//                 "differing_pct", "max_ulp", "max_abs", "max_rel",
//                 "nan_mismatch", "index" (null: none differ), "a", "b"}],
//    "mismatches": [{"name", "kind": "dtype" | "shape" | "only_in_a" |
//                    "only_in_b", "a": {"dtype", "shape"} or null, "b": ...}],
//    "largest": {"tensor", "max_ulp", "index", "a", "b"} or null,
//    "metadata": [{"key", "a", "b"}]}   (null for a side without the key)
// "tensors" holds the rows of the table (--all, --top apply). max_ulp is an
// exact integer; in a float tensor 18446744073709551615 (2^64 - 1) means a
// NaN met a number. Values JSON cannot hold (NaN, infinities) are null.
#include "base/outfile.h" // defines: SimJsonOut
#include "report/compare.h"

// ", "k": v for the plain fields.
static void i64_field(SimJsonOut *o, const char *k, int64_t v) {
    sim_json_key(o, k, 0);
    sim_json_i64(o, v);
}

static void num_field(SimJsonOut *o, const char *k, double v) {
    sim_json_key(o, k, 0);
    sim_json_num(o, v);
}

// Key k, then "{" when present (1 returned: the caller fills the object
// and closes it) or null (0).
static int object_or_null(SimJsonOut *o, const char *k, int first, int present) {
    sim_json_key(o, k, first);
    sim_json_raw(o, present ? "{" : "null");
    return present;
}

static void shape(SimJsonOut *o, const SimStTensor *t) {
    sim_json_raw(o, "[");
    for (int d = 0; d < t->ndim; d++) {
        if (d > 0)
            sim_json_raw(o, ", ");
        sim_json_i64(o, t->shape[d]);
    }
    sim_json_raw(o, "]");
}

static void file_json(SimJsonOut *o, const CompareResult *r, int side) {
    const SimStFile *f = &r->f[side];
    object_or_null(o, side ? "b" : "a", side == 0, 1);
    sim_json_key(o, "path", 1);
    sim_json_str(o, r->path[side]);
    i64_field(o, "tensors", f->ntensors);
    sim_json_key(o, "step", 0);
    sim_json_str(o, sim_stfile_meta(f, "step"));
    sim_json_key(o, "checksum_verified", 0);
    sim_json_raw(o, f->checked ? "true}" : "false}");
}

static void counts_json(SimJsonOut *o, const CompareResult *r) {
    static const char *names[] = {"identical", "differing", "dtype_mismatch",
                                  "shape_mismatch", "only_in_a", "only_in_b"};
    object_or_null(o, "counts", 0, 1);
    sim_json_key(o, "compared", 1);
    sim_json_i64(o, r->count[COMPARE_SAME] + r->count[COMPARE_DIFF]);
    for (int k = COMPARE_SAME; k <= COMPARE_ONLY_B; k++)
        i64_field(o, names[k], r->count[k]);
    sim_json_raw(o, "}");
}

// The index and the two values at the largest ULP (null: none differ).
static void where_json(SimJsonOut *o, const SimUlpStats *s) {
    sim_json_key(o, "index", 0);
    if (s->argmax < 0) {
        sim_json_raw(o, "null, \"a\": null, \"b\": null");
        return;
    }
    sim_json_i64(o, s->argmax);
    num_field(o, "a", s->a_at);
    num_field(o, "b", s->b_at);
}

static void row_json(SimJsonOut *o, const CompareRow *row, int first) {
    const SimUlpStats *s = &row->st;
    sim_json_raw(o, first ? "\n  {" : ",\n  {");
    sim_json_key(o, "name", 1);
    sim_json_str(o, row->name);
    sim_json_key(o, "dtype", 0);
    sim_json_str(o, sim_dtype_name(row->a->dtype));
    sim_json_key(o, "shape", 0);
    shape(o, row->a);
    i64_field(o, "elements", s->n);
    i64_field(o, "differing", s->ndiff);
    num_field(o, "differing_pct", s->n > 0 ? 100.0 * (double)s->ndiff / (double)s->n : 0.0);
    sim_json_key(o, "max_ulp", 0);
    sim_json_u64(o, s->max_ulp);
    num_field(o, "max_abs", s->max_abs);
    num_field(o, "max_rel", s->max_rel);
    i64_field(o, "nan_mismatch", s->nan_mismatch);
    where_json(o, s);
    sim_json_raw(o, "}");
}

static void side_json(SimJsonOut *o, const char *k, const SimStTensor *t) {
    if (!object_or_null(o, k, 0, t != NULL))
        return;
    sim_json_key(o, "dtype", 1);
    sim_json_str(o, sim_dtype_name(t->dtype));
    sim_json_key(o, "shape", 0);
    shape(o, t);
    sim_json_raw(o, "}");
}

static void mismatches_json(SimJsonOut *o, const CompareResult *r) {
    static const char *kinds[] = {[COMPARE_DTYPE] = "dtype", [COMPARE_SHAPE] = "shape",
                                  [COMPARE_ONLY_A] = "only_in_a", [COMPARE_ONLY_B] = "only_in_b"};
    sim_json_key(o, "mismatches", 1);
    sim_json_raw(o, "[");
    int first = 1;
    for (int i = 0; i < r->nrows; i++) {
        const CompareRow *row = &r->rows[i];
        if (row->kind < COMPARE_DTYPE)
            continue;
        sim_json_raw(o, first ? "\n  {" : ",\n  {");
        sim_json_key(o, "name", 1);
        sim_json_str(o, row->name);
        sim_json_key(o, "kind", 0);
        sim_json_str(o, kinds[row->kind]);
        side_json(o, "a", row->a);
        side_json(o, "b", row->b);
        sim_json_raw(o, "}");
        first = 0;
    }
    sim_json_raw(o, "]");
}

static void largest_json(SimJsonOut *o, const CompareResult *r) {
    if (!object_or_null(o, "largest", 1, r->worst >= 0))
        return;
    const CompareRow *w = &r->rows[r->worst];
    sim_json_key(o, "tensor", 1);
    sim_json_str(o, w->name);
    sim_json_key(o, "max_ulp", 0);
    sim_json_u64(o, w->st.max_ulp);
    where_json(o, &w->st);
    sim_json_raw(o, "}");
}

static void meta_json(SimJsonOut *o, const CompareResult *r) {
    sim_json_key(o, "metadata", 1);
    sim_json_raw(o, "[");
    for (int i = 0; i < r->nmeta; i++) {
        sim_json_raw(o, i ? ", {" : "{");
        sim_json_key(o, "key", 1);
        sim_json_str(o, r->meta[i].key);
        sim_json_key(o, "a", 0);
        sim_json_str(o, r->meta[i].a);
        sim_json_key(o, "b", 0);
        sim_json_str(o, r->meta[i].b);
        sim_json_raw(o, "}");
    }
    sim_json_raw(o, "]");
}

void compare_print_json(FILE *out, const CompareResult *r, const CompareOptions *opt) {
    SimJsonOut o;
    sim_json_begin(&o, out);
    sim_json_raw(&o, "{");
    file_json(&o, r, 0);
    file_json(&o, r, 1);
    sim_json_key(&o, "identical", 0);
    sim_json_raw(&o, compare_identical(r) ? "true" : "false");
    counts_json(&o, r);
    i64_field(&o, "listed", r->count[COMPARE_DIFF] + (opt->all ? r->count[COMPARE_SAME] : 0));
    sim_json_key(&o, "tensors", 0);
    sim_json_raw(&o, "[");
    for (int i = 0; compare_shown(r, opt, i); i++)
        row_json(&o, &r->rows[i], i == 0);
    sim_json_raw(&o, "],\n");
    mismatches_json(&o, r);
    sim_json_raw(&o, ",\n");
    largest_json(&o, r);
    sim_json_raw(&o, ",\n");
    meta_json(&o, r);
    sim_json_raw(&o, "}\n");
    sim_json_flush(&o);
}
