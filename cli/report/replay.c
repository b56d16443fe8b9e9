// cli/report/replay.c: `ddplab replay TRACE`: opens a recorded trace (.ddptrace
// from `--trace FILE.ddptrace`, or JSON lines) in a view, steps it
// forwards and backwards, jumps, draws frames and charts of it.
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/cli.h"      // defines: CLI_EXIT_*, replay_main
#include "core/viz_cli.h"  // defines: CliViz, cli_viz_*
#include "report/replay.h" // defines: ReplayOptions, replay_opts_parse

void replay_help(FILE *out) {
    fputs("usage: ddplab replay TRACE [options]\n"
          "\n"
          "Opens a trace recorded by `ddplab run --trace FILE.ddptrace` (or\n"
          "`ddplab bench --trace`, on any backend, GPUs included; JSON lines\n"
          "written with FILE.jsonl load too) and shows it: every rank's phase\n"
          "and memory, DDP buckets filling and launching, the collective with\n"
          "its chunks moving, FSDP units gathered and freed, the timeline.\n"
          "Without --viz: the ncurses view on a terminal, text frames otherwise.\n"
          "\n",
          out);
    cli_viz_help(out);
    fputs("      --info                  print what the trace holds and stop\n"
          "  -h, --help                  print this help\n"
          "\n"
          "examples:\n"
          "  ddplab run --strategy ddp -n 4 --steps 3 --trace run.ddptrace\n"
          "  ddplab replay run.ddptrace\n"
          "  ddplab replay run.ddptrace --viz text --viz-stops bucket-launch\n"
          "  ddplab replay run.ddptrace --png frame.png --at bucket-launch:1\n"
          "  ddplab replay run.ddptrace --gif step.gif --from coll-step:0 --to coll-step:5\n"
          "\n"
          "exit codes:\n",
          out);
    cli_print_exit_codes(out);
}

static void print_info(const VizSource *src) {
    const VizTrace *t = src->trace;
    printf("trace:      %s\n", t->source);
    if (t->info.title[0])
        printf("run:        %s\n", t->info.title);
    if (t->info.profile[0])
        printf("hardware:   %s\n", t->info.profile);
    printf("ranks:      %d (%d node%s)\n", t->nranks, t->info.nodes, t->info.nodes == 1 ? "" : "s");
    printf("events:     %zu\n", t->n);
    printf("iterations: %d\n", viz_model_iterations(src->model));
    if (t->n > 0)
        printf("simulated:  %.6f s\n", t->ev[t->n - 1].sim_end);
}

int replay_opts_parse(int argc, char **argv, ReplayOptions *o) {
    const char *prog = "ddplab replay";
    memset(o, 0, sizeof *o);
    CliViz *v = &o->viz;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)
            return -1;
        if (strcmp(a, "--info") == 0) {
            o->info = 1;
            continue;
        }
        if (strncmp(a, "--", 2) == 0) {
            char name[32];
            const char *eq = strchr(a + 2, '=');
            size_t n = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
            if (n >= sizeof name || (snprintf(name, sizeof name, "%.*s", (int)n, a + 2), 0) ||
                !cli_viz_is_option(name)) {
                fprintf(stderr, "%s: unknown option '%s' (see ddplab replay --help)\n", prog, a);
                return CLI_EXIT_USAGE;
            }
            const char *val = eq ? eq + 1 : NULL;
            if (val == NULL && strcmp(name, "ascii") != 0) {
                if (i + 1 >= argc) {
                    fprintf(stderr, "%s: --%s needs a value\n", prog, name);
                    return CLI_EXIT_USAGE;
                }
                val = argv[++i];
            }
            if (cli_viz_set(v, prog, name, val ? val : "") != 0)
                return CLI_EXIT_USAGE;
            continue;
        }
        if (o->path != NULL) {
            fprintf(stderr, "%s: one trace at a time ('%s' and '%s')\n", prog, o->path, a);
            return CLI_EXIT_USAGE;
        }
        o->path = a;
    }
    if (o->path == NULL) {
        fprintf(stderr, "%s: which trace? (ddplab replay TRACE; record one with "
                "ddplab run --trace FILE.ddptrace)\n", prog);
        return CLI_EXIT_USAGE;
    }
    if (v->mode == NULL && !v->png && !v->gif && !v->plot_loss && !v->plot_memory)
        v->mode = isatty(STDOUT_FILENO) && viz_curses_available() ? "ncurses" : "text";
    if (cli_viz_check(v, prog) != 0)
        return CLI_EXIT_USAGE;
    return 0;
}

int replay_main(int argc, char **argv) {
    const char *prog = "ddplab replay";
    ReplayOptions o;
    int prc = replay_opts_parse(argc, argv, &o);
    if (prc < 0) {
        replay_help(stdout);
        return CLI_EXIT_OK;
    }
    if (prc != 0)
        return prc;
    const char *path = o.path;
    VizTrace t;
    char err[512];
    SimStatus st = viz_trace_load(path, &t, err, sizeof err);
    if (st != SIM_OK) {
        fprintf(stderr, "%s: %s\n", prog, err);
        viz_trace_free(&t);
        // a trace that is missing, a directory or cannot be read is bad input,
        // as for every command that reads a file (docs/exit-codes.md)
        return st == SIM_ENOMEM ? CLI_EXIT_INTERNAL : CLI_EXIT_USAGE;
    }
    VizSource src = {&t, NULL, NULL, 0};
    src.model = viz_model_new(&t, err, sizeof err);
    if (src.model == NULL) {
        fprintf(stderr, "%s: %s: %s\n", prog, path, err);
        viz_trace_free(&t);
        return CLI_EXIT_USAGE;
    }
    int rc;
    if (o.info) {
        print_info(&src);
        rc = CLI_EXIT_OK;
    } else {
        rc = cli_viz_show(&src, &o.viz, prog);
    }
    viz_model_free(src.model);
    viz_trace_free(&t);
    return rc;
}
