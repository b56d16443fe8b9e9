// cli/learn/interview_resilience.c: conceptual questions on surviving
// failures and on asynchrony: elastic restarts (what happens, what a
// checkpoint must hold, the batch and learning rate at a new world size,
// running out of restarts), asynchronous parameter servers and staleness,
// and checkpoints under DDP and FSDP.
#include "learn/interview.h"

static const IvChoiceItem items[] = {
    {"An elastic job (torchrun --nnodes 2:4 --max-restarts 3) runs on 4 single-GPU nodes and "
     "checkpoints every 4 steps. One node dies at step 7. What happens next?",
     "The agents stop every worker, a new rendezvous forms the group of the nodes left, and "
     "training resumes from step 4",
     {"The other ranks carry on from step 7 without the lost node, and its rank catches up by "
      "copying their weights when it comes back",
      "The crashed rank alone is restarted, and it copies step 7's weights from rank 0",
      "The survivors wait in the all-reduce of step 7 until a new node takes the lost node's "
      "rank and enters that same collective",
      "The job ends: elastic ranges only let ranks join, they never handle a crash"},
     "torchrun's elastic agents watch their workers; when one fails, every worker of the job "
     "is stopped and restarted (all in-memory state is lost), a new rendezvous admits the "
     "nodes still present (at least the minimum), and the script resumes from its last "
     "checkpoint. The steps since it are computed again. In the run, rank 2 (a node of its "
     "own) crashes at step 7 and 3 ranks resume from the step-4 checkpoint.",
     "ddplab run --strategy ddp -n 4 --elastic 2:4 --data blobs --steps 12 --save ck.st "
     "--save-every 4 --fault crash:rank=2,step=7 --watchdog 0.5",
     0, NULL},
    {"An elastic job restarts all of its workers after a failure. What must its checkpoint "
     "hold for them to continue the same training?",
     "The model, the optimizer (and scaler) state and the step and epoch counters; the world "
     "size is read again",
     {"Only the weights: the optimizer's state can be rebuilt from them exactly, and the "
      "counters are read back from the log",
      "Nothing: torchrun keeps the workers' memory across the restart",
      "Each rank's CUDA streams and NCCL communicators, so that no collective in flight is "
      "lost and the group need not be built again",
      "The last gradients of every rank, which the new world replays before its first step"},
     "The restarted processes start from nothing but the files. Save the weights, the "
     "optimizer's moments, the scaler, the counters (and the epoch for the sampler's order); "
     "after the rendezvous each process reads RANK and WORLD_SIZE again and builds a new "
     "process group. In the run two ranks join at step 6, and the world of 4 resumes from the "
     "step-4 checkpoint.",
     "ddplab run --strategy ddp -n 2 --elastic 2:4 --data blobs --steps 12 --save ck.st "
     "--save-every 4 --membership join:step=6,ranks=2 --watchdog 0.5",
     0, NULL},
    {"An elastic DDP job shrinks from 4 ranks to 3 when a node is lost, with 32 samples per "
     "rank. "
     "What happens to the global batch and the learning rate?",
     "The global batch falls from 128 to 96, and the learning rate stays as set unless the "
     "script rescales it",
     {"torchrun rescales the learning rate by 3/4 by itself",
      "Each rank's batch grows to about 43 samples, which torchrun sets so that the global "
      "batch stays at the 128 of before",
      "Nothing changes: the global batch and the learning rate remain those of the 4 ranks "
      "that it started with",
      "The job stops: DDP cannot go on at a world size other than the one it was built with, "
      "so an elastic job can never shrink"},
     "The per-rank batch is the script's; the global batch is it times the world size, so "
     "it drops to 32 x 3 = 96. torchrun changes no hyperparameter: a script that follows the "
     "linear scaling rule must recompute lr x 3/4 itself after the restart. The run prints "
     "both.",
     "ddplab run --strategy ddp -n 4 --elastic 2:4 --data blobs --steps 12 --save ck.st "
     "--save-every 4 --fault crash:rank=2,step=7 --watchdog 0.5",
     0, NULL},
    {"An elastic job allows --max-restarts 1, and two of its workers fail at different "
     "steps. What happens at the second failure?",
     "The restarts are spent: torchrun stops the workers and the job fails",
     {"torchrun restarts again, since --max-restarts counts only the nodes that leave",
      "The survivors finish at the smaller world size, with no restart",
      "The job goes back to its first checkpoint and starts the restart count again",
      "The crashed rank is skipped, its data share dropped"},
     "--max-restarts bounds how many times the agents restart the worker group; once they are "
     "used up, the next failure ends the job with an error. (Ranks joining through a new "
     "rendezvous do not count.) The run crashes at step 7 and at step 10 with one restart "
     "allowed: the second crash would be restart 2, so the run stops there, naming the last "
     "checkpoint to resume from.",
     "ddplab run --strategy ddp -n 4 --elastic 2:4 --data blobs --steps 12 --save ck.st "
     "--save-every 4 --fault crash:rank=2,step=7 --fault crash:rank=0,step=10 --max-restarts "
     "1 --watchdog 0.5",
     3, "exit 3: the restarts are spent"},
    {"In an asynchronous parameter server, a slow worker pushes a gradient computed on weights "
     "that the server has since updated 3 times. What does that cost?",
     "The server applies a stale gradient: no one waits, but it points where the loss was, "
     "which may slow convergence",
     {"Nothing: the server corrects the stale gradient to the current weights exactly, using "
      "the 3 updates it has applied in between",
      "The server drops the gradient, so the slow worker's data is never learned",
      "Every worker waits for it before the next update, as in DDP",
      "The weights diverge between the workers for good, since each keeps a copy of its own "
      "that is never pulled again from the server"},
     "Workers pull the current weights, compute, and push; the server applies each push as "
     "it comes. A push computed on weights s updates old has staleness s: no worker waits "
     "for a straggler, but stale gradients follow a surface that has moved, so convergence "
     "needs smaller steps or bounded staleness. The run measures each push's staleness with "
     "a slow worker.",
     "ddplab run --strategy async-ps -n 4 --data blobs --model mlp:16,32,32,4 --batch 8 "
     "--steps 3 --fault slow-rank:rank=3,factor=2.5",
     0, NULL},
    {"A stale-synchronous parameter server bounds staleness at S. What does S = 0 make of it?",
     "Synchronous training: every round waits for the slowest worker and applies the "
     "round's mean as one update",
     {"Fully asynchronous training, with no bound on how stale a push may be",
      "A server that ignores every push, since no gradient is ever fresh enough",
      "Training in which only the fastest worker's gradients are applied",
      "Asynchronous training in which every push may be at most one update stale, the tightest "
      "bound that still lets workers run ahead"},
     "A worker more than S pushes ahead of the slowest waits. With S = 0 nobody may be "
     "ahead: each round gathers every worker's gradient, like DDP's all-reduce of the mean, "
     "and the straggler sets the pace again. Larger S trades that wait for staleness. The "
     "run uses --max-staleness 0.",
     "ddplab run --strategy async-ps -n 4 --data blobs --model mlp:16,32,32,4 --batch 8 "
     "--steps 3 --fault slow-rank:rank=3,factor=2.5 --max-staleness 0",
     0, NULL},
    {"Under DDP, how should a checkpoint be written and resumed?",
     "Rank 0 writes model.module.state_dict() and the optimizer state; every rank loads it, "
     "mapped to its own device",
     {"Every rank writes a file of its own, and at resume rank 0 alone reads them all back and "
      "averages them into a single model",
      "Rank 0 writes, and rank 0 alone loads after wrapping; the next all-reduce of the "
      "gradients brings the other ranks up to date",
      "Each rank writes its 1/R slice of the weights, as DDP shards them",
      "Rank 0 writes the wrapped model's state_dict, whose 'module.' keys a plain model loads "
      "as they are"},
     "The replicas are identical, so one copy suffices: rank 0 writes the unwrapped "
     "module's state (no 'module.' prefix), the optimizer, the scaler and the counters, and a "
     "barrier keeps the others from reading early. Every rank loads, with map_location on its "
     "own device or the CPU: each holds its own optimizer state, and DDP broadcasts weights "
     "only when it is built, while all-reduces carry gradients. The run writes one checkpoint.",
     "ddplab run --strategy ddp -n 2 --data blobs --steps 5 --save ck.st", 0, NULL},
    {"FSDP can save a FULL_STATE_DICT or a SHARDED_STATE_DICT. How do they differ?",
     "Full gathers one whole copy (kept by rank 0 if asked); sharded has each rank write its "
     "own shard",
     {"Full is written by every rank at once; sharded by rank 0 alone",
      "Sharded files load only at the world size that wrote them; full ones need a single GPU "
      "that holds the whole model",
      "Sharded saves only the optimizer state in pieces; the weights are always written full, "
      "by rank 0, whichever type is set",
      "Full needs no communication, since every rank already holds the whole model"},
     "Each FSDP rank holds 1/R of every flat parameter. FULL_STATE_DICT all-gathers unit by "
     "unit on every rank (rank0_only and offload_to_cpu keep the result on rank 0's host): "
     "slow and memory-hungry for large models, but loadable anywhere. SHARDED_STATE_DICT "
     "saves each rank's pieces with their place in the whole (torch.distributed.checkpoint), "
     "in parallel, and loads at another world size by resharding. The run writes a sharded "
     "checkpoint from 4 ranks, which lesson 14 resumes on 2.",
     "ddplab run --strategy fsdp -n 4 --model mlp:16,64,64,4 --optimizer adam --lr-schedule "
     "cosine --steps 6 --stop-after 3 --save ck --state-dict sharded",
     0, NULL},
};

const IvChoiceItem *iv_resilience_items(int *n) {
    *n = (int)(sizeof items / sizeof items[0]);
    return items;
}
