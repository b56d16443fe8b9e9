// cli/run/run_launch.c: `--fault same-rank`: every process of the world read
// RANK=0 from its environment, as a SLURM batch script that exported
// RANK=$SLURM_PROCID once, before `srun python train.py`, makes them. What
// init_process_group then does is the launch model's (sim/train/launch.h);
// this file prints it as the processes' own errors and the diagnosis, and
// the run ends there, before any training (exit 3).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cli.h"     // defines: CLI_EXIT_*
#include "run/run.h"
#include "train/launch.h" // defines: sim_launch_env

// MASTER_PORT as the lesson's scripts and torchrun's default have it.
#define LAUNCH_PORT 29500

// "1-3 (node 0), 5-7 (node 1)": the processes whose fate is f, as runs of
// consecutive numbers within a node. Returns how many there are.
static int procs_text(const SimLaunch *l, SimLaunchFate f, char *buf, size_t len) {
    int per = l->nprocs / l->nnodes, count = 0;
    size_t used = 0;
    buf[0] = '\0';
    for (int p = 0; p < l->nprocs; p++) {
        if (l->fate[p] != f)
            continue;
        int q = p;
        while (q + 1 < l->nprocs && l->fate[q + 1] == f && (q + 1) / per == p / per)
            q++;
        count += q - p + 1;
        if (used + 40 < len) {
            int w = q > p ? snprintf(buf + used, len - used, "%s%d-%d (node %d)",
                                     used ? ", " : "", p, q, p / per)
                          : snprintf(buf + used, len - used, "%s%d (node %d)", used ? ", " : "",
                                     p, p / per);
            used += (size_t)w;
        }
        p = q;
    }
    return count;
}

static void print_outcome(const SimLaunch *l) {
    char who[512];
    int n = procs_text(l, SIM_LAUNCH_BIND_FAILED, who, sizeof who);
    if (n > 0)
        fprintf(stderr,
                "  process%s %s: exit 1 at once, in init_process_group:\n"
                "    RuntimeError: The server socket has failed to listen on any local network "
                "address. The server socket has failed to bind to [::]:%d (errno: 98 - Address "
                "already in use).\n",
                n > 1 ? "es" : "", who, LAUNCH_PORT);
    n = procs_text(l, SIM_LAUNCH_TIMED_OUT, who, sizeof who);
    if (n > 0)
        fprintf(stderr,
                "  process%s %s: %s, count%s in at the store-based barrier and wait%s for %d; "
                "after the process group's timeout (30 min, 1.13's default):\n"
                "    RuntimeError: Timed out initializing process group in store based barrier "
                "on rank: 0, for key: store_based_barrier_key:1 (world_size=%d, "
                "worker_count=%d, timeout=0:30:00)\n",
                n > 1 ? "es" : "", who,
                n > 1 ? "each hosts a store on its node" : "hosts the store",
                n > 1 ? "" : "s itself", n > 1 ? "" : "s", l->nprocs, l->nprocs, l->worker_count);
}

static void diagnosis_text(const SimLaunch *l, char *d, size_t len) {
    int failed = 0;
    for (int p = 0; p < l->nprocs; p++)
        failed += l->fate[p] == SIM_LAUNCH_BIND_FAILED;
    char left[160];
    if (l->worker_count == 1)
        snprintf(left, sizeof left, "The one left counts 1 of the %d processes the store-based "
                 "barrier waits for, so it hangs", l->nprocs);
    else
        snprintf(left, sizeof left, "The %d left (one per node) count %d of the %d processes "
                 "the store-based barrier waits for, so they hang", l->worker_count,
                 l->worker_count, l->nprocs);
    snprintf(d, len,
             "diagnosis: every process believes it is rank 0 (RANK=0 in all %d). A process "
             "with RANK=0 starts the store's server on MASTER_PORT, and a host has one such "
             "port: %d of %d exited with 'Address already in use'. %s until the timeout.\n"
             "cause: RANK was set once, where each task's own number is not known yet: `export "
             "RANK=$SLURM_PROCID` in the batch script runs there, as 0, and every srun task "
             "inherits it.\n"
             "fix: read it in each task (srun bash -c 'RANK=$SLURM_PROCID "
             "LOCAL_RANK=$SLURM_LOCALID python train.py', or from SLURM_PROCID in the "
             "program), or let torchrun number the workers (srun --ntasks-per-node=1 torchrun "
             "--nnodes=$SLURM_NNODES --node_rank=$SLURM_NODEID ...).\n",
             l->nprocs, failed, l->nprocs, left);
}

int run_launch_check(const RunOptions *o) {
    if (!sim_fault_find(&o->faults, SIM_FAULT_SAME_RANK, -1))
        return 0;
    const char *with = o->rendezvous        ? "--rendezvous (each process's launcher sets its rank)"
                       : o->elastic_max > 0 ? "--elastic (torchrun sets each worker's RANK)"
                       : o->compare_backends || o->compare_with
                           ? "a comparison (no run starts)"
                           : NULL;
    if (with != NULL) {
        run_error("--fault 'same-rank': cannot be combined with %s; allowed: a plain run", with);
        return -1;
    }
    if (o->nodes >= o->nranks) {
        run_error("--fault 'same-rank': with one process per node (-n %d --nodes %d) each "
                  "hosts its store on its own node and the barrier counts all %d, so "
                  "init_process_group returns with %d rank 0s, which this model does not "
                  "follow further; allowed: more ranks than nodes",
                  o->nranks, o->nodes, o->nranks, o->nranks);
        return -1;
    }
    return 0;
}

int run_launch_fault(const RunOptions *o) {
    int *claimed = calloc((size_t)o->nranks, sizeof *claimed); // RANK=0 in every one
    SimLaunch l;
    if (claimed == NULL || sim_launch_env(o->nranks, o->nodes, claimed, &l) != SIM_OK) {
        free(claimed);
        run_error("out of memory for %d processes", o->nranks);
        return CLI_EXIT_INTERNAL;
    }
    free(claimed);
    fprintf(stderr,
            "ddplab run: --fault same-rank: %d processes on %d node%s (srun python train.py), "
            "each with RANK=0 and WORLD_SIZE=%d; init_process_group(init_method=\"env://\"):\n",
            o->nranks, o->nodes, o->nodes > 1 ? "s" : "", o->nranks);
    print_outcome(&l);
    char d[2048];
    diagnosis_text(&l, d, sizeof d);
    fputs(d, stderr);
    run_diag_write(o, d);
    sim_launch_free(&l);
    return CLI_EXIT_DIST;
}
