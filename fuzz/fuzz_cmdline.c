// fuzz/fuzz_cmdline.c: the command lines of the sub-commands, parsed and
// checked but never run. The input is the argument vector, one argument
// per line (or NUL-separated): argv[0] names the sub-command (run, plan,
// bench, replay, lesson, interview) and picks its parser; an input naming
// none is ignored. A run's --data set is parsed as well, as the run would
// parse it first. Parsers print one line on stderr for a bad value
// (scripts/fuzz.sh closes the target's stdout and stderr).
//
// The parsers stat and read the files options name (--profile FILE,
// --gpu FILE, --resume FILE, ...). Inputs that name device files or
// /proc and /sys are skipped: reading /dev/tty or /dev/stdin would wait for
// a person, which is what the user asked for, not a hang of ddplab's.
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"        // defines: BenchOptions, bench_opts_parse
#include "data/dataset.h"       // defines: sim_dataset_synth_parse
#include "learn/interview.h"    // defines: IvOptions, iv_opts_parse
#include "lesson/lesson_args.h" // defines: LessonArgs, lesson_args_parse
#include "plan/plan.h"          // defines: PlanOptions, plan_opts_parse
#include "report/replay.h"      // defines: ReplayOptions, replay_opts_parse
#include "run/run.h"            // defines: RunOptions, run_opts_parse

#include "fuzz_util.h"

#define MAX_ARGS 256

static int parse(int argc, char **argv) {
    const char *cmd = argv[0];
    if (strcmp(cmd, "run") == 0) {
        RunOptions o;
        RunParse rc = run_opts_parse(argc, argv, &o);
        // --data's synthetic set is parsed when the run loads it (run_data.c)
        size_t n = o.data ? strlen(o.data) : 0;
        if (rc == RUN_PARSE_OK && n > 0 && !o.text && (n < 4 || strcmp(o.data + n - 4, ".npy"))) {
            SimSynthSpec spec;
            char err[512];
            return sim_dataset_synth_parse(o.data, &spec, err, sizeof err) == SIM_OK;
        }
        return rc != RUN_PARSE_ERROR;
    }
    if (strcmp(cmd, "plan") == 0) {
        PlanOptions o;
        return plan_opts_parse(argc, argv, &o) != PLAN_PARSE_ERROR;
    }
    if (strcmp(cmd, "bench") == 0) {
        BenchOptions o;
        return bench_opts_parse(argc, argv, &o) != BENCH_PARSE_ERROR;
    }
    if (strcmp(cmd, "replay") == 0) {
        ReplayOptions o;
        return replay_opts_parse(argc, argv, &o) <= 0;
    }
    if (strcmp(cmd, "lesson") == 0) {
        LessonArgs a;
        int rc = lesson_args_parse(argc, argv, &a);
        return rc < 0 || (rc == 0 && lesson_args_check(&a) == 0);
    }
    if (strcmp(cmd, "interview") == 0) {
        IvOptions o;
        return iv_opts_parse(argc, argv, &o) >= 0;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_set_accepted(0);
    char *text = fuzz_strndup(data, size);
    if (text == NULL)
        return 0;
    if (strstr(text, "/dev") || strstr(text, "/proc") || strstr(text, "/sys")) {
        free(text);
        return 0;
    }
    // Split on '\n' and NUL (text[size] is the last NUL); a final line
    // break ends the last argument rather than adding an empty one.
    char *argv[MAX_ARGS + 1];
    int argc = 0;
    char *start = text;
    for (size_t i = 0; i <= size && argc < MAX_ARGS; i++)
        if (text[i] == '\n' || text[i] == '\0') {
            text[i] = '\0';
            if (i < size || start < text + size)
                argv[argc++] = start;
            start = text + i + 1;
        }
    argv[argc] = NULL;
    if (argc > 0)
        fuzz_set_accepted(parse(argc, argv));
    free(text);
    return 0;
}
