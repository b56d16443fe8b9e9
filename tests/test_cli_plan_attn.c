// tests/test_cli_plan_attn.c: what `ddplab plan` says of a transformer's
// activations and attention, against hand computations:
//   - a plain gpt: spec is planned as PyTorch runs it: its activations live
//     from forward to backward (none between steps) and their peak is
//     Korthikanti et al.'s per-layer bytes, sbh(32 + 2as/h) without dropout
//     in 16-bit, times the layers.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "test_cli_run.h"

static const char *exe;

#define PLAN(res, ...) TCLI_RUN(res, exe, 120.0, "plan", __VA_ARGS__)

// "201.3 MB" -> 201.3e6 (the planner prints decimal units).
static double bytes_of(const char *p) {
    char *end;
    double v = strtod(p, &end);
    while (*end == ' ')
        end++;
    static const char *const units[] = {"B", "kB", "MB", "GB", "TB"};
    for (int k = 4; k >= 0; k--)
        if (strncmp(end, units[k], strlen(units[k])) == 0)
        {
            double m = 1;
            for (int i = 0; i < k; i++)
                m *= 1e3;
            return v * m;
        }
    return -1;
}

// The memory table's row `name`: its bytes at the peak and between steps.
static int mem_row(const char *out, const char *name, double *peak, double *between) {
    char key[64];
    snprintf(key, sizeof key, "\n  %s  ", name);
    const char *p = strstr(out, key);
    if (!p)
        return -1;
    p += strlen(key);
    while (*p == ' ')
        p++;
    *peak = bytes_of(p);
    p = strchr(p, 'B'); // past the first unit
    if (!p)
        return -1;
    *between = bytes_of(p + 1);
    return 0;
}

// Within the printed precision: four significant figures or better.
#define NEAR(got, want) CHECK((got) - (want) <= 0.0005 * (want) && (want) - (got) <= 0.0005 * (want))

static int test_gpt_spec_frees(void) {
    TcliResult r;
    PLAN(r, "--model", "gpt:layers=4,embd=512,heads=8,ctx=512,vocab=1000", "-n", "8", "-b", "4",
         "--ckpt", "none");
    CHECK_EQ_INT(r.rc, 0);
    double peak = 0, between = -1;
    CHECK(mem_row(r.out, "activations", &peak, &between) == 0);
    CHECK(between == 0.0);
    // s 512, b 4, h 512, a 8: sbh = 1,048,576 and 32 + 2as/h = 48 bytes per
    // sbh, 50,331,648 per layer, 201,326,592 for the four
    NEAR(peak, 4.0 * 512 * 4 * 512 * (32.0 + 2.0 * 8 * 512 / 512));
    tcli_result_free(&r);
    return 0;
}

int main(int argc, char **argv) {
    exe = tcli_exe_arg(argc, argv);
    if (exe == NULL)
        return 2;
    int fails = 0;
    fails += test_gpt_spec_frees();
    if (fails == 0)
        printf("ok\n");
    return fails ? 1 : 0;
}
