// sim/train/launch.h: what torch.distributed.init_process_group(init_method=
// "env://") does with the RANK each process was given, as PyTorch 1.13 does
// it when no torchrun agent hosts the store (`srun python train.py`,
// `mpirun`, a hand-written launcher). It is the model behind
// `--fault same-rank`: the ranks a launcher hands out decide, before any
// training, which processes fail and which wait.
//
// PyTorch 1.13 (torch/distributed/rendezvous.py, _create_c10d_store, and
// distributed_c10d.py, _store_based_barrier); the one-host case was run
// with 1.13 and gloo on CPU (four processes, RANK=0 in each: three exited
// with errno 98 at once, the fourth timed out):
//   - a process that reads RANK=0 starts the TCPStore server: it listens on
//     MASTER_PORT on its own host. A second one on the same host cannot:
//     "failed to bind ... (errno: 98 - Address already in use)", and the
//     process exits at once. On another host the port is free, so one such
//     process per node survives;
//   - every surviving process connects to the store at MASTER_ADDR (node
//     0's) and counts itself in at the store-based barrier, which waits for
//     WORLD_SIZE processes. Fewer ever arrive, so each survivor waits out
//     the process group's timeout (30 minutes by default in 1.13) and fails
//     with "Timed out initializing process group in store based barrier on
//     rank: 0, ... (world_size=W, worker_count=C, ...)". (gloo, which
//     connects its ranks while the group is made, times out there first,
//     with "Socket Timeout".)
// Under torchrun every worker is a store client of its agent's store, and
// torchrun sets each worker's RANK itself, so the exported RANK=0 does no
// harm there.
//
//   int claimed[8] = {0};                  // every process read RANK=0
//   SimLaunch l;
//   if (sim_launch_env(8, 2, claimed, &l) == SIM_OK) {
//       ... l.fate[p], l.worker_count (2: one survivor per node) ...
//       sim_launch_free(&l);
//   }
#ifndef DDPLAB_SIM_LAUNCH_H
#define DDPLAB_SIM_LAUNCH_H

#include "base/status.h" // defines: SimStatus

// The process group timeout init_process_group waits by default, in 1.13
// (datetime.timedelta(minutes=30)); NCCL's became 10 minutes in 2.2.
#define SIM_LAUNCH_TIMEOUT_S 1800

typedef enum {
    SIM_LAUNCH_JOINED = 0,  // in the group as its own rank
    SIM_LAUNCH_BIND_FAILED, // exits at once: MASTER_PORT is taken on its host
    SIM_LAUNCH_TIMED_OUT,   // waits at the store barrier until the timeout
} SimLaunchFate;

typedef struct {
    int nprocs, nnodes;   // WORLD_SIZE processes, nprocs / nnodes per node
    SimLaunchFate *fate;  // [nprocs]
    int *claimed;         // [nprocs]: the RANK each process read
    int worker_count;     // processes counted in at the store barrier
    int servers;          // processes that host a store (one per node at most)
    int ok;               // 1: init_process_group returns on every process
} SimLaunch;

// The outcome of env:// initialisation for nprocs processes spread evenly
// over nnodes nodes (process p on node p / (nprocs / nnodes)), process p
// having read RANK=claimed[p]. SIM_EINVAL when nnodes does not divide
// nprocs or a rank is outside 0..nprocs-1; SIM_ENOMEM. The case the model
// does not cover (every process's barrier count reaches WORLD_SIZE while
// two of them claim one rank: one process per node, all RANK=0) gives ok 1
// with every fate JOINED; sim_launch_duplicates tells it apart.
SimStatus sim_launch_env(int nprocs, int nnodes, const int *claimed, SimLaunch *out);
// How many processes claim a rank another process claims too.
int sim_launch_duplicates(const SimLaunch *l);
void sim_launch_free(SimLaunch *l);

#endif
