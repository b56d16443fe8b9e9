// tests/test_cli_usage.c: the `ddplab` program as a user meets it: the
// overview, the help texts, the version, and every kind of bad input to
// `ddplab bench`, which must give exit code 2, exactly one line on stderr
// naming the option, nothing on stdout and no output file.
//
// usage: test_cli_usage PATH/TO/ddplab
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "test_cli_run.h"
#include "test_files.h"

#define TIMEOUT_S 60.0

static const char *exe;

// Runs exe with the listed arguments.
#define RUN_DDPLAB(res, ...) TCLI_RUN(res, exe, TIMEOUT_S, __VA_ARGS__)

static int test_overview(void) {
    TcliResult r;
    RUN_DDPLAB(r, "--help"); // `ddplab` alone opens the lessons' menu (test_cli_lesson)
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "bench");
    CHECK_STR_CONTAINS(r.out, "example: ddplab bench");
    CHECK_STR_CONTAINS(r.out, "lesson");
    CHECK_STR_CONTAINS(r.out, "plan");
    CHECK_STR_CONTAINS(r.out, "cpu");
    CHECK_STR_CONTAINS(r.out, "(default)");
    CHECK_STR_CONTAINS(r.out, "dgx-h100");
    CHECK_STR_CONTAINS(r.out, "devices for simulated compute");
    CHECK_STR_CONTAINS(r.out, "  rtx4090        NVIDIA GeForce RTX 4090 24 GB");
    CHECK_STR_CONTAINS(r.out, "README.md");
    CHECK_EQ_INT(strlen(r.err), 0);
    tcli_result_free(&r);
    return 0;
}

static int test_help_and_version(void) {
    TcliResult r;
    RUN_DDPLAB(r, "--help");
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "exit codes");
    CHECK_STR_CONTAINS(r.out, "3  a diagnosed distributed failure");
    CHECK_STR_CONTAINS(r.out, "4  internal error");
    tcli_result_free(&r);

    RUN_DDPLAB(r, "--version");
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "ddplab 0.");
    tcli_result_free(&r);

    RUN_DDPLAB(r, "help", "bench");
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "usage: ddplab bench");
    tcli_result_free(&r);

    RUN_DDPLAB(r, "help", "lesson");
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "usage: ddplab lesson");
    tcli_result_free(&r);

    // Every option of bench is explained, with its short form where it has one.
    static const char *const opts[] = {
        "-c, --collective", "-a, --algo", "-n, --ranks", "--nodes", "-d, --dtype",
        "-o, --op", "-r, --root", "-b, --minbytes", "-e, --maxbytes", "-f, --stepfactor",
        "-w, --warmup", "-i, --iters", "--inplace", "--check", "-B, --backend", "--tf32",
        "--coll-impl IMPL",
        "-p, --profile", "--calibrate", "--trace", "--csv", "--watchdog", "-h, --help",
        "busbw", "2(R-1)/R", "exit codes", "[all_reduce]", "[32M]", "[dgx-h100]"};
    RUN_DDPLAB(r, "bench", "--help");
    CHECK_EQ_INT(r.rc, 0);
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++)
        CHECK_STR_CONTAINS(r.out, opts[i]);
    tcli_result_free(&r);
    return 0;
}

static int test_unknown_commands(void) {
    TcliResult r;
    RUN_DDPLAB(r, "frobnicate");
    CHECK_EQ_INT(r.rc, 2);
    CHECK_EQ_INT(tcli_lines(r.err), 1);
    CHECK_STR_CONTAINS(r.err, "'frobnicate' is not a command");
    tcli_result_free(&r);

    RUN_DDPLAB(r, "help", "frobnicate");
    CHECK_EQ_INT(r.rc, 2);
    CHECK_EQ_INT(tcli_lines(r.err), 1);
    tcli_result_free(&r);

    RUN_DDPLAB(r, "lesson", "no-such-lesson");
    CHECK_EQ_INT(r.rc, 2);
    CHECK_EQ_INT(tcli_lines(r.err), 1);
    CHECK_STR_CONTAINS(r.err, "no lesson 'no-such-lesson'");
    tcli_result_free(&r);
    return 0;
}

// One bad command line: the arguments after "bench" and the text its single
// stderr line must contain (the option it names).
typedef struct {
    const char *args[8];
    const char *names;
} BadCase;

static int check_bad_case(const BadCase *c, const char *outdir, const char *trace) {
    const char *args[16];
    int n = 0;
    args[n++] = "bench";
    args[n++] = "--trace"; // would be written by a run: must not appear
    args[n++] = trace;
    for (int i = 0; c->args[i]; i++)
        args[n++] = c->args[i];
    args[n] = NULL;
    TcliResult r;
    tcli_run(&r, exe, args, TIMEOUT_S);
    if (r.rc != 2 || tcli_lines(r.err) != 1 || strstr(r.err, c->names) == NULL ||
        strncmp(r.err, "ddplab bench: ", 14) != 0 || r.out[0] != '\0' ||
        tfile_dir_entries(outdir) != 0) {
        fprintf(stderr, "bad case '%s %s %s ...': rc %d, %d files left, stderr:\n%s--- stdout:\n%s\n",
                c->args[0], c->args[1] ? c->args[1] : "", c->args[1] && c->args[2] ? c->args[2] : "",
                r.rc, tfile_dir_entries(outdir), r.err, r.out);
        tcli_result_free(&r);
        return 1;
    }
    tcli_result_free(&r);
    return 0;
}

static int test_bad_inputs(void) {
    char outdir[4096], indir[4096], trace[4200], calib[4200], corrupt[4200], badjson[4200],
        missing[4200];
    CHECK(tfile_mkdtemp(outdir, sizeof outdir, "cli-out") == 0);
    CHECK(tfile_mkdtemp(indir, sizeof indir, "cli-in") == 0);
    snprintf(trace, sizeof trace, "%s/trace.json", outdir);
    snprintf(calib, sizeof calib, "%s/calib.json", outdir);
    snprintf(corrupt, sizeof corrupt, "%s/corrupt.json", indir);
    snprintf(badjson, sizeof badjson, "%s/fields.json", indir);
    snprintf(missing, sizeof missing, "%s/missing.json", indir);
    const char *not_json = "{ \"name\": \"x\", this is not json";
    const char *bad_fields = "{\"name\": 5, \"intra\": \"fast\"}\n";
    CHECK(tfile_write(corrupt, not_json, strlen(not_json)) == 0);
    CHECK(tfile_write(badjson, bad_fields, strlen(bad_fields)) == 0);

    const BadCase cases[] = {
        {{"-c", "all_reduction"}, "--collective: 'all_reduction' is not a collective"},
        {{"-c", "send"}, "--collective"},
        {{"-a", "bogus"}, "--algo: 'bogus'"},
        {{"-c", "gather", "-a", "ring"}, "--algo: 'ring' is not supported by gather"},
        {{"-c", "sendrecv", "-a", "tree"}, "--algo"},
        {{"-a", "nccl"}, "--algo: 'nccl' picks an algorithm per size"},
        {{"-c", "scatter", "-a", "dbtree"}, "--algo: 'dbtree' is not supported by scatter; "
                                            "allowed: auto, naive, direct"},
        {{"-n", "0"}, "--ranks: '0'"},
        {{"-n", "4097"}, "--ranks"},
        {{"-n", "abc"}, "--ranks"},
        {{"-n", "-1"}, "--ranks"},
        {{"-n", "4096", "-e", "64G"}, "--ranks: '4096' is too many for memory"},
        {{"-c", "sendrecv", "-n", "1"}, "--ranks"},
        {{"-n", "4", "--nodes", "3"}, "--nodes: '3' does not divide 4 ranks"},
        {{"--nodes", "0"}, "--nodes"},
        {{"-d", "fp8"}, "--dtype: 'fp8'"},
        {{"-o", "mean"}, "--op: 'mean'"},
        {{"-c", "broadcast", "-n", "4", "-r", "4"}, "--root: '4' is not a rank of 4"},
        {{"-r", "-1"}, "--root"},
        {{"-b", "-1"}, "--minbytes: '-1' is negative"},
        {{"-b", "12Q"}, "--minbytes: '12Q' is not a size"},
        {{"-b", "0"}, "--minbytes: '0'"},
        {{"-b", "2"}, "--minbytes: '2' rounds to zero"},
        {{"-b", "1K", "-e", "512"}, "--minbytes: '1K' is larger than --maxbytes"},
        {{"-e", "65G"}, "--maxbytes: '65G' is absurdly large"},
        {{"-e", "99999999999999999999999999"}, "--maxbytes"},
        {{"--maxbytes="}, "--maxbytes"},
        {{"-f", "1"}, "--stepfactor: '1' is not greater than 1"},
        {{"-f", "x"}, "--stepfactor"},
        {{"-f", "1.0001", "-e", "1G"}, "--stepfactor: '1.0001' gives too many sizes"},
        {{"-w", "-1"}, "--warmup"},
        {{"-i", "0"}, "--iters"},
        {{"--inplace", "2"}, "--inplace: '2'"},
        {{"-c", "barrier", "--inplace", "1"}, "--inplace"},
        {{"--check", "yes"}, "--check"},
        {{"-B", "tpu"}, "--backend: 'tpu' is not a backend"},
        {{"-p", "nosuchprofile"}, "--profile: 'nosuchprofile'"},
        {{"-p", corrupt}, "--profile"},
        {{"-p", badjson}, "--profile"},
        {{"-p", missing}, "--profile"},
        {{"--watchdog", "0"}, "--watchdog"},
        {{"--watchdog", "soon"}, "--watchdog"},
        {{"--tf32"}, "--tf32: applies to --backend cuda only (the cpu backend"},
        {{"--coll-impl", "nccl"}, "--coll-impl: applies to --backend cuda only"},
        {{"--coll-impl", "mpi"}, "--coll-impl: 'mpi' is not a collective implementation; "
                                 "allowed: auto, nccl, device"},
        {{"-c", "broadcast", "--calibrate", calib}, "--calibrate"},
        {{"-a", "tree", "--calibrate", calib}, "--calibrate"},
        {{"-b", "1M", "-e", "1M", "--calibrate", calib}, "--calibrate"},
        {{"-n", "1", "--calibrate", calib}, "--calibrate"},
        {{"--gpu", "v100"}, "--gpu: 'v100' is not usable: unknown device"},
        {{"--calibrate", "/nonexistent-dir/c.json"}, "--calibrate"},
        {{"--trace", "/nonexistent-dir/t.json"}, "--trace"},
        {{"--frobnicate"}, "'--frobnicate' is not an option"},
        {{"stray"}, "'stray' is not an option"},
        {{"-n"}, "--ranks: missing value"},
        {{"--csv=1"}, "--csv: takes no value"},
    };
    int failed = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        failed += check_bad_case(&cases[i], outdir, trace);
    tfile_rmtree(outdir);
    tfile_rmtree(indir);
    CHECK_EQ_INT(failed, 0);
    return 0;
}

// This build and machine either cannot run CUDA (exit 4 with the reason and
// the backends that are available) or can (then the results are right).
static int test_backend_cuda(void) {
    TcliResult r;
    RUN_DDPLAB(r, "bench", "--backend", "cuda", "-n", "1", "-b", "8", "-e", "64", "--csv");
    if (r.rc == 0) {
        CHECK_STR_CONTAINS(r.out, "all_reduce,");
        tcli_result_free(&r);
        return 0;
    }
    CHECK_EQ_INT(r.rc, 4);
    CHECK_EQ_INT(tcli_lines(r.err), 1);
    CHECK_STR_CONTAINS(r.err, "--backend: 'cuda'");
    CHECK_STR_CONTAINS(r.err, "available backends: cpu");
    CHECK_EQ_INT(strlen(r.out), 0);
    tcli_result_free(&r);
    return 0;
}

int main(int argc, char **argv) {
    exe = tcli_exe_arg(argc, argv);
    if (exe == NULL)
        return 2;
    int failures = 0;
    RUN(test_overview);
    RUN(test_help_and_version);
    RUN(test_unknown_commands);
    RUN(test_bad_inputs);
    RUN(test_backend_cuda);
    return failures ? 1 : 0;
}
