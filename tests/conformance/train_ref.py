"""PyTorch reference for tests/test_cli_run_torch.c: the training loop of
`ddplab run --strategy single`, written as a plain PyTorch script.

Usage: train_ref.py DIR

DIR/case.txt holds "key=value" lines written by the C test:
  spec        the --model text (the module: tests/conformance/model_ref.py)
  x, y        .npy files of features and labels (mlp), or
  text        a text file (gpt: bytes as tokens, vocabulary = sorted bytes)
  batch, steps, seed, shuffle
  optimizer   sgd or adamw, with lr, momentum, nesterov, weight_decay,
              betas (B1,B2), eps, schedule (constant/cosine/linear), warmup,
              min_lr, clip (0 = off)
  init        ddplab's checkpoint of the initial weights
  final       ddplab's checkpoint after the run
The script loads `init` into the module by name with
load_state_dict(strict=True), takes ddplab's batches (the sampler below),
trains, and writes:
  ref_losses.f32        float32 [steps]: loss.item() of each step
  ref.<name>.f32        float32: each parameter after the last step
It also checks that `final` is a valid file (its SHA-256 checksum) and that
its model tensors load with load_state_dict(strict=True). Exit 0 on
success.

Safetensors files are read with json and numpy.frombuffer: python3-torch
1.13 has no safetensors support.
"""
import hashlib
import json
import os
import struct
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402  (shared with optim_ref.py)
from model_ref import build  # noqa: E402  (ddplab's models as torch modules)

DTYPES = {"F32": np.float32, "F16": np.float16, "I32": np.int32, "I64": np.int64}


def read_safetensors(path):
    """(tensors by name, metadata); raises ValueError on a bad checksum."""
    raw = open(path, "rb").read()
    (hlen,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + hlen])
    meta = header.pop("__metadata__", {})
    digest = meta.get("checksum", "")
    if digest:
        # The SHA-256 of the file with the digest's 64 digits written as zeros.
        blank = raw.replace(digest.encode(), b"sha256:" + b"0" * 64, 1)
        if "sha256:" + hashlib.sha256(blank).hexdigest() != digest:
            raise ValueError(f"{path}: checksum mismatch")
    data = raw[8 + hlen:]
    tensors = {}
    for name, e in header.items():
        b, end = e["data_offsets"]
        a = np.frombuffer(data[b:end], dtype=DTYPES[e["dtype"]]).reshape(e["shape"])
        tensors[name] = torch.from_numpy(a.copy())
    return tensors, meta


def model_state(tensors):
    """The module's tensors: names without a '/' (the rest is training state)."""
    return {k: v for k, v in tensors.items() if "/" not in k}


# ---------------------------------------------------------------------------
# ddplab's sampler for one rank: DistributedSampler(num_replicas=1) order,
# shuffled by splitmix64 Fisher-Yates seeded with seed + epoch (sim/data/sampler.h)

MASK = (1 << 64) - 1


def splitmix_permutation(n, seed):
    state = seed & MASK

    def next64():
        nonlocal state
        state = (state + 0x9E3779B97F4A7C15) & MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def below(bound):
        threshold = ((1 << 64) - bound) % bound
        while True:
            r = next64()
            if r >= threshold:
                return r % bound

    order = list(range(n))
    for i in range(n - 1, 0, -1):
        j = below(i + 1)
        order[i], order[j] = order[j], order[i]
    return order


def batches(n, batch, seed, shuffle):
    """Yields (epoch, indices) forever, epoch after epoch."""
    epoch = 0
    while True:
        order = splitmix_permutation(n, seed + epoch) if shuffle else list(range(n))
        for b in range(0, n, batch):
            yield epoch, order[b:b + batch]
        epoch += 1


# ---------------------------------------------------------------------------
# data

def load_data(c):
    if "text" in c:
        raw = open(c["text"], "rb").read()
        vocab = sorted(set(raw))
        ids = torch.tensor([vocab.index(b) for b in raw], dtype=torch.long)
        return ids, None
    x = torch.from_numpy(np.load(c["x"]).astype(np.float32))
    y = torch.from_numpy(np.load(c["y"]))
    return x, y


def get_batch(c, data, idx, ctx):
    if "text" in c:
        ids = data[0]
        xb = torch.stack([ids[i:i + ctx] for i in idx])
        yb = torch.stack([ids[i + 1:i + 1 + ctx] for i in idx])
        return xb, yb
    return data[0][idx], data[1][idx]


def n_samples(c, data, ctx):
    return len(data[0]) - ctx - 1 if "text" in c else len(data[0])


# ---------------------------------------------------------------------------
# the loop

def lr_factor(c, s):
    """sim/model/lr_schedule.h's factor, in double and in the same order."""
    return common.lr_factor(c["schedule"], int(c["warmup"]), int(c["steps"]), float(c["lr"]),
                            float(c["min_lr"]), s)


def make_optimizer(c, params):
    lr, wd = float(c["lr"]), float(c["weight_decay"])
    if c["optimizer"] == "sgd":
        return torch.optim.SGD(params, lr=lr, momentum=float(c["momentum"]),
                               nesterov=c["nesterov"] == "1", weight_decay=wd)
    b1, b2 = (float(v) for v in c["betas"].split(","))
    cls = torch.optim.AdamW if c["optimizer"] == "adamw" else torch.optim.Adam
    return cls(params, lr=lr, betas=(b1, b2), eps=float(c["eps"]), weight_decay=wd)


def train(c, model, kind, data):
    ctx = model.pos_emb.weight.shape[0] if kind == "gpt" else 0
    opt = make_optimizer(c, model.parameters())
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: lr_factor(c, s))
    source = batches(n_samples(c, data, ctx), int(c["batch"]), int(c["seed"]),
                     c["shuffle"] == "1")
    clip = float(c["clip"])
    losses = []
    model.train()
    for _ in range(int(c["steps"])):
        _, idx = next(source)
        xb, yb = get_batch(c, data, idx, ctx)
        opt.zero_grad(set_to_none=False)  # PyTorch 1.13's default
        out = model(xb)
        loss = F.cross_entropy(out.reshape(-1, out.shape[-1]), yb.reshape(-1).long())
        loss.backward()
        if clip > 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        opt.step()
        sched.step()
        losses.append(loss.item())
    return losses


def main():
    d = sys.argv[1]
    c = dict(line.rstrip("\n").split("=", 1) for line in open(f"{d}/case.txt") if "=" in line)
    torch.manual_seed(0)
    kind, model, mse, extra = build(c["spec"])
    assert not mse and not extra, "the conformance cases use cross-entropy, no extra head"
    init, _ = read_safetensors(c["init"])
    model.load_state_dict(model_state(init), strict=True)
    losses = train(c, model, kind, load_data(c))
    np.asarray(losses, dtype=np.float32).tofile(f"{d}/ref_losses.f32")
    for name, p in model.named_parameters():
        p.detach().numpy().astype(np.float32).tofile(f"{d}/ref.{name}.f32")
    # ddplab's final checkpoint loads into the same module, strictly.
    final, meta = read_safetensors(c["final"])
    assert meta["format"] == "ddplab-checkpoint" and meta["step"] == c["steps"], meta
    check = build(c["spec"])[1]
    check.load_state_dict(model_state(final), strict=True)
    print(f"train_ref: {c['spec']} {c['optimizer']}: {len(losses)} steps, "
          f"loss {losses[0]:.6f} -> {losses[-1]:.6f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
