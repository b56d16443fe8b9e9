// sim/strategy/ddp_buckets.h: how PyTorch's DistributedDataParallel groups gradients
// into buckets, reproduced exactly for PyTorch 1.13 (reference/semantics.md,
// section A5; torch/nn/parallel/distributed.py and reducer.cpp's
// compute_bucket_assignment_by_size and rebuild_buckets). The comments at
// the top of sim/strategy/ddp_buckets.c list the rules one by one.
//
// A bucket is a list of parameter indices (into the model's parameter table)
// whose gradients are all-reduced together, in the order they are laid out
// in the bucket's flat buffer. A plan is the list of buckets in bucket-index
// order, the order in which they are reduced.
#ifndef DDPLAB_SIM_DDP_BUCKETS_H
#define DDPLAB_SIM_DDP_BUCKETS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/dtype.h"  // defines: SimDtype
#include "base/status.h" // defines: SimStatus

// PyTorch's constants (reducer.hpp, distributed.py).
#define SIM_DDP_FIRST_BUCKET_BYTES ((size_t)1 << 20)   // kDefaultFirstBucketBytes
#define SIM_DDP_DEFAULT_CAP_MB 25.0                    // bucket_cap_mb default
// The limit of iteration 0's single bucket: Python's sys.maxsize, which is
// what PyTorch reports as that bucket's size limit.
#define SIM_DDP_NO_LIMIT ((size_t)INT64_MAX)

typedef struct {
    int nparams;
    int *params;        // [nparams] parameter indices, in layout order
    size_t *offsets;    // [nparams] byte offset of each one's slot in the flat buffer
    size_t bytes;       // sum of the parameters' sizes
    size_t limit;       // the size limit this bucket was filled against
    SimDtype dtype;
} SimBucket;

typedef struct {
    int nbuckets;
    SimBucket *buckets; // [nbuckets], in reduction order
} SimBucketPlan;

// One parameter as the assignment sees it.
typedef struct {
    size_t bytes;       // numel x element size
    SimDtype dtype;
} SimBucketParam;

// compute_bucket_assignment_by_size called without tensor_indices (as DDP's
// constructor calls it): walks `order` (n distinct parameter indices into
// params), appends each parameter to the open bucket of its dtype, and
// closes that bucket when its size reaches or passes the current limit (the
// parameter that crosses stays in it); limits[0] applies to each dtype's
// first bucket, then limits[1], ..., the last limit for all later ones. The
// buckets are then sorted by their smallest position in `order`.
// n = 0 gives an empty plan. On failure (n < 0, no limits, a negative or
// repeated index, an unknown dtype) returns SIM_EINVAL or SIM_ENOMEM; *out
// is then empty.
SimStatus sim_bucket_assign(const SimBucketParam *params, const int *order, int n,
                            const size_t *limits, int nlimits, SimBucketPlan *out);
// The same walk as compute_bucket_assignment_by_size called with
// tensor_indices (as the rebuild calls it): no sort. Buckets come out in the
// order they closed, then the buckets still open at the end, one per dtype,
// in reverse order of each dtype's first appearance in `order` (what
// iterating PyTorch's std::unordered_map gives, checked against torch 1.13
// for every order of the five dtypes).
SimStatus sim_bucket_assign_in_order(const SimBucketParam *params, const int *order, int n,
                                     const size_t *limits, int nlimits, SimBucketPlan *out);

typedef struct {
    double bucket_cap_mb;   // 25 by default; bytes = (size_t)(mb * 1048576), as int() in Python
    int find_unused;        // find_unused_parameters
    int static_graph;
    int last_bucket_cap;    // DDP_SET_LAST_BUCKET_CAP=1: the small bucket is the last
    // 0 (PyTorch 1.13): the first bucket's limit is always 1 MiB. 1: the
    // later 2.x rule for a cap passed explicitly (bucket_cap_mb not None):
    // the first limit is the cap too. The caller decides when it applies.
    int first_bucket_is_cap;
} SimDdpBucketOptions;

// bucket_cap_mb 25, everything else off.
void sim_ddp_bucket_options_default(SimDdpBucketOptions *o);
// int(bucket_cap_mb * 1024 * 1024). SIM_EINVAL when the cap is negative, not
// finite or too large to count in bytes. 0 is valid for PyTorch (every
// parameter then closes its own bucket).
SimStatus sim_ddp_cap_bytes(double bucket_cap_mb, size_t *out);

// The plan DDP builds at construction (used for iteration 0): one bucket
// (per dtype) with no limit when find_unused is off or static_graph is on;
// otherwise buckets over the parameters in definition order with limits
// [1 MiB, cap] ([cap] with first_bucket_is_cap), then the bucket list
// reversed (each bucket keeps definition order inside).
SimStatus sim_ddp_initial_plan(const SimBucketParam *params, int n,
                               const SimDdpBucketOptions *o, SimBucketPlan *out);
// The forward of which iteration rebuilds the plan (iterations count from
// 0): 1 normally; 2 with static_graph (its iteration 0 only counts hooks, so
// the order comes from iteration 1's backward); -1 with find_unused and no
// static_graph: PyTorch 1.13 never rebuilds then (should_rebuild_buckets),
// the initial plan stays. The ready order is that of the backward of the
// iteration before.
int sim_ddp_rebuild_iteration(const SimDdpBucketOptions *o);
// The plan in force from sim_ddp_rebuild_iteration on. ready_order: the
// nready distinct parameter indices in the order their gradients became
// ready (autograd hook order). With static_graph the parameters that never
// became ready follow in ascending index order; without it every parameter
// must be in ready_order (PyTorch stops with "Expected to have finished
// reduction ..." before rebuilding), else SIM_EINVAL. Limits [first, cap]:
// first = 1 MiB (the cap with first_bucket_is_cap), no sort. With
// last_bucket_cap the order is reversed before the assignment and the
// bucket list after it, so the small bucket is the last one. With
// find_unused and no static_graph this is the initial plan (no rebuild).
SimStatus sim_ddp_rebuilt_plan(const SimBucketParam *params, int n, const int *ready_order,
                               int nready, const SimDdpBucketOptions *o, SimBucketPlan *out);

void sim_bucket_plan_free(SimBucketPlan *p); // safe on an empty plan; leaves it empty
// For each parameter i < n: bucket_of[i] = index of its bucket (-1 if in
// none) and offset_bytes[i] = the byte offset of its slot inside that
// bucket's flat buffer (bucket.offsets; 0 if in none or the bucket has no
// offsets; divide by the dtype size for elements). Arrays of n entries
// allocated by the caller; either may be NULL.
void sim_bucket_plan_index(const SimBucketPlan *p, int n, int *bucket_of, size_t *offset_bytes);
// Prints the plan as `--print-buckets` shows it: one line per bucket,
// "bucket 0: 1,052,672 bytes (limit 1,048,576): 4.bias 4.weight 2.bias", with
// parameter names from `names` (indexed by parameter; NULL: the indices).
// A bucket with no limit says "(no limit)"; a bucket of another dtype than
// fp32 names it after the bytes ("2,048 bytes fp16").
void sim_bucket_plan_print(FILE *f, const SimBucketPlan *p, const char *const *names);

#endif
