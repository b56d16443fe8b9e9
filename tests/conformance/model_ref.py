"""PyTorch reference for tests/test_model_torch.c: ddplab's models rebuilt as
torch modules.

Usage: model_ref.py DIR...   (one directory per case)

Each DIR holds, written by the C test (raw little-endian arrays):
  case.txt      "key=value" lines: spec (the --model text), n (samples),
                seq (tokens per sample, gpt), step, training (0/1), mode
                ("names": only describe the module; "run": forward+backward)
  cnames.txt    ddplab's table: "param NAME" and "buffer NAME" lines, in
                its order (the order of its flat buffers)
  params.f32    float32: ddplab's parameters, back to back in that order
  buffers.f32   float32: ddplab's buffers (num_batches_tracked as a float)
  x.f32         float32 [n, D] features        (mlp)
  labels.i32    int32 [n] or [n, seq] targets  (cross-entropy)
  targets.f32   float32 [n, K]                 (mse)
  tokens.i32    int32 [n, seq]                 (gpt)
and receives:
  names.txt     "param NAME d0 d1 ..." per named_parameters() entry, then
                "buffer NAME dtype d0 d1 ..." per state_dict() buffer, then
                "count N" (parameters) and "state KEY" per state_dict() key
  loss.f32      float32 [1]
  grads.f32     float32, ddplab's layout; zeros where grad is None
  nograd.txt    the names of the parameters whose grad is None
  buffers_after.f32  float32, ddplab's buffer layout, after the forward
  order.txt     parameter names in the order autograd completed them,
                recorded by hooks on each parameter's AccumulateGrad node
                (the hooks DDP's reducer uses)

The module a spec names is documented in docs/training.md ("Models").
"""
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class ExtraHeadMLP(nn.Sequential):
    """nn.Sequential whose last module is an extra head on the last hidden
    layer, added to the output on even steps only."""

    def forward(self, x, step):
        mods = list(self)
        for m in mods[:-2]:
            x = m(x)
        out = mods[-2](x)
        if step % 2 == 0:
            out = out + mods[-1](x)
        return out


def build_mlp(fields):
    widths = [int(f) for f in fields if f[0].isdigit()]
    opts = [f for f in fields if not f[0].isdigit()]
    act = nn.GELU if "act=gelu" in opts else nn.ReLU
    mods = []
    for i in range(len(widths) - 1):
        mods.append(nn.Linear(widths[i], widths[i + 1]))
        if i < len(widths) - 2:
            if "bn" in opts:
                mods.append(nn.BatchNorm1d(widths[i + 1]))
            mods.append(act())
    if "unused" in opts:
        mods.append(nn.Linear(widths[-2], widths[-1]))
        return ExtraHeadMLP(*mods), "mse" in opts, True
    return nn.Sequential(*mods), "mse" in opts, False


class CausalSelfAttention(nn.Module):
    def __init__(self, n_embed, n_head, block_size):
        super().__init__()
        assert n_embed % n_head == 0
        self.n_head = n_head
        self.qkv = nn.Linear(n_embed, 3 * n_embed, bias=False)
        self.proj = nn.Linear(n_embed, n_embed, bias=False)
        mask = torch.tril(torch.ones(block_size, block_size))
        self.register_buffer("mask", mask.view(1, 1, block_size, block_size))

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        nh = self.n_head
        q = q.view(B, T, nh, -1).transpose(1, 2)
        k = k.view(B, T, nh, -1).transpose(1, 2)
        v = v.view(B, T, nh, -1).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) / (k.size(-1) ** 0.5)
        att = att.masked_fill(self.mask[:, :, :T, :T] == 0, float("-inf"))
        y = att.softmax(dim=-1) @ v
        y = y.transpose(1, 2).contiguous().view(B, T, -1)
        return self.proj(y)


class Block(nn.Module):
    def __init__(self, n_embed, n_head, block_size):
        super().__init__()
        self.ln1 = nn.LayerNorm(n_embed)
        self.attn = CausalSelfAttention(n_embed, n_head, block_size)
        self.ln2 = nn.LayerNorm(n_embed)
        self.mlp = nn.Sequential(nn.Linear(n_embed, 4 * n_embed), nn.GELU(),
                                 nn.Linear(4 * n_embed, n_embed))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        x = x + self.mlp(self.ln2(x))
        return x


class MiniGPT(nn.Module):
    """The guide's MiniGPT with its dropout layers left out."""

    def __init__(self, vocab, n_embed, n_head, n_layer, block):
        super().__init__()
        self.tok_emb = nn.Embedding(vocab, n_embed)
        self.pos_emb = nn.Embedding(block, n_embed)
        self.blocks = nn.ModuleList([Block(n_embed, n_head, block) for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(n_embed)
        self.head = nn.Linear(n_embed, vocab, bias=False)

    def forward(self, idx):
        B, T = idx.shape
        pos = torch.arange(0, T, device=idx.device)
        x = self.tok_emb(idx) + self.pos_emb(pos)[None, :, :]
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.ln_f(x))


def build(spec):
    kind, body = spec.split(":", 1)
    fields = body.split(",")
    if kind == "mlp":
        return ("mlp",) + build_mlp(fields)
    kv = dict(f.split("=") for f in fields)
    g = MiniGPT(int(kv["vocab"]), int(kv["embd"]), int(kv["heads"]), int(kv["layers"]),
                int(kv["ctx"]))
    return "gpt", g, False, False


def write_names(d, model):
    lines = []
    for name, p in model.named_parameters():
        lines.append("param %s %s" % (name, " ".join(str(s) for s in p.shape)))
    for name, b in model.named_buffers():
        dt = "int64" if b.dtype == torch.int64 else "fp32"
        lines.append("buffer %s %s %s" % (name, dt, " ".join(str(s) for s in b.shape)))
    lines.append("count %d" % sum(p.numel() for p in model.parameters()))
    for key in model.state_dict().keys():
        lines.append("state %s" % key)
    with open(f"{d}/names.txt", "w") as f:
        f.write("\n".join(lines) + "\n")


def read_cnames(d):
    params, buffers = [], []
    with open(f"{d}/cnames.txt") as f:
        for line in f:
            kind, name = line.split()
            (params if kind == "param" else buffers).append(name)
    return params, buffers


def load(d, model, pnames, bnames):
    """Loads ddplab's flat arrays into the module by name (load_state_dict)."""
    state = model.state_dict()
    pflat = np.fromfile(f"{d}/params.f32", dtype=np.float32)
    bflat = np.fromfile(f"{d}/buffers.f32", dtype=np.float32)
    new, off = {}, 0
    for name in pnames:
        t = state[name]
        new[name] = torch.from_numpy(pflat[off:off + t.numel()].copy()).view(t.shape)
        off += t.numel()
    assert off == pflat.size, "params.f32 holds %d floats, the table %d" % (pflat.size, off)
    off = 0
    for name in bnames:
        t = state[name]
        v = torch.from_numpy(bflat[off:off + t.numel()].copy()).view(t.shape)
        new[name] = v.to(t.dtype)
        off += t.numel()
    assert off == bflat.size
    model.load_state_dict(new, strict=True)


def flat(d, name, tensors):
    parts = [t.detach().reshape(-1).to(torch.float32).numpy() for t in tensors]
    np.concatenate(parts).astype(np.float32).tofile(f"{d}/{name}")


def run_case(d):
    case = dict(line.strip().split("=", 1) for line in open(f"{d}/case.txt") if "=" in line)
    torch.manual_seed(0)
    kind, model, mse, extra = build(case["spec"])
    write_names(d, model)
    if case.get("mode") == "names":
        return
    pnames, bnames = read_cnames(d)
    load(d, model, pnames, bnames)
    model.train(case["training"] == "1")
    n, step = int(case["n"]), int(case["step"])
    params = dict(model.named_parameters())
    order = []
    nodes = []  # keep the AccumulateGrad nodes alive while hooks are on them
    for name, p in params.items():
        acc = p.expand_as(p).grad_fn.next_functions[0][0]
        acc.register_hook(lambda *unused, name=name: order.append(name))
        nodes.append(acc)
    if kind == "gpt":
        T = int(case["seq"])
        idx = torch.from_numpy(np.fromfile(f"{d}/tokens.i32", dtype=np.int32)).long().view(n, T)
        y = torch.from_numpy(np.fromfile(f"{d}/labels.i32", dtype=np.int32)).long().view(n * T)
        logits = model(idx)
        loss = F.cross_entropy(logits.view(n * T, -1), y)
    else:
        x = torch.from_numpy(np.fromfile(f"{d}/x.f32", dtype=np.float32)).view(n, -1)
        out = model(x, step) if extra else model(x)
        if mse:
            t = torch.from_numpy(np.fromfile(f"{d}/targets.f32", dtype=np.float32)).view(n, -1)
            loss = F.mse_loss(out, t)
        else:
            y = torch.from_numpy(np.fromfile(f"{d}/labels.i32", dtype=np.int32)).long()
            loss = F.cross_entropy(out, y)
    loss.backward()
    np.array([loss.item()], dtype=np.float32).tofile(f"{d}/loss.f32")
    grads = [params[k].grad if params[k].grad is not None else torch.zeros_like(params[k])
             for k in pnames]
    flat(d, "grads.f32", grads)
    with open(f"{d}/nograd.txt", "w") as f:
        f.write("".join(k + "\n" for k in pnames if params[k].grad is None))
    state = model.state_dict()
    if bnames:
        flat(d, "buffers_after.f32", [state[k] for k in bnames])
    else:
        open(f"{d}/buffers_after.f32", "wb").close()
    with open(f"{d}/order.txt", "w") as f:
        f.write("".join(k + "\n" for k in order))


def main():
    torch.set_num_threads(1)
    for d in sys.argv[1:]:
        run_case(d)
    return 0


if __name__ == "__main__":
    sys.exit(main())
