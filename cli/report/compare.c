// cli/report/compare.c: `ddplab compare A.st B.st`: options, the help, and the
// exit code (0 when the tensors are bit-identical, 1 when some differ).
#include "report/compare.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/cli.h"  // defines: CLI_EXIT_*
#include "core/opts.h" // defines: cli_opt_shown

#define PROG "ddplab compare"

void compare_help(FILE *out) {
    fputs("usage: ddplab compare A.st B.st [--json] [--top N] [--all]\n"
          "\n"
          "Compares two safetensors files (checkpoints written by `ddplab run\n"
          "--save`) tensor by tensor, matching tensors by name, and says how far\n"
          "apart they are: for each tensor the elements that differ, the largest\n"
          "difference in ULPs, the largest absolute and relative difference, and\n"
          "where the largest ULP difference is (flat index, row-major, and both\n"
          "values). Tensors in one file only, and tensors whose dtype or shape\n"
          "differ, are listed as differences. Metadata keys whose values differ\n"
          "are shown (\"checksum\" aside, which differs whenever anything does).\n"
          "Both files are checked whole (structure and checksum) before anything\n"
          "is compared.\n"
          "\n"
          "A ULP (unit in the last place) is the gap between a floating-point\n"
          "value and the next one its dtype can represent. The distance in ULPs\n"
          "between two values is how many such steps lead from one to the other:\n"
          "1 means neighbours (the smallest possible difference), 2^23 = 8388608\n"
          "separates 1.0 and 2.0 in fp32 (2^7 in bf16, 2^10 in fp16). It counts\n"
          "across zero (+0 and -0 are 0 apart) and the infinities are one step\n"
          "beyond the largest finite value. Unlike an absolute or relative\n"
          "tolerance it means the same at every magnitude, which is why it is the\n"
          "measure of \"how much did rounding change this\". Two NaNs count as\n"
          "equal; a NaN against a number is shown as ULP 'nan'. For int32 and\n"
          "int64 tensors the column holds |a - b|.\n"
          "\n"
          "options:\n"
          "      --json     print everything as one JSON object instead of the\n"
          "                 tables [off]\n"
          "      --top N    at most N rows in the table of tensors, the largest\n"
          "                 ULPs first; 0 = every row [20]\n"
          "      --all      list the identical tensors in the table too [off:\n"
          "                 only those that differ]\n"
          "  -h, --help     print this help\n"
          "\n"
          "examples:\n"
          "  ddplab run --strategy single --data blobs --steps 3 -b 64 --save one.st\n"
          "  ddplab run --strategy ddp -n 2 --data blobs --steps 3 --save ddp.st\n"
          "  ddplab compare one.st ddp.st      (the same sums in another order:\n"
          "                                    a few elements, a few ULPs apart)\n"
          "  ddplab compare one.st ddp.st --json --top 0\n"
          "\n"
          "exit codes:\n"
          "  0  every tensor is bit-identical (differing metadata alone is shown\n"
          "     but does not count)\n"
          "  1  some tensor differs: its elements, its dtype or shape, or it is\n"
          "     in one file only\n"
          "  2  bad usage, or a file that is missing, unreadable or corrupt\n"
          "  4  internal error (out of memory)\n",
          out);
}

// --top's value: a whole number from 0 up.
static int parse_top(const char *v, int *top) {
    char shown[72];
    if (v == NULL || v[0] == '\0') {
        fprintf(stderr, "%s: --top needs a number of rows (--top N, 0 = every row)\n", PROG);
        return CLI_EXIT_USAGE;
    }
    char *end = NULL;
    errno = 0;
    // strtol alone would take " 5", "+5" and "-0"; only digits are a count.
    long n = v[0] >= '0' && v[0] <= '9' ? strtol(v, &end, 10) : -1;
    if (n < 0 || errno != 0 || *end != '\0' || n > INT_MAX) {
        fprintf(stderr, "%s: --top '%s': not a number of rows (allowed: a whole number "
                "from 0, 0 = every row)\n", PROG, cli_opt_shown(v, shown, sizeof shown));
        return CLI_EXIT_USAGE;
    }
    *top = (int)n;
    return 0;
}

// One argument: 1 if it took the next one as its value, 0 if not, or an
// exit code (>= 2) after a message.
static int parse_one(int argc, char **argv, int i, CompareOptions *o) {
    const char *a = argv[i];
    char shown[72];
    if (strcmp(a, "--json") == 0) {
        o->json = 1;
        return 0;
    }
    if (strcmp(a, "--all") == 0) {
        o->all = 1;
        return 0;
    }
    if (strcmp(a, "--top") == 0 || strncmp(a, "--top=", 6) == 0) {
        const char *v = a[5] == '=' ? a + 6 : (i + 1 < argc ? argv[i + 1] : NULL);
        int rc = parse_top(v, &o->top);
        return rc != 0 ? rc : a[5] != '=';
    }
    if (a[0] == '-' && a[1] != '\0') {
        fprintf(stderr, "%s: unknown option '%s' (allowed: --json, --top N, --all, --help)\n",
                PROG, cli_opt_shown(a, shown, sizeof shown));
        return CLI_EXIT_USAGE;
    }
    if (o->path[1] != NULL) {
        fprintf(stderr, "%s: two files at a time ('%s' is a third)\n", PROG,
                cli_opt_shown(a, shown, sizeof shown));
        return CLI_EXIT_USAGE;
    }
    o->path[o->path[0] != NULL] = a;
    return 0;
}

int compare_opts_parse(int argc, char **argv, CompareOptions *o) {
    memset(o, 0, sizeof *o);
    o->top = 20;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return -1;
    for (int i = 1; i < argc; i++) {
        int rc = parse_one(argc, argv, i, o);
        if (rc >= CLI_EXIT_USAGE)
            return rc;
        i += rc;
    }
    if (o->path[1] == NULL) {
        fprintf(stderr, "%s: which files? (ddplab compare A.st B.st; write checkpoints "
                "with ddplab run --save FILE.st)\n", PROG);
        return CLI_EXIT_USAGE;
    }
    return 0;
}

int compare_main(int argc, char **argv) {
    CompareOptions o;
    int prc = compare_opts_parse(argc, argv, &o);
    if (prc < 0) {
        compare_help(stdout);
        return CLI_EXIT_OK;
    }
    if (prc != 0)
        return prc;
    CompareResult r;
    char err[512];
    SimStatus st = compare_files(o.path[0], o.path[1], &r, err, sizeof err);
    if (st != SIM_OK) {
        fprintf(stderr, "%s: %s\n", PROG, err);
        return st == SIM_ENOMEM ? CLI_EXIT_INTERNAL : CLI_EXIT_USAGE;
    }
    if (o.json)
        compare_print_json(stdout, &r, &o);
    else
        compare_print_text(stdout, &r, &o);
    int rc = compare_identical(&r) ? CLI_EXIT_OK : CLI_EXIT_CHECK;
    compare_free(&r);
    return rc;
}
