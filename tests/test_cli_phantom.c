// tests/test_cli_phantom.c: `ddplab run --phantom` as a user runs it: the
// configuration table says so, progress lines and the summary say that the
// losses are not computed, --metrics writes them as null, the memory table
// and the simulated time are printed (the same as the numeric run's), and
// what cannot go with it (--save, --resume, --init, --backend sym) is
// refused with a message naming the option.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "test_cli_run.h"
#include "test_files.h"

static const char *exe;

// The text after `key` up to the end of its line, in a static buffer.
static const char *line_after(const char *s, const char *key) {
    static char buf[256];
    const char *p = s ? strstr(s, key) : NULL;
    if (p == NULL)
        return "";
    p += strlen(key);
    size_t n = strcspn(p, "\n");
    snprintf(buf, sizeof buf, "%.*s", (int)(n < sizeof buf ? n : sizeof buf - 1), p);
    return buf;
}

static int test_run(void) {
    TcliResult num, ph;
    TCLI_RUN(num, exe, 60, "run", "--strategy", "fsdp", "-n", "4", "--steps", "3",
             "--progress", "lines");
    TCLI_RUN(ph, exe, 60, "run", "--phantom", "--strategy", "fsdp", "-n", "4", "--steps", "3",
             "--progress", "lines");
    int rc = 0;
    if (num.rc != 0 || ph.rc != 0) {
        fprintf(stderr, "%s\n%s\n", num.err, ph.err);
        rc = 1;
    }
    rc |= strstr(ph.out, "| phantom") == NULL;
    rc |= strstr(ph.out, "losses not computed (--phantom: shapes only)") == NULL;
    rc |= strstr(ph.err, "| loss - |") == NULL;
    rc |= strstr(num.out, "final loss") == NULL;
    // the same simulated time and the same memory table
    char sim_num[256];
    snprintf(sim_num, sizeof sim_num, "%s", line_after(num.out, "simulated time "));
    rc |= sim_num[0] == '\0' || strcmp(sim_num, line_after(ph.out, "simulated time ")) != 0;
    const char *tn = strstr(num.out, "memory: each rank"), *tp = strstr(ph.out, "memory: each rank");
    rc |= tn == NULL || tp == NULL || strcmp(tn, tp) != 0;
    if (rc)
        fprintf(stderr, "numeric:\n%s\nphantom:\n%s%s\n", num.out, ph.out, ph.err);
    tcli_result_free(&num);
    tcli_result_free(&ph);
    return rc;
}

static int test_metrics(void) {
    char dir[] = "/tmp/ddplab-phantom-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    const char *m = tcli_path(dir, "m.jsonl");
    TcliResult r;
    TCLI_RUN(r, exe, 60, "run", "--phantom", "--steps", "2", "--metrics", m);
    CHECK_EQ_INT(r.rc, 0);
    tcli_result_free(&r);
    FILE *f = fopen(m, "r");
    CHECK(f != NULL);
    char line[1024];
    int lines = 0;
    while (fgets(line, sizeof line, f)) {
        CHECK_STR_CONTAINS(line, "\"loss\":null");
        CHECK_STR_CONTAINS(line, "\"grad_norm\":null");
        CHECK_STR_CONTAINS(line, "\"mem_peak_bytes\":");
        lines++;
    }
    fclose(f);
    CHECK_EQ_INT(lines, 2);
    remove(m);
    rmdir(dir);
    return 0;
}

static int refused(const char *why, const char *a, const char *b) {
    TcliResult r;
    TCLI_RUN(r, exe, 60, "run", "--phantom", a, b);
    int ok = r.rc == 2 && strstr(r.err, why) != NULL && tcli_lines(r.err) == 1;
    if (!ok)
        fprintf(stderr, "%s %s: rc %d: %s\n", a, b, r.rc, r.err);
    tcli_result_free(&r);
    return ok ? 0 : 1;
}

static int test_refused(void) {
    CHECK(refused("--save: '/tmp/x.safetensors' cannot be combined with --phantom", "--save",
                  "/tmp/x.safetensors") == 0);
    CHECK(refused("--backend: 'sym' is not offered for training", "--backend", "sym") == 0);
    return 0;
}

int main(int argc, char **argv) {
    exe = tcli_exe_arg(argc, argv);
    if (exe == NULL)
        return 2;
    int failures = 0;
    RUN(test_run);
    RUN(test_metrics);
    RUN(test_refused);
    return failures ? 1 : 0;
}
