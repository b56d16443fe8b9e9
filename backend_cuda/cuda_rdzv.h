// backend_cuda/cuda_rdzv.h: how the processes of one world find each other
// before NCCL can: which rank this process is (from the launcher's
// variables), where the ranks meet (`--rendezvous SPEC`), and the exchange
// of one small opaque blob (NCCL's 128-byte ncclUniqueId) from rank 0 to
// every rank.
//
// Plain C and POSIX (files, sockets): no CUDA, NCCL or MPI header, so that
// the command line checks `--rendezvous` in every build and the tests run on
// machines without a GPU. The identity always comes from the variables the
// launchers set (below). The blob travels through a file or a TCP socket
// (file:, tcp:, env), or, when the build found MPI, through MPI itself
// (`mpi`: MPI_Bcast over MPI_COMM_WORLD, for worlds started by mpirun or
// srun). Only cuda_rdzv_mpi.c includes mpi.h; it is compiled into the
// library, and the library linked with MPI, only in a build that found MPI
// (DDPLAB_RDZV_MPI=1). A build without MPI refuses `mpi` when it parses the
// spec, with a line saying how to get MPI, and links no MPI library.
//
// Identity, in order of precedence (the first launcher whose rank variable
// is set wins, so torchrun inside a Slurm allocation is torchrun):
//   torchrun   RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE;
//              job: TORCHELASTIC_RUN_ID + TORCHELASTIC_RESTART_COUNT
//   Open MPI   OMPI_COMM_WORLD_RANK, _SIZE, _LOCAL_RANK, _LOCAL_SIZE;
//              job: PMIX_NAMESPACE or OMPI_MCA_ess_base_jobid
//   MPICH      PMI_RANK, PMI_SIZE (Hydra), MPI_LOCALRANKID, MPI_LOCALNRANKS
//   Slurm      SLURM_PROCID, SLURM_NTASKS (or SLURM_NPROCS), SLURM_LOCALID,
//              SLURM_NTASKS_PER_NODE (when a plain number);
//              job: SLURM_JOB_ID + SLURM_STEP_ID
// and, whatever the launcher, MASTER_ADDR and MASTER_PORT (for `env`),
// DDPLAB_RENDEZVOUS_TIMEOUT (seconds a rank waits for the others, 300),
// and for tcp and env:
//   DDPLAB_RENDEZVOUS_SECRET       the secret every rank shares, 16 .. 256
//                                  bytes; or, instead,
//   DDPLAB_RENDEZVOUS_SECRET_FILE  a file holding it (one line), that only
//                                  its owner may read (chmod 600);
//   DDPLAB_RENDEZVOUS_BIND         the address rank 0 listens on instead of
//                                  the spec's host: 0.0.0.0 or :: for every
//                                  interface of its machine.
//
// The rendezvous protocols are described in cuda_rdzv.c.
#ifndef DDPLAB_BACKEND_CUDA_RDZV_H
#define DDPLAB_BACKEND_CUDA_RDZV_H

#include <stddef.h>

#include "base/status.h" // defines: SimStatus

#define CUDA_RDZV_MAX_BLOB 4096         // bytes cuda_rdzv_bcast carries at most
#define CUDA_RDZV_DEFAULT_TIMEOUT 300.0 // seconds, without DDPLAB_RENDEZVOUS_TIMEOUT
#define CUDA_RDZV_SECRET_MIN 16         // bytes of a shared secret, at least:
#define CUDA_RDZV_SECRET_MAX 256        // 16 guessable characters would still be few

// Reads one variable of the environment: NULL when it is not set. Tests
// pass a table of their own; the program passes cuda_rdzv_getenv.
typedef const char *(*CudaRdzvLookup)(void *arg, const char *name);
// The process's real environment (getenv); arg is unused.
const char *cuda_rdzv_getenv(void *arg, const char *name);

// Who this process is in its world.
typedef struct {
    int rank;               // 0 .. world_size - 1
    int world_size;         // processes in the world, >= 1
    int local_rank;         // index among the processes of this machine; -1: not said
    int local_world_size;   // processes on this machine; -1: not said
    char launcher[24];      // "torchrun", "Open MPI", "MPICH (PMI)", "Slurm"
    char job[128];          // the launcher's id of this job (and restart), "" if
                            // none; only [A-Za-z0-9._:-], anything else is '_'
    char master_addr[256];  // MASTER_ADDR, "" when not set
    int master_port;        // MASTER_PORT, 0 when not set
    int agent_store;        // 1: TORCHELASTIC_USE_AGENT_STORE=True (torchrun's
                            // agent serves its own store at MASTER_PORT)
    double timeout_s;       // DDPLAB_RENDEZVOUS_TIMEOUT, or the default
    char bind[256];         // DDPLAB_RENDEZVOUS_BIND (brackets of an IPv6
                            // address dropped), "" when not set
    unsigned char secret[CUDA_RDZV_SECRET_MAX]; // DDPLAB_RENDEZVOUS_SECRET, or the
    size_t secret_len;      // line of DDPLAB_RENDEZVOUS_SECRET_FILE; 0: none set
} CudaRdzvIdentity;

// Fills *id from the launcher's variables. SIM_EINVAL with one line in err
// naming the variable, its value and what is allowed when a value is
// malformed (not a whole number, negative, rank >= world size, ...), when
// a launcher's rank is set without its world size, or when no launcher's
// variables are set at all; and when a secret is set but unfit: too short
// or too long, given both ways, or in a file that cannot be read, is not a
// regular file, belongs to another user (root's is accepted), or that its
// group or others may read (the message never shows the secret).
SimStatus cuda_rdzv_identity(CudaRdzvLookup get, void *arg, CudaRdzvIdentity *id, char *err,
                             size_t errlen);

typedef enum {
    CUDA_RDZV_FILE = 1, // file:PATH, a file on a filesystem every rank sees
    CUDA_RDZV_TCP,      // tcp:HOST:PORT, rank 0 listens on PORT of HOST
    CUDA_RDZV_ENV,      // env: tcp at MASTER_ADDR:MASTER_PORT (cuda_rdzv_resolve)
    CUDA_RDZV_MPI,      // mpi: MPI_Bcast over MPI_COMM_WORLD (builds with MPI only)
} CudaRdzvKind;

typedef struct {
    CudaRdzvKind kind;
    char path[1024]; // FILE
    char host[256];  // TCP: a name, an IPv4 address, or an IPv6 address
                     // (given in brackets, kept without them)
    int port;        // TCP: 1 .. 65535
} CudaRdzvSpec;

// Parses `--rendezvous SPEC`: "file:PATH", "tcp:HOST:PORT" (IPv6 as
// "tcp:[::1]:29500"), "env" or "mpi". SIM_EINVAL with one line in err of
// the form "'SPEC' is ...; allowed: ..."; for "mpi" in a build without MPI,
// a line that says so and how to get it.
SimStatus cuda_rdzv_parse(const char *text, CudaRdzvSpec *s, char *err, size_t errlen);
// Turns `env` into tcp at MASTER_ADDR and MASTER_PORT, or MASTER_PORT + 1
// under torchrun's agent store (TORCHELASTIC_USE_AGENT_STORE=True: the
// agent itself listens on MASTER_PORT). Other kinds are left as they are.
// SIM_EINVAL when a variable it needs is missing, the secret of a tcp
// rendezvous included (the message names both ways to give it).
SimStatus cuda_rdzv_resolve(CudaRdzvSpec *s, const CudaRdzvIdentity *id, char *err,
                            size_t errlen);
// "file:/shared/run1.rdzv", "tcp:node0:29500", "tcp:[::1]:29500", "env",
// "mpi" in buf.
const char *cuda_rdzv_describe(const CudaRdzvSpec *s, char *buf, size_t len);

// Rank 0's blob[0 .. len) arrives in blob at every rank of id's world (len
// is the same everywhere, at most CUDA_RDZV_MAX_BLOB). Every rank returns
// only once every rank has reached the exchange, so it is also a barrier.
// A resolved spec (not `env`). Errors, with one line in err that names the
// rendezvous and what was missing:
//   SIM_ETIMEDOUT  the others did not come within timeout_s
//   SIM_EIO        the file cannot be written, the port is in use, an MPI
//                  call failed, ...
//   SIM_EINVAL     rank 0 refused this rank (another secret, world size or
//                  job), or what answered did not prove the secret; tcp
//                  without a secret; tcp: rank 0's host resolves to
//                  loopback addresses only and the launcher puts ranks on
//                  other machines;
//                  mpi: id disagrees with MPI_COMM_WORLD's size or rank,
//                  or the ranks' len differ (every rank then fails alike)
// `mpi` has no timeout of its own (MPI has none): a rank that never comes
// holds the others until the launcher ends the job, which mpirun and srun
// do when one of its processes exits with an error or is killed. MPI is
// initialised by the first call when the process has not done it, and then
// finalised at exit (atexit).
SimStatus cuda_rdzv_bcast(const CudaRdzvSpec *s, const CudaRdzvIdentity *id, void *blob,
                          size_t len, double timeout_s, char *err, size_t errlen);
// On rank 0, once every rank is known to hold the blob (e.g. after a
// collective that needed them all): removes the files of a file rendezvous
// so that no later run can mistake them for its own. A no-op elsewhere.
void cuda_rdzv_finish(const CudaRdzvSpec *s, const CudaRdzvIdentity *id);

#endif
