"""PyTorch reference for tests/test_ddp_buckets_torch.c: DDP's bucket plans
as torch 1.13 makes them.

Usage: ddp_buckets_ref.py assign DIR
       ddp_buckets_ref.py ddp DIR

assign: DIR/assign.txt holds one case per line,
          "limits L1 L2 ... | params DTYPE:NUMEL ... | order I I ..."
        (DTYPE one of fp32 fp16 bf16 int32 int64; order a permutation of
        the parameter indices). For each case the tensors are passed in
        `order` to torch.distributed._compute_bucket_assignment_by_size, once
        without tensor_indices (buckets of positions, mapped back to
        parameter indices) and once with tensor_indices = order. Writes
        DIR/assign_out.txt: per case "case K", then one line per bucket,
        "sorted LIMIT I I ..." for the first call and "indexed LIMIT I I ..."
        for the second.

ddp:    DIR/ddp.txt holds one case per line, "key=value" fields: spec (the
        --model text, built as tests/conformance/model_ref.py builds it),
        cap (bucket_cap_mb), unused (find_unused_parameters 0/1), static
        (static_graph 0/1), last (DDP_SET_LAST_BUCKET_CAP 0/1), step (the
        step number given to a model with an extra head: odd leaves it
        unused), iters. Each case wraps the module in a real
        DistributedDataParallel on the gloo backend, world size 1 (a file
        store in DIR, loopback), and trains `iters` iterations of SGD on
        random data. Writes DIR/ddp_K.txt for case K:
          "order IT NAME ..."   parameter names in the order their
                                AccumulateGrad hooks fired in iteration IT
          "plan IT"             then "bucket BYTES NAME ..." per bucket in
                                bucket index order, as a communication hook
                                saw them in iteration IT
          "rebuilt L1 L2 ..."   the size limits the reducer logged when it
                                rebuilt its buckets (TORCH_DISTRIBUTED_DEBUG
                                = INFO), or "rebuilt none"
"""
import os
import re
import sys

os.environ["TORCH_DISTRIBUTED_DEBUG"] = "INFO"  # the rebuild logs its limits
os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.nn.functional as F  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from model_ref import build  # noqa: E402

DTYPES = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16,
          "int32": torch.int32, "int64": torch.int64}


def assign(d):
    out = []
    with open(f"{d}/assign.txt") as f:
        lines = [line for line in f if line.strip()]
    for k, line in enumerate(lines):
        lim_part, par_part, ord_part = [p.split()[1:] for p in line.split("|")]
        limits = [int(x) for x in lim_part]
        params = [p.split(":") for p in par_part]
        order = [int(x) for x in ord_part]
        tensors = [torch.empty(int(params[i][1]), dtype=DTYPES[params[i][0]]) for i in order]
        out.append("case %d" % k)
        buckets, lims = dist._compute_bucket_assignment_by_size(tensors, limits)
        for b, lim in zip(buckets, lims):
            out.append("sorted %d %s" % (lim, " ".join(str(order[pos]) for pos in b)))
        buckets, lims = dist._compute_bucket_assignment_by_size(
            tensors, limits, [False] * len(order), order)
        for b, lim in zip(buckets, lims):
            out.append("indexed %d %s" % (lim, " ".join(str(i) for i in b)))
    with open(f"{d}/assign_out.txt", "w") as f:
        f.write("\n".join(out) + "\n")


def batch(kind, model, mse, spec):
    """Random inputs and the loss function model_ref.py uses for the spec."""
    n = 2
    if kind == "gpt":
        kv = dict(f.split("=") for f in spec.split(":", 1)[1].split(","))
        T, V = int(kv["ctx"]), int(kv["vocab"])
        idx = torch.randint(0, V, (n, T))
        y = torch.randint(0, V, (n * T,))
        return (idx,), lambda out: F.cross_entropy(out.view(n * T, -1), y)
    first = next(m for m in model.modules() if isinstance(m, torch.nn.Linear))
    x = torch.randn(n, first.in_features)
    if mse:
        return (x,), lambda out: F.mse_loss(out, torch.randn_like(out))
    return (x,), lambda out: F.cross_entropy(out, torch.randint(0, out.shape[1], (n,)))


def run_ddp_case(d, k, case):
    torch.manual_seed(k)
    kind, model, mse, extra = build(case["spec"])
    names = {p: n for n, p in model.named_parameters()}
    order, nodes = [], []  # nodes: keep the AccumulateGrad nodes alive
    for name, p in model.named_parameters():
        acc = p.expand_as(p).grad_fn.next_functions[0][0]
        acc.register_hook(lambda *unused, name=name: order.append(name))
        nodes.append(acc)
    ddp = torch.nn.parallel.DistributedDataParallel(
        model, bucket_cap_mb=float(case["cap"]),
        find_unused_parameters=case["unused"] == "1",
        static_graph=case["static"] == "1")
    seen = []

    def record(state, bucket):
        params = bucket.parameters()
        nbytes = sum(p.numel() * p.element_size() for p in params)
        seen.append((bucket.index(), nbytes, [names[p] for p in params]))
        fut = torch.futures.Future()
        fut.set_result(bucket.buffer())  # one rank: the sum is the buffer
        return fut

    ddp.register_comm_hook(None, record)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
    inputs, loss_fn = batch(kind, model, mse, case["spec"])
    step = int(case["step"])
    lines = []
    for it in range(int(case["iters"])):
        order.clear()
        seen.clear()
        out = ddp(*inputs, step) if extra else ddp(*inputs)
        loss_fn(out).backward()
        opt.step()
        opt.zero_grad()
        lines.append("order %d %s" % (it, " ".join(order)))
        lines.append("plan %d" % it)
        for _, nbytes, bnames in sorted(seen):
            lines.append("bucket %d %s" % (nbytes, " ".join(bnames)))
    return lines


def ddp(d):
    with open(f"{d}/ddp.txt") as f:
        cases = [dict(kv.split("=", 1) for kv in line.split()) for line in f if line.strip()]
    dist.init_process_group("gloo", init_method=f"file://{d}/store", rank=0, world_size=1)
    rebuilt = re.compile(r"buckets rebuilt with size limits: ([0-9, ]+) bytes")
    for k, case in enumerate(cases):
        if case["last"] == "1":
            os.environ["DDP_SET_LAST_BUCKET_CAP"] = "1"
        # The reducer logs through glog to file descriptor 2: catch it there.
        log = f"{d}/log_{k}.txt"
        sys.stderr.flush()
        saved = os.dup(2)
        fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        os.dup2(fd, 2)
        os.close(fd)
        try:
            lines = run_ddp_case(d, k, case)
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            os.environ.pop("DDP_SET_LAST_BUCKET_CAP", None)
        with open(log, errors="replace") as f:
            m = rebuilt.findall(f.read())
        lines.append("rebuilt " + (" ".join(m[0].replace(",", " ").split()) if m else "none"))
        with open(f"{d}/ddp_{k}.txt", "w") as f:
            f.write("\n".join(lines) + "\n")
    dist.destroy_process_group()


def main():
    torch.set_num_threads(1)
    mode, d = sys.argv[1], sys.argv[2]
    if mode == "assign":
        assign(d)
    elif mode == "ddp":
        ddp(d)
    else:
        print("unknown mode " + mode, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
