// tests/test_rdzv_world.h: worlds of processes for the rendezvous tests
// (test_cuda_rdzv.c, test_cuda_rdzv_tcp.c): identities made by hand, ranks
// forked to run cuda_rdzv_bcast, and the wait for them.
#ifndef DDPLAB_TESTS_RDZV_WORLD_H
#define DDPLAB_TESTS_RDZV_WORLD_H

#include <sys/types.h>

#include "cuda_rdzv.h" // defines: CudaRdzvSpec, CudaRdzvIdentity

#define TRW_BLOB 128                         // an ncclUniqueId's size
#define TRW_SECRET "test-secret-0123456789" // what trw_ident gives every rank
#define TRW_SEED 7                           // rank 0's blob: trw_pattern(b, TRW_SEED)

// A blob that differs for every seed.
void trw_pattern(unsigned char *b, unsigned seed);
// Rank `rank` of a world, with job id `job`, the secret TRW_SECRET, no
// local world said and a timeout of 10 s.
CudaRdzvIdentity trw_ident(int rank, int world, const char *job);
// Sets the secret of *id (a C string).
void trw_set_secret(CudaRdzvIdentity *id, const char *secret);

// Forks a process that runs cuda_rdzv_bcast as *id, rank 0 sending
// trw_pattern(TRW_SEED). It exits 0 when the call returns `want` and, for
// SIM_OK, the blob is rank 0's, or, otherwise, err holds `says` (when not
// NULL); else 1, after printing what it got.
pid_t trw_spawn(const CudaRdzvSpec *s, const CudaRdzvIdentity *id, double timeout_s,
                SimStatus want, const char *says);
// trw_spawn of rank `rank` of a world of `world` (job "job-1"), expecting SIM_OK.
pid_t trw_spawn_rank(const CudaRdzvSpec *s, int rank, int world, double timeout_s);
// Waits for the children (killing those still running after 30 s); 0 when
// all exited 0.
int trw_wait_all(const pid_t *pids, int n);
// Four processes; with root_last, ranks 1-3 start 0.3 s before rank 0.
// 0 when every rank got rank 0's blob.
int trw_run_world(const CudaRdzvSpec *s, int root_last);

// A TCP port nobody listens on (bound on 127.0.0.1 to find it, then
// closed), or -1.
int trw_free_port(void);
// Parses tcp:HOST:PORT into *s; 0, or -1.
int trw_tcp_spec(CudaRdzvSpec *s, const char *host, int port);
// Seconds on CLOCK_MONOTONIC.
double trw_now(void);
// Sleeps s seconds.
void trw_sleep(double s);

#endif
