// sim/train/launch.c: env:// initialisation by the RANK each process read
// (sim/train/launch.h).
#include "train/launch.h"

#include <stdlib.h>

void sim_launch_free(SimLaunch *l) {
    free(l->fate);
    free(l->claimed);
    l->fate = NULL;
    l->claimed = NULL;
}

// Which processes host the store, and which fail to bind its port: the
// first process on a node that reads RANK=0 listens there; a later one on
// the same node finds the port taken. Returns 1 when node 0 (MASTER_ADDR)
// has a server, the one every process's client connects to.
static int bind_servers(SimLaunch *l, int per_node) {
    int master_up = 0, last_node = -1;
    for (int p = 0; p < l->nprocs; p++) {
        int node = p / per_node;
        if (l->claimed[p] != 0)
            continue;
        if (node == last_node) {
            l->fate[p] = SIM_LAUNCH_BIND_FAILED;
            continue;
        }
        last_node = node; // processes are in node order: one server per node
        l->servers++;
        master_up |= node == 0;
    }
    return master_up;
}

SimStatus sim_launch_env(int nprocs, int nnodes, const int *claimed, SimLaunch *out) {
    out->fate = NULL;
    out->claimed = NULL;
    if (nprocs < 1 || nnodes < 1 || nprocs % nnodes != 0)
        return SIM_EINVAL;
    for (int p = 0; p < nprocs; p++)
        if (claimed[p] < 0 || claimed[p] >= nprocs)
            return SIM_EINVAL;
    out->nprocs = nprocs;
    out->nnodes = nnodes;
    out->worker_count = 0;
    out->servers = 0;
    out->ok = 0;
    out->fate = calloc((size_t)nprocs, sizeof *out->fate);
    out->claimed = malloc((size_t)nprocs * sizeof *out->claimed);
    if (out->fate == NULL || out->claimed == NULL) {
        sim_launch_free(out);
        return SIM_ENOMEM;
    }
    for (int p = 0; p < nprocs; p++)
        out->claimed[p] = claimed[p];
    int master_up = bind_servers(out, nprocs / nnodes);
    int survivors = 0;
    for (int p = 0; p < nprocs; p++)
        survivors += out->fate[p] != SIM_LAUNCH_BIND_FAILED;
    // Without a store at MASTER_ADDR no client connects: nobody counts in.
    out->worker_count = master_up ? survivors : 0;
    out->ok = out->worker_count == nprocs;
    for (int p = 0; p < nprocs && !out->ok; p++)
        if (out->fate[p] != SIM_LAUNCH_BIND_FAILED)
            out->fate[p] = SIM_LAUNCH_TIMED_OUT;
    return SIM_OK;
}

int sim_launch_duplicates(const SimLaunch *l) {
    int dup = 0;
    for (int p = 0; p < l->nprocs; p++)
        for (int q = 0; q < l->nprocs; q++)
            if (q != p && l->claimed[q] == l->claimed[p]) {
                dup++;
                break;
            }
    return dup;
}
