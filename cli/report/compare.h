// cli/report/compare.h: `ddplab compare A.st B.st [--json] [--top N] [--all]`:
// two safetensors files (checkpoints) compared tensor by tensor, by name,
// in units in the last place (sim/base/ulp.h), plus the metadata that differs.
#ifndef DDPLAB_CLI_COMPARE_H
#define DDPLAB_CLI_COMPARE_H

#include <stdio.h>

#include "base/ulp.h"            // defines: SimUlpStats
#include "formats/safetensors.h" // defines: SimStFile, SimStTensor

typedef struct {
    const char *path[2]; // A and B
    int json;            // --json: one JSON object instead of the tables
    int top;             // --top N: rows of the table, 0 = all [20]
    int all;             // --all: identical tensors in the table too
} CompareOptions;

// What became of one tensor name.
typedef enum {
    COMPARE_SAME = 0, // in both, same dtype and shape, bit-identical
    COMPARE_DIFF,     // in both, same dtype and shape, some element differs
    COMPARE_DTYPE,    // in both, dtypes differ (shapes may too)
    COMPARE_SHAPE,    // in both, same dtype, shapes differ
    COMPARE_ONLY_A,
    COMPARE_ONLY_B,
} CompareKind;

typedef struct {
    const char *name;
    CompareKind kind;
    const SimStTensor *a, *b; // NULL on the side that lacks it
    SimUlpStats st;           // SAME and DIFF only
} CompareRow;

// A metadata key whose values differ; NULL on the side that lacks it.
typedef struct {
    const char *key;
    const char *a, *b;
} CompareMeta;

typedef struct {
    const char *path[2];
    SimStFile f[2];
    CompareRow *rows; // SAME/DIFF sorted by max ULP descending (then by
    int nrows;        // differing elements, then name), then the rest
    CompareMeta *meta;
    int nmeta;
    int count[COMPARE_ONLY_B + 1]; // rows of each kind
    int worst;                     // row with the largest ULP; -1: none differ
} CompareResult;

// `ddplab compare ...`: argv[0] is "compare". Returns an exit code.
int compare_main(int argc, char **argv);
void compare_help(FILE *out);

// Parses argv into *o: 0, -1 for --help, or an exit code after a message.
int compare_opts_parse(int argc, char **argv, CompareOptions *o);

// Loads both files and compares them (compare_diff.c). On failure r is
// empty (safe to free) and err holds one line: SIM_EIO, SIM_EFORMAT,
// SIM_ENOMEM.
SimStatus compare_files(const char *a, const char *b, CompareResult *r, char *err,
                        size_t errlen);
void compare_free(CompareResult *r);
// 1 when no tensor differs (metadata aside).
int compare_identical(const CompareResult *r);
// Whether row i goes into the table under o's --all and --top.
int compare_shown(const CompareResult *r, const CompareOptions *o, int i);

// The tables (compare_text.c) and the JSON object (compare_json.c).
void compare_print_text(FILE *out, const CompareResult *r, const CompareOptions *o);
void compare_print_json(FILE *out, const CompareResult *r, const CompareOptions *o);

#endif
