"""Pieces the conformance scripts share: ddplab's learning-rate factor.

Imported by optim_ref.py and train_ref.py from their own directory (Python
puts a script's directory first on sys.path), so it needs no torch.
"""
import math


def lr_factor(schedule, warmup, total, base, min_lr, s):
    """sim/model/lr_schedule.c's factor of step s (0-based), in double and in the
    same order of operations: linear warmup over `warmup` steps, then
    constant, cosine or linear decay to min_lr / base at step `total`."""
    if s < warmup:
        return (s + 1) / warmup
    if schedule == "constant":
        return 1.0
    m = min_lr / base if base > 0 else 0.0
    span = total - warmup
    p = (s - warmup) / span if span > 0 else 1.0
    if p > 1.0:
        p = 1.0
    if schedule == "cosine":
        return m + (1.0 - m) * 0.5 * (1.0 + math.cos(math.pi * p))
    return m + (1.0 - m) * (1.0 - p)
