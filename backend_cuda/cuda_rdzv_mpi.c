// backend_cuda/cuda_rdzv_mpi.c: the blob exchange through MPI itself
// (`--rendezvous mpi`), for worlds that mpirun or srun started. Compiled
// into ddplab_rdzv, with DDPLAB_RDZV_MPI=1 and MPI linked, only when the
// build found MPI; the only file of ddplab that includes mpi.h.
//
// Under mpirun the processes already share a channel, so nothing needs to
// be chosen, shared or cleaned up (no file, no port): MPI carries the blob.
// The identity still comes from the launcher's variables (cuda_rdzv.h), as
// for every other transport, so the exchange first checks it against MPI's.
//
//   1. MPI_Init_thread(MPI_THREAD_FUNNELED) unless the process already
//      initialised MPI: only the thread that calls cuda_rdzv_bcast ever
//      calls MPI, though CUDA and NCCL may have threads of their own by
//      then. When it initialises MPI it also registers MPI_Finalize at
//      exit: Open MPI's mpirun ends a job whose process left without
//      MPI_Finalize as a failure. A process that initialised MPI itself
//      finalises it itself.
//   2. A duplicate of MPI_COMM_WORLD (the same processes and ranks) with
//      MPI_ERRORS_RETURN, so that a failed call comes back as a code that
//      the message names, instead of the default handler aborting the job,
//      and without changing the handler of a world the process may own.
//   3. MPI_Comm_size and MPI_Comm_rank against id's world size and rank,
//      and the blob's length, agreed by one MPI_Allreduce (MIN of the first
//      disagreeing rank, of len and of -len). A rank that disagrees must not
//      leave the others waiting in the broadcast for it: every rank learns
//      of it and fails alike, the disagreeing one naming both identities.
//   4. MPI_Bcast of the len bytes from rank 0; every rank's blob is then
//      rank 0's (a non-root rank's own bytes are overwritten).
//
// MPI gives a collective no timeout, so timeout_s does not apply: a rank
// that never arrives holds the others until the launcher ends the job,
// which mpirun and srun do when one of its processes fails. Every MPI call's
// code is checked, with MPI_Error_string in the message (MPI_Init_thread
// itself may still abort the process: no handler can be set before it).
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "cuda_rdzv_internal.h" // defines: cuda_rdzv_mpi_bcast

// MPI's text for code rc in buf, on one line.
static const char *error_text(int rc, char *buf, size_t n) {
    char msg[MPI_MAX_ERROR_STRING + 1];
    int len = 0;
    if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS || len < 0) {
        snprintf(buf, n, "MPI error code %d", rc);
        return buf;
    }
    msg[len < MPI_MAX_ERROR_STRING ? len : MPI_MAX_ERROR_STRING] = '\0';
    for (char *p = msg; *p; p++) // some implementations end theirs with '\n'
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    snprintf(buf, n, "%s", msg);
    return buf;
}

// "mpi: MPI_Bcast failed: ..." for call "MPI_Bcast(...)" (its name only).
static SimStatus failed(int rc, const char *call, char *err, size_t errlen) {
    char why[MPI_MAX_ERROR_STRING + 32];
    snprintf(err, errlen, "mpi: %.*s failed: %s", (int)strcspn(call, "("), call,
             error_text(rc, why, sizeof why));
    return SIM_EIO;
}

// Runs the call, and on failure returns its message from the function.
#define MPI_TRY(call, err, errlen)                                             \
    do {                                                                       \
        int mpi_rc_ = (call);                                                  \
        if (mpi_rc_ != MPI_SUCCESS)                                            \
            return failed(mpi_rc_, #call, (err), (errlen));                    \
    } while (0)

static void finalize_at_exit(void) {
    int done = 0;
    if (MPI_Finalized(&done) != MPI_SUCCESS || done)
        return;
    int rc = MPI_Finalize();
    if (rc != MPI_SUCCESS) {
        char why[MPI_MAX_ERROR_STRING + 32];
        fprintf(stderr, "ddplab: mpi: MPI_Finalize failed at exit: %s\n",
                error_text(rc, why, sizeof why));
    }
}

// MPI initialised in this process, by it or by this function (step 1).
static SimStatus ensure_init(char *err, size_t errlen) {
    int finalized = 0, initialized = 0, provided = 0;
    MPI_TRY(MPI_Finalized(&finalized), err, errlen);
    if (finalized) {
        snprintf(err, errlen, "mpi: MPI is already finalised in this process and cannot "
                 "start again; allowed: --rendezvous mpi before MPI_Finalize, or file:PATH, "
                 "tcp:HOST:PORT or env");
        return SIM_EINVAL;
    }
    MPI_TRY(MPI_Initialized(&initialized), err, errlen);
    if (initialized)
        return SIM_OK;
    // `provided` may be below FUNNELED only in an MPI without thread
    // support, where a single thread calling MPI is all there is to ask.
    MPI_TRY(MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided), err, errlen);
    if (atexit(finalize_at_exit) != 0) {
        snprintf(err, errlen, "mpi: cannot register MPI_Finalize to run at exit (atexit "
                 "failed)");
        return SIM_EIO;
    }
    return SIM_OK;
}

// Steps 3 and 4 on comm, MPI_COMM_WORLD's duplicate.
static SimStatus exchange(MPI_Comm comm, const CudaRdzvIdentity *id, void *blob, size_t len,
                          char *err, size_t errlen) {
    int size = 0, rank = 0;
    MPI_TRY(MPI_Comm_size(comm, &size), err, errlen);
    MPI_TRY(MPI_Comm_rank(comm, &rank), err, errlen);
    int agree = size == id->world_size && rank == id->rank;
    int mine[3] = {agree ? INT_MAX : rank, (int)len, -(int)len}, all[3] = {0, 0, 0};
    MPI_TRY(MPI_Allreduce(mine, all, 3, MPI_INT, MPI_MIN, comm), err, errlen);
    if (!agree) {
        snprintf(err, errlen, "mpi: %s's variables say rank %d of %d processes, but "
                 "MPI_COMM_WORLD says rank %d of %d; allowed: one launcher, mpirun or srun "
                 "(with MPI support), and no other launcher's RANK/WORLD_SIZE set", id->launcher,
                 id->rank, id->world_size, rank, size);
        return SIM_EINVAL;
    }
    if (all[0] != INT_MAX) {
        snprintf(err, errlen, "mpi: MPI rank %d's launcher variables disagree with "
                 "MPI_COMM_WORLD (its own message says how); every rank stops", all[0]);
        return SIM_EINVAL;
    }
    if (all[1] != -all[2]) {
        snprintf(err, errlen, "mpi: the ranks exchange blobs of %d to %d bytes; allowed: the "
                 "same length on every rank (are they all the same ddplab?)", all[1], -all[2]);
        return SIM_EINVAL;
    }
    MPI_TRY(MPI_Bcast(blob, (int)len, MPI_BYTE, 0, comm), err, errlen);
    return SIM_OK;
}

SimStatus cuda_rdzv_mpi_bcast(const CudaRdzvSpec *s, const CudaRdzvIdentity *id, void *blob,
                              size_t len, char *err, size_t errlen) {
    (void)s; // `mpi` has no parameters
    SIM_CHECK(ensure_init(err, errlen));
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_TRY(MPI_Comm_dup(MPI_COMM_WORLD, &comm), err, errlen);
    int rc = MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    SimStatus st = rc == MPI_SUCCESS ? exchange(comm, id, blob, len, err, errlen)
                                     : failed(rc, "MPI_Comm_set_errhandler", err, errlen);
    // The duplicate is freed whatever happened (a failed exchange included).
    rc = MPI_Comm_free(&comm);
    if (rc != MPI_SUCCESS && st == SIM_OK)
        st = failed(rc, "MPI_Comm_free", err, errlen);
    return st;
}
