// cli/main.c: the `ddplab` program: the lessons' menu when run without
// arguments, the overview (--help), the version, the dispatch to
// sub-commands, and the documents made from their option tables: the man
// page (`ddplab help --man`, not listed: the build writes it) and the bash
// completion (`ddplab completion bash`).
//
// Sub-commands live in a table; those that are planned but not written yet
// are listed as "coming" so the overview says honestly what works today.
#include <stdio.h>
#include <string.h>

#include "bench/bench.h"             // defines: bench_main, bench_help
#include "core/backends.h"           // defines: cli_backend_name, cli_backend_description
#include "core/cli.h"                // defines: CLI_EXIT_*
#include "core/optable_docs.h"       // defines: cli_optab_man, cli_optab_bash
#include "cost/cost.h"               // defines: sim_sys_count, sim_sys_at, sim_device_at
#include "interview/interview_cmd.h" // defines: interview_main, interview_help
#include "lesson/lesson_cmd.h"       // defines: lesson_main, lesson_help
#include "plan/plan.h"               // defines: plan_main, plan_help
#include "report/compare.h"          // defines: compare_main, compare_help
#include "report/merge_traces.h"     // defines: merge_traces_main, merge_traces_help
#include "report/replay.h"           // defines: replay_main, replay_help
#include "report/report.h"           // defines: report_main, report_help
#include "run/run.h"                 // defines: run_main, run_help

#ifndef DDPLAB_VERSION
#define DDPLAB_VERSION "0.0.0"
#endif

typedef struct {
    const char *name;
    const char *summary;               // one line
    const char *example;
    int (*run)(int argc, char **argv); // NULL: coming, not available yet
    void (*help)(FILE *out);
    const CliOptTable *(*table)(void); // its option table (NULL: it parses its own)
} CliCommand;

static const char *const about =
    "It trains models with PyTorch's semantics and runs the collectives behind\n"
    "data-parallel training on simulated ranks (threads on this CPU) or on GPUs,\n"
    "checks every result, and prices each step with a cost model of real\n"
    "hardware, so you can see what it does and what it would cost.\n";

static const CliCommand commands[] = {
    {"bench", "time a collective on simulated ranks, next to its time on real GPUs",
     "ddplab bench -c all_reduce -n 8 -b 1K -e 64M", bench_main, bench_help, bench_optab},
    {"lesson", "guided lessons on DDP, FSDP and ZeRO (`ddplab` alone opens the menu)",
     "ddplab lesson --list", lesson_main, lesson_help, NULL},
    {"run", "train a model: single, ddp, dp, fsdp, fsdp2, zero1-3 or layer-owner",
     "ddplab run --strategy fsdp -n 4 --data blobs --print-units", run_main,
     run_help, run_optab},
    {"plan", "memory per GPU and step time of any model at any scale",
     "ddplab plan --model llama2-70b --nodes 128 --ckpt full", plan_main,
     plan_help, plan_optab},
    {"replay", "watch a recorded trace: step, jump, draw frames and charts",
     "ddplab replay run.ddptrace --viz ncurses", replay_main, replay_help, NULL},
    {"interview", "a drill of interview questions, graded against the simulator",
     "ddplab interview --topic memory,buckets --count 5", interview_main, interview_help, NULL},
    {"merge-traces", "merge the per-process traces of a run (--rendezvous) into one",
     "ddplab merge-traces run.ddptrace run.ddptrace.rank*", merge_traces_main,
     merge_traces_help, NULL},
    {"report", "where each rank's time went in a trace, simulated or measured",
     "ddplab report run.ddptrace --clock both", report_main, report_help, NULL},
    {"compare", "two checkpoints tensor by tensor: differing elements, max ULP, where",
     "ddplab compare a.st b.st --top 5", compare_main, compare_help, NULL},
};
#define NCOMMANDS (int)(sizeof commands / sizeof commands[0])

static const CliCommand *find_command(const char *name) {
    for (int i = 0; i < NCOMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

// Prints text word by word within 79 columns: the cursor is at column `col`
// now, and continuation lines are indented by `indent`.
static void print_wrapped(FILE *out, int col, int indent, const char *text) {
    const char *p = text;
    while (*p) {
        size_t word = strcspn(p, " ");
        if (col > indent && col + 1 + (int)word > 79) {
            fprintf(out, "\n%*s", indent, "");
            col = indent;
        } else if (col > indent) {
            fputc(' ', out);
            col++;
        }
        fprintf(out, "%.*s", (int)word, p);
        col += (int)word;
        p += word;
        p += strspn(p, " ");
    }
    fputc('\n', out);
}

static void print_overview(FILE *out) {
    fprintf(out,
            "ddplab %s: a distributed-training laboratory.\n"
            "%s"
            "\n"
            "usage: ddplab COMMAND [options]\n"
            "       ddplab                  (no command: the lessons' menu)\n"
            "\n"
            "commands:\n",
            DDPLAB_VERSION, about);
    for (int i = 0; i < NCOMMANDS; i++) {
        const CliCommand *c = &commands[i];
        fprintf(out, "  %-9s %s%s\n", c->name, c->run ? "" : "(coming, not yet available) ",
                c->summary);
        if (c->run)
            fprintf(out, "  %-9s example: %s\n", "", c->example);
    }
    fprintf(out, "\nbackends in this build (ddplab bench -B NAME):\n");
    for (int i = 0; i < cli_backend_count(); i++) {
        fprintf(out, "  %-9s %s", cli_backend_name(i), i == 0 ? "(default)" : "");
        print_wrapped(out, 12 + (i == 0 ? 9 : 0), 12, cli_backend_description(i));
    }
    fprintf(out, "\nhardware profiles for simulated time (ddplab bench -p NAME):\n");
    for (int i = 0; i < sim_sys_count(); i++) {
        fprintf(out, "  %-14s ", sim_sys_at(i)->name);
        print_wrapped(out, 17, 17, sim_sys_at(i)->description);
    }
    fprintf(out, "\ndevices for simulated compute (ddplab run --gpu NAME; ddplab bench\n"
                 "--calibrate FILE measures this CPU as one):\n");
    for (int i = 0; i < sim_device_count(); i++) {
        const SimDeviceProfile *d = sim_device_at(i);
        char line[192];
        snprintf(line, sizeof line,
                 "%s: %.4g / %.4g TFLOPS fp32 / bf16, %.0f GB/s, efficiency %.2f%s", d->description,
                 d->peak_fp32_flops / 1e12, d->peak_lowp_flops / 1e12, d->mem_bw_Bps / 1e9,
                 d->efficiency, i == 0 ? " (default)" : "");
        fprintf(out, "  %-14s ", d->name);
        print_wrapped(out, 17, 17, line);
    }
    fprintf(out,
            "\nmore: 'ddplab help COMMAND' or 'ddplab COMMAND --help' for a command's options,\n"
            "README.md for the quick start and a tour, and 'ddplab completion bash' for\n"
            "the completion of commands and options in bash.\n"
            "\nexit codes:\n");
    cli_print_exit_codes(out);
}

static int not_available(const CliCommand *c) {
    char now[128] = "";
    for (int i = 0, n = 0; i < NCOMMANDS; i++)
        if (commands[i].run)
            n += snprintf(now + n, sizeof now - (size_t)n, "%s%s", n ? ", " : "",
                          commands[i].name);
    fprintf(stderr, "ddplab %s: not available yet in ddplab %s; available now: %s "
                    "(run 'ddplab --help' to see the commands)\n",
            c->name, DDPLAB_VERSION, now);
    return CLI_EXIT_USAGE;
}

static int unknown_command(const char *name) {
    fprintf(stderr, "ddplab: '%s' is not a command; run 'ddplab --help' to see the commands\n",
            name);
    return CLI_EXIT_USAGE;
}

// The commands as the documents made from the tables see them.
static void program(CliOptProgram *p, CliOptCommand *cmds) {
    for (int i = 0; i < NCOMMANDS; i++)
        cmds[i] = (CliOptCommand){commands[i].name, commands[i].summary,
                                  commands[i].table ? commands[i].table() : NULL,
                                  commands[i].help};
    *p = (CliOptProgram){DDPLAB_VERSION, about, cmds, NCOMMANDS};
}

// `ddplab completion bash`: the script that completes ddplab in bash.
static int completion_command(int argc, char **argv) {
    if (argc != 2 || strcmp(argv[1], "bash") != 0) {
        fprintf(stderr, "ddplab completion: '%s' is not a shell it completes; allowed: bash "
                "(source <(ddplab completion bash))\n", argc >= 2 ? argv[1] : "");
        return CLI_EXIT_USAGE;
    }
    CliOptCommand cmds[NCOMMANDS];
    CliOptProgram p;
    program(&p, cmds);
    cli_optab_bash(stdout, &p);
    return CLI_EXIT_OK;
}

// `ddplab help [COMMAND]`; `ddplab help --man`: ddplab(1) in roff.
static int help_command(int argc, char **argv) {
    if (argc < 2) {
        print_overview(stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(argv[1], "--man") == 0) {
        CliOptCommand cmds[NCOMMANDS];
        CliOptProgram p;
        program(&p, cmds);
        cli_optab_man(stdout, &p);
        return CLI_EXIT_OK;
    }
    const CliCommand *c = find_command(argv[1]);
    if (c == NULL)
        return unknown_command(argv[1]);
    if (c->help == NULL) {
        printf("ddplab %s: %s.\nNot available yet in ddplab %s.\n", c->name, c->summary,
               DDPLAB_VERSION);
        return CLI_EXIT_OK;
    }
    c->help(stdout);
    return CLI_EXIT_OK;
}

int main(int argc, char **argv) {
    if (argc < 2) { // the lessons' menu (this overview is `ddplab --help`)
        char *menu[] = {"lesson", NULL};
        return lesson_main(1, menu);
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        print_overview(stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
        printf("ddplab %s\n", DDPLAB_VERSION);
        return CLI_EXIT_OK;
    }
    if (strcmp(cmd, "help") == 0)
        return help_command(argc - 1, argv + 1);
    if (strcmp(cmd, "completion") == 0)
        return completion_command(argc - 1, argv + 1);
    const CliCommand *c = find_command(cmd);
    if (c == NULL)
        return unknown_command(cmd);
    if (c->run == NULL)
        return not_available(c);
    return c->run(argc - 1, argv + 1);
}
