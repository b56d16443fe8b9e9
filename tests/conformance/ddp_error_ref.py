"""PyTorch's text for a DDP parameter that got no gradient, for
tests/test_ddp_behaviour.c (`test_ddp_behaviour torch`).

Usage: ddp_error_ref.py DIR TIMEOUT_S

For TORCH_DISTRIBUTED_DEBUG unset and set to INFO, runs 2 gloo processes
(loopback, a file store in DIR) of DistributedDataParallel over ddplab's
mlp:16,32,4,unused laid out as torch names it: Linear(16, 32) "0", ReLU "1",
Linear(32, 4) "2", and the head Linear(4, 4) "3" that forward never uses.
The second forward raises; rank 0 writes str(e) of that RuntimeError to
DIR/off.txt and DIR/info.txt. Exit 0 when both were written.
"""
import datetime
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import launch_workers  # noqa: E402


def worker(rank, world, timeout, d, name):
    signal.alarm(int(timeout) + 5)  # a worker never outlives its launcher for long
    import torch
    import torch.distributed as dist
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"file://{d}/store.{name}", rank=rank,
                            world_size=world, timeout=datetime.timedelta(seconds=timeout))

    class Net(torch.nn.Sequential):
        def __init__(self):
            super().__init__(torch.nn.Linear(16, 32), torch.nn.ReLU(),
                             torch.nn.Linear(32, 4), torch.nn.Linear(4, 4))

        def forward(self, x):
            return self[2](self[1](self[0](x)))  # the head "3" takes no part

    torch.manual_seed(0)
    ddp = torch.nn.parallel.DistributedDataParallel(Net())
    text = None
    try:
        for _ in range(2):
            ddp(torch.randn(4, 16)).sum().backward()
    except RuntimeError as e:
        text = str(e)
    if text is None:
        print("ddp_error_ref: the second forward did not raise", file=sys.stderr)
        return 1
    if rank == 0:
        with open(f"{d}/{name}.txt", "w") as f:
            f.write(text)
    dist.destroy_process_group()
    return 0


def main():
    if len(sys.argv) == 7 and sys.argv[1] == "worker":
        return worker(int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), sys.argv[5],
                      sys.argv[6])
    if len(sys.argv) != 3:
        print("usage: ddp_error_ref.py DIR TIMEOUT_S", file=sys.stderr)
        return 2
    d, timeout = sys.argv[1], float(sys.argv[2])
    env = {k: v for k, v in os.environ.items() if k != "TORCH_DISTRIBUTED_DEBUG"}
    os.environ.clear()
    os.environ.update(env)
    for name, level in (("off", None), ("info", "INFO")):
        extra = {"GLOG_minloglevel": "2"}  # INFO would log every parameter too
        if level:
            extra["TORCH_DISTRIBUTED_DEBUG"] = level
        if launch_workers(__file__, 2, timeout, [d, name], extra, "ddp_error_ref") != 0:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
