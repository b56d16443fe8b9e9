// cli/learn/interview_precision.c: conceptual questions on mixed precision
// across ranks: GradScaler's skipped steps under DDP, where scale, unscale_,
// step and update go with accumulation, bf16 against fp16, what mixed
// precision does to model-state memory, the compression hooks (PowerSGD's
// error feedback too), and FSDP's sharded scaler and clipping.
#include "learn/interview.h"

static const IvChoiceItem items[] = {
    {"DDP on 4 ranks with fp16 autocast and a GradScaler: on one step only rank 2's local "
     "gradients contain an inf. What do the ranks do?",
     "All four skip the step and lower the scale alike: the inf check runs on the all-reduced "
     "gradients, which all share",
     {"Rank 2 skips its step while the other three step as usual, so from then on the replicas "
      "are no longer identical to each other",
      "DDP leaves rank 2's gradients out of the average, and the three others step on their "
      "mean",
      "Rank 2 raises an error, and the others wait in the next all-reduce until the timeout",
      "Each rank backs off its own loss scale whenever it sees an inf in its local gradients, "
      "so the four scales drift apart from then on"},
     "DDP's all-reduce runs inside backward, so an inf on one rank becomes an inf in the "
     "averaged gradients every rank holds. scaler.step then finds it on every rank and skips "
     "optimizer.step everywhere, and update() backs the scale off by the same factor: the "
     "replicas stay identical without any extra collective. With --growth-interval 2 the "
     "scale grows until it overflows, and the run's skipped steps are skipped by both ranks.",
     "ddplab run --strategy ddp -n 2 --data blobs:n=256 --steps 30 --amp fp16 "
     "--growth-interval 2",
     0, NULL},
    {"Accumulating 4 micro-batches per step with fp16 autocast and a GradScaler: where do "
     "scale, unscale_, step and update belong?",
     "scaler.scale(loss / 4).backward() on every micro-batch; unscale_, clipping, step and "
     "update once, after the last",
     {"scale, step and update on every micro-batch, so that the loss scale can follow the "
      "overflow of each micro-batch as it happens",
      "scale only the last micro-batch's loss; the earlier ones run backward unscaled",
      "unscale_ after every micro-batch, so that the gradients accumulate in true units",
      "update after every micro-batch and step once at the end, so that the loss scale is "
      "tuned 4 times for every optimizer step taken"},
     "Every backward of the block must add gradients at the same scale, so each micro-batch's "
     "loss is scaled (the scale changes only in update). unscale_ may run once per optimizer "
     "between updates (a second call raises), then the clipping, scaler.step (which skips on "
     "inf or NaN) and scaler.update, all once per optimizer step. The division by 4 belongs "
     "to the accumulation, whatever the scale.",
     "ddplab run --strategy ddp -n 2 --data blobs --steps 5 --amp fp16 --accum 4 "
     "--clip-grad-norm 1",
     0, NULL},
    {"Why does training under bf16 autocast usually run without a GradScaler, when fp16 "
     "needs one?",
     "bf16 has fp32's 8-bit exponent, so small gradients do not underflow; it gives up "
     "mantissa bits instead",
     {"bf16 has more mantissa bits than fp16, so its rounding stays far too small to need any "
      "correction by a scale factor",
      "GradScaler does not accept bf16 tensors, so PyTorch turns it off under bf16 autocast "
      "without saying so in the logs",
      "Under bf16 autocast only the forward runs in bf16; backward always runs in fp32",
      "Under bf16 autocast only the forward pass runs in bf16; backward always runs in fp32, "
      "where no underflow can happen"},
     "fp16 has 5 exponent bits: values below about 2^-25 (3e-8) round to zero, and small "
     "gradients vanish unless the loss is scaled up first. bf16 keeps 8 exponent bits, the "
     "range of fp32, with 7 mantissa bits against fp16's 10: it rounds more coarsely but "
     "rarely underflows, and its largest value is about 3.4e38 against fp16's 65504. The "
     "bf16 run has no loss scaler.",
     "ddplab run --data blobs:n=256 --steps 30 --clip-grad-norm 0.5 --amp bf16", 0, NULL},
    {"A DDP job moves from fp32 Adam to mixed-precision Adam (bf16 weights and gradients, "
     "fp32 master weights). How do its bytes of model states per parameter change?",
     "They stay at 16: 2 + 2 for bf16 weights and gradients, 12 for the fp32 master weights "
     "and moments",
     {"They halve, from 16 to 8, because every tensor of the model states, the optimizer's "
      "included, is now kept in half precision",
      "They fall from 16 to 12, since only the gradients move to bf16",
      "They double to 32, because each tensor is kept in fp32 and in bf16 alike",
      "They fall to 4, with the weights and gradients in bf16 and Adam's moments recomputed "
      "from the gradients at each step"},
     "fp32 Adam holds 4 (weights) + 4 (gradients) + 8 (momentum, variance) = 16 bytes per "
     "parameter. Mixed precision adds bf16 weights and gradients (2 + 2) but keeps the fp32 "
     "master weights with the moments (12): 16 again. It saves activation memory and time in "
     "the matrix units, not model states. The plan's formula line counts 2 + 2 + 12.",
     "ddplab plan --model gpt2 -n 8 --strategy ddp", 0, NULL},
    {"A DDP job registers fp16_compress_hook. What changes?",
     "Each bucket is cast to fp16 for the all-reduce and back afterwards: half the bytes, "
     "with fp16 rounding of the averages",
     {"The model's weights are stored in fp16 from then on, which halves the parameters' "
      "memory on every rank while the gradients stay in fp32",
      "DDP all-reduces only every other bucket and reuses the previous step's result for the "
      "rest, which halves the bytes each step sends",
      "The optimizer step runs in fp16, which is what halves the time of the update",
      "Nothing in training: the gradients are stored in fp16 only when a checkpoint is written"},
     "A communication hook replaces how DDP reduces a bucket. fp16_compress_hook casts the "
     "fp32 bucket to fp16, divides it by the world size, all-reduces it and casts the result "
     "back into the fp32 gradients; parameters, optimizer and compute are untouched. The wire "
     "carries 2 bytes per element instead of 4, and the averages keep fp16's 10 mantissa "
     "bits and range (at most 65504). The run's table names the hook.",
     "ddplab run --strategy ddp -n 4 --data blobs --steps 5 --comm-hook fp16", 0, NULL},
    {"How does DDP's bf16_compress_hook differ from fp16_compress_hook?",
     "Both send 2 bytes per element; bf16 keeps fp32's range, so large sums do not overflow, "
     "but rounds more coarsely",
     {"bf16 halves the bytes again: one byte per element against fp16's two",
      "bf16 is lossless for fp32 gradients, since it keeps the whole exponent and mantissa",
      "Only the bf16 hook divides by the world size before the all-reduce; with the fp16 hook "
      "the gradients come out R times too large",
      "fp16 works on every GPU generation, bf16 on none before the H100"},
     "bf16 has 8 exponent bits and 7 mantissa bits, fp16 5 and 10: bf16's range is fp32's, "
     "while fp16 stops at 65504, so a large sum of gradients can overflow in fp16 only; fp16 "
     "keeps about three significant decimal digits, bf16 about two. Both hooks divide by the "
     "world size before the all-reduce and cast the result back afterwards. The run uses the "
     "bf16 hook.",
     "ddplab run --strategy ddp -n 4 --data blobs --steps 5 --comm-hook bf16", 0, NULL},
    {"FSDP FULL_SHARD trains under fp16 autocast with gradient clipping. Which scaler and "
     "which clipping call does the loop need?",
     "ShardedGradScaler, which agrees on an inf across the ranks, and model.clip_grad_norm_(), "
     "which norms all shards together",
     {"The plain GradScaler and torch.nn.utils.clip_grad_norm_, exactly as under DDP, since "
      "sharding changes nothing for either of them",
      "No scaler at all: sharding the gradients keeps them from underflowing in fp16",
      "ShardedGradScaler, with torch.nn.utils.clip_grad_norm_ on each rank's shard, whose "
      "local norm equals the norm of the whole gradient",
      "A GradScaler per unit, each with a scale of its own, and clipping in each unit's hook"},
     "After the reduce-scatter each rank holds only its shard of every gradient. A norm "
     "computed on one rank is its shard's: FSDP's clip_grad_norm_ sums the squares over the "
     "ranks (an all-reduce) before it scales. Likewise an inf may sit in one rank's shard "
     "only; ShardedGradScaler all-reduces its found-inf flag, so every rank skips the step "
     "together, where a plain GradScaler would let the ranks disagree. ddplab's fsdp does "
     "both: the run clips the norm over all shards and skips on an all-reduced inf.",
     "ddplab run --strategy fsdp -n 2 --data blobs --steps 5 --amp fp16 --clip-grad-norm 1", 0,
     NULL},
    {"DDP's PowerSGD hook at rank 1 sends far fewer bytes than a plain all-reduce. What "
     "keeps the training from losing what the low-rank approximation leaves out?",
     "Error feedback: each rank keeps the part of its gradient the approximation missed and "
     "adds it to its next gradient before compressing",
     {"Nothing needs to: the dropped part of a gradient is noise, and training ignores it",
      "The hook sends the full gradient every tenth iteration to make up for the dropped part",
      "Every rank keeps a full-precision copy of the other ranks' gradients and reconciles "
      "them at the end of the epoch",
      "The orthogonalisation of P makes the rank-1 approximation exact for any matrix"},
     "PowerSGD sends P = M Q and Q = M^T P, (n + m) r numbers for an n x m gradient instead "
     "of n m, after a warm-up of plain all-reduces (start_powerSGD_iter). The error M - P "
     "Q^T stays on the rank and joins the next gradient, so a direction left out now is sent "
     "later. The price: one more fp32 copy of the buckets per rank, and a loss behind the "
     "plain run's at the same step. On the default GPT over 4 ranks rank 1 sends 5.11x fewer "
     "gradient bytes in 60 steps.",
     "ddplab run --strategy ddp -n 4 --data arith --steps 60 --optimizer adam --lr 0.003 "
     "--comm-hook powersgd",
     0, NULL},
};

const IvChoiceItem *iv_precision_items(int *n) {
    *n = (int)(sizeof items / sizeof items[0]);
    return items;
}
