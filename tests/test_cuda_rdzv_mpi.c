// tests/test_cuda_rdzv_mpi.c: `--rendezvous mpi` (backend_cuda/
// cuda_rdzv_mpi.c), in a build that found MPI. Every process of a world
// that mpirun started runs this driver (tests/run_mpi.sh 3 ...): it reads
// its identity from the launcher's variables as ddplab does, parses "mpi"
// and calls cuda_rdzv_bcast, which initialises MPI itself (this file
// includes no MPI header: the library is what is tested).
//
//   - a 128-byte blob (an ncclUniqueId's size) and a 3000-byte one arrive
//     from rank 0 at every rank, whatever the other ranks held before;
//   - an identity that disagrees with MPI_COMM_WORLD (a world size, or one
//     rank's rank) and blobs of different lengths fail on every rank with
//     a message, instead of leaving some ranks waiting in the broadcast;
//     the rank that disagrees names both identities;
//   - the exchange still works after those failures, and the process ends
//     cleanly: MPI_Finalize runs at exit, or mpirun would call the job
//     failed.
// Every case makes exactly one cuda_rdzv_bcast call before it checks
// anything, so a failed check on one rank never leaves the others waiting
// in a collective that it skipped.
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "cuda_rdzv.h"

#define BIG 3000 // bytes: more than one ncclUniqueId, below CUDA_RDZV_MAX_BLOB

static CudaRdzvIdentity me;
static CudaRdzvSpec spec;

// The bytes rank `rank` holds before the exchange: rank 0's are the ones
// every rank must hold after it, the others' must be overwritten.
static void pattern(unsigned char *b, size_t n, int rank) {
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)((unsigned)rank * 97u + (unsigned)i * 31u + 5u);
}

// One exchange of n bytes from id; the blob must then be rank 0's.
static int exchange_ok(size_t n) {
    unsigned char blob[BIG], want[BIG];
    char err[1024] = "";
    pattern(blob, n, me.rank);
    pattern(want, n, 0);
    SimStatus st = cuda_rdzv_bcast(&spec, &me, blob, n, me.timeout_s, err, sizeof err);
    if (st != SIM_OK)
        fprintf(stderr, "rank %d: %s\n", me.rank, err);
    CHECK_EQ_INT(st, SIM_OK);
    CHECK(memcmp(blob, want, n) == 0);
    return 0;
}

static int test_spec(void) {
    char buf[64];
    CHECK_EQ_INT(spec.kind, CUDA_RDZV_MPI);
    CHECK(strcmp(cuda_rdzv_describe(&spec, buf, sizeof buf), "mpi") == 0);
    char err[512] = "";
    CudaRdzvSpec s = spec;
    CHECK_EQ_INT(cuda_rdzv_resolve(&s, &me, err, sizeof err), SIM_OK); // nothing to resolve
    CHECK_EQ_INT(s.kind, CUDA_RDZV_MPI);
    return 0;
}

static int test_id_blob(void) {
    return exchange_ok(128);
}

static int test_big_blob(void) {
    return exchange_ok(BIG);
}

// Every rank claims a world one larger than mpirun's.
static int test_world_disagrees(void) {
    CudaRdzvIdentity id = me;
    id.world_size = me.world_size + 1;
    unsigned char blob[128];
    char err[1024] = "", want[160];
    pattern(blob, sizeof blob, me.rank);
    CHECK_EQ_INT(cuda_rdzv_bcast(&spec, &id, blob, sizeof blob, 10, err, sizeof err),
                 SIM_EINVAL);
    snprintf(want, sizeof want, "say rank %d of %d processes, but MPI_COMM_WORLD says rank %d "
             "of %d", me.rank, id.world_size, me.rank, me.world_size);
    CHECK_STR_CONTAINS(err, want);
    CHECK_STR_CONTAINS(err, me.launcher);
    return 0;
}

// Rank 1 alone claims to be rank 0: it says why, the others that it did.
static int test_rank_disagrees(void) {
    CudaRdzvIdentity id = me;
    if (me.rank == 1)
        id.rank = 0;
    unsigned char blob[128];
    char err[1024] = "", want[160];
    pattern(blob, sizeof blob, me.rank);
    CHECK_EQ_INT(cuda_rdzv_bcast(&spec, &id, blob, sizeof blob, 10, err, sizeof err),
                 SIM_EINVAL);
    if (me.rank == 1)
        snprintf(want, sizeof want, "say rank 0 of %d processes, but MPI_COMM_WORLD says rank 1 "
                 "of %d", me.world_size, me.world_size);
    else
        snprintf(want, sizeof want, "MPI rank 1's launcher variables disagree");
    CHECK_STR_CONTAINS(err, want);
    return 0;
}

// The last rank brings a shorter blob.
static int test_length_disagrees(void) {
    unsigned char blob[128];
    char err[1024] = "";
    size_t n = me.rank == me.world_size - 1 ? 64 : sizeof blob;
    pattern(blob, sizeof blob, me.rank);
    CHECK_EQ_INT(cuda_rdzv_bcast(&spec, &me, blob, n, 10, err, sizeof err), SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "blobs of 64 to 128 bytes");
    return 0;
}

int main(void) {
    char err[1024] = "";
    if (cuda_rdzv_identity(cuda_rdzv_getenv, NULL, &me, err, sizeof err) != SIM_OK ||
        cuda_rdzv_parse("mpi", &spec, err, sizeof err) != SIM_OK) {
        fprintf(stderr, "test_cuda_rdzv_mpi: %s\n", err);
        return 1;
    }
    if (me.world_size < 2) {
        fprintf(stderr, "test_cuda_rdzv_mpi: a world of %d process; run it under mpirun -np 3\n",
                me.world_size);
        return 1;
    }
    int failures = 0;
    RUN(test_spec);
    RUN(test_id_blob);
    RUN(test_big_blob);
    RUN(test_world_disagrees);
    RUN(test_rank_disagrees);
    RUN(test_length_disagrees);
    RUN(test_id_blob); // the exchange still works after the refusals
    printf("rank %d of %d (%s): %s\n", me.rank, me.world_size, me.launcher,
           failures ? "FAILED" : "all passed");
    return failures ? 1 : 0;
}
