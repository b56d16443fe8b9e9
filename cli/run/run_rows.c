// cli/run/run_rows.c: the first rows of `ddplab run`'s option table
// (run_opts.c): what trains on what, for how long, and the files a run reads
// and writes. Each value is checked here (its row's kind, then its apply);
// the values against each other in run_parse.c.
#include <stddef.h>
#include <stdint.h>

#include "core/opts.h"    // defines: cli_opt_backend
#include "run/run.h"      // defines: RunOptions, run_error
#include "run/run_opts.h" // defines: run_rows_train

#define AT(field) .offset = offsetof(RunOptions, field)

// in the order the messages list them
static const char *const strategies[] = {"single", "ddp", "dp", "fsdp", "fsdp2", "zero1", "zero2",
                                         "zero3", "layer-owner", "async-ps", NULL};
static const char *const bits[] = {"0", "1", NULL};
static const char *const rngs[] = {"ddplab", "torch", NULL}; // SimRngKind's order
static const char *const streams[] = {"off", "rank", "shared", NULL}; // SimStreamSeeds' order
static const char *const progress[] = {"auto", "bar", "lines", NULL};

static int set_model(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v,
                     void *dest) {
    (void)cx, (void)row;
    RunOptions *o = dest;
    char err[512];
    if (sim_model_parse(v->text, &o->model, err, sizeof err) != SIM_OK) {
        run_error("--model: %s", err);
        return -1;
    }
    o->model_text = v->text;
    return 0;
}

static int set_progress(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v,
                        void *dest) {
    (void)cx, (void)row;
    static const int style[] = {-1, 1, 0}; // auto, bar, lines
    ((RunOptions *)dest)->progress = style[v->i];
    return 0;
}

static const CliOptRow rows[] = {
    {.name = "strategy", .kind = CLI_OPT_ENUM, .metavar = "NAME", .words = strategies,
     .what = "a strategy", .deflt = "single", .store = CLI_STORE_TEXT, AT(strategy),
     .help = "single: one rank trains alone, as a plain\n"
             "PyTorch script does; ddp: DistributedData-\n"
             "Parallel on -n ranks; dp: DataParallel, one\n"
             "controller (device 0) splitting each --batch\n"
             "over -n devices (2 or more); layer-owner:\n"
             "the WRONG picture of FSDP, for lessons (each\n"
             "layer owned whole by one rank, broadcast\n"
             "before use, gradients reduced to its owner;\n"
             "real FSDP shards every layer over all ranks);\n"
             "fsdp: FullyShardedDataParallel (--sharding);\n"
             "fsdp2: fully_shard, each parameter sharded\n"
             "on dim 0 (no flat parameter);\n"
             "zero1, zero2, zero3: the ZeRO stages (zero2 =\n"
             "fsdp shard_grad_op, zero3 = full_shard)"},
    {.name = "ranks", .shortname = 'n', .kind = CLI_OPT_INT, .metavar = "R", .lo = 1,
     .hi = 4096, .deflt = "1", .store = CLI_STORE_INT, AT(nranks),
     .help = "simulated ranks (single: 1); with ddp rank r\n"
             "reads DistributedSampler(num_replicas=R,\n"
             "rank=r)'s share of each epoch; with dp the\n"
             "devices (>= 2) share each whole batch"},
    {.name = "backend", .shortname = 'B', .kind = CLI_OPT_NAME, .metavar = "NAME",
     .deflt = "cpu", .apply = cli_opt_backend, .store = CLI_STORE_TEXT, AT(backend),
     .help = "where the ranks run: cpu (threads here)"},
    {.name = "profile", .shortname = 'p', .kind = CLI_OPT_STRING, .metavar = "NAME|FILE",
     .deflt = "dgx-h100", .store = CLI_STORE_TEXT, AT(profile), .file = CLI_FILE_VALUE,
     .help = "hardware for the simulated time: a built-in\n"
             "profile (run 'ddplab' for the list) or a file\n"
             "written by 'ddplab bench --calibrate'"},
    {.name = "model", .kind = CLI_OPT_STRING, .metavar = "SPEC", .deflt = "fitted to the data",
     .apply = set_model,
     .help = "mlp:784,256,10[,act=gelu][,bn][,unused][,mse]\n"
             "or gpt:layers=4,embd=128,heads=4,ctx=64,vocab=V.\n"
             "Without it: mlp:D,64,64,C for features (D in,\n"
             "C classes; ,mse with K targets), and\n"
             "gpt:layers=2,embd=64,heads=4,ctx=32,vocab=V for\n"
             "tokens"},
    {.name = "data", .kind = CLI_OPT_STRING, .metavar = "SET|X.npy", .deflt = "blobs",
     .store = CLI_STORE_TEXT, AT(data), .file = CLI_FILE_VALUE,
     .help = "blobs, teacher or arith, with options as in\n"
             "blobs:n=1024,features=8,classes=3,noise=1,\n"
             "teacher:n=512,targets=2,hidden=16 or\n"
             "arith:lines=2000,digits=3; or features in a\n"
             ".npy file (float32 [N, D]) with --labels"},
    {.name = "labels", .kind = CLI_OPT_PATH, .metavar = "Y.npy",
     .store = CLI_STORE_TEXT, AT(labels),
     .help = "labels for --data X.npy: int64 [N] (classes)\n"
             "or float32 [N] / [N, K] (regression targets)"},
    {.name = "text", .kind = CLI_OPT_PATH, .metavar = "FILE",
     .store = CLI_STORE_TEXT, AT(text),
     .help = "train a gpt on the bytes of a text file\n"
             "(instead of --data)"},
    {.name = "batch", .shortname = 'b', .kind = CLI_OPT_INT, .metavar = "B", .lo = 1,
     .hi = 1 << 20, .deflt = "32", .store = CLI_STORE_INT, AT(batch),
     .help = "samples per batch on each rank"},
    {.name = "steps", .kind = CLI_OPT_INT, .metavar = "N", .lo = 1, .hi = 1000000000000LL,
     .deflt = "100", .store = CLI_STORE_I64, AT(steps),
     .help = "optimizer steps of the run (a resumed run\n"
             "continues up to N)"},
    {.name = "epochs", .kind = CLI_OPT_INT, .metavar = "E", .lo = 1, .hi = 1000000000LL,
     .store = CLI_STORE_I64, AT(epochs),
     .help = "train E epochs instead of --steps"},
    {.name = "stop-after", .kind = CLI_OPT_INT, .metavar = "N", .lo = 1, .hi = 1000000000000LL,
     .store = CLI_STORE_I64, AT(stop_after),
     .help = "stop after step N as if the job were\n"
             "interrupted (the schedule still spans --steps;\n"
             "--save writes step N's checkpoint)"},
    {.name = "accum", .kind = CLI_OPT_INT, .metavar = "N", .lo = 1, .hi = 65536, .deflt = "1",
     .store = CLI_STORE_INT, AT(accum),
     .help = "batches accumulated into each optimizer step\n"
             "(the loss is divided by N)"},
    {.name = "shuffle", .kind = CLI_OPT_ENUM, .words = bits, .what = "0 or 1", .deflt = "1",
     .store = CLI_STORE_INT, AT(shuffle),
     .help = "shuffle each epoch (order seeded by\n"
             "--seed + epoch)"},
    {.name = "drop-last", .kind = CLI_OPT_ENUM, .words = bits, .what = "0 or 1", .deflt = "0",
     .store = CLI_STORE_INT, AT(drop_last),
     .help = "1: drop each epoch's short last batch (the\n"
             "DataLoader's drop_last)"},
    {.name = "sampler-drop-last", .kind = CLI_OPT_ENUM, .words = bits, .what = "0 or 1",
     .deflt = "0", .store = CLI_STORE_INT, AT(sampler_drop_last),
     .help = "1: the DistributedSampler's drop_last: cut\n"
             "the epoch's tail so that every rank gets\n"
             "floor(N/R) samples (0: pad to ceil(N/R))"},
    {.name = "stream", .kind = CLI_OPT_ENUM, .words = streams, .what = "off, rank or shared",
     .deflt = "off", .store = CLI_STORE_INT, AT(stream),
     .help = "a streaming loader instead of the sampler:\n"
             "each rank draws random batches from its own\n"
             "generator, seeded with --seed + rank (rank)\n"
             "or --seed on every rank (shared: the ranks\n"
             "read the same batches)"},
    {.name = "seed", .kind = CLI_OPT_INT, .metavar = "N", .lo = 0, .hi = INT64_MAX,
     .deflt = "0", .store = CLI_STORE_U64, AT(seed),
     .help = "initial weights and the shuffle order"},
    {.name = "rng", .kind = CLI_OPT_ENUM, .words = rngs, .what = "a generator",
     .deflt = "ddplab", .store = CLI_STORE_INT, AT(rng),
     .help = "what --seed seeds: ddplab's splitmix64, or\n"
             "torch: PyTorch's CPU generator, giving the\n"
             "weights of torch.manual_seed(S) and the order\n"
             "of DistributedSampler(seed=S)"},
    {.name = "metrics", .kind = CLI_OPT_PATH, .metavar = "FILE.jsonl",
     .store = CLI_STORE_TEXT, AT(metrics),
     .help = "one JSON line per step: step, epoch, loss, lr,\n"
             "loss_scale, grad_norm, samples_per_s, skipped,\n"
             "wall_s, sim_s, mem_peak_bytes (rank 0's device\n"
             "peak so far in the memory ledger). A log: each\n"
             "line is appended as its step ends; a resumed\n"
             "run keeps the lines up to its checkpoint's step"},
    {.name = "save", .kind = CLI_OPT_PATH, .metavar = "FILE",
     .store = CLI_STORE_TEXT, AT(save),
     .help = "write a checkpoint (safetensors) at the end"},
    {.name = "save-data", .kind = CLI_OPT_PATH, .metavar = "DIR",
     .store = CLI_STORE_TEXT, AT(save_data),
     .help = "write the dataset as .npy files into DIR\n"
             "(made if missing) for a PyTorch script:\n"
             "X.npy and y.npy, or tokens.npy"},
    {.name = "save-every", .kind = CLI_OPT_INT, .metavar = "N", .lo = 0, .hi = 1000000000000LL,
     .deflt = "0", .store = CLI_STORE_I64, AT(save_every),
     .help = "with --save, also every N steps (0: only at\n"
             "the end)"},
    {.name = "resume", .kind = CLI_OPT_PATH, .metavar = "FILE",
     .store = CLI_STORE_TEXT, AT(resume),
     .help = "continue a run from its checkpoint exactly\n"
             "(same options; --steps may grow)"},
    {.name = "init", .kind = CLI_OPT_PATH, .metavar = "FILE",
     .store = CLI_STORE_TEXT, AT(init),
     .help = "initial weights from a checkpoint or any\n"
             "safetensors file with the model's tensors"},
    {.name = "trace", .kind = CLI_OPT_PATH, .metavar = "FILE",
     .store = CLI_STORE_TEXT, AT(trace),
     .help = "write the compute events as a Chrome trace\n"
             "(FILE.jsonl: JSON lines; FILE.ddptrace:\n"
             "binary, for ddplab replay)"},
    {.name = "log-every", .kind = CLI_OPT_INT, .metavar = "N", .lo = 0, .hi = 1000000000000LL,
     .deflt = "0", .store = CLI_STORE_I64, AT(log_every),
     .help = "a progress line every N steps (0: about ten\n"
             "lines in a run)"},
    {.name = "progress", .kind = CLI_OPT_ENUM, .words = progress, .what = "a progress style",
     .deflt = "auto", .apply = set_progress,
     .help = "auto: a bar when stderr is a terminal,\n"
             "periodic lines otherwise"},
};

const CliOptRow *run_rows_train(int *n) {
    *n = (int)(sizeof rows / sizeof rows[0]);
    return rows;
}
