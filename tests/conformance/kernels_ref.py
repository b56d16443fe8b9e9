"""PyTorch reference for tests/test_kernels_torch.c.

Usage: kernels_ref.py DIR CASE...

Each CASE is "name:kind:key=value:key=value..."; the inputs of case `name`
are raw little-endian arrays DIR/name_<array>.bin written by the C test
(float32 unless noted), and the outputs are written the same way:

  linear     N C OC bias   inp w b dout        -> out dinp dw db
  act        n act         x dout              -> out dinp   (act: relu, gelu, gelu_tanh)
  layernorm  N C eps       x w b dout          -> out mean rstd dinp dw db
  batchnorm  N C momentum eps
                           x w b rm rv dout x2 -> out mean invstd dinp dw db rm_out rv_out out_eval
             (a training forward and backward on x, then an eval forward on x2)
  embedding  B T C V maxT  idx(int32) wte wpe dout  -> out dwte dwpe
  attention  B T C NH      qkv dout            -> out att dqkv
  xent       N V           logits targets(int32) dloss -> losses probs dlogits
  sgd        n steps lr momentum dampening wd nesterov
                           p0 grads[steps,n]   -> p buf
  adam       n steps lr b1 b2 eps wd decoupled
                           p0 grads[steps,n]   -> p m v

Every op is torch's own: torch.nn.functional, nn.BatchNorm1d, autograd for
the gradients, torch.optim.SGD / Adam / AdamW for the optimizer steps.
Hyperparameters arrive as the decimal strings the C test also parsed.
"""
import math
import sys

import numpy as np
import torch
import torch.nn.functional as F


class Case:
    def __init__(self, d, spec):
        parts = spec.split(":")
        self.d, self.name, self.kind = d, parts[0], parts[1]
        self.kv = dict(p.split("=", 1) for p in parts[2:])

    def i(self, k):
        return int(self.kv[k])

    def f(self, k):
        return float(self.kv[k])

    def read(self, what, shape, dtype=np.float32):
        a = np.fromfile(f"{self.d}/{self.name}_{what}.bin", dtype=dtype)
        return torch.from_numpy(a.reshape(shape).copy())

    def param(self, what, shape):
        return self.read(what, shape).requires_grad_(True)

    def write(self, what, t):
        t.detach().contiguous().numpy().astype(np.float32).tofile(f"{self.d}/{self.name}_{what}.bin")


def run_linear(c):
    N, C, OC = c.i("N"), c.i("C"), c.i("OC")
    inp, w = c.param("inp", (N, C)), c.param("w", (OC, C))
    b = c.param("b", (OC,)) if c.i("bias") else None
    out = F.linear(inp, w, b)
    out.backward(c.read("dout", (N, OC)))
    c.write("out", out)
    c.write("dinp", inp.grad)
    c.write("dw", w.grad)
    if b is not None:
        c.write("db", b.grad)


def run_act(c):
    n = c.i("n")
    x = c.param("x", (n,))
    act = c.kv["act"]
    if act == "relu":
        out = F.relu(x)
    elif act == "gelu":
        out = F.gelu(x)
    else:
        out = F.gelu(x, approximate="tanh")
    out.backward(c.read("dout", (n,)))
    c.write("out", out)
    c.write("dinp", x.grad)


def run_layernorm(c):
    N, C, eps = c.i("N"), c.i("C"), c.f("eps")
    x, w, b = c.param("x", (N, C)), c.param("w", (C,)), c.param("b", (C,))
    out = F.layer_norm(x, (C,), w, b, eps)
    out.backward(c.read("dout", (N, C)))
    with torch.no_grad():
        _, mean, rstd = torch.native_layer_norm(x, (C,), w, b, eps)
    c.write("out", out)
    c.write("mean", mean.reshape(N))
    c.write("rstd", rstd.reshape(N))
    c.write("dinp", x.grad)
    c.write("dw", w.grad)
    c.write("db", b.grad)


def run_batchnorm(c):
    N, C = c.i("N"), c.i("C")
    bn = torch.nn.BatchNorm1d(C, eps=c.f("eps"), momentum=c.f("momentum"))
    with torch.no_grad():
        bn.weight.copy_(c.read("w", (C,)))
        bn.bias.copy_(c.read("b", (C,)))
        bn.running_mean.copy_(c.read("rm", (C,)))
        bn.running_var.copy_(c.read("rv", (C,)))
    x = c.param("x", (N, C))
    bn.train()
    out = bn(x)
    out.backward(c.read("dout", (N, C)))
    with torch.no_grad():  # the statistics the training forward saved
        mean = x.mean(0)
        invstd = 1.0 / torch.sqrt(x.var(0, unbiased=False) + c.f("eps"))
    bn.eval()
    with torch.no_grad():
        out_eval = bn(c.read("x2", (N, C)))
    c.write("out", out)
    c.write("mean", mean)
    c.write("invstd", invstd)
    c.write("dinp", x.grad)
    c.write("dw", bn.weight.grad)
    c.write("db", bn.bias.grad)
    c.write("rm_out", bn.running_mean)
    c.write("rv_out", bn.running_var)
    c.write("out_eval", out_eval)


def run_embedding(c):
    B, T, C, V, maxT = c.i("B"), c.i("T"), c.i("C"), c.i("V"), c.i("maxT")
    idx = c.read("idx", (B, T), np.int32).long()
    wte, wpe = c.param("wte", (V, C)), c.param("wpe", (maxT, C))
    out = F.embedding(idx, wte) + F.embedding(torch.arange(T), wpe)
    out.backward(c.read("dout", (B, T, C)))
    c.write("out", out)
    c.write("dwte", wte.grad)
    c.write("dwpe", wpe.grad)


def run_attention(c):
    B, T, C, NH = c.i("B"), c.i("T"), c.i("C"), c.i("NH")
    hs = C // NH
    qkv = c.param("qkv", (B, T, 3 * C))
    q, k, v = qkv.split(C, dim=2)
    q = q.view(B, T, NH, hs).transpose(1, 2)
    k = k.view(B, T, NH, hs).transpose(1, 2)
    v = v.view(B, T, NH, hs).transpose(1, 2)
    att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hs))
    mask = torch.tril(torch.ones(T, T, dtype=torch.bool))
    att = att.masked_fill(~mask, float("-inf"))
    att = F.softmax(att, dim=-1)
    y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
    y.backward(c.read("dout", (B, T, C)))
    c.write("out", y)
    c.write("att", att)
    c.write("dqkv", qkv.grad)


def run_xent(c):
    N, V = c.i("N"), c.i("V")
    logits = c.param("logits", (N, V))
    targets = c.read("targets", (N,), np.int32).long()
    losses = F.cross_entropy(logits, targets, reduction="none")
    losses.backward(c.read("dloss", (N,)))
    c.write("losses", losses)
    c.write("probs", F.softmax(logits.detach(), dim=1))
    c.write("dlogits", logits.grad)


def run_optim(c, make):
    n, steps = c.i("n"), c.i("steps")
    p = torch.nn.Parameter(c.read("p0", (n,)))
    grads = c.read("grads", (steps, n))
    opt = make([p])
    for s in range(steps):
        p.grad = grads[s].clone()
        opt.step()
    c.write("p", p)
    return opt.state[p]


def run_sgd(c):
    state = run_optim(c, lambda ps: torch.optim.SGD(
        ps, lr=c.f("lr"), momentum=c.f("momentum"), dampening=c.f("dampening"),
        weight_decay=c.f("wd"), nesterov=bool(c.i("nesterov"))))
    buf = state.get("momentum_buffer")
    c.write("buf", buf if buf is not None else torch.zeros(c.i("n")))


def run_adam(c):
    cls = torch.optim.AdamW if c.i("decoupled") else torch.optim.Adam
    state = run_optim(c, lambda ps: cls(
        ps, lr=c.f("lr"), betas=(c.f("b1"), c.f("b2")), eps=c.f("eps"),
        weight_decay=c.f("wd")))
    c.write("m", state["exp_avg"])
    c.write("v", state["exp_avg_sq"])


RUN = {
    "linear": run_linear, "act": run_act, "layernorm": run_layernorm,
    "batchnorm": run_batchnorm, "embedding": run_embedding,
    "attention": run_attention, "xent": run_xent, "sgd": run_sgd, "adam": run_adam,
}


def main():
    torch.set_num_threads(1)
    d = sys.argv[1]
    for spec in sys.argv[2:]:
        c = Case(d, spec)
        RUN[c.kind](c)
    return 0


if __name__ == "__main__":
    sys.exit(main())
