"""gloo's fp16 all_reduce and DDP's fp16_compress_hook, for
tests/test_fp16_hook_torch.c.

Usage: gloo_fp16_ref.py DIR R TIMEOUT_S

Runs R gloo processes (loopback, a file store in DIR). Inputs, written by
the C test as raw little-endian arrays:
  DIR/ar.cnt.i64   int64 [cases]: the element count of each case
  DIR/ar.in.u16    fp16 bits, case after case, each [R][count]: rank r's
                   tensor for dist.all_reduce (SUM)
  DIR/hook.in.f32  float32 [R][n]: rank r's gradient of one parameter
                   of n elements
Outputs, from rank 0, after checking that every rank holds the same result:
  DIR/ar.out.u16   fp16 bits, case after case, [count]: the all_reduce
  DIR/hook.out.f32 float32 [n]: the gradient after one backward of
                   DistributedDataParallel with
                   default_hooks.fp16_compress_hook registered, where the
                   loss (p * g_r).sum() makes rank r's local gradient g_r
Exit 0 on success.
"""
import datetime
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import launch_workers  # noqa: E402


def same_everywhere(dist, torch, t):
    """Rank 0's tensor, after asserting that every rank holds it bit for bit."""
    ref = t.clone()
    dist.broadcast(ref, 0)
    assert torch.equal(t.view(torch.int16) if t.dtype == torch.float16 else t,
                       ref.view(torch.int16) if t.dtype == torch.float16 else ref), \
        "the ranks' results differ"
    return t


def all_reduces(d, rank, world, np, torch, dist):
    counts = np.fromfile(f"{d}/ar.cnt.i64", dtype="<i8")
    data = np.fromfile(f"{d}/ar.in.u16", dtype="<u2")
    out, at = [], 0
    for n in counts.tolist():
        mine = data[at + rank * n: at + (rank + 1) * n].view(np.float16)
        t = torch.from_numpy(mine.copy())
        dist.all_reduce(t)
        same_everywhere(dist, torch, t)
        out.append(t.numpy().view(np.uint16))
        at += world * n
    if rank == 0:
        np.concatenate(out).astype("<u2").tofile(f"{d}/ar.out.u16")


def hook(d, rank, world, np, torch, dist):
    from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
    g = np.fromfile(f"{d}/hook.in.f32", dtype="<f4").reshape(world, -1)[rank]

    class Flat(torch.nn.Module):
        def __init__(self, n):
            super().__init__()
            self.p = torch.nn.Parameter(torch.zeros(n))

        def forward(self, x):
            return (self.p * x).sum()

    ddp = torch.nn.parallel.DistributedDataParallel(Flat(g.size))
    ddp.register_comm_hook(None, default_hooks.fp16_compress_hook)
    ddp(torch.from_numpy(g.copy())).backward()
    grad = same_everywhere(dist, torch, ddp.module.p.grad.detach())
    if rank == 0:
        grad.numpy().astype("<f4").tofile(f"{d}/hook.out.f32")


def worker(rank, world, timeout, d):
    signal.alarm(int(timeout) + 5)  # a worker never outlives its launcher for long
    import numpy as np
    import torch
    import torch.distributed as dist
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"file://{d}/store", rank=rank,
                            world_size=world, timeout=datetime.timedelta(seconds=timeout))
    all_reduces(d, rank, world, np, torch, dist)
    hook(d, rank, world, np, torch, dist)
    dist.barrier()
    dist.destroy_process_group()
    return 0


def main():
    if len(sys.argv) == 6 and sys.argv[1] == "worker":
        return worker(int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), sys.argv[5])
    if len(sys.argv) != 4:
        print("usage: gloo_fp16_ref.py DIR R TIMEOUT_S", file=sys.stderr)
        return 2
    d, world, timeout = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    return launch_workers(__file__, world, timeout, [d], {"GLOG_minloglevel": "2"},
                          "gloo_fp16_ref")


if __name__ == "__main__":
    sys.exit(main())
