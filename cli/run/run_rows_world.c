// cli/run/run_rows_world.c: the rows of `ddplab run`'s option table
// (run_opts.c) about the world the ranks run in: device memory and compute,
// shapes only, injected faults and their diagnosis, processes of a launcher,
// and the cuda backend's own options.
#include <stddef.h>
#include <string.h>

#include "core/opts.h"    // defines: cli_opt_device_memory
#include "run/run.h"      // defines: RunOptions, run_error
#include "run/run_opts.h" // defines: run_rows_world
#include "run/run_proc.h" // defines: run_proc_parse

#define AT(field) .offset = offsetof(RunOptions, field)

static const char *const impls[] = {"auto", "nccl", "device", NULL};

static int set_device_memory(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v,
                             void *dest) {
    RunOptions *o = dest;
    if (cli_opt_device_memory(cx, row, v->text, &o->device_memory) != 0)
        return -1;
    o->device_memory_text = v->text;
    return 0;
}

// --fault SPEC, repeatable (checked against -n with the others, run_parse.c).
static int add_fault(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v,
                     void *dest) {
    (void)cx, (void)row;
    char err[512];
    if (sim_fault_parse(&((RunOptions *)dest)->faults, v->text, err, sizeof err) != SIM_OK) {
        run_error("%s", err);
        return -1;
    }
    return 0;
}

static int set_diagnosis(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v,
                         void *dest) {
    (void)cx, (void)row;
    ((RunOptions *)dest)->diagnosis = strcmp(v->text, "none") == 0 ? NULL : v->text;
    return 0;
}

static const CliOptRow rows[] = {
    {.name = "device-memory", .kind = CLI_OPT_STRING, .metavar = "SIZE|DEVICE",
     .deflt = "unlimited", .apply = set_device_memory,
     .help = "each rank's device memory for the memory\n"
             "ledger: 80GB, 80GiB, 512MiB, or a device:\n"
             "h100, h200, a100-40, a100-80, l40s, rtx4090;\n"
             "a run that needs more fails with an itemised\n"
             "out-of-memory report and what would fit\n"
             "(exit code 1)"},
    {.name = "gpu", .kind = CLI_OPT_STRING, .metavar = "NAME|FILE", .deflt = "the profile's",
     .store = CLI_STORE_TEXT, AT(gpu), .file = CLI_FILE_VALUE,
     .help = "device of every rank for the simulated\n"
             "compute time: h100, h200, a100-40, a100-80,\n"
             "l40s, rtx4090 (run 'ddplab' for the list), or\n"
             "a file from 'ddplab bench --calibrate' (this\n"
             "machine's CPU); default: the --profile's\n"
             "device (dgx-h100: h100; a calibrated file:\n"
             "its CPU), else h100"},
    {.name = "phantom", .kind = CLI_OPT_FLAG, .store = CLI_STORE_INT, AT(phantom),
     .help = "shapes only: tensors get no storage and no\n"
             "math runs; the strategy, its collectives\n"
             "(without data), the memory ledger, the\n"
             "simulated clock and the trace are those of\n"
             "the numeric run; losses are not computed.\n"
             "The data still sets the batches' shapes"},
    {.name = "fault", .kind = CLI_OPT_STRING, .metavar = "SPEC", .apply = add_fault,
     .help = "inject a fault (repeatable; the kinds are\n"
             "listed below): a rank that skips, changes\n"
             "or reorders a collective, crashes, computes\n"
             "slowly, has a slow link or an unused\n"
             "parameter; a loop that forgets set_epoch,\n"
             "the sampler or the loss division; seeds;\n"
             "a save killed halfway. One that can never\n"
             "fire is refused"},
    {.name = "diagnosis", .kind = CLI_OPT_PATH, .metavar = "FILE|none",
     .deflt = "ddplab-diagnosis.txt", .apply = set_diagnosis,
     .help = "where a diagnosed failure (the watchdog's\n"
             "dump, a protocol mismatch) is also written;\n"
             "none: only on stderr and in the trace"},
    {.name = "rendezvous", .kind = CLI_OPT_STRING, .metavar = "SPEC", .apply = run_proc_parse,
     .file = CLI_FILE_SPEC, .file_in = run_proc_file,
     .help = "--backend cuda: this process runs one rank\n"
             "of a world of processes started by torchrun,\n"
             "mpirun or srun (rank and world size from\n"
             "their variables: RANK/WORLD_SIZE/LOCAL_RANK,\n"
             "OMPI_COMM_WORLD_*, PMI_RANK/PMI_SIZE,\n"
             "SLURM_PROCID/SLURM_NTASKS/SLURM_LOCALID; -n\n"
             "must be the world size), NCCL's id going\n"
             "from rank 0 to all through SPEC: file:PATH\n"
             "(a file every rank sees), tcp:HOST:PORT\n"
             "(rank 0 listens there, on HOST's addresses\n"
             "only), env (tcp at MASTER_ADDR:MASTER_PORT;\n"
             "MASTER_PORT+1 under torchrun's agent store),\n"
             "or mpi (MPI_Bcast over MPI_COMM_WORLD;\n"
             "builds that found MPI only). tcp and env\n"
             "need a secret every process shares, which\n"
             "never crosses the wire:\n"
             "DDPLAB_RENDEZVOUS_SECRET (16 .. 256 bytes,\n"
             "e.g. openssl rand -hex 32) or\n"
             "DDPLAB_RENDEZVOUS_SECRET_FILE (a file only\n"
             "its owner can read: chmod 600);\n"
             "DDPLAB_RENDEZVOUS_BIND=0.0.0.0 makes rank 0\n"
             "listen on every interface. GPU: LOCAL_RANK\n"
             "mod the visible GPUs. --trace T: each\n"
             "process writes T.rankR, rank 0 merges them\n"
             "into T when it can read them all (else:\n"
             "ddplab merge-traces). file, tcp and env wait\n"
             "DDPLAB_RENDEZVOUS_TIMEOUT seconds (300) for\n"
             "the others"},
    {.name = "tf32", .kind = CLI_OPT_FLAG, .store = CLI_STORE_INT, AT(tf32),
     .help = "--backend cuda: let fp32 matrix products use\n"
             "TF32 tensor cores (inputs rounded to a 10-bit\n"
             "mantissa; faster, no longer comparable with\n"
             "the cpu backend bit for bit). Off by default"},
    {.name = "coll-impl", .kind = CLI_OPT_ENUM, .words = impls,
     .what = "a collective implementation", .deflt = "auto",
     .store = CLI_STORE_TEXT, AT(coll_impl),
     .help = "--backend cuda: which collectives run. auto:\n"
             "NCCL when every rank has a GPU of its own,\n"
             "else ddplab's device-memory implementation of\n"
             "the same algorithms (ranks sharing a GPU,\n"
             "which NCCL refuses); nccl; device"},
};

const CliOptRow *run_rows_world(int *n) {
    *n = (int)(sizeof rows / sizeof rows[0]);
    return rows;
}
