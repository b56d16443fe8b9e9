// cli/learn/interview_loop.c: conceptual questions on the data-parallel
// training loop: no_sync and zero_grad during accumulation,
// DistributedSampler's padding, a sampler beside DataLoader(shuffle=True),
// distributed evaluation (sums against a mean of means, the padding's
// repeats), streaming loaders' seeds, the probe batch, overfitting one
// batch, and BatchNorm's statistics (broadcast_buffers against SyncBatchNorm).
#include "learn/interview.h"

static const IvChoiceItem items[] = {
    {"During gradient accumulation under DDP, what does `with model.no_sync():` around the "
     "first k - 1 backward passes do?",
     "Their gradients add up locally with no all-reduce; the k-th backward, outside it, "
     "reduces the accumulated sum once",
     {"It stops the gradients from being computed, so the first k - 1 micro-batches run "
      "forward only and backward starts at the k-th",
      "It all-reduces as usual but holds back the optimizer step until the context exits",
      "It makes each rank skip its optimizer step, while the all-reduce of the gradients still "
      "runs after every micro-batch as before",
      "It freezes every layer whose bucket is full until the context exits"},
     "no_sync switches off the reducer's synchronisation: backward still computes gradients "
     "and adds them into .grad, but no bucket is reduced. The first backward after the "
     "context all-reduces .grad as it stands, the sum over all k micro-batches, once. The "
     "result equals an all-reduce after every micro-batch (--accum-sync every) with a k-th "
     "of the traffic. The run accumulates 4 micro-batches with one all-reduce per step.",
     "ddplab run --strategy ddp -n 2 --data blobs:n=256 --batch 16 --accum 4 --steps 3 "
     "--accum-sync last",
     0, NULL},
    {"DistributedSampler with drop_last=False spreads 10 samples over 4 ranks. What does "
     "each rank get in an epoch?",
     "3 samples each: the sampler repeats 2 indices from the start of its order to reach 12",
     {"2 samples each: the 2 left over wait for the next epoch",
      "3 samples for ranks 0 and 1 and 2 for ranks 2 and 3: exactly 10 in all, each sample once",
      "3 samples each, the 2 extra being zero-filled samples that the sampler makes up and "
      "masks out",
      "All 10 samples each: every rank reads the whole set, in an order of its own seeded by "
      "its rank"},
     "The sampler pads its index list to ceil(10 / 4) x 4 = 12 by repeating its first "
     "indices, then rank r takes every 4th index starting at r. Every rank thus runs the same "
     "number of batches, which keeps DDP's collectives matched; the price is 2 samples seen "
     "twice per epoch. With drop_last=True it cuts to 8, 2 per rank. The run shows each "
     "rank's share.",
     "ddplab run --strategy ddp -n 4 --data blobs:n=10 --batch 1 --epochs 2", 0, NULL},
    {"A DDP script builds DataLoader(ds, batch_size=64, shuffle=True, "
     "sampler=DistributedSampler(ds)). What happens?",
     "The DataLoader raises a ValueError: sampler and shuffle exclude each other; the sampler "
     "does the shuffling",
     {"The data is shuffled twice, which is harmless but slower",
      "Each rank shuffles the whole dataset by itself, so the shards overlap",
      "The DataLoader's shuffle wins and the sampler is ignored, so every rank reads all of "
      "the data in an order of its own each epoch",
      "The sampler turns its own shuffle off, and the DataLoader then shuffles the indices of "
      "each rank's shard every epoch instead"},
     "DataLoader refuses a sampler together with shuffle=True. Give the shuffle to "
     "DistributedSampler (its default is shuffle=True) and call set_epoch(epoch) every epoch "
     "so that the order changes. ddplab's --shuffle is the sampler's: the run's sampler row "
     "shows its order seeded by seed + epoch.",
     "ddplab run --strategy ddp -n 2 --data blobs --epochs 2 --shuffle 1", 0, NULL},
    {"Distributed validation: each rank computes the accuracy of its share, and the code "
     "all-reduces the ranks' accuracies with AVG. When is the result wrong?",
     "Whenever the ranks score different numbers of samples: a mean of means weights each "
     "rank alike, not each sample",
     {"Never: an average of the ranks' means always equals the mean over all the samples, "
      "whatever number of them each rank scores",
      "Always: AVG divides by the number of samples instead of by the world size",
      "Only under fp16, where the AVG rounds each rank's mean to three digits",
      "Only when some rank has no samples at all: its accuracy is then 0/0, and the all-reduce "
      "stops with an error on the NaN it gets"},
     "With n_r samples and c_r right answers on rank r, the accuracy is sum(c_r) / sum(n_r). "
     "Averaging the ranks' means gives each rank the same weight, which is right only when "
     "every n_r is the same. All-reduce the sums (right answers, counts, loss x count) and "
     "divide once. The run evaluates 10 samples on 4 ranks (shares of 3, 3, 2 and 2) the "
     "wrong way; --eval-variant right gives the true value.",
     "ddplab run --strategy ddp -n 4 --data blobs:n=10,noise=2 --model mlp:16,64,64,4 --steps "
     "3 --batch 2 --lr 0.05 --eval-every 3 --eval-variant mean-of-means",
     0, NULL},
    {"Validation reads through a DistributedSampler (drop_last=False) on a set whose size the "
     "world size does not divide, and sums the right answers and counts over the ranks. What "
     "is off?",
     "The padding's repeats are scored too: a few samples count twice, and the total exceeds "
     "the set's size",
     {"Nothing: the sampler removes its repeats again when the model is in eval mode, so each "
      "sample is scored exactly once",
      "The last rank scores no samples at all, so its all-reduce hangs",
      "A few samples are never scored, since the sampler leaves out the remainder",
      "The sums are exact, but all ranks score their batches in one shared order"},
     "Padding gives every rank ceil(N / R) indices by repeating the first ones, so sum(n_r) "
     "is the padded size. For exact numbers, evaluate without padding (shares that differ by "
     "one are fine when no collective runs per batch) or drop the repeated indices, then "
     "all-reduce the sums. ddplab evaluates each rank's strided share without padding: the "
     "run's total is exactly the 10 samples.",
     "ddplab run --strategy ddp -n 4 --data blobs:n=10,noise=2 --model mlp:16,64,64,4 --steps "
     "3 --batch 2 --lr 0.05 --eval-every 3",
     0, NULL},
    {"Accumulating 4 micro-batches per step, the loop calls optimizer.zero_grad() before "
     "every micro-batch instead of once per optimizer step. What does each step use?",
     "Only the last micro-batch's gradient, and a quarter of it if the loss was divided by 4: "
     "the other three are wiped",
     {"The mean of the four micro-batches as usual, since zero_grad only takes effect when the "
      "optimizer steps at the end of the block",
      "The four micro-batches' gradients, which DDP keeps in its buckets whatever zero_grad "
      "clears",
      "Nothing: DDP raises an error, since zero_grad may not run inside no_sync",
      "The sum of the four micro-batches, all-reduced four times per step, once after each "
      "call to zero_grad, then averaged by DDP"},
     "zero_grad clears .grad at once (to zeros, or to None). Called before every micro-batch, "
     "it wipes what the earlier backward passes accumulated, so the step sees the last "
     "micro-batch alone, scaled by the 1/4 meant for the sum of four: a smaller batch and a "
     "smaller step. Under no_sync the first three were never communicated either, so they are "
     "simply lost. Zero once per block, at its start or right after the step. ddplab has no "
     "option for this mistake; the run shows the right cadence, zeroing after the step.",
     "ddplab run --strategy ddp -n 2 --data blobs:n=256 --batch 16 --accum 4 --steps 3 "
     "--loss-log rank0 --zero-grad after-step",
     0, NULL},
    {"A DDP script streams its data: each rank draws random windows with "
     "torch.randint(..., generator=g) after g.manual_seed(1234), the same line on every rank. "
     "What does each optimizer step learn from?",
     "One rank's batch: every rank draws the same windows, so the R ranks average R copies of "
     "one gradient",
     {"R different batches, since DDP gives each rank its own shard of the stream",
      "R different batches, since each rank's generator lives on its own device and so draws "
      "its own numbers",
      "Nothing: DDP notices that the batches are equal and raises an error at the first step",
      "R batches that overlap by half, since the generators start alike and drift apart as "
      "their positions diverge"},
     "Without a DistributedSampler the seed is all that keeps the ranks apart. The same seed "
     "gives the same draws, so the run trains like one process with one rank's batch while "
     "using R times the hardware, and nothing fails. Seed with base + rank, or give each rank "
     "an offset into the stream. The run's loader row counts the distinct share of the draws: "
     "a quarter on 4 ranks.",
     "ddplab run --strategy ddp -n 4 --data blobs:n=1000 --batch 16 --steps 30 --stream shared",
     0, NULL},
    {"Four DDP ranks print four different losses at the same step. How do you check that "
     "their replicas really agree?",
     "Broadcast one batch from rank 0 and run it forward on every rank under no_grad: equal "
     "weights give the same loss on all of them",
     {"The losses differ, so the replicas have drifted apart: restart from a checkpoint",
      "All-reduce the losses with AVG: equal averages on every rank prove equal weights",
      "Compare the ranks' learning rates: DDP keeps the weights equal when the optimizers "
      "agree",
      "Print the loss on rank 0 only: the other ranks' losses do not count"},
     "Each rank's training loss is its own batch's, so different losses are expected. "
     "DDP's contract is equal weights, and a probe batch tests it: the same input through "
     "equal weights gives the same loss to the last bit. (An all-reduced loss is the same on "
     "every rank whatever the weights.) The run lists the ranks' own training losses beside "
     "their one probe loss; with --no-init-broadcast the probe losses differ.",
     "ddplab run --strategy ddp -n 4 -b 32 --model mlp:16,64,64,4 --data "
     "blobs:n=512,features=16,classes=4 --steps 6 --lr 0.1 --probe",
     0, NULL},
    {"Before launching a long multi-node run, what does overfitting a single batch check?",
     "That data, loss and update are wired together: a model that can learn must drive the "
     "loss on one small batch to about zero",
     {"That the learning rate is the best one for the full run",
      "That the model generalises, since a model that fits one batch fits the test set",
      "That the all-reduce sums in the right order, since one batch needs no communication",
      "That the run fits in memory at the full batch size"},
     "A few hundred steps on a dataset of one global batch: the network memorises it, and the "
     "loss goes to zero. If it does not, labels and inputs are mismatched, the loss ignores "
     "its target, or gradients do not reach the optimizer, and more data will not help. The "
     "gradient norm should shrink with the loss (--metrics FILE logs it every step). The run "
     "overfits 32 samples on 2 ranks to a final loss of 0.",
     "ddplab run --strategy ddp -n 2 --data teacher:n=32 --batch 16 --steps 300 --optimizer "
     "adam --lr 1e-2",
     0, NULL},
    {"A model with BatchNorm trains under DDP with 2 samples per GPU on 8 GPUs. What do "
     "broadcast_buffers=True and SyncBatchNorm each change in a training forward?",
     "broadcast_buffers copies rank 0's running statistics, which a training forward does "
     "not read; SyncBatchNorm normalises with the statistics of all 16 rows",
     {"Both normalise each rank's rows with the mean and variance of the global batch; "
      "SyncBatchNorm also averages the running statistics",
      "broadcast_buffers all-reduces the batch statistics in each forward; SyncBatchNorm "
      "only copies rank 0's running statistics after each step",
      "Neither: DDP already all-reduces BatchNorm's statistics with the gradient buckets",
      "broadcast_buffers makes each rank use rank 0's batch statistics; SyncBatchNorm "
      "averages the weight and bias over the ranks"},
     "In training mode BatchNorm normalises with the batch in front of it, under DDP each "
     "rank's own slice. broadcast_buffers copies rank 0's buffers (the running mean and "
     "variance, used in eval mode) before each forward. SyncBatchNorm all-gathers each "
     "rank's mean, variance and row count in the forward and all-reduces two sums in the "
     "backward, so R ranks of B rows train as one process with R x B rows. On 8 ranks of "
     "2 rows the run's final loss falls from 0.59 to 0.013 with --sync-bn.",
     "ddplab run --strategy ddp -n 8 --batch 2 --steps 40 --lr 0.1 --model mlp:16,64,64,4,bn "
     "--data blobs:n=512,features=16,classes=4 --sync-bn",
     0, NULL},
};

const IvChoiceItem *iv_loop_items(int *n) {
    *n = (int)(sizeof items / sizeof items[0]);
    return items;
}
