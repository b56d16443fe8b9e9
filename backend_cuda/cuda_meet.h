// backend_cuda/cuda_meet.h: the host-side rendezvous of the CUDA backend's
// rank threads (see cuda_meet.c for why it exists). Plain pthreads: nothing
// here touches CUDA, so it is tested on machines without a GPU.
#ifndef DDPLAB_BACKEND_CUDA_MEET_H
#define DDPLAB_BACKEND_CUDA_MEET_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "base/status.h" // defines: SimStatus

#define CUDA_MEET_NONE UINT64_MAX

// What one rank brings to a collective; compared across the participants.
typedef struct {
    uint64_t gen;      // rendezvous this arrival belongs to; CUDA_MEET_NONE: none
    uint64_t seq;      // the rank's collective (or per-peer message) number
    size_t count;
    double arrive_sim; // simulated time the rank reached the call
    int kind;          // SimCollKind; -1 while the rank waits in nothing
    int dtype, op, root, peer;
} CudaArrival;

// Mailbox of one ordered (sender, receiver) pair for send/recv.
typedef struct {
    CudaArrival send, recv; // posted halves (gen != CUDA_MEET_NONE when posted)
    uint64_t meetings;      // completed meetings, so a waiter sees its own end
    double met_start;       // latest arrival of the last meeting
    int met_status;         // SimStatus of the last meeting
    char why[256];          // its protocol error, if any
} CudaPair;

typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;      // timed on CLOCK_MONOTONIC, for the watchdog
    int ready;              // mu and cv exist (destroy is safe on a zeroed struct)
    int nranks;
    double watchdog_s;      // <= 0: wait forever
    uint64_t gen;           // all-rank rendezvous completed so far
    int arrived;            // ranks waiting in the current one
    CudaArrival *slots;     // [nranks]: arrivals at the current rendezvous
    CudaArrival *waiting;   // [nranks]: what each rank waits in now (for diagnoses)
    double met_start;       // result of the last completed rendezvous
    int met_status;
    CudaPair *pairs;        // [nranks * nranks], index sender*nranks + receiver
    int aborted;            // set when a rank failed: every wait returns at once
    char why[512];          // diagnosis of the last failed rendezvous
} CudaMeet;

SimStatus cuda_meet_init(CudaMeet *m, int nranks, double watchdog_s);
void cuda_meet_destroy(CudaMeet *m);
// Forgets half-finished meetings and clears the abort flag (between runs).
void cuda_meet_reset(CudaMeet *m);
// Releases every waiting rank with SIM_EABORTED, now and until the next reset.
void cuda_meet_abort(CudaMeet *m);
// Whether cuda_meet_abort was called since the last reset.
int cuda_meet_aborted(CudaMeet *m);
// Every rank meets: *start_sim = latest arrival. SIM_EPROTO when the ranks did
// not call the same collective, SIM_ETIMEDOUT when one never came; the reason
// is written into why.
SimStatus cuda_meet_all(CudaMeet *m, int rank, const CudaArrival *a, double *start_sim,
                        char *why, size_t whylen);
// The sender and the receiver of one message meet (a->kind SEND or RECV).
SimStatus cuda_meet_pair(CudaMeet *m, int rank, const CudaArrival *a, double *start_sim,
                         char *why, size_t whylen);

#endif
