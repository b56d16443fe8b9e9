// cli/run/run_opts.c: the options of `ddplab run` as one table (name, short
// form, value, default, help) that drives both the parser (run_parse.c) and
// the help text below, followed by the optimizer family's options from the
// engine's own table, so help and parser cannot disagree.
#include "run/run_opts.h"

#include <string.h>

#include "core/cli.h"          // defines: cli_print_exit_codes
#include "core/viz_cli.h"      // defines: cli_viz_help
#include "engine/fault.h"      // defines: sim_fault_help
#include "model/optim_flags.h" // defines: sim_optim_flags_table
#include "run/run.h"           // defines: run_help

static const RunOptSpec run_specs[RO_COUNT] = {
    {RO_STRATEGY, 0, "strategy", "NAME", "single",
     "single: one rank trains alone, as a plain\n"
     "PyTorch script does; ddp: DistributedData-\n"
     "Parallel on -n ranks; dp: DataParallel, one\n"
     "controller (device 0) splitting each --batch\n"
     "over -n devices (2 or more); layer-owner:\n"
     "the WRONG picture of FSDP, for lessons (each\n"
     "layer owned whole by one rank, broadcast\n"
     "before use, gradients reduced to its owner;\n"
     "real FSDP shards every layer over all ranks);\n"
     "fsdp: FullyShardedDataParallel (--sharding);\n"
     "zero1, zero2, zero3: the ZeRO stages (zero2 =\n"
     "fsdp shard_grad_op, zero3 = full_shard)"},
    {RO_RANKS, 'n', "ranks", "R", "1",
     "simulated ranks (single: 1); with ddp rank r\n"
     "reads DistributedSampler(num_replicas=R,\n"
     "rank=r)'s share of each epoch; with dp the\n"
     "devices (>= 2) share each whole batch"},
    {RO_BACKEND, 'B', "backend", "NAME", "cpu", "where the ranks run: cpu (threads here)"},
    {RO_PROFILE, 'p', "profile", "NAME|FILE", "dgx-h100",
     "hardware for the simulated time: a built-in\n"
     "profile (run 'ddplab' for the list) or a file\n"
     "written by 'ddplab bench --calibrate'"},
    {RO_MODEL, 0, "model", "SPEC", "fitted to the data",
     "mlp:784,256,10[,act=gelu][,bn][,unused][,mse]\n"
     "or gpt:layers=4,embd=128,heads=4,ctx=64,vocab=V.\n"
     "Without it: mlp:D,64,64,C for features (D in,\n"
     "C classes; ,mse with K targets), and\n"
     "gpt:layers=2,embd=64,heads=4,ctx=32,vocab=V for\n"
     "tokens"},
    {RO_DATA, 0, "data", "SET|X.npy", "blobs",
     "blobs, teacher or arith, with options as in\n"
     "blobs:n=1024,features=8,classes=3,noise=1,\n"
     "teacher:n=512,targets=2,hidden=16 or\n"
     "arith:lines=2000,digits=3; or features in a\n"
     ".npy file (float32 [N, D]) with --labels"},
    {RO_LABELS, 0, "labels", "Y.npy", NULL,
     "labels for --data X.npy: int64 [N] (classes)\n"
     "or float32 [N] / [N, K] (regression targets)"},
    {RO_TEXT, 0, "text", "FILE", NULL,
     "train a gpt on the bytes of a text file\n"
     "(instead of --data)"},
    {RO_BATCH, 'b', "batch", "B", "32", "samples per batch on each rank"},
    {RO_STEPS, 0, "steps", "N", "100",
     "optimizer steps of the run (a resumed run\n"
     "continues up to N)"},
    {RO_EPOCHS, 0, "epochs", "E", NULL, "train E epochs instead of --steps"},
    {RO_STOP_AFTER, 0, "stop-after", "N", NULL,
     "stop after step N as if the job were\n"
     "interrupted (the schedule still spans --steps;\n"
     "--save writes step N's checkpoint)"},
    {RO_ACCUM, 0, "accum", "N", "1",
     "batches accumulated into each optimizer step\n"
     "(the loss is divided by N)"},
    {RO_SHUFFLE, 0, "shuffle", "0|1", "1",
     "shuffle each epoch (order seeded by\n"
     "--seed + epoch)"},
    {RO_DROP_LAST, 0, "drop-last", "0|1", "0", "1: drop each epoch's short last batch"},
    {RO_SEED, 0, "seed", "N", "0", "initial weights and the shuffle order"},
    {RO_METRICS, 0, "metrics", "FILE.jsonl", NULL,
     "one JSON line per step: step, epoch, loss, lr,\n"
     "loss_scale, grad_norm, samples_per_s, skipped,\n"
     "wall_s, sim_s, mem_peak_bytes (rank 0's device\n"
     "peak so far in the memory ledger)"},
    {RO_SAVE, 0, "save", "FILE", NULL,
     "write a checkpoint (safetensors) at the end"},
    {RO_SAVE_EVERY, 0, "save-every", "N", "0",
     "with --save, also every N steps (0: only at\n"
     "the end)"},
    {RO_RESUME, 0, "resume", "FILE", NULL,
     "continue a run from its checkpoint exactly\n"
     "(same options; --steps may grow)"},
    {RO_INIT, 0, "init", "FILE", NULL,
     "initial weights from a checkpoint or any\n"
     "safetensors file with the model's tensors"},
    {RO_TRACE, 0, "trace", "FILE", NULL,
     "write the compute events as a Chrome trace\n"
     "(FILE.jsonl: JSON lines; FILE.ddptrace:\n"
     "binary, for ddplab replay)"},
    {RO_LOG_EVERY, 0, "log-every", "N", "0",
     "a progress line every N steps (0: about ten\n"
     "lines in a run)"},
    {RO_PROGRESS, 0, "progress", "auto|bar|lines", "auto",
     "auto: a bar when stderr is a terminal,\n"
     "periodic lines otherwise"},
    {RO_NODES, 0, "nodes", "N", "1",
     "nodes the ranks are spread over (R/N per\n"
     "node; links priced by --profile)"},
    {RO_ACCUM_SYNC, 0, "accum-sync", "last|every", "last",
     "with --accum: last = no_sync on the first\n"
     "N-1 micro-steps, one all_reduce per step;\n"
     "every = all_reduce every micro-step (N times\n"
     "the traffic, same result)"},
    {RO_BUCKET_CAP, 0, "bucket-cap-mb", "MB", "25",
     "ddp: bucket_cap_mb, the size of gradient\n"
     "buckets (the first is 1 MiB)"},
    {RO_FIND_UNUSED, 0, "find-unused-parameters", NULL, NULL,
     "ddp: find_unused_parameters=True (parameters\n"
     "a forward did not use are marked ready)"},
    {RO_STATIC_GRAPH, 0, "static-graph", NULL, NULL,
     "ddp: static_graph=True (the graph must not\n"
     "change between iterations)"},
    {RO_GRAD_VIEW, 0, "gradient-as-bucket-view", NULL, NULL,
     "ddp: gradients are views into the buckets\n"
     "(no copy, one gradient copy less memory)"},
    {RO_BCAST_BUFFERS, 0, "broadcast-buffers", "on|off", "on",
     "ddp: broadcast rank 0's buffers (BatchNorm\n"
     "running stats) before each forward"},
    {RO_NO_INIT_BCAST, 0, "no-init-broadcast", NULL, NULL,
     "ddp: skip the broadcast of rank 0's weights\n"
     "at construction (ranks keep their own seeds:\n"
     "rank r initialises with --seed + r)"},
    {RO_LAST_BUCKET_CAP, 0, "last-bucket-cap", NULL, NULL,
     "ddp: DDP_SET_LAST_BUCKET_CAP=1, the small\n"
     "first bucket becomes the last"},
    {RO_PRINT_BUCKETS, 0, "print-buckets", NULL, NULL,
     "ddp: print each bucket plan (iteration 0 and\n"
     "after the rebuild): bucket, bytes, names"},
    {RO_COMM_HOOK, 0, "comm-hook", "allreduce|fp16|bf16|sum", "allreduce",
     "ddp: the communication hook: allreduce (none),\n"
     "fp16/bf16 = fp16_compress_hook/bf16_compress_hook\n"
     "(half the bytes), sum = a hook that forgets to\n"
     "divide (gradients R times too large)"},
    {RO_LOSS_LOG, 0, "loss-log", "rank0|avg|sum", "avg",
     "ddp: the loss shown and in --metrics: avg =\n"
     "all_reduce(AVG), sum = all_reduce(SUM) / R,\n"
     "rank0 = rank 0's own (1/R of the data)"},
    {RO_ZERO_GRAD, 0, "zero-grad", "start|after-step", "start",
     "where zero_grad sits: at the start of each\n"
     "accumulation block, or right after the step"},
    {RO_SET_TO_NONE, 0, "set-to-none", NULL, NULL,
     "zero_grad(set_to_none=True): parameters that\n"
     "get no gradient before the step are not\n"
     "stepped (no momentum, no weight decay)"},
    {RO_ACCUM_TAIL, 0, "accum-tail", "span|step|drop", "span",
     "with --accum: span = blocks run on into the\n"
     "next epoch; step = blocks restart each epoch\n"
     "and the short last one steps; drop = it does\n"
     "forward/backward but never steps"},
    {RO_UNEVEN, 0, "uneven", "K", NULL,
     "ddp: uneven inputs: rank r has K*r/(R-1)\n"
     "fewer batches each epoch (rank R-1: K fewer);\n"
     "without --join the others end up waiting\n"
     "(the watchdog's diagnosis, exit code 3)"},
    {RO_JOIN, 0, "join", NULL, NULL,
     "ddp: with --uneven, wrap each epoch in\n"
     "Join: ranks out of data shadow the others'\n"
     "collectives with zero gradients"},
    {RO_WATCHDOG, 0, "watchdog", "SECONDS", "5",
     "wall time a rank may wait in a collective\n"
     "before the run is diagnosed as stuck"},
    {RO_EVAL_EVERY, 0, "eval-every", "N", NULL,
     "evaluate after every N steps (single, ddp):\n"
     "each rank its strided share of the training\n"
     "set, in eval mode; loss and accuracy shown\n"
     "and in --metrics"},
    {RO_EVAL_VARIANT, 0, "eval-variant", "right|mean-of-means|rank0-only", "right",
     "ddp: right = all_reduce sums of loss x count,\n"
     "correct, total; mean-of-means = average of\n"
     "the ranks' own means (unweighted: wrong when\n"
     "shards differ); rank0-only = only rank 0\n"
     "evaluates and all_reduces (a deadlock)"},
    {RO_SHARDING, 0, "sharding", "NAME", "full_shard",
     "fsdp: full_shard (ZeRO-3), shard_grad_op\n"
     "(ZeRO-2), no_shard (DDP), hybrid_shard (shard\n"
     "in a node, replicate across --nodes),\n"
     "hybrid_zero2, zero1; PyTorch's spellings too"},
    {RO_FSDP_WRAP, 0, "fsdp-wrap", "auto|block|layer|size|none", "auto",
     "fsdp units: block = each transformer block,\n"
     "layer = each module (Linear, BatchNorm,\n"
     "embedding, block), size = modules with at\n"
     "least --min-params parameters, none = one\n"
     "unit; auto = block (gpt) or layer (mlp); the\n"
     "root unit takes what no unit took"},
    {RO_MIN_PARAMS, 0, "min-params", "N", "100000000",
     "--fsdp-wrap size: size_based_auto_wrap_policy's\n"
     "min_num_params"},
    {RO_BACKWARD_PREFETCH, 0, "backward-prefetch", "backward_pre|backward_post|none",
     "backward_pre",
     "fsdp: when the next unit's all-gather is\n"
     "issued in backward (before or after this\n"
     "unit's gradient computation, or on demand)"},
    {RO_FORWARD_PREFETCH, 0, "forward-prefetch", NULL, NULL,
     "fsdp: issue the next unit's all-gather\n"
     "before this unit's forward compute"},
    {RO_NO_LIMIT_AG, 0, "no-limit-all-gathers", NULL, NULL,
     "fsdp: limit_all_gathers=False: with\n"
     "--forward-prefetch every later unit is\n"
     "gathered at once (the host running ahead),\n"
     "the memory spike the rate limiter prevents"},
    {RO_PARAM_DTYPE, 0, "param-dtype", "fp32|bf16|fp16", "fp32",
     "fsdp MixedPrecision: units gathered and\n"
     "computed in this type; fp32 master shards"},
    {RO_REDUCE_DTYPE, 0, "reduce-dtype", "fp32|bf16|fp16", "param dtype",
     "fsdp MixedPrecision: gradients reduced in\n"
     "this type"},
    {RO_BUFFER_DTYPE, 0, "buffer-dtype", "fp32|bf16|fp16", "fp32",
     "fsdp MixedPrecision: buffers (BatchNorm\n"
     "statistics) rounded to this type"},
    {RO_CPU_OFFLOAD, 0, "cpu-offload", NULL, NULL,
     "fsdp: sharded parameters, gradients and\n"
     "optimizer state in host memory; copies on\n"
     "the host stream"},
    {RO_ZERO1_RS, 0, "zero1-reduce-scatter", NULL, NULL,
     "zero1: reduce-scatter the gradients instead\n"
     "of DeepSpeed's all_reduce"},
    {RO_STATE_DICT, 0, "state-dict", "full|sharded|local", "full",
     "fsdp --save: full = gathered, rank 0 writes\n"
     "a checkpoint any strategy resumes; sharded =\n"
     "a file per shard plus an index (resumes at\n"
     "another world size or sharding); local =\n"
     "each rank's flat shards (same world only)"},
    {RO_SD_RANK0_CALL, 0, "state-dict-rank0-call", NULL, NULL,
     "fsdp: a bug on purpose: only rank 0 calls\n"
     "state_dict(); its gathers meet the others'\n"
     "next collectives (a diagnosed mismatch)"},
    {RO_PRINT_UNITS, 0, "print-units", NULL, NULL,
     "fsdp: print the units, their sizes, padding\n"
     "and each rank's slice"},
    // (designated, so that it stays at its index whatever goes in before it)
    [RO_DEVICE_MEMORY] = {RO_DEVICE_MEMORY, 0, "device-memory", "SIZE|DEVICE", "unlimited",
     "each rank's device memory for the memory\n"
     "ledger: 80GB, 80GiB, 512MiB, or a device:\n"
     "h100, h200, a100-40, a100-80, l40s, rtx4090;\n"
     "a run that needs more fails with an itemised\n"
     "out-of-memory report and what would fit\n"
     "(exit code 1)"},
    [RO_GPU] = {RO_GPU, 0, "gpu", "NAME|FILE", "the profile's",
     "device of every rank for the simulated\n"
     "compute time: h100, h200, a100-40, a100-80,\n"
     "l40s, rtx4090 (run 'ddplab' for the list), or\n"
     "a file from 'ddplab bench --calibrate' (this\n"
     "machine's CPU); default: the --profile's\n"
     "device (dgx-h100: h100; a calibrated file:\n"
     "its CPU), else h100"},
    [RO_PHANTOM] = {RO_PHANTOM, 0, "phantom", NULL, NULL,
     "shapes only: tensors get no storage and no\n"
     "math runs; the strategy, its collectives\n"
     "(without data), the memory ledger, the\n"
     "simulated clock and the trace are those of\n"
     "the numeric run; losses are not computed.\n"
     "The data still sets the batches' shapes"},
    [RO_FAULT] = {RO_FAULT, 0, "fault", "SPEC", NULL,
     "inject a fault (repeatable; the kinds are\n"
     "listed below): a rank that skips, changes\n"
     "or reorders a collective, crashes, computes\n"
     "slowly, has a slow link or an unused\n"
     "parameter; a loop that forgets set_epoch,\n"
     "the sampler or the loss division; seeds;\n"
     "a save killed halfway"},
    [RO_DIAGNOSIS] = {RO_DIAGNOSIS, 0, "diagnosis", "FILE|none", "ddplab-diagnosis.txt",
     "where a diagnosed failure (the watchdog's\n"
     "dump, a protocol mismatch) is also written;\n"
     "none: only on stderr and in the trace"},
    [RO_RENDEZVOUS] = {RO_RENDEZVOUS, 0, "rendezvous", "SPEC", NULL,
     "--backend cuda: this process runs one rank\n"
     "of a world of processes started by torchrun,\n"
     "mpirun or srun (rank and world size from\n"
     "their variables: RANK/WORLD_SIZE/LOCAL_RANK,\n"
     "OMPI_COMM_WORLD_*, PMI_RANK/PMI_SIZE,\n"
     "SLURM_PROCID/SLURM_NTASKS/SLURM_LOCALID; -n\n"
     "must be the world size), NCCL's id going\n"
     "from rank 0 to all through SPEC: file:PATH\n"
     "(a file every rank sees), tcp:HOST:PORT\n"
     "(rank 0 listens there), env (tcp at\n"
     "MASTER_ADDR:MASTER_PORT; MASTER_PORT+1 under\n"
     "torchrun's agent store), or mpi (MPI_Bcast\n"
     "over MPI_COMM_WORLD; builds that found MPI\n"
     "only). GPU: LOCAL_RANK mod the visible GPUs.\n"
     "--trace T: each process writes T.rankR, rank\n"
     "0 merges them into T when it can read them\n"
     "all (else: ddplab merge-traces). file, tcp\n"
     "and env wait DDPLAB_RENDEZVOUS_TIMEOUT\n"
     "seconds (300) for the others"},
    [RO_TF32] = {RO_TF32, 0, "tf32", NULL, NULL,
     "--backend cuda: let fp32 matrix products use\n"
     "TF32 tensor cores (inputs rounded to a 10-bit\n"
     "mantissa; faster, no longer comparable with\n"
     "the cpu backend bit for bit). Off by default"},
    [RO_COLL_IMPL] = {RO_COLL_IMPL, 0, "coll-impl", "auto|nccl|device", "auto",
     "--backend cuda: which collectives run. auto:\n"
     "NCCL when every rank has a GPU of its own,\n"
     "else ddplab's device-memory implementation of\n"
     "the same algorithms (ranks sharing a GPU,\n"
     "which NCCL refuses); nccl; device"},
    [RO_LOADER_WORKERS] = {RO_LOADER_WORKERS, 0, "loader-workers", "N", "0",
     "the input pipeline in simulated time (with\n"
     "--sample-cost): DataLoader(num_workers=N).\n"
     "0: the training loop loads each batch itself"},
    [RO_PREFETCH] = {RO_PREFETCH, 0, "prefetch", "F", "2",
     "batches each loader worker keeps ready ahead\n"
     "(DataLoader's prefetch_factor; needs workers)"},
    [RO_SAMPLE_COST] = {RO_SAMPLE_COST, 0, "sample-cost", "SECONDS", "0",
     "simulated time one loader worker spends\n"
     "reading and decoding one sample; 0: the data\n"
     "stage is free and left out of the timeline"},
    [RO_PIN_MEMORY] = {RO_PIN_MEMORY, 0, "pin-memory", "0|1", "1",
     "batches in pinned host memory: the copy to\n"
     "the device runs at full bandwidth, off the\n"
     "compute stream (0: pageable, slower, blocking)"},
    [RO_PS_SERVERS] = {RO_PS_SERVERS, 0, "ps-servers", "S", "1",
     "--strategy async-ps: ranks 0..S-1 are parameter\n"
     "servers (parameters round robin over them), the\n"
     "other -n minus S ranks are workers; --steps N:\n"
     "pushes per worker"},
    [RO_MAX_STALENESS] = {RO_MAX_STALENESS, 0, "max-staleness", "S", "unbounded",
     "--strategy async-ps: stale-synchronous\n"
     "parallel: a worker more than S pushes ahead\n"
     "of the slowest waits (0: fully synchronous,\n"
     "the mean of each round as one update)"},
    [RO_PS_COMPARE] = {RO_PS_COMPARE, 0, "compare-ddp", NULL, NULL,
     "--strategy async-ps: also run DDP on the same\n"
     "data and workers, and compare throughput and\n"
     "loss against simulated time"},
    [RO_ELASTIC] = {RO_ELASTIC, 0, "elastic", "MIN:MAX", NULL,
     "elastic training (torchrun --nnodes MIN:MAX):\n"
     "after a crashed or departed rank the others\n"
     "stop, re-form the world at the surviving size\n"
     "(at least MIN, at most MAX ranks) and resume\n"
     "from the last checkpoint (--save, --save-every)"},
    [RO_MAX_RESTARTS] = {RO_MAX_RESTARTS, 0, "max-restarts", "N", "3",
     "--elastic: restarts allowed before the run\n"
     "gives up (torchrun --max-restarts); crashes\n"
     "and leaves count, joins do not"},
    [RO_MEMBERSHIP] = {RO_MEMBERSHIP, 0, "membership", "SPEC", NULL,
     "--elastic: a change of the world at a step,\n"
     "repeatable: leave:rank=R,step=S (a node goes\n"
     "away) or join:step=S[,ranks=K] (K ranks ask\n"
     "to join; they enter at the next rendezvous)"},
    [RO_ALGO] = {RO_ALGO, 0, "algo", "NAME", "auto",
     "the collectives' algorithm (as NCCL_ALGO picks\n"
     "NCCL's): ring, tree (binomial), dbtree (NCCL's\n"
     "Tree: two binary trees, pipelined, for\n"
     "all_reduce; the ring for the others), naive,\n"
     "direct, or nccl (per call, as NCCL's tuner:\n"
     "ring, or dbtree for an all_reduce the cost\n"
     "model prices lower). ddp and dp: any; fsdp and\n"
     "zero: all but tree (no tree reduce_scatter).\n"
     "auto: direct on simulated ranks. The sums'\n"
     "order, and so their last bits, depends on it"},
    [RO_COMPARE_BACKENDS] = {RO_COMPARE_BACKENDS, 0, "compare-backends", "A,B", NULL,
     "run the configuration twice, on backend A and\n"
     "on backend B (cpu,cuda; cpu,cpu checks that\n"
     "runs repeat bit for bit), and report per tensor\n"
     "the largest difference in ULPs and where it\n"
     "comes from: the step and stage (initial\n"
     "weights, local gradients, synchronised\n"
     "gradients, parameters after the step) where\n"
     "bits first differ, and the cause (kernels,\n"
     "TF32, the collective's reduction order, bucket\n"
     "boundaries, division convention, optimizer)"},
    [RO_COMPARE_WITH] = {RO_COMPARE_WITH, 0, "compare-with", "'OPTIONS'", NULL,
     "the same comparison against this command with\n"
     "OPTIONS added (split at spaces), e.g.\n"
     "'--algo ring --bucket-cap-mb 0.01'; with\n"
     "--compare-backends they apply to side B"},
    [RO_COMPARE_MAX_ULP] = {RO_COMPARE_MAX_ULP, 0, "compare-max-ulp", "N", NULL,
     "with a comparison: exit 1 when a final\n"
     "parameter differs by more than N ULPs (0:\n"
     "demand bit-identical results) [no check]"},
    [RO_HELP] = {RO_HELP, 'h', "help", NULL, NULL, "print this help"},
};

const RunOptSpec *run_opt_spec(RunOptId id) {
    return &run_specs[id];
}

const RunOptSpec *run_opt_find_long(const char *name, size_t len) {
    for (int i = 0; i < RO_COUNT; i++)
        if (strlen(run_specs[i].longname) == len && strncmp(run_specs[i].longname, name, len) == 0)
            return &run_specs[i];
    return NULL;
}

const RunOptSpec *run_opt_find_short(char c) {
    for (int i = 0; i < RO_COUNT; i++)
        if (run_specs[i].shortname && run_specs[i].shortname == c)
            return &run_specs[i];
    return NULL;
}

// "  -n, --ranks R" padded to column 30, then the help lines.
static void print_option(FILE *out, char shortname, const char *longname, const char *arg,
                         const char *help, const char *deflt) {
    char head[64];
    int n = snprintf(head, sizeof head, "  %c%c%s--%s%s%s", shortname ? '-' : ' ',
                     shortname ? shortname : ' ', shortname ? ", " : "  ", longname,
                     arg ? " " : "", arg ? arg : "");
    if (n >= 30)
        fprintf(out, "%s\n%30s", head, "");
    else
        fprintf(out, "%s%*s", head, 30 - n, "");
    // Lines longer than the 49 columns left are broken at a space.
    int col = 30;
    for (const char *p = help; *p; p++) {
        if (*p == ' ' && col + 1 + (int)strcspn(p + 1, " \n") > 79) {
            fprintf(out, "\n%30s", "");
            col = 30;
            continue;
        }
        fputc(*p, out);
        col++;
        if (*p == '\n') {
            fprintf(out, "%30s", "");
            col = 30;
        }
    }
    if (deflt) {
        const char *last = strrchr(help, '\n');
        size_t lastlen = strlen(last ? last + 1 : help);
        if (30 + lastlen + 3 + strlen(deflt) > 79)
            fprintf(out, "\n%30s", "");
        else
            fputc(' ', out);
        fprintf(out, "[%s]", deflt);
    }
    fputc('\n', out);
}

void run_help(FILE *out) {
    fprintf(out,
            "usage: ddplab run [options]\n"
            "\n"
            "Trains a model on simulated ranks with PyTorch's semantics: the same\n"
            "initialisation distributions, losses, optimizers, schedules, gradient\n"
            "clipping, autocast and GradScaler, and DistributedSampler. It prints the\n"
            "configuration, progress on stderr, and a summary with the wall time and\n"
            "the time the same steps would take on the simulated hardware.\n"
            "\n"
            "options (default in brackets):\n");
    for (int i = 0; i < RO_COUNT; i++) {
        const RunOptSpec *s = &run_specs[i];
        print_option(out, s->shortname, s->longname, s->arg, s->help, s->deflt);
    }
    fprintf(out, "\noptimizer, schedule, clipping and mixed precision:\n");
    int n = 0;
    const SimOptimFlagInfo *f = sim_optim_flags_table(&n);
    for (int i = 0; i < n; i++)
        print_option(out, 0, f[i].name, f[i].metavar, f[i].help, NULL);
    fprintf(out, "\nfaults (--fault SPEC; steps count from 1, coll=K is the K-th collective\n"
                 "a rank launches in that step, from 0):\n");
    sim_fault_help(out);
    fputc('\n', out);
    cli_viz_help(out);
    fprintf(out,
            "\n"
            "examples:\n"
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
            "exit codes:\n");
    cli_print_exit_codes(out);
}
