"""PyTorch reference for tests/test_ddp_torch.c: the training loop of
`ddplab run --strategy ddp -n R`, run by torch's own
DistributedDataParallel on the gloo backend, with R real processes on this
machine (loopback only).

Usage: ddp_ref.py R TIMEOUT_S CASEDIR...

The launcher starts R worker processes (this script again, "worker" mode),
waits at most TIMEOUT_S seconds for all of them, and kills every one still
running after that, so a hang becomes a failure and never a stuck test. The
workers join one process group (init_method file://, a fresh store file in
the first CASEDIR; GLOO_SOCKET_IFNAME=lo) and run every case in turn.

Each CASEDIR/case.txt holds "key=value" lines written by the C test: the
keys of train_ref.py (spec, x/y or text, batch, steps, seed, shuffle,
optimizer and its options, init, final) and
  ranks       R (must match the launcher's)
  accum       K micro-batches per optimizer step (loss / K)
  no_sync     1: the first K-1 micro-steps run under ddp.no_sync()
              0: every micro-step all-reduces (--accum-sync every)
Batches are torch's: a DataLoader(batch_size=B, drop_last=False) over a
DistributedSampler(num_replicas=R, rank=r, shuffle=False, drop_last=False)
-- which pads the epoch to a multiple of R -- over the epoch's sample order.
With shuffle=1 that order is ddplab's permutation (splitmix64 seeded with
seed + epoch, as train_ref.py computes it), given to the sampler as the
dataset's order; with shuffle=0 it is 0..N-1. Micro-batches run on across
epoch boundaries, as ddplab's loader does.

Writes, per case:
  ref_losses.r<RANK>.f32   float32 [steps]: the mean of loss.item() over the
                           step's micro-batches, on each rank
  ref_losses_avg.r<RANK>.f32  float32 [steps]: that loss all-reduced for
                           logging (SUM, then / R: gloo has no AVG)
  ref.<name>.f32           float32: each parameter after the last step (rank 0)
  ref_batches.r<RANK>.i32  int32 [steps * K]: each micro-batch's size
and checks that every rank ends with the same parameters and that ddplab's
final checkpoint loads with load_state_dict(strict=True). Exit 0 on success.
"""
import contextlib
import datetime
import os
import signal
import sys

import numpy as np
import torch
import torch.distributed as dist
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import launch_workers  # noqa: E402  (the deadline-bound launcher)
import train_ref  # noqa: E402  (safetensors reader, ddplab's permutation, data, optimizers)
from model_ref import build  # noqa: E402


def read_case(d):
    with open(f"{d}/case.txt") as f:
        return dict(line.rstrip("\n").split("=", 1) for line in f if "=" in line)


class Order(torch.utils.data.Dataset):
    """One epoch's sample order: item i is the index of the i-th sample."""

    def __init__(self, order):
        self.order = order

    def __len__(self):
        return len(self.order)

    def __getitem__(self, i):
        return self.order[i]


def micro_batches(c, n, rank, world):
    """Yields this rank's micro-batches of sample indices, epoch after epoch."""
    batch, seed, shuffle = int(c["batch"]), int(c["seed"]), c["shuffle"] == "1"
    epoch = 0
    while True:
        order = train_ref.splitmix_permutation(n, seed + epoch) if shuffle else list(range(n))
        ds = Order(order)
        sampler = torch.utils.data.distributed.DistributedSampler(
            ds, num_replicas=world, rank=rank, shuffle=False, drop_last=False)
        loader = torch.utils.data.DataLoader(ds, batch_size=batch, sampler=sampler,
                                             drop_last=False)
        for idx in loader:
            yield idx.tolist()
        epoch += 1


def run_case(d, rank, world):
    c = read_case(d)
    assert int(c["ranks"]) == world, (c["ranks"], world)
    torch.manual_seed(0)
    kind, model, mse, extra = build(c["spec"])
    assert not mse and not extra, "the cases use cross-entropy and no extra head"
    init, _ = train_ref.read_safetensors(c["init"])
    model.load_state_dict(train_ref.model_state(init), strict=True)
    ddp = torch.nn.parallel.DistributedDataParallel(model)  # torch's defaults
    data = train_ref.load_data(c)
    ctx = model.pos_emb.weight.shape[0] if kind == "gpt" else 0
    source = micro_batches(c, train_ref.n_samples(c, data, ctx), rank, world)
    opt = train_ref.make_optimizer(c, ddp.parameters())
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: train_ref.lr_factor(c, s))
    accum, no_sync, clip = int(c["accum"]), c["no_sync"] == "1", float(c["clip"])
    losses, logged, sizes = [], [], []
    ddp.train()
    for _ in range(int(c["steps"])):
        opt.zero_grad(set_to_none=False)  # PyTorch 1.13's default
        total = 0.0
        for k in range(accum):
            idx = next(source)
            sizes.append(len(idx))
            xb, yb = train_ref.get_batch(c, data, idx, ctx)
            quiet = no_sync and k < accum - 1
            with ddp.no_sync() if quiet else contextlib.nullcontext():
                out = ddp(xb)
                loss = F.cross_entropy(out.reshape(-1, out.shape[-1]), yb.reshape(-1).long())
                (loss / accum).backward()
            total += loss.item()
        if clip > 0:
            torch.nn.utils.clip_grad_norm_(ddp.parameters(), clip)
        opt.step()
        sched.step()
        losses.append(total / accum)
        # the logging all_reduce of a DDP script (gloo has no AVG: SUM / R)
        mean = torch.tensor([total / accum], dtype=torch.float32)
        dist.all_reduce(mean)
        logged.append((mean / world).item())
    np.asarray(losses, dtype=np.float32).tofile(f"{d}/ref_losses.r{rank}.f32")
    np.asarray(sizes, dtype=np.int32).tofile(f"{d}/ref_batches.r{rank}.i32")
    np.asarray(logged, dtype=np.float32).tofile(f"{d}/ref_losses_avg.r{rank}.f32")
    # Every rank must hold rank 0's parameters: DDP's whole promise.
    flat = torch.cat([p.detach().reshape(-1) for p in model.parameters()])
    ref = flat.clone()
    dist.broadcast(ref, 0)
    assert torch.equal(flat, ref), f"rank {rank}: parameters differ from rank 0's"
    if rank == 0:
        for name, p in model.named_parameters():
            p.detach().numpy().astype(np.float32).tofile(f"{d}/ref.{name}.f32")
        final, _ = train_ref.read_safetensors(c["final"])
        check = build(c["spec"])[1]
        check.load_state_dict(train_ref.model_state(final), strict=True)
        print(f"ddp_ref: R={world} {c['spec']} {c['optimizer']} accum {accum}"
              f"{' no_sync' if no_sync and accum > 1 else ''}: {len(losses)} steps, "
              f"loss {losses[0]:.6f} -> {losses[-1]:.6f}", flush=True)


def worker(rank, world, timeout, store, dirs):
    signal.alarm(int(timeout) + 5)  # a worker never outlives its launcher for long
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"file://{store}", rank=rank,
                            world_size=world, timeout=datetime.timedelta(seconds=timeout))
    try:
        for d in dirs:
            run_case(d, rank, world)
        dist.barrier()
    finally:
        dist.destroy_process_group()
    return 0


def launch(world, timeout, dirs):
    store = f"{dirs[0]}/gloo_store"
    if os.path.exists(store):
        os.unlink(store)
    return launch_workers(__file__, world, timeout, [store] + dirs, tag="ddp_ref")


def main():
    if len(sys.argv) >= 6 and sys.argv[1] == "worker":
        rank, world, timeout = int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
        return worker(rank, world, timeout, sys.argv[5], sys.argv[6:])
    if len(sys.argv) < 4:
        print("usage: ddp_ref.py R TIMEOUT_S CASEDIR...", file=sys.stderr)
        return 2
    return launch(int(sys.argv[1]), float(sys.argv[2]), sys.argv[3:])


if __name__ == "__main__":
    sys.exit(main())
