"""PyTorch reference for tests/test_rng_torch.py: the script a learner writes
beside `ddplab run --strategy ddp -n R --rng torch --seed S`, and nothing
taken from ddplab but the dataset's .npy files (--save-data).

Usage: rng_torch_ref.py worker RANK R TIMEOUT_S STORE CASEDIR   (one rank)
       rng_torch_ref.py R TIMEOUT_S CASEDIR              (the launcher)

CASEDIR/case.txt holds "key=value" lines: spec (the --model text: an mlp or
a gpt), data (the --save-data directory), seed, batch, steps, lr, momentum,
mse. Each rank calls torch.manual_seed(seed), builds the nn.Sequential (or
the MiniGPT of model_ref.py, on windows of tokens.npy), wraps it
in DistributedDataParallel (gloo, init_method file://STORE), and trains on a
DataLoader(batch_size) over DistributedSampler(shuffle=True, seed=seed) with
set_epoch(epoch) before each epoch; the steps run on across epochs. Rank 0
writes
  ref_losses.f32       float32 [steps]: loss.item() of rank 0
  ref_losses_avg.f32   float32 [steps]: that loss all-reduced, SUM / R
  ref_init.<name>.f32  float32: each float tensor of the state_dict as built
                       (parameters and BatchNorm's running statistics)
  ref.<name>.f32       float32: each of them after the last step
The launcher waits at most TIMEOUT_S seconds for its R workers and kills
any left, so that a hang fails instead of lingering.
"""
import datetime
import os
import signal
import sys

import numpy as np
import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset, DistributedSampler, TensorDataset

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import launch_workers  # noqa: E402  (the deadline-bound launcher)
from model_ref import MiniGPT, build_mlp  # noqa: E402  (ddplab's models as torch modules)


def build(spec):
    """model_ref's nn.Sequential for an mlp: spec, built (and so initialised)
    right after torch.manual_seed, as the learner's script builds it."""
    model, _, _ = build_mlp(spec.split(":", 1)[1].split(","))
    return model


class Windows(Dataset):
    """Sample i of a token stream t: x = t[i:i+T], y = t[i+1:i+T+1], for
    i < len(t) - T - 1 (sim/data/dataset.h's count)."""

    def __init__(self, tokens, ctx):
        self.t, self.ctx = tokens, ctx

    def __len__(self):
        return len(self.t) - self.ctx - 1

    def __getitem__(self, i):
        return self.t[i:i + self.ctx], self.t[i + 1:i + self.ctx + 1]


def build_gpt(spec):
    kv = dict(f.split("=") for f in spec.split(":", 1)[1].split(","))
    return MiniGPT(int(kv["vocab"]), int(kv["embd"]), int(kv["heads"]), int(kv["layers"]),
                   int(kv["ctx"])), int(kv["ctx"])


def load_data(c, ctx):
    if ctx:
        return Windows(torch.from_numpy(np.load(f"{c['data']}/tokens.npy")), ctx)
    x = torch.from_numpy(np.load(f"{c['data']}/X.npy"))
    y = torch.from_numpy(np.load(f"{c['data']}/y.npy"))
    return TensorDataset(x, y)


def write_state(model, d, prefix):
    """Each float tensor of the state_dict (parameters, BatchNorm's running
    statistics) as raw float32 in d/<prefix><name>.f32."""
    for name, t in model.state_dict().items():
        if t.is_floating_point():
            t.detach().numpy().astype(np.float32).tofile(f"{d}/{prefix}{name}.f32")


def run_case(d, rank, world):
    c = dict(line.rstrip("\n").split("=", 1) for line in open(f"{d}/case.txt") if "=" in line)
    seed, batch, steps = int(c["seed"]), int(c["batch"]), int(c["steps"])
    mse = c["mse"] == "1"
    torch.manual_seed(seed)
    gpt = c["spec"].startswith("gpt:")
    model, ctx = build_gpt(c["spec"]) if gpt else (build(c["spec"]), 0)
    if rank == 0:
        write_state(model, d, "ref_init.")
    ddp = DDP(model)
    data = load_data(c, ctx)
    sampler = DistributedSampler(data, num_replicas=world, rank=rank, shuffle=True, seed=seed)
    loader = DataLoader(data, batch_size=batch, sampler=sampler)
    opt = torch.optim.SGD(ddp.parameters(), lr=float(c["lr"]), momentum=float(c["momentum"]))
    losses, avg = [], []
    epoch = 0
    while len(losses) < steps:
        sampler.set_epoch(epoch)
        for xb, yb in loader:
            opt.zero_grad()
            out = ddp(xb)
            if mse:
                loss = F.mse_loss(out, yb)
            else:
                loss = F.cross_entropy(out.reshape(-1, out.shape[-1]), yb.reshape(-1))
            loss.backward()
            opt.step()
            logged = loss.detach().clone()
            dist.all_reduce(logged)
            losses.append(loss.item())
            avg.append(logged.item() / world)
            if len(losses) == steps:
                break
        epoch += 1
    if rank == 0:
        np.asarray(losses, dtype=np.float32).tofile(f"{d}/ref_losses.f32")
        np.asarray(avg, dtype=np.float32).tofile(f"{d}/ref_losses_avg.f32")
        write_state(model, d, "ref.")
        print(f"rng_torch_ref: R={world} {c['spec']} seed {seed}: {steps} steps, "
              f"loss {losses[0]:.6f} -> {losses[-1]:.6f}", flush=True)


def worker(rank, world, timeout, store, d):
    signal.alarm(int(timeout) + 5)  # a worker never outlives its launcher for long
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"file://{store}", rank=rank,
                            world_size=world, timeout=datetime.timedelta(seconds=timeout))
    try:
        run_case(d, rank, world)
        dist.barrier()
    finally:
        dist.destroy_process_group()
    return 0


def launch(world, timeout, d):
    store = f"{d}/gloo_store"
    if os.path.exists(store):
        os.unlink(store)
    return launch_workers(__file__, world, timeout, [store, d], tag="rng_torch_ref")


def main():
    if len(sys.argv) == 7 and sys.argv[1] == "worker":
        return worker(int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), sys.argv[5],
                      sys.argv[6])
    if len(sys.argv) != 4:
        print("usage: rng_torch_ref.py R TIMEOUT_S CASEDIR", file=sys.stderr)
        return 2
    return launch(int(sys.argv[1]), float(sys.argv[2]), sys.argv[3])


if __name__ == "__main__":
    sys.exit(main())
