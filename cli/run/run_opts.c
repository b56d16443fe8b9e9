// cli/run/run_opts.c: `ddplab run`'s option table, put together from its parts
// (run_opts.h): the parser (run_parse.c), --help, the man page and the bash
// completion all read it, so none of them can list an option the others do
// not.
#include "run/run_opts.h"

#include <stddef.h>

#include "core/viz_cli.h" // defines: cli_viz_rows, CLI_VIZ_HELP_TITLE
#include "engine/fault.h" // defines: sim_fault_help
#include "run/run.h"      // defines: RunOptions, run_optab

static const CliOptRow help_row[] = {
    {.name = "help", .shortname = 'h', .kind = CLI_OPT_FLAG, .help = "print this help"},
};

static const CliOptSection sections[] = {
    {.title = "options" CLI_OPTAB_IN_BRACKETS ":", .rows_of = run_rows_train},
    {.rows_of = run_rows_sync},
    {.rows_of = run_fsdp_rows},
    {.rows_of = run_rows_world},
    {.rows_of = run_loader_rows},
    {.rows_of = run_async_rows},
    {.rows_of = run_elastic_rows},
    {.rows_of = run_compare_rows},
    {.rows = help_row, .nrows = 1},
    {.title = "optimizer, schedule, clipping and mixed precision:", .rows_of = run_optim_rows},
    {.title = "faults (--fault SPEC; steps count from 1, coll=K is the K-th collective\n"
              "a rank launches in that step, from 0; a fault that can never fire is\n"
              "refused: a step the run never takes, a rank it lacks, a K past the\n"
              "step's collectives, which is known when that step ends):",
     .text = sim_fault_help},
    {.title = CLI_VIZ_HELP_TITLE, .rows_of = cli_viz_rows,
     .dest_offset = offsetof(RunOptions, viz)},
};

static const CliOptTable table = {
    .name = "run",
    .synopsis = "ddplab run [options]",
    .about = "Trains a model on simulated ranks with PyTorch's semantics: the same\n"
             "initialisation distributions, losses, optimizers, schedules, gradient\n"
             "clipping, autocast and GradScaler, and DistributedSampler. It prints the\n"
             "configuration, progress on stderr, and a summary with the wall time and\n"
             "the time the same steps would take on the simulated hardware.\n",
    .sections = sections,
    .nsections = (int)(sizeof sections / sizeof sections[0]),
    .after = "examples:\n"
             "  ddplab run --data blobs --steps 200\n"
             "  ddplab run --model mlp:16,128,4 --optimizer adamw --lr 3e-3 \\\n"
             "      --lr-schedule cosine --warmup 20 --clip-grad-norm 1 --metrics m.jsonl\n"
             "  ddplab run --data arith --steps 400 --optimizer adamw --lr 3e-3 \\\n"
             "      --save gpt.st --save-every 100\n"
             "  ddplab run --data arith --steps 800 --optimizer adamw --lr 3e-3 \\\n"
             "      --resume gpt.st --save gpt.st\n"
             "  ddplab run --data X.npy --labels y.npy --model mlp:784,256,10 --epochs 3\n"
             "  ddplab run --strategy ddp -n 4 --data blobs --steps 100 --print-buckets\n"
             "  ddplab run --strategy dp -n 4 --data blobs --batch 64 --steps 100\n"
             "  ddplab run --strategy layer-owner -n 4 --data blobs --trace t.json\n"
             "  ddplab run --strategy fsdp -n 4 --data blobs --steps 100 --print-units\n"
             "  ddplab run --strategy zero1 -n 4 --nodes 2 --data blobs --steps 100\n"
             "  ddplab run --strategy fsdp --sharding hybrid_shard -n 4 --nodes 2 \\\n"
             "      --data blobs --param-dtype bf16 --save ck.st --state-dict sharded\n"
             "\n"
             "Checkpoints are safetensors files: the model's tensors under their PyTorch\n"
             "names (load_state_dict(strict=True) takes them), the optimizer state under\n"
             "optimizer/..., and the step, epoch, sampler, scaler and RNG state in the\n"
             "metadata, with a SHA-256 checksum. A resumed run repeats an uninterrupted\n"
             "run's losses bit for bit.\n"
             "\n"
             "environment: TORCH_DISTRIBUTED_DEBUG=OFF|INFO|DETAIL (any case), read as\n"
             "PyTorch reads it: at INFO or DETAIL, DDP's errors (PyTorch's texts, word\n"
             "for word) name the parameters they concern; any other value is refused.\n",
};

const CliOptTable *run_optab(void) {
    return &table;
}

void run_help(FILE *out) {
    cli_optab_help(out, &table);
}
