"""DDP's powerSGD_hook under gloo, for tests/test_powersgd_torch.c.

Usage: powersgd_ref.py DIR R TIMEOUT_S

Runs R gloo processes (loopback, a file store in DIR). Inputs, written by
the C test as raw little-endian arrays:
  DIR/meta.i64   int64: K (iterations), matrix_approximation_rank,
                 start_powerSGD_iter, P (parameters), n (their elements),
                 then for each parameter in the order of ddplab's one
                 bucket: offset in the flat gradient, ndim, 4 dims
  DIR/local.f32  float32 [K][R][n]: rank r's local gradient at iteration k,
                 flat, parameter by parameter at the offsets above
Output, from rank 0, after checking that every rank holds the same result:
  DIR/synced.f32 float32 [K][n]: the gradients after each backward of
                 DistributedDataParallel with powerSGD_hook registered
                 (PowerSGDState with the rank and start above, the rest at
                 torch's defaults), where the loss sum_i (p_i * g_i).sum()
                 makes rank r's local gradient g_r
Exit 0 on success.
"""
import datetime
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import launch_workers  # noqa: E402


def read_meta(d, np):
    meta = np.fromfile(f"{d}/meta.i64", dtype="<i8").tolist()
    k, rank, start, nparams, n = meta[:5]
    params = []
    for i in range(nparams):
        off, ndim, *dims = meta[5 + 6 * i: 11 + 6 * i]
        params.append((off, tuple(dims[:ndim])))
    return k, rank, start, params, n


def make_module(torch, shapes):
    """Parameters registered in bucket order. The loss adds its terms in the
    reverse order, so autograd makes the first parameter's gradient ready
    first: the bucket DDP rebuilds at iteration 1 keeps the order, which is
    also its initial one (one bucket holds the parameters in registration
    order)."""

    class Flat(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.ps = torch.nn.ParameterList(
                [torch.nn.Parameter(torch.zeros(s)) for s in shapes])

        def forward(self, *gs):
            loss = 0
            for p, g in reversed(list(zip(self.ps, gs))):
                loss = loss + (p * g).sum()
            return loss

    return Flat()


def hook_group(dist, d, rank, world, timeout):
    """A gloo group with 8 worker threads for DDP and the hook. powerSGD_hook
    waits for its P and Q all_reduces inside future callbacks, and such a
    callback runs on the gloo thread that completed the previous
    all_reduce when it was still running as the callback was attached: with
    gloo's default of 2 threads, both can end up waiting for an all_reduce
    that no thread is left to run (a hang now and then, on a busy machine)."""
    import datetime as dt
    opts = dist.ProcessGroupGloo._Options()
    opts._devices = [dist.ProcessGroupGloo.create_device(interface="lo")]
    opts._threads = 8
    opts._timeout = dt.timedelta(seconds=timeout)
    store = dist.PrefixStore("powersgd", dist.FileStore(f"{d}/store.hook", world))
    return dist.ProcessGroupGloo(store, rank, world, opts)


def worker(rank, world, timeout, d):
    signal.alarm(int(timeout) + 5)  # a worker never outlives its launcher for long
    import faulthandler
    faulthandler.dump_traceback_later(max(1, timeout - 10), exit=True)  # where a hang sits
    import numpy as np
    import torch
    import torch.distributed as dist
    from torch.distributed.algorithms.ddp_comm_hooks import powerSGD_hook as psgd
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"file://{d}/store", rank=rank,
                            world_size=world, timeout=datetime.timedelta(seconds=timeout))
    k, mrank, start, params, n = read_meta(d, np)
    local = np.fromfile(f"{d}/local.f32", dtype="<f4").reshape(k, world, n)
    module = make_module(torch, [s for _, s in params])
    pg = hook_group(dist, d, rank, world, timeout)
    ddp = torch.nn.parallel.DistributedDataParallel(module, process_group=pg)
    state = psgd.PowerSGDState(process_group=pg, matrix_approximation_rank=mrank,
                               start_powerSGD_iter=start)
    want = [p.data_ptr() for p in module.ps]

    def hook(st, bucket):
        # the bucket holds every parameter, in ddplab's order
        assert bucket.index() == 0 and bucket.is_last()
        assert [p.data_ptr() for p in bucket.parameters()] == want, "bucket order differs"
        return psgd.powerSGD_hook(st, bucket)

    ddp.register_comm_hook(state, hook)
    out = np.zeros((k, n), dtype=np.float32)
    for it in range(k):
        g = local[it, rank]
        gs = [torch.from_numpy(g[off: off + int(np.prod(s))].reshape(s).copy())
              for off, s in params]
        for p in module.ps:
            p.grad = None
        ddp(*gs).backward()
        for (off, s), p in zip(params, module.ps):
            grad = p.grad.detach().reshape(-1).clone()
            ref = grad.clone()
            dist.broadcast(ref, 0)
            assert torch.equal(grad, ref), "the ranks' results differ"
            out[it, off: off + grad.numel()] = grad.numpy()
    if rank == 0:
        out.astype("<f4").tofile(f"{d}/synced.f32")
    dist.barrier()
    dist.destroy_process_group()
    return 0


def main():
    if len(sys.argv) == 6 and sys.argv[1] == "worker":
        return worker(int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), sys.argv[5])
    if len(sys.argv) != 4:
        print("usage: powersgd_ref.py DIR R TIMEOUT_S", file=sys.stderr)
        return 2
    d, world, timeout = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    return launch_workers(__file__, world, timeout, [d], {"GLOG_minloglevel": "2"},
                          "powersgd_ref")


if __name__ == "__main__":
    sys.exit(main())
