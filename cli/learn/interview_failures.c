// cli/learn/interview_failures.c: "what breaks if ...": multiple-choice questions
// on the mistakes the reference material collects (the seeds' bugs and the
// behaviour reference/semantics.md documents), each with the right answer,
// plausible wrong ones drawn and shuffled by the seed, and a `ddplab run`
// command that reproduces the failure or the correct behaviour.
#include "learn/interview.h"

static const IvChoiceItem items[] = {
    {"A DDP job shuffles with DistributedSampler(shuffle=True) but the training loop never "
     "calls sampler.set_epoch(epoch). What goes wrong?",
     "Every epoch repeats the same permutation: each rank trains on the same shard in the same "
     "order",
     {"The ranks' shards overlap, so some samples are trained twice in each epoch",
      "DDP hangs at the end of the first epoch, waiting for the sampler",
      "Each rank then shuffles with its own seed, so the shards drift apart, and some samples "
      "are lost between them every epoch",
      "The gradients stop being averaged across the ranks, because DDP ties its all_reduce to "
      "the sampler's epoch counter"},
     "The sampler shuffles with a generator seeded by seed + epoch, and set_epoch is what "
     "changes epoch. Without it the permutation is the same every epoch: the shards stay "
     "disjoint (no sample is lost or doubled), but rank r always gets the same subset in the "
     "same order, which weakens the shuffling that SGD relies on. The run's sampler row shows "
     "the seed + epoch rule.",
     "ddplab run --strategy ddp -n 2 --data blobs --epochs 2", 0, NULL},
    {"To log a global loss, the code calls dist.all_reduce(loss) inside `if rank == 0:`. What "
     "happens?",
     "Rank 0 waits in a collective the others never enter: it hangs until the timeout, or "
     "pairs with their next collective",
     {"Rank 0 logs the mean loss over all ranks, as intended",
      "The other ranks send their losses to rank 0 in the background",
      "Only the log is off: the call sums the losses that rank 0 has seen so far, so the "
      "printed value is rank 0's loss times the world size",
      "DDP notices the call on the loss of its own forward and runs the same all_reduce on "
      "every other rank as well, so all ranks log it"},
     "A collective completes only when every rank of the group calls it, in the same order "
     "with the same sizes. Called on one rank it blocks until the watchdog fires, or it is "
     "matched with the others' next gradient all_reduce (a mismatch). Every rank must call "
     "all_reduce; only the printing belongs under `if rank == 0`. In the command rank 0 "
     "alone all-reduces its evaluation metrics.",
     "ddplab run --strategy ddp -n 2 --data blobs --steps 4 --eval-every 2 --eval-variant "
     "rank0-only --watchdog 1",
     3, "exit 3: the diagnosed hang"},
    {"With gradient accumulation over k micro-batches (no_sync on the first k - 1), the loss "
     "is not divided by k. What is the effect?",
     "Each update uses the sum of k micro-batch gradients: k times too large, like a k times "
     "higher learning rate",
     {"Nothing: DDP divides by k when it all-reduces after the last micro-batch",
      "The gradient is averaged k times over, so updates are k times too small",
      "DDP all-reduces k times per optimizer step instead of once, because without the division "
      "no_sync no longer applies to the first micro-batches",
      "The replicas diverge from each other, because the undivided gradients that no_sync kept "
      "local are never averaged across the ranks"},
     "backward() adds into .grad, so after k micro-batches it holds g_1 + ... + g_k. DDP "
     "divides by the world size only. Dividing each micro-batch's loss by k turns the sum "
     "into the mean of the big batch (or divide the gradients, or the learning rate, by k). "
     "The replicas stay identical either way: the mistake is the step size. ddplab divides "
     "the loss by --accum.",
     "ddplab run --strategy ddp -n 2 --data blobs --steps 5 --accum 4", 0, NULL},
    {"A custom DDP communication hook all-reduces each bucket with SUM and returns it, "
     "without dividing by the world size. What happens?",
     "Gradients come out R times the average, since with a hook DDP does not pre-divide; the "
     "replicas stay identical",
     {"Nothing: DDP divides by the world size after any hook",
      "The replicas diverge, because each rank sums in a different order",
      "DDP raises an error at the first backward, because it checks that the bucket a hook "
      "returns holds the average of the ranks' gradients",
      "The sum is taken over the buckets of each rank instead of over the ranks, so every "
      "gradient is mixed with the other layers' gradients"},
     "Without a hook DDP multiplies each gradient by 1 / world_size as it copies it into the "
     "bucket and then all-reduces with SUM. A registered hook replaces that path, so the "
     "hook must divide (the built-in allreduce_hook does). Summing gives every rank the same "
     "result, R times too large.",
     "ddplab run --strategy ddp -n 4 --data blobs --steps 5 --comm-hook sum", 0, NULL},
    {"Every rank calls torch.save(model.state_dict(), 'ckpt.pt') on the same shared path "
     "after each epoch. What is wrong?",
     "R processes write one file at once: R times the I/O and a file torn where the writes "
     "interleave; rank 0 alone should save",
     {"Each rank's file holds only its shard of the model, so the checkpoint is incomplete",
      "DDP deadlocks, because torch.save is a collective",
      "The ranks save different weights, because each replica drifts a little in every step, "
      "so the file holds whichever rank happened to write last",
      "The checkpoint is fine to write this way, but loading it later needs all R ranks "
      "again, each reading back the copy it wrote"},
     "Under DDP the replicas hold identical weights after every step, so one copy is the "
     "whole checkpoint. Writing it from every rank multiplies the I/O and races on the file; "
     "save on rank 0 (to a temporary name, then rename), and barrier so nobody reads it "
     "early. ddplab writes the checkpoint once, atomically (ck.st here).",
     "ddplab run --strategy ddp -n 2 --data blobs --steps 5 --save ck.st", 0, NULL},
    {"Validation runs only on rank 0: `if rank == 0: evaluate(ddp_model)`, and evaluate() "
     "runs the DDP-wrapped model and all-reduces its metrics. What happens?",
     "Rank 0 enters collectives alone (the metrics all_reduce, and DDP's buffer broadcast in "
     "forward): it hangs or mismatches",
     {"It works: rank 0 evaluates while the others wait at no cost",
      "The metrics are right but cover only 1/R of the validation set",
      "The other ranks skip their next gradient all_reduce to wait for rank 0, so that step's "
      "update uses unaveraged gradients on every rank",
      "DDP runs the validation forward on every rank automatically, because the wrapped "
      "model's forward is a collective in eval mode too"},
     "Anything that issues a collective must run on every rank. Either every rank evaluates "
     "its shard and the sums (loss x count, correct, total) are all-reduced, or rank 0 "
     "evaluates through model.module with no collective at all and the others carry on.",
     "ddplab run --strategy ddp -n 2 --data blobs --steps 4 --eval-every 2 --eval-variant "
     "rank0-only --watchdog 1",
     3, "exit 3: the diagnosed hang"},
    {"A model has a branch whose parameters get no gradient on some steps (the same on every "
     "rank), and DDP runs with find_unused_parameters=False. What happens?",
     "Their bucket never finishes reducing, and the next forward raises \"Expected to have "
     "finished reduction in the prior iteration\"",
     {"Those parameters are all-reduced as zeros automatically",
      "DDP hangs inside that step's backward, forever",
      "Nothing: DDP leaves the unused parameters out of that step's buckets and all-reduces "
      "the others as usual, one step after another",
      "The unused parameters are updated with the stale gradient of the last step that used "
      "them, since their bucket slots are never cleared"},
     "DDP waits for every parameter's hook before a bucket is complete. A parameter that got "
     "no gradient never marks itself ready, so the reduction is left unfinished and the next "
     "forward stops with that error, naming the parameters. find_unused_parameters=True "
     "walks the graph after forward and marks them ready (at a cost); a real hang comes when "
     "the unused sets differ between ranks.",
     "ddplab run --strategy ddp -n 2 --data blobs --model mlp:16,16,4,unused --steps 3", 3,
     "exit 3: the diagnosed error"},
    {"One rank has 2 fewer batches per epoch than the others, and the loop has no Join "
     "context. What happens at the end of the epoch?",
     "The rank that ran out leaves the loop; the others wait in a gradient all_reduce it "
     "never enters, until the timeout",
     {"DDP divides by the ranks still training, so it just works",
      "The shorter rank waits at the end of the epoch for the others",
      "DDP notices at the end of the epoch and drops the extra batches of the longer ranks, so "
      "every rank takes the same number of steps",
      "The longer ranks skip the synchronisation for their extra batches and step on their own "
      "gradients, so the replicas drift apart a little"},
     "Every backward of a DDP model all-reduces with all ranks. A rank that has no more data "
     "stops calling them, so the others block. The Join context makes the finished ranks "
     "shadow the others' all_reduces with zero gradients; a DistributedSampler avoids the "
     "problem by giving every rank the same count.",
     "ddplab run --strategy ddp -n 2 --data blobs --epochs 2 --uneven 2 --watchdog 1", 3,
     "exit 3: the diagnosed hang"},
    {"Each rank calls torch.manual_seed(42 + rank) before it builds the model, then wraps the "
     "model in DDP. What happens to the weights?",
     "Nothing bad: DDP's constructor broadcasts rank 0's parameters and buffers, so every "
     "replica starts identical",
     {"The replicas start different and drift apart for the whole run",
      "DDP raises an error because the parameters differ between ranks",
      "The replicas average their different initial weights in the first step's all_reduce, "
      "so they meet at the mean of the R initialisations",
      "Only the biases are synchronised at construction, since DDP broadcasts buffers and "
      "small tensors; the weights stay different on every rank"},
     "DDP's constructor broadcasts the module's state from rank 0, so per-rank seeds only "
     "change what should differ between ranks (dropout masks, augmentation). ddplab's ddp "
     "does the same broadcast; --no-init-broadcast skips it to show what it prevents.",
     "ddplab run --strategy ddp -n 2 --data blobs --steps 3 --seed 42", 0, NULL},
    {"The training log prints rank 0's own loss. What is wrong with the number?",
     "It is the loss of 1/R of the global batch: noisier, and not comparable across GPU "
     "counts",
     {"It is R times too large, because DDP already summed the losses",
      "Nothing is off with it: DDP synchronises the losses along with the gradients, so every "
      "rank prints the same value",
      "It is the loss from before the previous step's update, because the logging runs before "
      "the optimizer has stepped the weights",
      "It hangs, because the other ranks never print"},
     "DDP averages gradients, not losses: each rank's loss is on its own data. For one "
     "number per step, all_reduce(loss, AVG) on every rank (a single scalar, cheap) and print "
     "on rank 0.",
     "ddplab run --strategy ddp -n 4 --data blobs --steps 5 --loss-log rank0", 0, NULL},
    {"With FSDP, the checkpoint code calls model.state_dict() under FULL_STATE_DICT inside "
     "`if rank == 0:`. What happens?",
     "Gathering the full state dict is a collective (an all-gather per unit): rank 0 waits "
     "alone and hangs",
     {"Rank 0 saves its own shard only, 1/R of the model",
      "It works: rank0_only=True means only rank 0 needs to call it",
      "Rank 0 reads the other ranks' shards from their GPU memory directly over NVLink, so the "
      "others need not take part",
      "FSDP notices the call on rank 0 and saves one file per rank automatically, each rank "
      "writing its own shard beside it"},
     "Every rank holds only its shard of each flat parameter, so the full state dict is "
     "built by all-gathering unit by unit, and every rank must call state_dict(). "
     "rank0_only=True decides who keeps the result, not who takes part.",
     "ddplab run --strategy fsdp -n 2 --data blobs --steps 3 --save ck.st "
     "--state-dict-rank0-call --watchdog 1",
     3, "exit 3: the diagnosed hang"},
    {"4 ranks, 1000 samples, batch 64 per rank with a DataLoader drop_last=True, and "
     "gradient accumulation over 4 micro-batches that steps when step % 4 == 3, with the "
     "step counter restarting every epoch. What happens?",
     "Each rank gets 250 samples, 3 full batches, so step % 4 == 3 is never reached: the "
     "optimizer never steps",
     {"One optimizer step per epoch, with a short last block",
      "Three optimizer steps per epoch, one per batch",
      "The sampler pads each rank to 256 samples, so there are 4 full batches per epoch and one "
      "optimizer step at the end",
      "Two optimizer steps per epoch, after batches 1 and 3, because the counter runs over the "
      "micro-batches of all the ranks"},
     "1000 / 4 = 250 samples per rank, 250 // 64 = 3 full batches (the loader drops the "
     "58 left). The steps of an epoch are 0, 1, 2, so the condition never holds, the "
     "gradients are zeroed at the next block's start, and no all_reduce ever runs (every "
     "micro-batch is under no_sync). ddplab refuses the same configuration before it starts.",
     "ddplab run --strategy ddp -n 4 --data blobs:n=1000 --batch 64 --drop-last 1 --accum 4 "
     "--accum-tail drop --epochs 2",
     2, "exit 2: refused before it starts"},
    {"Under fp16 autocast with a GradScaler, the code calls clip_grad_norm_(params, 1.0) "
     "right after scaler.scale(loss).backward(), without scaler.unscale_(optimizer). What "
     "goes wrong?",
     "The norm is measured on gradients still multiplied by the loss scale (65536 at "
     "first), so they are clipped far too hard",
     {"Nothing: clip_grad_norm_ unscales the gradients itself",
      "The scaler skips every step because it finds inf",
      "The gradients are unscaled twice, once by the clipping and once by scaler.step, and "
      "come out too small by the whole loss scale",
      "Clipping the scaled gradients turns off the loss scaling for the rest of the run, so "
      "the small fp16 gradients start to underflow"},
     "The gradients after a scaled backward are S times the true ones. Call "
     "scaler.unscale_(optimizer) first, then clip, then scaler.step (which sees they are "
     "unscaled already), then scaler.update. The command clips the unscaled gradients, the "
     "right order.",
     "ddplab run --strategy ddp -n 2 --data blobs --steps 5 --amp fp16 --clip-grad-norm 1", 0,
     NULL},
    {"FSDP FULL_SHARD accumulates gradients over 4 micro-batches with no_sync() on the first "
     "3. What does no_sync cost here?",
     "Every rank keeps the whole unsharded gradient between micro-batches, a full "
     "gradient's memory instead of a 1/R shard",
     {"Nothing: the gradients stay sharded and only communication is saved",
      "The optimizer steps after every micro-batch anyway",
      "FSDP ignores no_sync under FULL_SHARD and reduce-scatters after every micro-batch "
      "anyway, so nothing at all is saved by it",
      "The optimizer state is gathered on every rank for the duration of the context, since "
      "the step at the end needs the whole of it"},
     "Without no_sync each unit's gradient is reduce-scattered as soon as it is computed and "
     "only the shard stays. Under no_sync nothing is reduced, so the full gradient of every "
     "unit is kept until the last micro-batch: communication saved, memory spent. The plan "
     "shows the grads at the peak grow from one unit's to the whole model's.",
     "ddplab plan --model llama2-7b -n 8 --strategy fsdp --accum 4", 1,
     "exit 1 when the plan does not fit an 80 GB GPU"},
    {"Profiles of a DDP job, one per rank, show three ranks whose all_reduce kernels take "
     "three times as long as rank 2's. Where is the problem most likely?",
     "On rank 2: it computes slowly and arrives last, so the others' kernels spin waiting for "
     "it",
     {"On the three ranks with the long kernels: their network links are slow",
      "On rank 0, which gathers the gradients of all the others before each all_reduce "
      "can start",
      "Nowhere: kernels of one collective always take the same time on every rank, so the "
      "profiles were taken at different steps",
      "In the bucket size: a larger bucket_cap_mb would make the four ranks' kernels equal"},
     "An NCCL kernel starts when its rank launches it and ends when the collective does, so "
     "its time includes the wait for the peers. The rank that arrives last waits for no one "
     "and shows the shortest collectives and the longest compute. Compare the ranks side by "
     "side; ddplab's report names the slowest rank and why (the lesson reading-a-profile).",
     "ddplab run --strategy ddp -n 4 --steps 4 --fault slow-rank:rank=2,factor=3", 0, NULL},
    {"A DDP job runs well on one node of 8 GPUs and much slower per sample on two. Its "
     "profile shows the all_reduces after the last backward kernel, with the GPU idle. What "
     "helps first?",
     "Smaller buckets, so that each starts as soon as its layers' gradients are ready and "
     "runs under the rest of backward",
     {"A larger bucket_cap_mb, so that fewer all_reduces cross the network",
      "find_unused_parameters=True, so that DDP can launch the buckets earlier",
      "More data loader workers, since the GPU is idle between steps",
      "static_graph=True, which lets DDP skip the all_reduces of the layers that did not "
      "change since the previous step"},
     "Across nodes each all_reduce is slower, so what was hidden under backward on one node "
     "comes out after it: exposed communication. Buckets launch when all their gradients are "
     "ready, so one large bucket waits for the last layer; smaller ones overlap the rest of "
     "backward. The two runs differ only in the cap: compare their exposed share with "
     "ddplab report (the lesson reading-a-profile).",
     "ddplab run --strategy ddp -n 4 --nodes 2 --steps 4 --model mlp:16,512,512,512,512,512,4 "
     "--bucket-cap-mb 1", 0, NULL},
    {"One rank of an NCCL job dies before a collective the others have entered. With "
     "PyTorch 1.13's defaults, what do the other ranks do?",
     "Wait: the 30-minute timeout acts only with NCCL_ASYNC_ERROR_HANDLING or "
     "NCCL_BLOCKING_WAIT set to 1",
     {"Fail after 10 minutes with a watchdog error naming the collective",
      "Fail at once, since NCCL checks that every rank launched the collective before it "
      "starts",
      "Skip the collective and go on with their local gradients",
      "Restart the missing rank from the last checkpoint, as torchrun does for any hang"},
     "In 1.13 the process group's timeout was 30 minutes and, for NCCL, enforced only when "
     "asynchronous error handling or blocking wait was switched on; without them a hang "
     "hangs. Later releases turn async error handling on and shorten NCCL's default to 10 "
     "minutes. ddplab's watchdog plays the enforced timeout: the run names the rank that "
     "never arrived (the lesson debugging-a-hang).",
     "ddplab run --strategy ddp -n 2 --data blobs --steps 3 --fault crash:rank=1,step=2 "
     "--watchdog 1", 3, "exit 3: the watchdog's diagnosis"},
};

#define NITEMS ((int)(sizeof items / sizeof items[0]))

const IvChoiceItem *iv_failures_items(int *n) {
    *n = NITEMS;
    return items;
}

int iv_failure_count(void) {
    return NITEMS;
}

void iv_failure_item(int i, SimSplitMix *g, IvQuestion *q) {
    iv_choice_fill(&items[i], IV_FAILURES, g, q);
}

int iv_gen_failures(SimSplitMix *g, IvQuestion *q, char *err, size_t errlen) {
    (void)err;
    (void)errlen;
    return iv_gen_choice(IV_FAILURES, g, q);
}
