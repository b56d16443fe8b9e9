// tests/test_cli_exit_codes.c: one rule for an input file that cannot be
// read (docs/exit-codes.md): every command that reads a file, given one that
// is missing, a directory, or (when the test is not root) not readable,
// exits 2 (bad input) with one line on stderr naming the file and nothing
// on stdout: replay, report, compare (either side), merge-traces, lesson
// (a lesson file, a lessons' directory), interview --answers, run's files
// (--init, --resume, an elastic --resume, --data, --labels, --text,
// --profile, --gpu), plan --system and --gpu, bench --profile and --gpu.
//
// usage: test_cli_exit_codes PATH/TO/ddplab
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "test_cli_run.h"
#include "test_files.h"

#define TIMEOUT_S 60.0

static const char *exe;
static char dir[512];

// dir/name in a buffer of its own (tcli_path's are reused in turn).
static const char *own_path(char *buf, size_t len, const char *name) {
    snprintf(buf, len, "%s/%s", dir, name);
    return buf;
}

enum { ANY = 0, MISSING_ONLY = 1 }; // a directory or a locked file is a fine value

// Each case: the command's words, "@" standing for the input; flags.
static const struct {
    const char *words[14];
    int only;
} cases[] = {
    {{"replay", "@"}, ANY},
    {{"replay", "@", "--info"}, ANY},
    {{"report", "@"}, ANY},
    {{"report", "@", "--json"}, ANY},
    {{"compare", "@", "GOOD"}, ANY},
    {{"compare", "GOOD", "@"}, ANY},
    {{"merge-traces", "OUT", "@"}, ANY},
    {{"lesson", "@"}, ANY},
    {{"lesson", "--lessons", "@", "--list"}, MISSING_ONLY},
    {{"interview", "--answers", "@"}, ANY},
    {{"run", "--steps", "1", "--init", "@"}, ANY},
    {{"run", "--steps", "1", "--resume", "@"}, ANY},
    {{"run", "--strategy", "ddp", "-n", "2", "--elastic", "1:2", "--save", "CK", "--steps",
      "2", "--resume", "@"},
     ANY},
    {{"run", "--steps", "1", "--data", "@", "--labels", "GOOD"}, ANY},
    {{"run", "--steps", "1", "--data", "X.npy", "--labels", "@"}, ANY},
    {{"run", "--steps", "1", "--text", "@"}, ANY},
    {{"run", "--steps", "1", "-p", "@"}, ANY},
    {{"run", "--steps", "1", "--gpu", "@"}, ANY},
    {{"plan", "--system", "@"}, ANY},
    {{"plan", "--gpu", "@"}, ANY},
    {{"bench", "-n", "2", "-e", "1K", "-p", "@"}, ANY},
    {{"bench", "-n", "2", "-e", "1K", "--gpu", "@"}, ANY},
};

// Runs every case with the input at input (named name in the messages).
static int check_input(const char *input, const char *name, int missing, const char *good,
                       const char *npy) {
    int bad = 0;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        if (!missing && cases[i].only == MISSING_ONLY)
            continue;
        const char *argv[16];
        int n = 0;
        char line[1200] = "", with_npy[600];
        for (const char *const *w = cases[i].words; *w && n < 15; w++) {
            const char *a = *w;
            if (strcmp(a, "@") == 0) {
                a = input;
                if (n > 0 && strcmp(argv[n - 1], "--data") == 0) {
                    // a file by its extension (other words name built-in sets)
                    snprintf(with_npy, sizeof with_npy, "%s.npy", input);
                    a = with_npy;
                }
            } else if (strcmp(a, "GOOD") == 0) {
                a = strcmp(cases[i].words[0], "run") == 0 ? npy : good;
            } else if (strcmp(a, "X.npy") == 0) {
                a = npy;
            } else if (strcmp(a, "OUT") == 0) {
                a = tcli_path(dir, "merged.ddptrace");
            } else if (strcmp(a, "CK") == 0) {
                a = tcli_path(dir, "elastic.st");
            }
            argv[n++] = a;
            snprintf(line + strlen(line), sizeof line - strlen(line), "%s%s", n > 1 ? " " : "",
                     a);
        }
        argv[n] = NULL;
        TcliResult r;
        tcli_run(&r, exe, argv, TIMEOUT_S);
        char prefix[64];
        snprintf(prefix, sizeof prefix, "ddplab %s: ", cases[i].words[0]);
        if (tcli_refused(&r, prefix, name) != 0) {
            fprintf(stderr, "  for: ddplab %s\n", line);
            bad++;
        }
        tcli_result_free(&r);
    }
    CHECK_EQ_INT(bad, 0);
    return 0;
}

// A .npy file of one float32 [1, 1] (1.0): readable features or targets.
static int write_npy(const char *path) {
    static const char dict[] = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1), }";
    unsigned char buf[256];
    size_t hl = (10 + strlen(dict) + 1 + 63) / 64 * 64 - 10; // the header, padded to 64
    memcpy(buf, "\x93NUMPY\x01\x00", 8);
    buf[8] = (unsigned char)(hl & 0xff);
    buf[9] = (unsigned char)(hl >> 8);
    memset(buf + 10, ' ', hl);
    memcpy(buf + 10, dict, strlen(dict));
    buf[10 + hl - 1] = '\n';
    static const unsigned char one[4] = {0x00, 0x00, 0x80, 0x3f};
    memcpy(buf + 10 + hl, one, 4);
    return tfile_write(path, buf, 10 + hl + 4);
}

int main(int argc, char **argv) {
    exe = tcli_begin(argc, argv, dir, sizeof dir, "exit-codes");
    if (exe == NULL)
        return 2;
    int failures = 0;
    // a readable checkpoint for the other side of compare, and a readable
    // .npy file for the other of --data and --labels
    char good_buf[600], npy_buf[600], input_buf[600];
    const char *good = own_path(good_buf, sizeof good_buf, "good.st");
    TcliResult r;
    TCLI_RUN(r, exe, TIMEOUT_S, "run", "--steps", "1", "--save", good);
    if (r.rc != 0)
        tcli_show("making the checkpoint", &r);
    tcli_result_free(&r);
    const char *npy_path = own_path(npy_buf, sizeof npy_buf, "x.npy");
    if (!tfile_exists(good) || write_npy(npy_path) != 0) {
        fprintf(stderr, "cannot make the readable inputs in %s\n", dir);
        return 1;
    }

    printf("a missing file\n");
    int rc = check_input(own_path(input_buf, sizeof input_buf, "no-such-input"), "no-such-input",
                         1, good, npy_path);
    printf("%s missing\n", rc == 0 ? "ok    " : "FAILED");
    failures += rc != 0;

    const char *adir = own_path(input_buf, sizeof input_buf, "a-directory");
    if (mkdir(adir, 0700) != 0)
        return 1;
    rc = check_input(adir, "a-directory", 0, good, npy_path);
    printf("%s a directory\n", rc == 0 ? "ok    " : "FAILED");
    failures += rc != 0;
    rmdir(adir);

    // root reads any file: the locked one is then an ordinary input
    const char *locked = own_path(input_buf, sizeof input_buf, "locked-input");
    if (tfile_write(locked, "locked\n", 7) != 0 || chmod(locked, 0) != 0)
        return 1;
    if (geteuid() != 0 && access(locked, R_OK) != 0) {
        rc = check_input(locked, "locked-input", 0, good, npy_path);
        printf("%s a file that cannot be read\n", rc == 0 ? "ok    " : "FAILED");
        failures += rc != 0;
    } else {
        printf("skip   a file that cannot be read (root reads it)\n");
    }
    chmod(locked, 0600);
    unlink(locked);
    tfile_rmtree(dir);
    return failures ? 1 : 0;
}
