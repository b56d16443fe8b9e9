// sim/engine/memory.h: the per-rank memory ledger. It holds what a real run of the
// same strategy would hold on the device (and in host memory with CPU
// offload), item by item, by category: the answer to "where did my memory
// go" and to "does this fit".
//
// Every tensor allocated through sim_tensor_alloc is charged to the
// category in its `mem_cat` field (and the space in `mem_space`); code
// that holds memory without a tensor of its own (an FSDP unit gathered
// into a backing store, a phantom tensor) charges the ledger directly with
// sim_mem_charge. The category SIM_MEM_BACKING is storage that numeric mode
// needs to compute but that the modelled run would not hold (the full-size
// parameter copy FSDP computes from in numeric mode): it is tracked but left
// out of the totals, the peak and the capacity check.
//
// With a capacity (SimWorldConfig.device_memory, --device-memory), a charge
// that takes the device total over it fails with SIM_ENOMEM and r->error
// itemises what was resident, as an allocator's out-of-memory error would.
#ifndef DDPLAB_SIM_MEMORY_H
#define DDPLAB_SIM_MEMORY_H

#include <stddef.h>
#include <stdint.h>

#include "base/status.h"   // defines: SimStatus
#include "trace/mem_cat.h" // defines: SimMemCat, SimMemSpace

typedef struct SimRank SimRank;

typedef struct {
    uint64_t capacity;                              // device bytes; 0: unlimited
    int64_t cur[SIM_MEM_SPACE_COUNT][SIM_MEM_CAT_COUNT];
    int64_t total[SIM_MEM_SPACE_COUNT];             // sum of cur without BACKING
    int64_t peak[SIM_MEM_SPACE_COUNT];              // the most total has been
    int64_t at_peak[SIM_MEM_SPACE_COUNT][SIM_MEM_CAT_COUNT]; // cur when peak was set
    double peak_sim;                                // simulated time of the device peak
    // The first refused charge (sim_mem_charge returned SIM_ENOMEM), kept
    // for the report after the run: what was asked for, and the device's
    // categories at that moment (the cleanup that follows a failure frees
    // everything, so cur no longer shows it).
    int oom;                                        // 1 once a charge was refused
    int16_t oom_cat, oom_space;                     // SimMemCat, SimMemSpace asked for
    int64_t oom_bytes;                              // the refused charge
    double oom_sim;                                 // simulated time of the refusal
    int64_t oom_cur[SIM_MEM_CAT_COUNT];             // device cur at the refusal
    char oom_what[64];                              // the item's name (truncated)
} SimMemLedger;

// Resets the ledger to empty with a device capacity (0: unlimited).
void sim_mem_ledger_init(SimMemLedger *l, uint64_t capacity);
// Restarts the peaks from what is held now (as
// torch.cuda.reset_peak_memory_stats does): for set-up that allocates what
// the modelled run never holds and frees it at once. `now`: simulated time.
void sim_mem_reset_peak(SimMemLedger *l, double now);
// The same on rank r's ledger at its compute clock, and a memory event
// (label "peak-reset", 0 bytes) so that views replaying the trace restart
// their peaks there too.
void sim_rank_mem_reset_peak(SimRank *r);

// Adds delta bytes (negative: releases) to category c of space s on rank r,
// updates the totals and peaks, and appends a memory event to the trace
// (label "alloc"/"free" with the category). `what` names the item (a static
// string, e.g. "fsdp unit 3 gather"). A positive charge that takes the
// device total over the capacity is refused: nothing changes, r->error gets
// the itemised report (sim_mem_format_oom) and SIM_ENOMEM is returned.
SimStatus sim_mem_charge(SimRank *r, SimMemSpace s, SimMemCat c, int64_t delta,
                         const char *what);
// As sim_mem_charge, for the storage of a tensor (sim_tensor_alloc and
// sim_tensor_free use it): `what` (a tensor's name, which may not outlive
// the call; NULL: "tensor") names the item only in an out-of-memory report,
// and the trace event is named "alloc" or "free".
SimStatus sim_mem_charge_item(SimRank *r, SimMemSpace s, SimMemCat c, int64_t delta,
                              const char *what);
// Moves bytes from one category to another (no capacity check when the
// target is BACKING or the total does not grow), traced as two events.
SimStatus sim_mem_move(SimRank *r, SimMemSpace s, SimMemCat from, SimMemCat to,
                       int64_t bytes, const char *what);

// One line per non-zero category of cur (or at_peak when peak = 1), with
// bytes in MiB/GiB, then the total; returns buf.
const char *sim_mem_format(const SimMemLedger *l, SimMemSpace s, int peak, char *buf,
                           size_t len);
// The one-line out-of-memory report r->error gets when a charge of `bytes`
// to category c of space s is refused: the rank, the item, the total it
// would make against the capacity, and each category in use. Returns buf.
const char *sim_mem_format_oom(const SimMemLedger *l, int rank, SimMemSpace s, SimMemCat c,
                               int64_t bytes, const char *what, char *buf, size_t len);
// Sum of the device categories that hold model states (parameters in every
// form, gradients, optimizer state) in cur (peak = 0) or at_peak (peak = 1).
int64_t sim_mem_model_states(const SimMemLedger *l, SimMemSpace s, int peak);

// Parses a size: "80GB" (1e9), "80GiB" (2^30), "512MiB", "1.5e9", "123"
// (bytes). Units (any case): B, KB, MB, GB, TB (powers of 1000) and KiB,
// MiB, GiB, TiB (powers of 1024), optionally after one space; the number
// may have a fraction or an exponent and is rounded to whole bytes.
// Returns 0 and *out, or -1.
int sim_mem_parse_size(const char *s, uint64_t *out);
// The memory of a device by name ("h100", "h200", "a100-40", "a100-80",
// "l40s", "rtx4090", or an alias sim_device_find knows; any case), in bytes
// as its datasheet states it (the device table of sim/cost/cost_devices.c).
// Returns 0 and *out, or -1 for an unknown name.
int sim_mem_device_capacity(const char *name, uint64_t *out);
// "h100 (80 GB), h200 (141 GB), ...": the names for messages; returns buf.
const char *sim_mem_device_names(char *buf, size_t len);
// "1.50 GiB", "12.0 MiB", "512 B"; returns buf.
const char *sim_mem_human(int64_t bytes, char *buf, size_t len);

#endif
