"""Pieces the conformance scripts share: ddplab's learning-rate factor, and
a launcher of gloo worker processes that a deadline bounds.

Imported by the scripts from their own directory (Python puts a script's
directory first on sys.path), so it needs no torch.
"""
import math
import os
import subprocess
import sys
import time


def launch_workers(script, world, timeout, args, env=None, tag="ref"):
    """Runs `python3 SCRIPT worker RANK WORLD TIMEOUT ARGS...` for every rank
    (loopback only, one thread each, `env` added to the environment), waits
    at most `timeout` seconds for all of them and kills whatever still runs
    then, so that a hang is a failure and never a stuck test. 0 when every
    worker exited 0."""
    full = dict(os.environ, GLOO_SOCKET_IFNAME="lo", OMP_NUM_THREADS="1",
                OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1", **(env or {}))
    procs = [subprocess.Popen([sys.executable, os.path.abspath(script), "worker", str(r),
                               str(world), str(timeout)] + list(args), env=full)
             for r in range(world)]
    deadline = time.monotonic() + timeout
    status = 0
    try:
        for r, p in enumerate(procs):
            try:
                rc = p.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                print(f"{tag}: rank {r} still running after {timeout} s: killed",
                      file=sys.stderr)
                rc = 124
            if rc != 0:
                print(f"{tag}: rank {r} exited with {rc}", file=sys.stderr)
                status = status or rc
                break  # the others would wait on it: end them all now
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    return 1 if status else 0


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
