// cli/learn/interview_buckets.c: DDP's gradient buckets for a preset at a bucket
// cap: the single bucket of iteration 0 and the plan rebuilt from the
// gradient-ready order with the 1 MiB first bucket, both by
// sim/strategy/ddp_buckets.h on the model's real parameter sizes and the order its
// backward makes them ready.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "learn/interview.h"
#include "strategy/ddp_buckets.h" // defines: sim_ddp_*, SimBucketPlan

#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const char *const presets[] = {"minigpt", "gpt2", "gpt2-medium", "bert-large",
                                      "llama2-7b"};
static const double caps[] = {1, 5, 10, 25, 25, 50, 100};

// The block a parameter belongs to: its name up to the first ".N." (N a
// layer number: "blocks.11." of "blocks.11.mlp.2.weight"), into key; 0 when
// it is in none (an embedding, a final norm).
static int block_of(const char *name, char *key, size_t len) {
    for (const char *p = strchr(name, '.'); p; p = strchr(p + 1, '.')) {
        size_t d = strspn(p + 1, "0123456789");
        if (d > 0 && p[1 + d] == '.') {
            snprintf(key, len, "%.*s", (int)(p + 2 + d - name), name);
            return 1;
        }
    }
    key[0] = '\0';
    return 0;
}

// The bytes of ready[from, to) as "3,072 9,437,184 ...".
static void sizes(char *buf, size_t len, const IvModel *m, const SimBucketParam *params,
                  int from, int to) {
    char a[32];
    for (int i = from; i < to; i++)
        iv_append(buf, len, "%s%s", i > from ? " " : "",
                  iv_grouped((int64_t)params[m->ready[i]].bytes, a, sizeof a));
}

// The repeated layers of the ready order: *first and *count blocks of *per
// tensors each, every block the same sizes in the same order, nothing else
// between them. 0, or -1 when the order has no such run of 2 or more.
static int repeated_blocks(const IvModel *m, const SimBucketParam *params, int *first,
                           int *count, int *per) {
    char key[96], cur[96] = "";
    int start = -1, n = 0, size = 0, end = -1;
    for (int i = 0; i < m->nready; i++) {
        int in = block_of(m->names[m->ready[i]], key, sizeof key);
        if (!in) {
            if (start >= 0 && end < 0)
                end = i;
            continue;
        }
        if (end >= 0)
            return -1; // a block after the tail: not one run
        if (start < 0)
            start = i;
        if (strcmp(key, cur) != 0) {
            snprintf(cur, sizeof cur, "%s", key);
            n++;
        }
    }
    if (start < 0 || n < 2)
        return -1;
    if (end < 0)
        end = m->nready;
    size = (end - start) / n;
    if (size * n != end - start)
        return -1;
    for (int i = start + size; i < end; i++)
        if (params[m->ready[i]].bytes != params[m->ready[i - size]].bytes)
            return -1;
    *first = start;
    *count = n;
    *per = size;
    return 0;
}

// The gradients' sizes in the order they become ready, compactly: the
// repeated layers written once ("then 12 blocks, each: ..."), so that the
// question gives every number its answer depends on.
static void ready_order(char *buf, size_t len, const IvModel *m, const SimBucketParam *params) {
    int first, count, per;
    if (repeated_blocks(m, params, &first, &count, &per) != 0) {
        sizes(buf, len, m, params, 0, m->nready);
        return;
    }
    int tail = first + count * per;
    if (first > 0) {
        sizes(buf, len, m, params, 0, first);
        iv_append(buf, len, ", then ");
    }
    iv_append(buf, len, "%d blocks, each in this order: ", count);
    sizes(buf, len, m, params, first, first + per);
    if (tail < m->nready) {
        iv_append(buf, len, ", then ");
        sizes(buf, len, m, params, tail, m->nready);
    }
}

// What the rebuilt plan looks like, in a few sentences.
static void describe(IvQuestion *q, const SimBucketPlan *p, const IvModel *m, size_t cap) {
    size_t L = sizeof q->explain;
    char a[32];
    const SimBucket *first = &p->buckets[0];
    int nb = p->nbuckets, big = 0;
    iv_append(q->explain, L, " Bucket 0 closes at %s bytes with %d tensor%s (%s",
              iv_grouped((int64_t)first->bytes, a, sizeof a), first->nparams,
              first->nparams == 1 ? "" : "s", m->names[first->params[0]]);
    if (first->nparams > 1)
        iv_append(q->explain, L, " ... %s", m->names[first->params[first->nparams - 1]]);
    iv_append(q->explain, L, ").");
    if (nb > 2)
        iv_append(q->explain, L, " Buckets 1 to %d each close with the tensor that takes "
                  "them to %s bytes or more, so each holds from the cap to the cap plus one "
                  "tensor; the last holds what is left.", nb - 2,
                  iv_grouped((int64_t)cap, a, sizeof a));
    for (int i = 1; i < nb; i++)
        if (p->buckets[i].bytes > p->buckets[big].bytes)
            big = i;
    const SimBucket *bk = &p->buckets[big];
    iv_append(q->explain, L, " The largest, bucket %d, has %s bytes", big,
              iv_grouped((int64_t)bk->bytes, a, sizeof a));
    if (bk->nparams == 1)
        iv_append(q->explain, L, ": %s alone, larger than the cap", m->names[bk->params[0]]);
    iv_append(q->explain, L, ". In all: %d bucket%s.", nb, nb == 1 ? "" : "s");
}

int iv_gen_buckets(SimSplitMix *g, IvQuestion *q, char *err, size_t errlen) {
    const char *preset = presets[iv_pick(g, NELEM(presets))];
    double mb = caps[iv_pick(g, NELEM(caps))];
    IvModel m;
    if (iv_model_load(preset, 0, &m, err, errlen) != 0)
        return -1;
    SimBucketParam *params = calloc((size_t)m.nparams + 1, sizeof *params);
    SimDdpBucketOptions o;
    sim_ddp_bucket_options_default(&o);
    o.bucket_cap_mb = mb;
    SimBucketPlan p0 = {0, NULL}, p1 = {0, NULL};
    size_t cap = 0, total = 0;
    int rc = -1;
    if (!params) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    for (int i = 0; i < m.nparams; i++) {
        params[i] = (SimBucketParam){m.numel[i] * 4, SIM_FP32};
        total += params[i].bytes;
    }
    if (sim_ddp_cap_bytes(mb, &cap) != SIM_OK ||
        sim_ddp_initial_plan(params, m.nparams, &o, &p0) != SIM_OK ||
        sim_ddp_rebuilt_plan(params, m.nparams, m.ready, m.nready, &o, &p1) != SIM_OK ||
        p1.nbuckets < 1) {
        snprintf(err, errlen, "%s: the bucket assignment failed", preset);
        goto done;
    }
    char t[32], c[32], s[32];
    snprintf(q->text, sizeof q->text,
             "DDP (PyTorch 1.13's rules, find_unused_parameters=False) trains %s: %s "
             "parameters in %d tensors, fp32 gradients of %s bytes in all. In backward the "
             "gradients become ready in this order, in bytes: ",
             preset, iv_grouped(m.total, t, sizeof t), m.nparams,
             iv_grouped((int64_t)total, s, sizeof s));
    ready_order(q->text, sizeof q->text, &m, params);
    iv_append(q->text, sizeof q->text,
              ". With bucket_cap_mb=%g, how many gradient buckets does DDP all-reduce in "
              "iteration 0, and how many after it rebuilds them (the rebuilt plan's first "
              "bucket is limited to 1 MiB)? (answer both: iteration-0 rebuilt)",
              mb);
    iv_set_value(q, 0, "buckets in iteration 0", "", p0.nbuckets, 0, 0, 0);
    iv_set_value(q, 1, "buckets after the rebuild", "", p1.nbuckets, 0, 0.1, 1);
    snprintf(q->explain, sizeof q->explain,
             "Iteration 0: without find_unused_parameters (or with static_graph) DDP puts every "
             "gradient in one bucket with no size limit (%d bucket of %s bytes), so the first "
             "backward overlaps no communication. It records the order in which the gradients "
             "became ready (the reverse of the forward, roughly: %s first) and rebuilds once, "
             "walking that order with a first limit of 1,048,576 bytes (1 MiB) and then "
             "int(%g x 1,048,576) = %s bytes; a bucket closes as soon as it reaches its limit.",
             p0.nbuckets, s, m.names[m.ready[0]], mb, iv_grouped((int64_t)cap, c, sizeof c));
    describe(q, &p1, &m, cap);
    snprintf(q->command, sizeof q->command,
             "ddplab run --strategy ddp -n 2 --model %s --phantom --data arith --steps 2 "
             "--bucket-cap-mb %g --print-buckets", preset, mb);
    rc = 0;
done:
    sim_bucket_plan_free(&p0);
    sim_bucket_plan_free(&p1);
    free(params);
    iv_model_free(&m);
    return rc;
}
