// cli/learn/interview_failures.c: "what breaks if ...": multiple-choice questions
// on the mistakes the reference material collects (the seeds' bugs and the
// behaviour reference/semantics.md documents), each with the right answer,
// plausible wrong ones drawn and shuffled by the seed, and a `ddplab run`
// command that reproduces the failure or the correct behaviour.
#include <stdio.h>
#include <string.h>

#include "learn/interview.h"

#define NWRONG 4

typedef struct {
    const char *question;
    const char *right;
    const char *wrong[NWRONG];
    const char *explain;
    const char *command;
    int exit_code;      // what the command exits with
    const char *note;   // why, when not 0
} Item;

static const Item items[] = {
    {"A DDP job shuffles with DistributedSampler(shuffle=True) but the training loop never "
     "calls sampler.set_epoch(epoch). What goes wrong?",
     "Every epoch repeats the same permutation, so each rank trains on the same shard in the "
     "same order every epoch",
     {"The ranks' shards overlap, so some samples are trained twice in each epoch",
      "DDP hangs at the end of the first epoch, waiting for the sampler",
      "Each rank shuffles with its own seed, so samples are lost between the shards",
      "The gradients stop being averaged across the ranks"},
     "The sampler shuffles with a generator seeded by seed + epoch, and set_epoch is what "
     "changes epoch. Without it the permutation is the same every epoch: the shards stay "
     "disjoint (no sample is lost or doubled), but rank r always gets the same subset in the "
     "same order, which weakens the shuffling that SGD relies on. The run's sampler row shows "
     "the seed + epoch rule.",
     "ddplab run --strategy ddp -n 2 --data blobs --epochs 2", 0, NULL},
    {"To log a global loss, the code calls dist.all_reduce(loss) inside `if rank == 0:`. What "
     "happens?",
     "Rank 0 waits in a collective the other ranks never enter: it hangs until the timeout, "
     "or meets their next collective with the wrong arguments",
     {"Rank 0 logs the mean loss over all ranks, as intended",
      "The other ranks send their losses to rank 0 in the background",
      "Only the log is off: it shows rank 0's loss times the world size",
      "DDP notices and runs the all_reduce on every rank"},
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
     "The gradient is the sum of k micro-batch gradients: every update is k times too large, "
     "as if the learning rate were k times higher",
     {"Nothing: DDP divides by k when it all-reduces after the last micro-batch",
      "The gradient is averaged k times over, so updates are k times too small",
      "DDP all-reduces k times per optimizer step instead of once",
      "The replicas diverge, because no_sync skipped their synchronisation"},
     "backward() adds into .grad, so after k micro-batches it holds g_1 + ... + g_k. DDP "
     "divides by the world size only. Dividing each micro-batch's loss by k turns the sum "
     "into the mean of the big batch (or divide the gradients, or the learning rate, by k). "
     "The replicas stay identical either way: the mistake is the step size. ddplab divides "
     "the loss by --accum.",
     "ddplab run --strategy ddp -n 2 --data blobs --steps 5 --accum 4", 0, NULL},
    {"A custom DDP communication hook all-reduces each bucket with SUM and returns it, "
     "without dividing by the world size. What happens?",
     "Gradients come out R times the average (with a hook, DDP does not pre-divide), like an "
     "R times larger learning rate; the replicas stay identical",
     {"Nothing: DDP divides by the world size after any hook",
      "The replicas diverge, because each rank sums in a different order",
      "DDP raises an error: a hook must return the averaged bucket",
      "The sum is taken over the buckets instead of the ranks"},
     "Without a hook DDP multiplies each gradient by 1 / world_size as it copies it into the "
     "bucket and then all-reduces with SUM. A registered hook replaces that path, so the "
     "hook must divide (the built-in allreduce_hook does). Summing gives every rank the same "
     "result, R times too large.",
     "ddplab run --strategy ddp -n 4 --data blobs --steps 5 --comm-hook sum", 0, NULL},
    {"Every rank calls torch.save(model.state_dict(), 'ckpt.pt') on the same shared path "
     "after each epoch. What is wrong?",
     "R processes write the same file at once: R times the I/O and a file that can be torn "
     "when the writes interleave; the replicas are identical, so rank 0 alone should save "
     "(then a barrier)",
     {"Each rank's file holds only its shard of the model, so the checkpoint is incomplete",
      "DDP deadlocks, because torch.save is a collective",
      "The ranks save different weights, so the file holds whichever rank wrote last",
      "The checkpoint is fine, but loading it needs all R ranks"},
     "Under DDP the replicas hold identical weights after every step, so one copy is the "
     "whole checkpoint. Writing it from every rank multiplies the I/O and races on the file; "
     "save on rank 0 (to a temporary name, then rename), and barrier so nobody reads it "
     "early. ddplab writes the checkpoint once, atomically (ck.st here).",
     "ddplab run --strategy ddp -n 2 --data blobs --steps 5 --save ck.st", 0, NULL},
    {"Validation runs only on rank 0: `if rank == 0: evaluate(ddp_model)`, and evaluate() "
     "runs the DDP-wrapped model and all-reduces its metrics. What happens?",
     "Rank 0 enters collectives alone (the metrics all_reduce, and DDP's buffer "
     "broadcast in forward when the model has buffers): it hangs, or mismatches the "
     "others' next collectives",
     {"It works: rank 0 evaluates while the others wait at no cost",
      "The metrics are right but cover only 1/R of the validation set",
      "The other ranks skip their next gradient all_reduce to wait for rank 0",
      "DDP runs the validation forward on every rank automatically"},
     "Anything that issues a collective must run on every rank. Either every rank evaluates "
     "its shard and the sums (loss x count, correct, total) are all-reduced, or rank 0 "
     "evaluates through model.module with no collective at all and the others carry on.",
     "ddplab run --strategy ddp -n 2 --data blobs --steps 4 --eval-every 2 --eval-variant "
     "rank0-only --watchdog 1",
     3, "exit 3: the diagnosed hang"},
    {"A model has a branch whose parameters get no gradient on some steps (the same on every "
     "rank), and DDP runs with find_unused_parameters=False. What happens?",
     "Their buckets never finish reducing; the next forward raises \"Expected to have "
     "finished reduction in the prior iteration before starting a new one\"",
     {"Those parameters are all-reduced as zeros automatically",
      "DDP hangs inside that step's backward, forever",
      "Nothing: unused parameters are skipped and the step is correct",
      "The unused parameters are updated with a stale gradient"},
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
      "DDP drops the extra batches of the longer ranks",
      "The longer ranks skip the synchronisation for their extra batches"},
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
      "The replicas average their different initial weights in the first step",
      "Only the biases are synchronised; the weights stay different"},
     "DDP's constructor broadcasts the module's state from rank 0, so per-rank seeds only "
     "change what should differ between ranks (dropout masks, augmentation). ddplab's ddp "
     "does the same broadcast; --no-init-broadcast skips it to show what it prevents.",
     "ddplab run --strategy ddp -n 2 --data blobs --steps 3 --seed 42", 0, NULL},
    {"The training log prints rank 0's own loss. What is wrong with the number?",
     "It is the loss of 1/R of the global batch: noisier than the global loss and not "
     "comparable between runs on different numbers of GPUs",
     {"It is R times too large, because DDP already summed the losses",
      "Nothing: DDP synchronises the losses, so every rank prints the same value",
      "It is the loss before the previous step's update",
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
      "Rank 0 reads the other ranks' shards from their memory directly",
      "FSDP saves one file per rank automatically"},
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
      "The sampler pads each rank to 256 samples, so there are 4 batches and one step",
      "Two optimizer steps per epoch, after batches 1 and 3"},
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
      "The gradients are unscaled twice and come out too small by the scale",
      "Clipping turns off the loss scaling"},
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
      "FSDP ignores no_sync and reduce-scatters anyway",
      "The optimizer state is gathered on every rank"},
     "Without no_sync each unit's gradient is reduce-scattered as soon as it is computed and "
     "only the shard stays. Under no_sync nothing is reduced, so the full gradient of every "
     "unit is kept until the last micro-batch: communication saved, memory spent. The plan "
     "shows the grads at the peak grow from one unit's to the whole model's.",
     "ddplab plan --model llama2-7b -n 8 --strategy fsdp --accum 4", 1,
     "exit 1 when the plan does not fit an 80 GB GPU"},
};

#define NITEMS ((int)(sizeof items / sizeof items[0]))

int iv_failure_count(void) {
    return NITEMS;
}

void iv_failure_item(int i, SimSplitMix *g, IvQuestion *q) {
    const Item *it = &items[i];
    q->topic = IV_FAILURES;
    q->nvalues = 0;
    snprintf(q->text, sizeof q->text, "%s", it->question);
    // three of the wrong answers, then the right one placed at random
    int w[NWRONG] = {0, 1, 2, 3};
    for (int k = NWRONG - 1; k > 0; k--) {
        int j = iv_pick(g, k + 1), t = w[k];
        w[k] = w[j];
        w[j] = t;
    }
    q->correct = iv_pick(g, IV_NCHOICES);
    for (int c = 0, k = 0; c < IV_NCHOICES; c++)
        snprintf(q->choice[c], sizeof q->choice[c], "%s",
                 c == q->correct ? it->right : it->wrong[w[k++]]);
    snprintf(q->explain, sizeof q->explain, "%s", it->explain);
    snprintf(q->command, sizeof q->command, "%s", it->command);
    q->command_exits = IV_EXIT(it->exit_code);
    if (it->exit_code == 1)
        q->command_exits |= IV_EXIT(0);
    snprintf(q->command_note, sizeof q->command_note, "%s", it->note ? it->note : "");
}

int iv_gen_failures(SimSplitMix *g, IvQuestion *q, char *err, size_t errlen) {
    (void)err;
    (void)errlen;
    // the items in an order drawn from the topic's seed, walked by ordinal
    int order[NITEMS];
    SimSplitMix o;
    sim_splitmix_seed(&o, q->seed);
    for (int i = 0; i < NITEMS; i++)
        order[i] = i;
    for (int i = NITEMS - 1; i > 0; i--) {
        int j = iv_pick(&o, i + 1), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    iv_failure_item(order[q->ordinal % NITEMS], g, q);
    return 0;
}
