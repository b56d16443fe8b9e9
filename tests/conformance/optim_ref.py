"""PyTorch reference for tests/test_optim_torch.c.

Reads, from the directory given as the only argument (raw little-endian
arrays written by the C test):
  layout.txt   "nparams P N", then one line per parameter: "numel ndim d0 d1 ..."
  p0.bin       float32 [P]        initial parameters, back to back
  grads.bin    float32 [N, P]     the gradient of every step
  grads_bad.bin  float32 [N, P]   the same with some inf and NaN (cases with bad=1)
  mask.bin     uint8   [N, nparams]  0: the parameter has no gradient (grad None)
  cases.txt    one case per line, "key=value" words (see run_case)
  cast_in.bin  float32 [K]        values to round to fp16 and back
and writes, for case k: k_params.bin (float32 [P]), k_norms.bin (float32 [N],
clip_grad_norm_'s return value), k_lrs.bin (float64 [N], the lr of each step),
k_lrs_builtin.bin (float64 [N], the same from torch's built-in schedulers),
k_state.bin (float32 [nstate, P], zeros where a parameter has no state),
k_steps.bin (int64 [nparams]), k_scale.bin (float32 [N], loss scale after each
update), k_tracker.bin (int32 [N]), k_stepped.bin (uint8 [N]); and
cast_out.bin (float32 [K]).

The optimizers, LambdaLR and clip_grad_norm_ are torch's own. GradScaler is
not: torch 1.13's torch.cuda.amp.GradScaler disables itself without CUDA
(and its _amp_update_scale_ / _amp_foreach_non_finite_check_and_unscale_
kernels exist only for CUDA), so an enabled scaler is re-implemented here
from its documented rule and its CUDA kernel: inv_scale =
scale.double().reciprocal().float(); found_inf if any gradient is not finite;
gradients *= inv_scale; step skipped on found_inf; update: backoff, or growth
after growth_interval good steps, kept only if finite. A disabled scaler
(enabled=0) is torch's own GradScaler(enabled=False).
"""
import sys
import warnings

import numpy as np
import torch

import common  # shared with train_ref.py, from this directory


def read(d, name, dtype, shape):
    return np.fromfile(f"{d}/{name}", dtype=dtype).reshape(shape)


def lr_factor(c, s):
    return common.lr_factor(c["sched"], c["warmup"], c["total"], c["lr"], c["min_lr"], s)


def builtin_lrs(c, N):
    """The same schedule from torch's own schedulers, for steps 0..N-1:
    warmup = LinearLR(start_factor=1/warmup, total_iters=warmup-1), then
    CosineAnnealingLR(T_max=total-warmup, eta_min=min_lr) or
    LinearLR(1, min_lr/lr, total-warmup), chained by SequentialLR. (Past
    total, CosineAnnealingLR rises again; ddplab stays at min_lr.)"""
    sched = torch.optim.lr_scheduler
    opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=c["lr"])
    parts = []
    if c["warmup"] > 0:
        parts.append(sched.LinearLR(opt, start_factor=1 / c["warmup"], end_factor=1.0,
                                    total_iters=c["warmup"] - 1))
    if c["sched"] == "cosine":
        parts.append(sched.CosineAnnealingLR(opt, T_max=c["total"] - c["warmup"],
                                             eta_min=c["min_lr"]))
    elif c["sched"] == "linear":
        parts.append(sched.LinearLR(opt, start_factor=1.0, end_factor=c["min_lr"] / c["lr"],
                                    total_iters=c["total"] - c["warmup"]))
    chain = None
    if len(parts) == 2:
        chain = sched.SequentialLR(opt, parts, milestones=[c["warmup"]])
    elif parts:
        chain = parts[0]
    lrs = np.zeros(N, np.float64)
    for s in range(N):
        lrs[s] = opt.param_groups[0]["lr"]
        opt.step()
        if chain is not None:
            chain.step()
    return lrs


def make_optimizer(c, params):
    kind = c["kind"]
    if kind == "sgd":
        return torch.optim.SGD(params, lr=c["lr"], momentum=c["momentum"],
                               dampening=c["dampening"], nesterov=bool(c["nesterov"]),
                               weight_decay=c["wd"])
    cls = torch.optim.Adam if kind == "adam" else torch.optim.AdamW
    return cls(params, lr=c["lr"], betas=(c["beta1"], c["beta2"]), eps=c["eps"],
               weight_decay=c["wd"])


def update_rule(scale, tracker, found, c):
    # torch's _amp_update_scale_ CUDA kernel: fp32 scale times a double factor.
    if found:
        return float(np.float32(scale * c["backoff"])), 0
    successful = tracker + 1
    if successful == c["growth_interval"]:
        grown = np.float32(scale * c["growth"])
        return (float(grown) if np.isfinite(grown) else scale), 0
    return scale, successful


def run_case(d, k, c, layout, p0, grads, mask):
    shapes, offs = layout
    grads = grads[1] if c["bad"] else grads[0]
    N = grads.shape[0]
    params = []
    for (numel, shape), off in zip(shapes, offs):
        t = torch.from_numpy(p0[off:off + numel].copy()).reshape(shape)
        params.append(torch.nn.Parameter(t))
    opt = make_optimizer(c, params)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: lr_factor(c, s))
    scaler_on = c["scaler"] and c["enabled"]
    torch_scaler = None
    if c["scaler"] and not c["enabled"]:
        torch_scaler = torch.cuda.amp.GradScaler(enabled=False)
    scale, tracker = (float(np.float32(c["init_scale"])) if scaler_on else 1.0), 0
    norms = np.zeros(N, np.float32)
    lrs = np.zeros(N, np.float64)
    scales = np.zeros(N, np.float32)
    trackers = np.zeros(N, np.int32)
    stepped = np.zeros(N, np.uint8)
    steps = np.zeros(len(params), np.int64)
    for s in range(N):
        factor = torch.tensor(scale, dtype=torch.float32) if scaler_on else None
        if torch_scaler is not None:
            factor = torch_scaler.scale(torch.tensor(1.0, dtype=torch.float32))
        for i, p in enumerate(params):
            if not mask[s, i]:
                p.grad = None
                continue
            numel, shape = shapes[i]
            g = torch.from_numpy(grads[s, offs[i]:offs[i] + numel].copy()).reshape(shape)
            p.grad = g * factor if factor is not None else g
        with_grad = [p for p in params if p.grad is not None]
        found = False
        if scaler_on:  # unscale_
            inv = torch.tensor(scale, dtype=torch.float32).double().reciprocal().float()
            for p in with_grad:
                found = found or not bool(torch.isfinite(p.grad).all())
                p.grad.mul_(inv)
        lrs[s] = opt.param_groups[0]["lr"]
        if c["clip"] > 0:
            norms[s] = float(torch.nn.utils.clip_grad_norm_(params, c["clip"]))
        if torch_scaler is not None:
            torch_scaler.step(opt)
            torch_scaler.update()
            scale = torch_scaler.get_scale()
            stepped[s] = 1
        elif not found:
            opt.step()
            stepped[s] = 1
        if scaler_on:
            scale, tracker = update_rule(scale, tracker, found, c)
        if stepped[s]:
            steps += mask[s].astype(np.int64)
        scales[s], trackers[s] = scale, tracker
        sched.step()
    write_results(d, k, c, opt, params, offs, shapes, steps, norms, lrs, scales, trackers, stepped)


def write_results(d, k, c, opt, params, offs, shapes, steps, norms, lrs, scales, trackers,
                  stepped):
    P = sum(n for n, _ in shapes)
    if c["kind"] == "sgd":
        names = ["momentum_buffer"] if c["momentum"] != 0 else []
    else:
        names = ["exp_avg", "exp_avg_sq"]
    state = np.zeros((len(names), P), np.float32)
    for i, p in enumerate(params):
        st = opt.state.get(p, {})
        for j, name in enumerate(names):
            if st.get(name) is not None:
                state[j, offs[i]:offs[i] + shapes[i][0]] = st[name].detach().numpy().ravel()
        if c["kind"] != "sgd" and "step" in st:
            assert int(st["step"]) == steps[i], (int(st["step"]), steps[i])
    flat = np.concatenate([p.detach().numpy().ravel() for p in params]).astype(np.float32)
    flat.tofile(f"{d}/{k}_params.bin")
    norms.tofile(f"{d}/{k}_norms.bin")
    lrs.tofile(f"{d}/{k}_lrs.bin")
    builtin_lrs(c, len(lrs)).tofile(f"{d}/{k}_lrs_builtin.bin")
    state.tofile(f"{d}/{k}_state.bin")
    steps.tofile(f"{d}/{k}_steps.bin")
    scales.tofile(f"{d}/{k}_scale.bin")
    trackers.tofile(f"{d}/{k}_tracker.bin")
    stepped.tofile(f"{d}/{k}_stepped.bin")


def parse_case(line):
    c = {}
    for word in line.split():
        key, value = word.split("=", 1)
        c[key] = value if key in ("kind", "sched", "name") else float(value)
    for key in ("nesterov", "warmup", "total", "mask", "bad", "scaler", "enabled",
                "growth_interval"):
        c[key] = int(c[key])
    return c


def main():
    d = sys.argv[1]
    torch.set_num_threads(1)
    warnings.simplefilter("ignore")  # GradScaler's "CUDA is not available" warning
    lines = open(f"{d}/layout.txt").read().split("\n")
    nparams, P, N = (int(x) for x in lines[0].split())
    shapes, offs, off = [], [], 0
    for line in lines[1:1 + nparams]:
        f = [int(x) for x in line.split()]
        shapes.append((f[0], tuple(f[2:2 + f[1]])))
        offs.append(off)
        off += f[0]
    p0 = read(d, "p0.bin", np.float32, (P,))
    grads = (read(d, "grads.bin", np.float32, (N, P)), read(d, "grads_bad.bin", np.float32, (N, P)))
    mask = read(d, "mask.bin", np.uint8, (N, nparams))
    ones = np.ones_like(mask)
    for k, line in enumerate(l for l in open(f"{d}/cases.txt").read().split("\n") if l.strip()):
        c = parse_case(line)
        run_case(d, k, c, (shapes, offs), p0, grads, mask if c["mask"] else ones)
    vals = torch.from_numpy(np.fromfile(f"{d}/cast_in.bin", dtype=np.float32))
    vals.half().float().numpy().tofile(f"{d}/cast_out.bin")


if __name__ == "__main__":
    main()
