// tests/test_ddp_buckets.c: DDP's bucket plans (sim/strategy/ddp_buckets.c) on hand
// computed cases: the worked example of reference/semantics.md, the >=
// closing rule, buckets per dtype, iteration 0's plans, the rebuild and
// when it happens, DDP_SET_LAST_BUCKET_CAP, the cap conversion, empty and
// one-parameter models, the slot offsets and the printed form.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "strategy/ddp_buckets.h"

#define MIB ((size_t)1 << 20)

// Checks that bucket b of plan p holds exactly the parameters want[0..n).
static int bucket_is(const SimBucketPlan *p, int b, const int *want, int n, size_t limit) {
    CHECK(b < p->nbuckets);
    CHECK_EQ_INT(p->buckets[b].nparams, n);
    for (int j = 0; j < n; j++)
        CHECK_EQ_INT(p->buckets[b].params[j], want[j]);
    CHECK_EQ_INT(p->buckets[b].limit, limit);
    return 0;
}

static SimDdpBucketOptions opts(double cap, int unused, int stat, int last) {
    SimDdpBucketOptions o;
    sim_ddp_bucket_options_default(&o);
    o.bucket_cap_mb = cap;
    o.find_unused = unused;
    o.static_graph = stat;
    o.last_bucket_cap = last;
    return o;
}

// semantics.md section 3 item 8: fp32 sizes in MiB in ready order
// [0.6, 0.6, 30, 10, 10, 10] give {0.6,0.6} {30} {10,10,10} after the rebuild.
static int test_worked_example(void) {
    const size_t s06 = 629144; // 0.6 MiB rounded down to whole fp32 elements
    SimBucketParam p[6] = {{10 * MIB, SIM_FP32}, {10 * MIB, SIM_FP32}, {10 * MIB, SIM_FP32},
                           {30 * MIB, SIM_FP32}, {s06, SIM_FP32},      {s06, SIM_FP32}};
    int ready[6] = {5, 4, 3, 2, 1, 0}; // backward runs last layer first
    SimDdpBucketOptions o = opts(25, 0, 0, 0);
    SimBucketPlan plan;
    CHECK(sim_ddp_rebuilt_plan(p, 6, ready, 6, &o, &plan) == SIM_OK);
    CHECK_EQ_INT(plan.nbuckets, 3);
    CHECK(bucket_is(&plan, 0, (int[]){5, 4}, 2, MIB) == 0);
    CHECK(bucket_is(&plan, 1, (int[]){3}, 1, 25 * MIB) == 0);
    CHECK(bucket_is(&plan, 2, (int[]){2, 1, 0}, 3, 25 * MIB) == 0);
    CHECK_EQ_INT(plan.buckets[0].bytes, 2 * s06);
    CHECK_EQ_INT(plan.buckets[2].bytes, 30 * MIB);
    sim_bucket_plan_free(&plan);
    CHECK_EQ_INT(plan.nbuckets, 0);
    CHECK(plan.buckets == NULL);
    return 0;
}

// A bucket closes when its size reaches its limit exactly, not only when
// it passes it; the parameter that crosses stays in the bucket.
static int test_closing_rule(void) {
    SimBucketParam p[6] = {{100, SIM_FP32}, {50, SIM_FP32}, {150, SIM_FP32},
                           {99, SIM_FP32},  {1, SIM_FP32},  {500, SIM_FP32}};
    int order[6] = {0, 1, 2, 3, 4, 5};
    size_t limits[2] = {100, 200};
    SimBucketPlan plan;
    CHECK(sim_bucket_assign_in_order(p, order, 6, limits, 2, &plan) == SIM_OK);
    CHECK_EQ_INT(plan.nbuckets, 3);
    CHECK(bucket_is(&plan, 0, (int[]){0}, 1, 100) == 0);       // 100 >= 100
    CHECK(bucket_is(&plan, 1, (int[]){1, 2}, 2, 200) == 0);    // 200 >= 200
    CHECK(bucket_is(&plan, 2, (int[]){3, 4, 5}, 3, 200) == 0); // 100 < 200, then 600
    sim_bucket_plan_free(&plan);
    // 99 + 1 = 100 reaches the first limit exactly.
    int order2[3] = {3, 4, 1};
    CHECK(sim_bucket_assign(p, order2, 3, limits, 2, &plan) == SIM_OK);
    CHECK_EQ_INT(plan.nbuckets, 2);
    CHECK(bucket_is(&plan, 0, (int[]){3, 4}, 2, 100) == 0);
    CHECK(bucket_is(&plan, 1, (int[]){1}, 1, 200) == 0); // still open: the current limit
    sim_bucket_plan_free(&plan);
    return 0;
}

// Buckets never mix dtypes; each dtype has its own limit sequence; the
// buckets still open at the end come in reverse order of their dtype's
// first appearance (no sort) or by smallest position (sort).
static int test_per_dtype(void) {
    SimBucketParam p[7] = {{8, SIM_FP32}, {4, SIM_FP16}, {8, SIM_FP32}, {2, SIM_BF16},
                           {4, SIM_FP16}, {4, SIM_FP32}, {2, SIM_FP16}};
    int order[7] = {0, 1, 2, 3, 4, 5, 6};
    size_t limits[2] = {8, 16};
    SimBucketPlan plan;
    CHECK(sim_bucket_assign_in_order(p, order, 7, limits, 2, &plan) == SIM_OK);
    // fp32: {0} closes at 8 (limit 8), then {2,5} open (12 < 16).
    // fp16: {1,4} closes at 8, then {6} open. bf16: {3} open (2 < 8).
    CHECK_EQ_INT(plan.nbuckets, 5);
    CHECK(bucket_is(&plan, 0, (int[]){0}, 1, 8) == 0);
    CHECK(bucket_is(&plan, 1, (int[]){1, 4}, 2, 8) == 0);
    CHECK(bucket_is(&plan, 2, (int[]){3}, 1, 8) == 0);       // bf16 first seen last
    CHECK(bucket_is(&plan, 3, (int[]){6}, 1, 16) == 0);      // then fp16
    CHECK(bucket_is(&plan, 4, (int[]){2, 5}, 2, 16) == 0);   // fp32 first seen first
    CHECK(plan.buckets[2].dtype == SIM_BF16 && plan.buckets[3].dtype == SIM_FP16);
    CHECK(plan.buckets[4].dtype == SIM_FP32);
    sim_bucket_plan_free(&plan);
    CHECK(sim_bucket_assign(p, order, 7, limits, 2, &plan) == SIM_OK);
    CHECK_EQ_INT(plan.nbuckets, 5); // sorted by smallest position: 0, 1, 2, 3, 6
    int firsts[5] = {0, 1, 2, 3, 6};
    for (int b = 0; b < 5; b++)
        CHECK_EQ_INT(plan.buckets[b].params[0], firsts[b]);
    sim_bucket_plan_free(&plan);
    // Iteration 0 without find_unused: one unlimited bucket per dtype,
    // sorted by first index and reversed.
    SimDdpBucketOptions o = opts(25, 0, 0, 0);
    CHECK(sim_ddp_initial_plan(p, 7, &o, &plan) == SIM_OK);
    CHECK_EQ_INT(plan.nbuckets, 3);
    CHECK(bucket_is(&plan, 0, (int[]){3}, 1, SIM_DDP_NO_LIMIT) == 0);
    CHECK(bucket_is(&plan, 1, (int[]){1, 4, 6}, 3, SIM_DDP_NO_LIMIT) == 0);
    CHECK(bucket_is(&plan, 2, (int[]){0, 2, 5}, 3, SIM_DDP_NO_LIMIT) == 0);
    sim_bucket_plan_free(&plan);
    return 0;
}

// nn.Sequential(Linear(784,1024), ReLU, Linear(1024,1024), ReLU,
// Linear(1024,10)), fp32: what torch 1.13 builds (read from a comm hook).
static const SimBucketParam mlp[6] = {{784 * 1024 * 4, SIM_FP32}, {1024 * 4, SIM_FP32},
                                      {1024 * 1024 * 4, SIM_FP32}, {1024 * 4, SIM_FP32},
                                      {1024 * 10 * 4, SIM_FP32},   {10 * 4, SIM_FP32}};
static const int mlp_ready[6] = {5, 4, 3, 2, 1, 0};

static int test_initial_plans(void) {
    SimBucketPlan plan;
    SimDdpBucketOptions o = opts(25, 0, 0, 0);
    CHECK(sim_ddp_initial_plan(mlp, 6, &o, &plan) == SIM_OK);
    CHECK(bucket_is(&plan, 0, (int[]){0, 1, 2, 3, 4, 5}, 6, SIM_DDP_NO_LIMIT) == 0);
    CHECK_EQ_INT(plan.nbuckets, 1);
    sim_bucket_plan_free(&plan);
    o = opts(1, 1, 1, 0); // static graph wins over find_unused
    CHECK(sim_ddp_initial_plan(mlp, 6, &o, &plan) == SIM_OK);
    CHECK_EQ_INT(plan.nbuckets, 1);
    sim_bucket_plan_free(&plan);
    // find_unused, cap 1 MiB: [1 MiB, 1 MiB] over definition order gives
    // {0} {1,2} {3,4,5}; reversed, insides kept.
    o = opts(1, 1, 0, 0);
    CHECK(sim_ddp_initial_plan(mlp, 6, &o, &plan) == SIM_OK);
    CHECK_EQ_INT(plan.nbuckets, 3);
    CHECK(bucket_is(&plan, 0, (int[]){3, 4, 5}, 3, MIB) == 0);
    CHECK(bucket_is(&plan, 1, (int[]){1, 2}, 2, MIB) == 0);
    CHECK(bucket_is(&plan, 2, (int[]){0}, 1, MIB) == 0);
    sim_bucket_plan_free(&plan);
    // find_unused, cap 25: the first bucket is 1 MiB in 1.13 ...
    o = opts(25, 1, 0, 0);
    CHECK(sim_ddp_initial_plan(mlp, 6, &o, &plan) == SIM_OK);
    CHECK_EQ_INT(plan.nbuckets, 2);
    CHECK(bucket_is(&plan, 0, (int[]){1, 2, 3, 4, 5}, 5, 25 * MIB) == 0);
    CHECK(bucket_is(&plan, 1, (int[]){0}, 1, MIB) == 0);
    sim_bucket_plan_free(&plan);
    // ... and the cap itself under the later rule: [cap] only.
    o.first_bucket_is_cap = 1;
    CHECK(sim_ddp_initial_plan(mlp, 6, &o, &plan) == SIM_OK);
    CHECK_EQ_INT(plan.nbuckets, 1);
    CHECK(bucket_is(&plan, 0, (int[]){0, 1, 2, 3, 4, 5}, 6, 25 * MIB) == 0);
    sim_bucket_plan_free(&plan);
    return 0;
}

static int test_rebuild(void) {
    SimBucketPlan plan;
    SimDdpBucketOptions o = opts(1, 0, 0, 0);
    CHECK_EQ_INT(sim_ddp_rebuild_iteration(&o), 1);
    CHECK(sim_ddp_rebuilt_plan(mlp, 6, mlp_ready, 6, &o, &plan) == SIM_OK);
    CHECK_EQ_INT(plan.nbuckets, 2); // as torch 1.13: [5 4 3 2] [1 0]
    CHECK(bucket_is(&plan, 0, (int[]){5, 4, 3, 2}, 4, MIB) == 0);
    CHECK(bucket_is(&plan, 1, (int[]){1, 0}, 2, MIB) == 0);
    sim_bucket_plan_free(&plan);
    // Every parameter must have become ready without static_graph.
    CHECK(sim_ddp_rebuilt_plan(mlp, 6, mlp_ready, 5, &o, &plan) == SIM_EINVAL);
    CHECK(sim_ddp_rebuilt_plan(mlp, 6, (int[]){5, 4, 4, 2, 1, 0}, 6, &o, &plan) == SIM_EINVAL);
    CHECK(sim_ddp_rebuilt_plan(mlp, 6, (int[]){5, 4, 6, 2, 1, 0}, 6, &o, &plan) == SIM_EINVAL);
    CHECK_EQ_INT(plan.nbuckets, 0);
    // static_graph: rebuilt one iteration later; unready ones appended in
    // ascending order: the walk is 5, 4, 2, 1, then 0, 3.
    o = opts(0.001, 0, 1, 0); // int(1048.576) = 1048 bytes
    CHECK_EQ_INT(sim_ddp_rebuild_iteration(&o), 2);
    CHECK(sim_ddp_rebuilt_plan(mlp, 6, (int[]){5, 4, 2, 1}, 4, &o, &plan) == SIM_OK);
    CHECK_EQ_INT(plan.nbuckets, 4);
    CHECK(bucket_is(&plan, 0, (int[]){5, 4, 2}, 3, MIB) == 0); // 41000 < 1 MiB, then + 4 MiB
    CHECK_EQ_INT(plan.buckets[0].bytes, 41000 + 4 * MIB);
    CHECK(bucket_is(&plan, 1, (int[]){1}, 1, 1048) == 0);
    CHECK(bucket_is(&plan, 2, (int[]){0}, 1, 1048) == 0);
    CHECK(bucket_is(&plan, 3, (int[]){3}, 1, 1048) == 0);
    sim_bucket_plan_free(&plan);
    // find_unused without static_graph: never rebuilt, the initial plan stays.
    o = opts(1, 1, 0, 0);
    CHECK_EQ_INT(sim_ddp_rebuild_iteration(&o), -1);
    CHECK(sim_ddp_rebuilt_plan(mlp, 6, mlp_ready, 6, &o, &plan) == SIM_OK);
    CHECK_EQ_INT(plan.nbuckets, 3);
    CHECK(bucket_is(&plan, 0, (int[]){3, 4, 5}, 3, MIB) == 0);
    sim_bucket_plan_free(&plan);
    // The later rule: [cap, cap].
    o = opts(1, 0, 0, 0);
    o.first_bucket_is_cap = 1;
    o.bucket_cap_mb = 0.5;
    CHECK(sim_ddp_rebuilt_plan(mlp, 6, mlp_ready, 6, &o, &plan) == SIM_OK);
    CHECK_EQ_INT(plan.nbuckets, 2);
    CHECK(bucket_is(&plan, 0, (int[]){5, 4, 3, 2}, 4, MIB / 2) == 0);
    CHECK(bucket_is(&plan, 1, (int[]){1, 0}, 2, MIB / 2) == 0);
    sim_bucket_plan_free(&plan);
    return 0;
}

// DDP_SET_LAST_BUCKET_CAP: assignment over the reversed ready order, then
// the bucket list reversed, so the 1 MiB bucket is the last one.
static int test_last_bucket_cap(void) {
    const size_t s06 = 629144;
    SimBucketParam p[6] = {{10 * MIB, SIM_FP32}, {10 * MIB, SIM_FP32}, {10 * MIB, SIM_FP32},
                           {30 * MIB, SIM_FP32}, {s06, SIM_FP32},      {s06, SIM_FP32}};
    int ready[6] = {5, 4, 3, 2, 1, 0};
    SimDdpBucketOptions o = opts(25, 0, 0, 1);
    SimBucketPlan plan;
    CHECK(sim_ddp_rebuilt_plan(p, 6, ready, 6, &o, &plan) == SIM_OK);
    // Walk 0,1,2,3,4,5: {0} closes at 10 >= 1 MiB; {1,2,3} at 50 >= 25;
    // {4,5} stays open. Reversed list.
    CHECK_EQ_INT(plan.nbuckets, 3);
    CHECK(bucket_is(&plan, 0, (int[]){4, 5}, 2, 25 * MIB) == 0);
    CHECK(bucket_is(&plan, 1, (int[]){1, 2, 3}, 3, 25 * MIB) == 0);
    CHECK(bucket_is(&plan, 2, (int[]){0}, 1, MIB) == 0);
    sim_bucket_plan_free(&plan);
    return 0;
}

static int test_cap_bytes(void) {
    size_t b = 1;
    CHECK(sim_ddp_cap_bytes(25, &b) == SIM_OK && b == 26214400);
    CHECK(sim_ddp_cap_bytes(0.1, &b) == SIM_OK && b == 104857); // int(104857.6)
    CHECK(sim_ddp_cap_bytes(0, &b) == SIM_OK && b == 0);
    CHECK(sim_ddp_cap_bytes(-1, &b) == SIM_EINVAL);
    CHECK(sim_ddp_cap_bytes(NAN, &b) == SIM_EINVAL);
    CHECK(sim_ddp_cap_bytes(INFINITY, &b) == SIM_EINVAL);
    CHECK(sim_ddp_cap_bytes(1e14, &b) == SIM_EINVAL);
    // Cap 0 is valid for PyTorch: after the 1 MiB first bucket every
    // parameter closes its own bucket.
    SimDdpBucketOptions o = opts(0, 0, 0, 0);
    SimBucketPlan plan;
    CHECK(sim_ddp_rebuilt_plan(mlp, 6, mlp_ready, 6, &o, &plan) == SIM_OK);
    CHECK_EQ_INT(plan.nbuckets, 3);
    CHECK(bucket_is(&plan, 0, (int[]){5, 4, 3, 2}, 4, MIB) == 0);
    CHECK(bucket_is(&plan, 1, (int[]){1}, 1, 0) == 0);
    CHECK(bucket_is(&plan, 2, (int[]){0}, 1, 0) == 0);
    sim_bucket_plan_free(&plan);
    o.bucket_cap_mb = -1;
    CHECK(sim_ddp_initial_plan(mlp, 6, &o, &plan) == SIM_EINVAL);
    CHECK(sim_ddp_rebuilt_plan(mlp, 6, mlp_ready, 6, &o, &plan) == SIM_EINVAL);
    return 0;
}

static int test_empty_and_single(void) {
    SimBucketPlan plan = {0, NULL};
    SimDdpBucketOptions o = opts(25, 1, 0, 0);
    for (int unused = 0; unused < 2; unused++) {
        o.find_unused = unused;
        CHECK(sim_ddp_initial_plan(NULL, 0, &o, &plan) == SIM_OK);
        CHECK_EQ_INT(plan.nbuckets, 0);
        CHECK(sim_ddp_rebuilt_plan(NULL, 0, NULL, 0, &o, &plan) == SIM_OK);
        CHECK_EQ_INT(plan.nbuckets, 0);
        sim_bucket_plan_index(&plan, 0, NULL, NULL);
        sim_bucket_plan_print(stdout, &plan, NULL);
        sim_bucket_plan_free(&plan);
    }
    SimBucketParam one = {400, SIM_FP32};
    int ready = 0;
    o.find_unused = 1;
    CHECK(sim_ddp_initial_plan(&one, 1, &o, &plan) == SIM_OK);
    CHECK(bucket_is(&plan, 0, (int[]){0}, 1, MIB) == 0); // open bucket: the first limit
    CHECK_EQ_INT(plan.nbuckets, 1);
    sim_bucket_plan_free(&plan);
    o.find_unused = 0;
    CHECK(sim_ddp_rebuilt_plan(&one, 1, &ready, 1, &o, &plan) == SIM_OK);
    CHECK_EQ_INT(plan.nbuckets, 1);
    CHECK_EQ_INT(plan.buckets[0].bytes, 400);
    sim_bucket_plan_free(&plan);
    // Bad arguments.
    size_t lim = 10;
    CHECK(sim_bucket_assign(&one, &ready, -1, &lim, 1, &plan) == SIM_EINVAL);
    CHECK(sim_bucket_assign(&one, &ready, 1, &lim, 0, &plan) == SIM_EINVAL);
    CHECK(sim_bucket_assign(&one, (int[]){-1}, 1, &lim, 1, &plan) == SIM_EINVAL);
    SimBucketParam bad = {4, SIM_DTYPE_COUNT};
    CHECK(sim_bucket_assign(&bad, &ready, 1, &lim, 1, &plan) == SIM_EINVAL);
    CHECK_EQ_INT(plan.nbuckets, 0);
    return 0;
}

static int test_index_and_print(void) {
    SimBucketParam p[4] = {{40, SIM_FP32}, {8, SIM_FP32}, {2048, SIM_FP16}, {1200000, SIM_FP32}};
    int order[4] = {1, 0, 3, 2};
    size_t limits[2] = {MIB, 25 * MIB};
    SimBucketPlan plan;
    CHECK(sim_bucket_assign_in_order(p, order, 4, limits, 2, &plan) == SIM_OK);
    CHECK_EQ_INT(plan.nbuckets, 2); // {1,0,3} closes past 1 MiB; {2} fp16 open
    int bucket_of[5];
    size_t off[5];
    sim_bucket_plan_index(&plan, 5, bucket_of, off);
    CHECK_EQ_INT(bucket_of[0], 0);
    CHECK_EQ_INT(bucket_of[1], 0);
    CHECK_EQ_INT(bucket_of[3], 0);
    CHECK_EQ_INT(bucket_of[2], 1);
    CHECK_EQ_INT(bucket_of[4], -1);
    CHECK_EQ_INT(off[1], 0);
    CHECK_EQ_INT(off[0], 8);
    CHECK_EQ_INT(off[3], 48);
    CHECK_EQ_INT(off[2], 0);
    const char *names[4] = {"0.weight", "0.bias", "h.weight", "2.weight"};
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CHECK(f);
    sim_bucket_plan_print(f, &plan, names);
    SimDdpBucketOptions o = opts(25, 0, 0, 0);
    SimBucketPlan one;
    CHECK(sim_ddp_initial_plan(p, 2, &o, &one) == SIM_OK);
    sim_bucket_plan_print(f, &one, NULL);
    sim_bucket_plan_free(&one);
    fclose(f);
    const char *want = "bucket 0: 1,200,048 bytes (limit 1,048,576): 0.bias 0.weight 2.weight\n"
                       "bucket 1: 2,048 bytes fp16 (limit 1,048,576): h.weight\n"
                       "bucket 0: 48 bytes (no limit): 0 1\n";
    int same = strcmp(text, want) == 0;
    if (!same)
        fprintf(stderr, "printed:\n%s", text);
    free(text);
    sim_bucket_plan_free(&plan);
    CHECK(same);
    return 0;
}

int main(void) {
    int failures = 0;
    RUN(test_worked_example);
    RUN(test_closing_rule);
    RUN(test_per_dtype);
    RUN(test_initial_plans);
    RUN(test_rebuild);
    RUN(test_last_bucket_cap);
    RUN(test_cap_bytes);
    RUN(test_empty_and_single);
    RUN(test_index_and_print);
    return failures ? 1 : 0;
}
