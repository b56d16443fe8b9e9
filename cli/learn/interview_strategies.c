// cli/learn/interview_strategies.c: conceptual questions on the data-parallel
// strategies: DataParallel against DDP (one process or one per GPU, device 0
// as the hub), DDP against FSDP (memory, traffic, when to shard) and what
// each ZeRO stage shards, FSDP1's flat parameter against FSDP2's dim-0
// shards. Every item's command shows the same thing in a run or a plan.
#include "learn/interview.h"

static const IvChoiceItem items[] = {
    {"On one machine with 4 GPUs, the same model and global batch train faster under "
     "DistributedDataParallel than under DataParallel. What is the main reason?",
     "DDP runs a process per GPU: no shared GIL, no model copy every step, and an all-reduce "
     "instead of a hub on device 0",
     {"DDP computes a smaller gradient each step, since each GPU sees only its slice of the "
      "batch",
      "DataParallel all-reduces the gradients twice per step, once in forward and once in "
      "backward, so it moves twice the bytes DDP moves",
      "DDP synchronises only every few steps and averages the weights in between, a shortcut "
      "that DataParallel's design has no way to take",
      "DataParallel keeps its replicas in fp32, while DDP runs them in fp16 by default"},
     "DataParallel is one process with a thread per GPU. Each forward copies the module from "
     "device 0 to the others, scatters the inputs, gathers the outputs on device 0, and "
     "backward sums the replicas' gradients there; one interpreter launches every GPU's "
     "kernels under the GIL, and device 0 carries more work and memory than the rest. DDP "
     "starts one process per GPU, broadcasts the weights once, at construction, and averages "
     "gradients with bucketed all-reduces that overlap backward. In the run, device 0 alone "
     "holds the optimizer state.",
     "ddplab run --strategy dp -n 4 --model mlp:16,64,64,4 --batch 64 --steps 2 --optimizer "
     "adam",
     0, NULL},
    {"Under torch.nn.DataParallel, how often are the parameters copied from device 0 to the "
     "other GPUs?",
     "At every forward call: the replicas are rebuilt each step, since only device 0's copy "
     "is updated",
     {"Once, when the model is wrapped; after that each replica runs its own optimizer step on "
      "the gradients it computed",
      "Only after the first backward, when the bucket plan is rebuilt from the order in which "
      "the gradients became ready",
      "Every N steps, where N is the broadcast_buffers argument of the wrapper",
      "Never: the other GPUs read device 0's weights over NVLink during their forward, without "
      "making a copy"},
     "DataParallel's forward replicates the module onto the devices, scatters the batch, runs "
     "the replicas in threads and gathers the outputs. The replicas are dropped after backward "
     "has summed their gradients onto device 0, where the one optimizer steps. The copy costs "
     "bandwidth on every step; DDP broadcasts once, when it is built. ddplab's dp replicates "
     "at the start of every step in the same way (lesson 05 pauses on it), and its memory "
     "table shows the optimizer state on device 0 alone.",
     "ddplab run --strategy dp -n 4 --model mlp:16,64,64,4 --batch 64 --steps 2 --optimizer "
     "adam",
     0, NULL},
    {"llama2-7b (6.74 billion parameters) trains with mixed-precision Adam on 8 GPUs of 80 GB. "
     "Why does DDP not fit while FSDP FULL_SHARD does?",
     "DDP keeps all 16 bytes per parameter on every GPU, about 108 GB; FULL_SHARD divides them "
     "over 8, about 13.5 GB",
     {"DDP keeps a second copy of the weights for its buckets, which doubles a footprint that "
      "would otherwise fit in the 80 GB of each GPU",
      "FSDP stores the weights in fp16 where DDP keeps fp32; the sharding itself saves no "
      "memory",
      "FSDP moves the optimizer state to host memory by default, so only the parameters and "
      "gradients stay on the GPUs during training",
      "FSDP recomputes every layer's activations in backward by default, and that saving is "
      "what lets it fit"},
     "Mixed-precision Adam holds 2 (bf16 weights) + 2 (gradients) + 12 (fp32 master weights, "
     "momentum, variance) bytes per parameter: 16 x 6.74e9 = 107.8 GB on each DDP replica "
     "before any activation. FULL_SHARD keeps 1/8 of each at rest, 13.5 GB, and gathers one "
     "unit's parameters at a time. CPU offload and activation checkpointing are options, off "
     "unless asked for. The plan puts the strategies side by side.",
     "ddplab plan --model llama2-7b -n 8 --compare", 0, NULL},
    {"Per training step, about how many bytes does each GPU send under FSDP FULL_SHARD, "
     "compared with DDP, for a model whose parameters take P bytes?",
     "About 1.5 times DDP's: an all-gather in forward, another in backward, and a "
     "reduce-scatter (3P against 2P)",
     {"The same as DDP: the all-gathers replace the all-reduce byte for byte",
      "Half of DDP's, because every rank sends only its own shard",
      "R times DDP's on R ranks, because each rank must gather the whole model from every "
      "other rank in turn, once per layer",
      "Only the forward all-gather and the reduce-scatter: FSDP keeps the gathered weights "
      "from forward until backward, whatever the strategy"},
     "A ring all-reduce is a reduce-scatter plus an all-gather: about 2P bytes per rank. "
     "FULL_SHARD frees each unit's gathered parameters after its forward, gathers them again "
     "for backward (P each time) and reduce-scatters the gradients (P): about 3P, 1.5 times "
     "DDP. SHARD_GRAD_OP keeps the parameters from forward to backward and sends about 2P, "
     "like DDP. The run trains zero3 (FULL_SHARD) on 4 ranks.",
     "ddplab run --strategy zero3 -n 4 --model mlp:16,128,128,128,128,128,128,4 --batch 4 "
     "--optimizer adam --steps 2",
     0, NULL},
    {"What does ZeRO stage 1 shard over the data-parallel ranks?",
     "Only the optimizer state (fp32 master weights and Adam's moments); parameters and "
     "gradients stay whole",
     {"Only the parameters; the gradients and the optimizer state stay whole on every rank",
      "Parameters, gradients and optimizer state, each rank keeping 1/R of all three",
      "The gradients and the optimizer state, while every rank keeps the whole parameters in "
      "bf16 for the forward and the backward",
      "Each layer's activations, split along the batch between the ranks"},
     "Stage 1 (P_os) shards the 12 bytes per parameter of optimizer state: 4 + 12/R bytes per "
     "parameter. Stage 2 also shards the gradients (2 + 14/R), stage 3 the parameters too "
     "(16/R). For llama2-7b on 8 GPUs the plan gives 107.8 GB for DDP, 37.1 GB for zero1 and "
     "13.5 GB for zero3; ddplab runs zero2 as FSDP's SHARD_GRAD_OP, which keeps the "
     "parameters sharded at rest as well, so its row equals zero3's.",
     "ddplab plan --model llama2-7b -n 8 --compare", 0, NULL},
    {"Compared with DDP's all-reduce of the gradients, how much does each rank send per step "
     "under ZeRO stages 1, 2 and 3?",
     "Stages 1 and 2 about as much as DDP (a reduce-scatter and an all-gather); stage 3 about "
     "1.5 times as much",
     {"Each stage less than the one before: stage 3 sends about 1/R of DDP's bytes",
      "Exactly what DDP sends, for all three stages: the memory that sharding saves is paid "
      "for by no extra traffic at any stage",
      "Stage 1 half of DDP's, stage 2 a third, stage 3 a quarter, as each keeps less state",
      "Stages 1 and 2 send twice DDP's bytes and stage 3 three times as much, for the extra "
      "gather of every shard at every step"},
     "The ZeRO paper counts 2 Psi per step for DDP's all-reduce and for stages 1 and 2 (a "
     "reduce-scatter of the gradients, Psi, and an all-gather of the updated parameters, "
     "Psi), and 3 Psi for stage 3, whose parameters are gathered in forward and again in "
     "backward. DeepSpeed's stages 1 and 2 may issue one all-reduce of the same volume "
     "instead; ddplab's zero1 does the same (--zero1-reduce-scatter gives the paper's form).",
     "ddplab run --strategy zero1 -n 4 --model mlp:16,128,128,128,128,128,128,4 --batch 4 "
     "--optimizer adam --steps 2",
     0, NULL},
    {"When is FSDP FULL_SHARD the natural choice over DDP for data-parallel training?",
     "When the model states (16 bytes per parameter with Adam) and the activations do not fit "
     "on each GPU under DDP",
     {"Whenever the job spans more than one node, since DDP's all-reduce cannot cross "
      "machines",
      "When the model is small, since sharding then sends fewer bytes per step than DDP's "
      "all-reduce of the whole gradient",
      "Only on CPUs, where FSDP's gathers can use host memory instead of a GPU's",
      "When the batch per GPU is 1, since FSDP then shards the batch over the ranks instead "
      "of replicating the model on each"},
     "DDP keeps a whole replica of the model states on every GPU and sends about 2P bytes "
     "per step; FULL_SHARD keeps 1/R of them plus the units being gathered, and sends about "
     "3P. Sharding is what memory calls for. When the model fits either way, measure: "
     "sharding also splits the optimizer's work, and for gpt2 on 8 GPUs, which fits under "
     "both, ddplab's plan even puts zero3's step ahead of ddp's. llama2-7b on the same GPUs "
     "fits only sharded.",
     "ddplab plan --model gpt2 -n 8 --compare", 0, NULL},
    {"What changes in how parameters are stored when a model moves from FSDP1 "
     "(FullyShardedDataParallel) to FSDP2 (fully_shard)?",
     "No flat parameter: each parameter is chunked on dim 0 over the ranks and padded on its "
     "own, so a rank holds a row slice of every parameter",
     {"Nothing in memory: FSDP2 only renames the wrapper, the flat parameter and its padding "
      "stay",
      "Each rank holds whole parameters, handed out round robin, so every layer lives on one "
      "rank",
      "The parameters are replicated again and only the optimizer state is sharded, as in "
      "ZeRO-1",
      "Each parameter is split on its last dimension, so a rank holds some columns of every "
      "weight"},
     "FSDP1 concatenates a unit's parameters into one flat buffer and pads it once to a "
     "multiple of the ranks; FSDP2 keeps each parameter a DTensor sharded on dim 0, padded "
     "to whole rows per rank, with a copy-in before the all-gather and a copy-out after. The "
     "padding grows: on mlp:16,129,4 over 4 ranks it is 3 elements under fsdp and 51 under "
     "fsdp2; at 16384 ranks Llama-2 70B's shards are 80% larger (ddplab plan --strategy "
     "fsdp2). The state dict is sharded by default.",
     "ddplab run --strategy fsdp2 -n 4 --model mlp:16,129,4 --steps 3 --print-units", 0, NULL},
};

const IvChoiceItem *iv_strategies_items(int *n) {
    *n = (int)(sizeof items / sizeof items[0]);
    return items;
}
