// backend_cuda/cuda_rdzv_internal.h: what the parts of the rendezvous share
// (cuda_rdzv.c: identity, spec and dispatch; cuda_rdzv_secret.c: the shared
// secret; cuda_rdzv_file.c, cuda_rdzv_tcp.c and cuda_rdzv_mpi.c: the
// channels; cuda_rdzv_hmac.h: the tcp channel's cryptography). Private to
// them.
#ifndef DDPLAB_BACKEND_CUDA_RDZV_INTERNAL_H
#define DDPLAB_BACKEND_CUDA_RDZV_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "cuda_rdzv.h" // defines: CudaRdzvSpec, CudaRdzvIdentity

// Seconds on CLOCK_MONOTONIC.
double cuda_rdzv_now(void);
// Sleeps s seconds (less when a signal arrives).
void cuda_rdzv_sleep(double s);
// 64 random bits from the kernel (cuda_rdzv_random_bytes; the clock and
// pid mixed in when it gives none); never 0. For the file rendezvous's
// nonces and names; the tcp channel takes cuda_rdzv_random_bytes itself,
// which fails rather than fall back.
uint64_t cuda_rdzv_random(void);

// Reads DDPLAB_RENDEZVOUS_SECRET or DDPLAB_RENDEZVOUS_SECRET_FILE into
// id->secret (cuda_rdzv_secret.c); see cuda_rdzv_identity.
SimStatus cuda_rdzv_read_secret(CudaRdzvLookup get, void *arg, CudaRdzvIdentity *id, char *err,
                                size_t errlen);
// SIM_OK when id holds a secret; else SIM_EINVAL with the line that says
// how to give one, for the rendezvous `where` ("tcp:node0:29500").
SimStatus cuda_rdzv_need_secret(const char *where, const CudaRdzvIdentity *id, char *err,
                                size_t errlen);

// The channels. The spec is resolved and of their kind, id is valid, len is
// 1 .. CUDA_RDZV_MAX_BLOB and timeout_s > 0 (cuda_rdzv_bcast checks).
SimStatus cuda_rdzv_file_bcast(const CudaRdzvSpec *s, const CudaRdzvIdentity *id, void *blob,
                               size_t len, double timeout_s, char *err, size_t errlen);
void cuda_rdzv_file_finish(const CudaRdzvSpec *s, const CudaRdzvIdentity *id);
SimStatus cuda_rdzv_tcp_bcast(const CudaRdzvSpec *s, const CudaRdzvIdentity *id, void *blob,
                              size_t len, double timeout_s, char *err, size_t errlen);
// The MPI channel: defined by cuda_rdzv_mpi.c in a build with MPI
// (DDPLAB_RDZV_MPI=1); otherwise a stub in cuda_rdzv.c that refuses, which
// keeps this header, and every caller, free of mpi.h. No timeout: MPI has
// none (cuda_rdzv.h).
SimStatus cuda_rdzv_mpi_bcast(const CudaRdzvSpec *s, const CudaRdzvIdentity *id, void *blob,
                              size_t len, char *err, size_t errlen);

#endif
