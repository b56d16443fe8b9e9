// cli/learn/interview_batch.c: batches: the effective batch and the linearly
// scaled learning rate (sim_lr_scaled, the rule `ddplab run --lr-scale
// linear` applies), and what a DistributedSampler gives each rank
// (sim_sampler_num_samples, sim_sampler_batches_of).
#include <stdio.h>

#include "data/sampler.h"      // defines: sim_sampler_num_samples, sim_sampler_batches_of
#include "learn/interview.h"
#include "model/lr_schedule.h" // defines: sim_lr_scaled, sim_lr_scale_sentence

#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

static void scaled_lr(SimSplitMix *g, IvQuestion *q) {
    static const int batches[] = {4, 8, 16, 32, 64};
    static const int ranks[] = {2, 4, 8, 16, 32};
    static const int accums[] = {1, 2, 4, 8};
    static const double lrs[] = {2e-5, 1e-4, 3e-4, 5e-4, 1e-3, 0.01, 0.1};
    int b = batches[iv_pick(g, NELEM(batches))], n = ranks[iv_pick(g, NELEM(ranks))];
    int k = accums[iv_pick(g, NELEM(accums))];
    double lr = lrs[iv_pick(g, NELEM(lrs))];
    SimLrOptions o;
    sim_lr_options_default(&o);
    o.scale_linear = 1;
    double scaled = sim_lr_scaled(&o, lr, n, k);
    long eff = (long)b * n * k;
    char sentence[160];
    sim_lr_scale_sentence(&o, lr, n, k, sentence, sizeof sentence);
    snprintf(q->text, sizeof q->text,
             "A script tuned with lr %g for a batch of %d on one GPU moves to DDP on %d GPUs, "
             "keeps %d samples per GPU and accumulates gradients over %d micro-batches per "
             "optimizer step. What is the effective batch, and what learning rate does the "
             "linear scaling rule give? (answer both: batch lr)",
             lr, b, n, b, k);
    iv_set_value(q, 0, "effective batch", "samples", (double)eff, 0, 0, 0);
    iv_set_value(q, 1, "lr", "", scaled, -1, 0.02, 0);
    snprintf(q->explain, sizeof q->explain,
             "One optimizer step averages the gradients of per-GPU batch x GPUs x "
             "accumulation steps = %d x %d x %d = %ld samples. The linear scaling rule "
             "(Goyal et al. 2017) multiplies the learning rate by the same factor %d x %d = "
             "%d, so the averaged gradient moves the weights as far per sample as before: %s. "
             "Use a warmup at the start; the rule holds up to a point, not for any batch.",
             b, n, k, eff, n, k, n * k, sentence);
    int data = 2 * (int)eff > 2048 ? 2 * (int)eff : 2048;
    snprintf(q->command, sizeof q->command,
             "ddplab run --strategy ddp -n %d -b %d --accum %d --lr %g --lr-scale linear "
             "--data blobs:n=%d --steps 1", n, b, k, lr, data);
}

static void sampler(SimSplitMix *g, IvQuestion *q) {
    static const int ranks[] = {2, 3, 4, 6, 8, 16};
    static const int batches[] = {16, 32, 64, 128};
    int n = ranks[iv_pick(g, NELEM(ranks))], b = batches[iv_pick(g, NELEM(batches))];
    int64_t size = 1000 + iv_pick(g, 59001); // 1,000 .. 60,000
    if (size < 2 * (int64_t)n * b)            // at least two batches a rank
        size += 2 * (int64_t)n * b;
    int drop = iv_pick(g, 2);
    int64_t per = sim_sampler_num_samples(size, n, 0);
    int64_t nb = sim_sampler_batches_of(per, b, drop);
    int64_t pad = per * n - size, last = per % b;
    char s[32], t[32], u[32];
    snprintf(q->text, sizeof q->text,
             "A DistributedSampler (shuffle=True, drop_last=False) splits %s samples over %d "
             "ranks, and each rank's DataLoader uses batch_size=%d with drop_last=%s. How "
             "many samples does each rank get per epoch, and how many batches does it run? "
             "(answer both: samples batches)",
             iv_grouped(size, s, sizeof s), n, b, drop ? "True" : "False");
    iv_set_value(q, 0, "samples per rank", "", (double)per, 0, 0, 0);
    iv_set_value(q, 1, "batches per rank", "", (double)nb, 0, 0, 0);
    snprintf(q->explain, sizeof q->explain,
             "The sampler gives every rank ceil(%s / %d) = %s samples: it pads the shuffled "
             "index list to %s by repeating %lld of its first indices, so every rank runs the "
             "same number of steps (drop_last=True on the sampler would cut the tail "
             "instead). ",
             s, n, iv_grouped(per, t, sizeof t), iv_grouped(per * n, u, sizeof u),
             (long long)pad);
    if (last == 0)
        iv_append(q->explain, sizeof q->explain, "%lld / %d = %lld batches, all full.",
                  (long long)per, b, (long long)nb);
    else if (drop)
        iv_append(q->explain, sizeof q->explain, "%lld / %d = %lld full batches; the loader "
                  "drops the short last one of %lld samples.", (long long)per, b,
                  (long long)nb, (long long)last);
    else
        iv_append(q->explain, sizeof q->explain, "%lld / %d gives %lld full batches and a "
                  "short last one of %lld samples: %lld batches.", (long long)per, b,
                  (long long)(per / b), (long long)last, (long long)nb);
    snprintf(q->command, sizeof q->command,
             "ddplab run --strategy ddp -n %d --data blobs:n=%lld -b %d --drop-last %d "
             "--steps 1", n, (long long)size, b, drop);
}

int iv_gen_batch(SimSplitMix *g, IvQuestion *q, char *err, size_t errlen) {
    (void)err;
    (void)errlen;
    if (iv_pick(g, 2) == 0)
        scaled_lr(g, q);
    else
        sampler(g, q);
    return 0;
}
