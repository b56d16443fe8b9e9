// cli/learn/interview_sharding.c: FSDP's flat parameters: the shard each rank
// keeps of a unit and the padding that makes the unit divide evenly (the
// plan of sim/strategy/fsdp.h, built on a real MLP), and the gradient divide factors
// of FSDP's default hooks (sim_fsdp_divide_factors).
#include <stdio.h>

#include "cost/memory_formula.h" // defines: sim_memf_shard_numel
#include "learn/interview.h"
#include "strategy/fsdp.h"       // defines: sim_fsdp_divide_factors

#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

static int unit_shard(SimSplitMix *g, IvQuestion *q, char *err, size_t errlen) {
    static const int ins[] = {10, 20, 32, 100, 784};
    static const int hidden[] = {50, 100, 128, 250, 300, 500};
    static const int classes[] = {3, 7, 10};
    static const int ranks[] = {2, 3, 4, 5, 6, 7, 8};
    int d = ins[iv_pick(g, NELEM(ins))], h = hidden[iv_pick(g, NELEM(hidden))];
    int c = classes[iv_pick(g, NELEM(classes))], n = ranks[iv_pick(g, NELEM(ranks))];
    char spec[64];
    snprintf(spec, sizeof spec, "mlp:%d,%d,%d", d, h, c);
    IvModel m;
    if (iv_model_load(spec, n, &m, err, errlen) != 0)
        return -1;
    // units in forward order: the root (empty here), then one per Linear
    int u = m.nunits > 1 ? 1 : 0;
    uint64_t numel = m.unit_numel[u], shard = sim_memf_shard_numel(numel, n);
    uint64_t pad = shard * (uint64_t)n - numel;
    iv_model_free(&m);
    char a[32], b[32];
    snprintf(q->text, sizeof q->text,
             "FSDP FULL_SHARD wraps each Linear of nn.Sequential(Linear(%d, %d), ReLU(), "
             "Linear(%d, %d)) as a unit and shards it over %d ranks. The first unit's flat "
             "parameter holds its weight and bias. How many elements of it does each rank "
             "keep, and how many padding elements does FSDP add? (answer both: per-rank "
             "padding)",
             d, h, h, c, n);
    iv_set_value(q, 0, "elements per rank", "", (double)shard, 0, 0, 0);
    iv_set_value(q, 1, "padding", "", (double)pad, 0, 0, 0);
    snprintf(q->explain, sizeof q->explain,
             "The unit flattens weight [%d, %d] and bias [%d] into %d x %d + %d = %s elements "
             "and right-pads them to a multiple of %d, so every rank keeps the same "
             "contiguous shard: ceil(%s / %d) = %s elements each, %s x %d = %llu in all, %llu "
             "of them padding (zeros nobody trains). Rank r owns elements [r x %s, (r + 1) x "
             "%s) of the flat parameter; the all-gather before forward rebuilds it whole.",
             h, d, h, h, d, h, iv_grouped((int64_t)numel, a, sizeof a), n, a, n,
             iv_grouped((int64_t)shard, b, sizeof b), b, n,
             (unsigned long long)(shard * (uint64_t)n), (unsigned long long)pad, b, b);
    snprintf(q->command, sizeof q->command,
             "ddplab run --strategy fsdp -n %d --model %s --data blobs:features=%d,classes=%d "
             "--steps 1 --print-units", n, spec, d, c);
    return 0;
}

static void divide(SimSplitMix *g, IvQuestion *q) {
    static const int ranks[] = {2, 3, 4, 6, 8, 12, 16, 24, 32, 64};
    int n = ranks[iv_pick(g, NELEM(ranks))];
    double pre, post;
    sim_fsdp_divide_factors(n, &pre, &post);
    snprintf(q->text, sizeof q->text,
             "FSDP's default gradient hooks do not divide the gradients by the world size in "
             "one go: they divide by a pre-factor before the reduce-scatter and by a "
             "post-factor after it. On %d ranks, what are the two factors? (answer both: pre "
             "post)",
             n);
    iv_set_value(q, 0, "pre-divide factor", "", pre, -1, 0, 0);
    iv_set_value(q, 1, "post-divide factor", "", post, -1, 0, 0);
    snprintf(q->explain, sizeof q->explain,
             "The pre-factor f starts at 1 and doubles while N %% f == 0 and N / f > f; "
             "for N = %d that stops at f = %g, and the post-factor is N / f = %g (pre x post "
             "= N, so the result is still the mean). Splitting the division keeps low-"
             "precision gradients (fp16, bf16) from overflowing in the sum or underflowing "
             "from a division by a large N before it.",
             n, pre, post);
    snprintf(q->command, sizeof q->command,
             "ddplab run --strategy fsdp -n %d --data blobs --steps 1", n);
}

int iv_gen_sharding(SimSplitMix *g, IvQuestion *q, char *err, size_t errlen) {
    if (iv_pick(g, 2) == 0)
        return unit_shard(g, q, err, errlen);
    divide(g, q);
    return 0;
}
