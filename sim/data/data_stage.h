// sim/data/data_stage.h: the input pipeline of one rank in simulated time: a
// DataLoader with loader workers, a prefetch factor and pinned-memory copies
// (torch.utils.data.DataLoader, PyTorch 1.13, persistent_workers=False).
//
// The model, per rank (B = samples in the batch, c = sample_cost):
//
//   num_workers 0   the training loop loads batch i itself when it asks for
//                   it, at `now` (the compute clock): B * c seconds during
//                   which the compute stream stands idle.
//   num_workers N   the iterator starts at the epoch's first request (time
//                   T0; workers are not persistent: every epoch starts them
//                   afresh, and a resumed run starts them at its first
//                   batch). Batch i goes to worker i mod N, as
//                   _MultiProcessDataLoaderIter dispatches indices round
//                   robin (persistent_workers=True would only save the
//                   processes' start-up, which is free here: an epoch's
//                   indices are dispatched when its iterator starts, either
//                   way). At T0 the first N * F indices are dispatched
//                   (F = prefetch_factor); the index of batch i + N * F is
//                   dispatched when batch i leaves the DataLoader (taken_i,
//                   below). So each worker has at most F batches
//                   outstanding, and
//                     dispatch_i = T0                      (i < N * F)
//                                = taken_{i - N*F}         (otherwise)
//                     ready_i    = max(dispatch_i, ready_{i-N}) + B * c
//                   (ready_{i-N}: the worker's previous batch; T0 for its
//                   first). Starting a worker costs nothing here.
//   the wait        when the loop asks for batch i at `now`, the compute
//                   stream waits max(0, dev_i - now), dev_i being the time
//                   the batch is on the device (below); the compute stream
//                   has it at got_i = max(now, dev_i) (pageable: after the
//                   copy too).
//   the copy        to the device, of the batch's bytes (features, tokens,
//                   labels, targets as the loader holds them) over the host
//                   link (sim_data_stage_host_link): alpha + bytes / bw.
//                   pin_memory 1: an asynchronous copy on the host stream
//                   (the copy engine; it serialises with other host copies,
//                   e.g. FSDP's CPU offload), issued as soon as the batch is
//                   ready, the copy engine is free and the compute stream
//                   has the previous batch (got_{i-1}: one batch ahead on
//                   the device, as a side-stream prefetcher keeps it):
//                   dev_i = its end; the batch left the DataLoader when the
//                   copy started (taken_i = copy start).
//                   pin_memory 0: a pageable copy goes through the driver's
//                   pinned staging buffer (a CPU memcpy, then the DMA) and
//                   reaches SIM_DATA_PAGEABLE_FACTOR of the bandwidth; it is
//                   synchronous, on the compute stream, after the wait
//                   (dev_i = ready_i; taken_i = max(now, ready_i)).
//
// Everything is simulated time and a pure function of the configuration and
// of the compute clock the loop brings: no wall clock, no threads.
//
// Trace (sim/trace/trace.h), all SIM_EV_COMPUTE, step = the batch's index in its
// epoch, count = its samples, bytes = its bytes:
//   "data.load" on SIM_STREAM_HOST [start, ready]: a worker's work, chunk =
//                the worker (-1: the main process, num_workers 0);
//   "data.h2d"  the copy: SIM_STREAM_HOST (label "pinned") or
//                SIM_STREAM_COMPUTE (label "pageable");
//   "data.wait" on SIM_STREAM_COMPUTE [now, now + wait] when wait > 0: the
//                compute stream stood idle waiting for the batch.
// A batch's events are left when the loop takes it (batches prefetched but
// never taken leave none). Evaluation batches do not go through the stage.
#ifndef DDPLAB_SIM_DATA_STAGE_H
#define DDPLAB_SIM_DATA_STAGE_H

#include <stddef.h>
#include <stdint.h>

#include "base/batch.h"  // defines: SimBatch
#include "base/record.h" // defines: SimRecOut, SimRecIn
#include "base/status.h" // defines: SimStatus
#include "cost/cost.h"   // defines: SimLinkProfile, SimSysProfile, SimDeviceProfile

// Pageable copies: the share of the pinned bandwidth they reach. CUDA copies
// pageable memory through a small pinned staging buffer of the driver (a few
// MiB): the CPU copies each chunk into it, then the DMA engine moves it, so
// every byte crosses host memory twice; bandwidthTest's pageable figures
// run at about half its pinned ones on PCIe 4/5 hosts (less on hosts with
// slow memory, close to parity on a few with very fast memory).
#define SIM_DATA_PAGEABLE_FACTOR 0.5

// The configuration (SimTrainConfig.data_stage). All zero: no data stage.
typedef struct {
    int workers;        // DataLoader num_workers (0: the loop loads)
    int prefetch;       // prefetch_factor, >= 1 (read with workers > 0)
    double sample_cost; // simulated seconds one worker spends reading and
                        // decoding one sample; 0: the stage is off and leaves
                        // no event and no time
    int pin_memory;     // 1: pinned host batches, asynchronous copies
    int main_rank_only; // 1: one process loads for every device (DataParallel):
                        // rank 0 alone has the stage
} SimDataStage;

// No stage; prefetch 2 and pin_memory 1 (DataLoader's defaults in a
// training script that sets them).
void sim_data_stage_default(SimDataStage *c);
// 1 when the stage takes time (sample_cost > 0).
int sim_data_stage_on(const SimDataStage *c);
// Checks c; on failure writes one line naming the field, its value and what
// is allowed into err and returns SIM_EINVAL.
SimStatus sim_data_stage_check(const SimDataStage *c, char *err, size_t errlen);

// The link host batches cross to reach the device: the profile's own
// intra-node link when it is PCIe; otherwise the device's host interface
// (PCIe 5.0 x16 for Hopper, h100 and h200; PCIe 4.0 x16 for the others),
// from the built-in link table (sim/cost/cost_profiles.c). dev may be NULL.
const SimLinkProfile *sim_data_stage_host_link(const SimSysProfile *sys,
                                               const SimDeviceProfile *dev);
// Seconds to copy `bytes` to the device over link (pinned: full bandwidth).
double sim_data_stage_copy_s(const SimLinkProfile *link, double bytes, int pinned);
// Bytes of a batch as the loader holds it in host memory.
double sim_data_stage_batch_bytes(const SimBatch *b);

// What one rank's stage did. Kept by sim_data_stage_free.
typedef struct {
    int64_t batches;   // batches taken by the loop
    int64_t waits;     // of them, batches the loop waited for
    double wait_s;     // time the compute stream stood waiting (data.wait)
    double first_wait_s; // the wait of the last iterator's first batch
    double load_s;     // loader work, summed over the workers
    double h2d_s;      // copies to the device
    double start_s;    // compute clock at the first request (the steps' start)
} SimDataStageStats;

// One batch of the schedule, as sim_data_stage_next computes it.
typedef struct {
    int worker;        // -1: the main process
    double load_start; // when its loader started it
    double ready;      // when it was built (in host memory)
    double dev;        // when it was on the device (pinned); ready otherwise
    double copy_start, copy_end; // its copy (pageable: on the compute stream)
    double wait;       // how long the compute stream waited for it
    double taken;      // when it left the DataLoader (the dispatch of batch
                       // i + N * F)
    double got;        // when the compute stream had it on the device
} SimDataSlot;

// One rank's loader state (SimTrainer.data_stage). All zero is a valid
// state that has not started yet.
typedef struct {
    SimDataStage cfg;
    int started;          // 1: an iterator is running
    int64_t epoch;        // the epoch the iterator serves
    int64_t served;       // batches it has handed out
    double t0;            // when it started
    double *worker_ready; // [workers]: when each worker finishes its latest batch
    double *taken;        // [workers * prefetch]: taken_i of the last N * F
                          // batches, at i % (N * F)
    double last_got;      // got of the previous batch (t0 for the first)
    double copy_free;     // when the copy engine is free (pinned copies)
    SimDataStageStats stats;
} SimDataStageState;

// Starts a new iterator at `now` with configuration c (epoch start: the
// workers start afresh). SIM_ENOMEM.
SimStatus sim_data_stage_restart(SimDataStageState *s, const SimDataStage *c, double now);
// The next batch of the running iterator, of n samples and `bytes` bytes,
// asked for at `now` (the compute clock), with the copy engine free from
// copy_free and the copy over link: fills *out and advances the state (the
// stats too). The pure schedule; sim_data_stage_batch wraps it for a rank.
void sim_data_stage_next(SimDataStageState *s, double now, int n, double bytes,
                         const SimLinkProfile *link, SimDataSlot *out);
// Frees the arrays; the stats stay.
void sim_data_stage_free(SimDataStageState *s);

// The state as a record (sim/base/record.h), for a checkpoint: a resumed run
// goes on with the same iterator, its workers' progress and its
// outstanding prefetches, where a new process would start one afresh and
// wait for its first batch. Nothing at all when c is off, so that the
// record is the same length on every rank of a run.
void sim_data_stage_write(const SimDataStageState *s, const SimDataStage *c, SimRecOut *o);
// Reads what sim_data_stage_write wrote for configuration c into *s, which
// it replaces (freeing its arrays). 0, or -1 (in->bad set, *s unchanged)
// when the record does not match or memory runs out.
int sim_data_stage_read(SimDataStageState *s, const SimDataStage *c, SimRecIn *in);

struct SimRank;
// The training loop's hook (sim/train/train_step.c next_batch): batch `index` of
// `epoch` has been drawn; charges its loading, copy and wait to rank r
// (its compute clock advances by the wait, and by a pageable copy) and
// traces them. Nothing at all when c is off, or on ranks > 0 with
// main_rank_only. A new epoch (or the first call) restarts the iterator.
// SIM_ENOMEM (r->error says so).
SimStatus sim_data_stage_batch(SimDataStageState *s, struct SimRank *r, const SimDataStage *c,
                               int64_t epoch, int64_t index, const SimBatch *b);

#endif
