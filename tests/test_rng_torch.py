"""`ddplab run --rng torch --seed S` against a PyTorch script that calls
torch.manual_seed(S), builds the same nn.Sequential and trains it under
DistributedDataParallel (gloo, R processes) on DistributedSampler(shuffle=True,
seed=S) batches: tests/conformance/rng_torch_ref.py. The script gets nothing
from ddplab but the dataset (--save-data DIR: X.npy, y.npy), so equal numbers
mean that the two drew the same initial weights and visited the same
samples in the same order.

For each case:
  1. ddplab writes its initial weights (--steps 1 --lr 0 --save init.st);
     they must equal the weights torch built, bit for bit;
  2. ddplab trains (--strategy ddp -n R --rng torch --metrics --save);
  3. rng_torch_ref.py trains the same in R processes;
  4. every step's loss (rank 0's, and the all-reduced average ddplab logs)
     and the final parameters and running statistics must agree within the
     tolerances of the other DDP conformance test (tests/test_ddp_torch.c).
The cases: R = 2 and 3, Linear/ReLU, BatchNorm1d, GELU with mse, MiniGPT
(nn.Embedding's normal_, tokens.npy windows), a seed
above 2^32 (only its low 32 bits seed mt19937, in both), epochs that
DistributedSampler pads, short last batches. (The BatchNorm case has no
short batch: BatchNorm1d over 2 samples turns the last-bit differences of
the ranks' summation order into 1e-5 of the loss within a few steps.)
Last, the DDP lesson's PyTorch script (lessons/06-ddp-internals.md, "The
same run in PyTorch") runs beside the lesson's ddplab block: the same step
lines, the same losses.

Usage: test_rng_torch.py DDPLAB TESTS_DIR
First, without torch: --save-data's files (read by hand), a resumed
--rng torch run against one straight through, and the refusals of another
generator on resume and of an unknown --rng (exit 2, one line). Then exits 77
(skipped) when the python with torch (DDPLAB_PYTHON, default
/usr/bin/python3) cannot import torch and numpy. Needs no numpy itself.
"""
import array
import json
import math
import os
import re
import shlex
import struct
import subprocess
import sys
import tempfile

LOSS_TOL = 1e-5     # every step, relative to max(|torch's|, LOSS_FLOOR): a loss near 0
LOSS_FLOOR = 1e-2   # is a sum of tiny terms that the last bits of the weights move
NORM_TOL = 1e-5     # relative 2-norm of each parameter's difference
ELEM_TOL = 1e-5     # each element, relative to max(|torch's|, PARAM_FLOOR)
PARAM_FLOOR = 1e-2
TORCH_TIMEOUT_S = 150
DDPLAB_TIMEOUT_S = 60

# ranks, model, data, seed, batch, steps
CASES = [
    (2, "mlp:8,32,32,4", "blobs:n=91,features=8,classes=4,noise=2", 3, 8, 14),
    (3, "mlp:8,16,16,3,bn", "blobs:n=52,features=8,classes=3", 0, 6, 9),
    (2, "mlp:6,24,2,act=gelu,mse", "teacher:n=40,features=6,targets=2", 12345678901, 6, 10),
    (3, "mlp:5,12,12,12,2", "blobs:n=64,features=5,classes=2,noise=2,spread=1", 7, 4, 12),
    (2, "gpt:layers=2,embd=32,heads=4,ctx=16,vocab=13", "arith:lines=20", 5, 8, 12),
    (3, "gpt:layers=1,embd=8,heads=2,ctx=8,vocab=13", "arith:lines=12", 11, 5, 8),
]


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def read_f32(path):
    a = array.array("f")
    with open(path, "rb") as f:
        a.frombytes(f.read())
    return list(a)


def read_safetensors(path):
    """{name: list of floats} of the F32 tensors without a '/': the model's
    parameters and float buffers (num_batches_tracked is I64, left out)."""
    raw = open(path, "rb").read()
    (hlen,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + hlen])
    header.pop("__metadata__", None)
    data = raw[8 + hlen:]
    out = {}
    for name, e in header.items():
        if "/" in name or e["dtype"] != "F32":
            continue
        b, end = e["data_offsets"]
        a = array.array("f")
        a.frombytes(data[b:end])
        out[name] = list(a)
    return out


def ddplab(exe, args, cwd):
    p = subprocess.run([exe, "run"] + args, cwd=cwd, capture_output=True, text=True,
                       timeout=DDPLAB_TIMEOUT_S)
    if p.returncode != 0:
        fail(f"ddplab run {' '.join(args)} exited {p.returncode}: {p.stderr.strip()}")


def metrics(path):
    avg, rank0 = [], []
    for line in open(path):
        j = json.loads(line)
        avg.append(j["loss"])
        rank0.append(j.get("loss_rank0", j["loss"]))
    return avg, rank0


def rel(a, b, floor):
    return abs(a - b) / max(abs(b), floor)


def compare_losses(what, kind, ours, ref):
    if len(ours) != len(ref):
        fail(f"{what}: {len(ours)} {kind} losses from ddplab, {len(ref)} from torch")
    for s, (a, b) in enumerate(zip(ours, ref)):
        if rel(a, b, LOSS_FLOOR) > LOSS_TOL:
            fail(f"{what}: {kind} loss of step {s + 1}: ddplab {a:.9g}, torch {b:.9g}")
    return max(rel(a, b, LOSS_FLOOR) for a, b in zip(ours, ref))


def compare_params(what, ours, d, prefix, exact):
    worst = 0.0
    for name, mine in ours.items():
        ref = read_f32(f"{d}/{prefix}{name}.f32")
        if len(ref) != len(mine):
            fail(f"{what}: {name} has {len(mine)} values in ddplab, {len(ref)} in torch")
        if exact:
            bad = [i for i, (a, b) in enumerate(zip(mine, ref)) if a != b]
            if bad:
                i = bad[0]
                fail(f"{what}: initial {name}[{i}]: ddplab {mine[i]!r}, torch {ref[i]!r} "
                     f"({len(bad)} of {len(ref)} values differ)")
            continue
        diff = math.sqrt(sum((a - b) ** 2 for a, b in zip(mine, ref)))
        norm = math.sqrt(sum(b * b for b in ref))
        if diff > NORM_TOL * max(norm, PARAM_FLOOR):
            fail(f"{what}: final {name}: relative norm of the difference {diff / norm:.3g}")
        for i, (a, b) in enumerate(zip(mine, ref)):
            if rel(a, b, PARAM_FLOOR) > ELEM_TOL:
                fail(f"{what}: final {name}[{i}]: ddplab {a:.9g}, torch {b:.9g}")
            worst = max(worst, rel(a, b, PARAM_FLOOR))
    return worst


def run_case(exe, ref_script, python, top, k, case):
    ranks, spec, data, seed, batch, steps = case
    what = f"R={ranks} {spec} seed {seed}"
    d = os.path.join(top, f"case{k}")
    os.mkdir(d)
    common = ["--strategy", "ddp", "-n", str(ranks), "--rng", "torch", "--seed", str(seed),
              "--data", data, "--model", spec, "--batch", str(batch), "--lr", "0.1",
              "--momentum", "0.9"]
    ddplab(exe, common + ["--steps", "1", "--lr", "0", "--save", "init.st",
                          "--save-data", "data"], d)
    ddplab(exe, common + ["--steps", str(steps), "--metrics", "m.jsonl", "--save", "final.st"],
           d)
    with open(f"{d}/case.txt", "w") as f:
        f.write(f"spec={spec}\ndata={d}/data\nseed={seed}\nbatch={batch}\nsteps={steps}\n"
                f"lr=0.1\nmomentum=0.9\nmse={1 if 'mse' in spec else 0}\n")
    p = subprocess.run([python, ref_script, str(ranks), str(TORCH_TIMEOUT_S), d],
                       capture_output=True, text=True, timeout=TORCH_TIMEOUT_S + 30)
    sys.stdout.write(p.stdout)
    if p.returncode != 0:
        fail(f"{what}: rng_torch_ref.py exited {p.returncode}: {p.stderr.strip()}")
    # init.st is written after one step at lr 0: the parameters are the
    # initial ones, BatchNorm's running statistics have seen one batch.
    init = {k: v for k, v in read_safetensors(f"{d}/init.st").items() if ".running_" not in k}
    compare_params(what, init, d, "ref_init.", exact=True)
    avg, rank0 = metrics(f"{d}/m.jsonl")
    l0 = compare_losses(what, "rank 0's", rank0, read_f32(f"{d}/ref_losses.f32"))
    la = compare_losses(what, "all-reduced", avg, read_f32(f"{d}/ref_losses_avg.f32"))
    pw = compare_params(what, read_safetensors(f"{d}/final.st"), d, "ref.", exact=False)
    print(f"ok: {what}: initial weights identical; {steps} losses within {max(l0, la):.2g} "
          f"(relative); final parameters within {pw:.2g}")


def read_npy(path):
    """(descr, shape, raw data) of a version 1.0 .npy file, read by hand."""
    raw = open(path, "rb").read()
    if raw[:8] != b"\x93NUMPY\x01\x00":
        fail(f"{path}: not a version 1.0 .npy file")
    (hlen,) = struct.unpack("<H", raw[8:10])
    header = eval(raw[10:10 + hlen].decode("latin1"), {"__builtins__": {}})  # a dict literal
    return header["descr"], header["shape"], raw[10 + hlen:]


def check_cli(exe, top):
    """What needs no torch: --save-data's files, and the refusals."""
    d = os.path.join(top, "cli")
    os.mkdir(d)
    ddplab(exe, ["--data", "blobs:n=20,features=3,classes=2", "--batch", "4", "--steps", "1",
                 "--rng", "torch", "--save-data", "out"], d)
    descr, shape, data = read_npy(f"{d}/out/X.npy")
    if (descr, shape, len(data)) != ("<f4", (20, 3), 240):
        fail(f"--save-data: X.npy is {descr} {shape} with {len(data)} bytes")
    descr, shape, data = read_npy(f"{d}/out/y.npy")
    labels = struct.unpack("<20q", data)
    if (descr, shape) != ("<i8", (20,)) or not set(labels) <= {0, 1} or len(set(labels)) != 2:
        fail(f"--save-data: y.npy is {descr} {shape} holding {labels}")
    ddplab(exe, ["--data", "arith:lines=30", "--batch", "2", "--steps", "1",
                 "--save-data", "tok"], d)
    descr, shape, data = read_npy(f"{d}/tok/tokens.npy")
    if descr != "<i8" or len(shape) != 1 or len(data) != 8 * shape[0] or shape[0] < 100:
        fail(f"--save-data: tokens.npy is {descr} {shape} with {len(data)} bytes")
    # A resumed run keeps the generator: the same losses as one run straight
    # through (an epoch boundary falls between the checkpoint and the end),
    # and another --rng is refused.
    run = ["--rng", "torch", "--data", "blobs:n=40,features=4,classes=3", "--batch", "8",
           "-n", "2", "--strategy", "ddp", "--seed", "9"]
    ddplab(exe, run + ["--steps", "8", "--metrics", "whole.jsonl"], d)
    ddplab(exe, run + ["--steps", "8", "--stop-after", "3", "--save", "ck.st"], d)
    ddplab(exe, run + ["--steps", "8", "--resume", "ck.st", "--metrics", "rest.jsonl"], d)
    whole, rest = metrics(f"{d}/whole.jsonl")[0], metrics(f"{d}/rest.jsonl")[0]
    if rest != whole[3:]:
        fail(f"--rng torch --resume: losses {rest}, the run straight through {whole[3:]}")
    p = subprocess.run([exe, "run", "--resume", "ck.st"] + run[2:] + ["--steps", "8"], cwd=d,
                       capture_output=True, text=True, timeout=DDPLAB_TIMEOUT_S)
    if p.returncode != 2 or "--rng torch, this run has --rng ddplab" not in p.stderr:
        fail(f"--resume without --rng torch: exit {p.returncode}, stderr {p.stderr!r}")
    p = subprocess.run([exe, "run", "--steps", "1", "--rng", "numpy"], cwd=d,
                       capture_output=True, text=True, timeout=DDPLAB_TIMEOUT_S)
    lines = p.stderr.strip().split("\n")
    if p.returncode != 2 or len(lines) != 1 or not lines[0].startswith("ddplab run: --rng:"):
        fail(f"--rng numpy: exit {p.returncode}, stderr {p.stderr!r}")
    print("ok: --save-data writes X.npy, y.npy and tokens.npy; a resumed run keeps the "
          "generator; an unknown generator is refused")


LESSON = "06-ddp-internals.md"
LESSON_SECTION = "## The same run in PyTorch"


def lesson_blocks(path):
    """The ddplab command (its arguments after `run`) and the python script
    of the lesson's section LESSON_SECTION."""
    text = open(path).read()
    if LESSON_SECTION not in text:
        fail(f"{path}: no section '{LESSON_SECTION}'")
    part = text.split(LESSON_SECTION, 1)[1]
    cmd = part.split("```ddplab\n", 1)[1].split("\n```", 1)[0]
    script = part.split("```python\n", 1)[1].split("```", 1)[0]
    lines = cmd.split("\n")
    joined = ""
    for line in lines:
        joined += line.rstrip("\\") + " "
        if not line.endswith("\\"):
            break
    args = shlex.split(joined)
    if args[0] != "run":
        fail(f"{path}: the section's ddplab block runs '{args[0]}', not run")
    return args[1:], script


def step_lines(text):
    """[(step, epoch, loss)] of the lines 'step K/N | epoch E | loss X ...'."""
    out = []
    for line in text.split("\n"):
        m = re.match(r"step (\d+)/\d+ \| epoch (\d+) \| loss ([0-9.]+)", line)
        if m:
            out.append((int(m.group(1)), int(m.group(2)), float(m.group(3))))
    return out


def check_lesson(exe, tests, python, top):
    """The DDP lesson's PyTorch script prints the losses of its ddplab run."""
    path = os.path.join(tests, "..", "lessons", LESSON)
    args, script = lesson_blocks(path)
    d = os.path.join(top, "lesson")
    os.mkdir(d)
    p = subprocess.run([exe, "run"] + args, cwd=d, capture_output=True, text=True,
                       timeout=DDPLAB_TIMEOUT_S)
    if p.returncode != 0:
        fail(f"{LESSON}: the ddplab block exited {p.returncode}: {p.stderr.strip()}")
    ours = step_lines(p.stdout + p.stderr)
    with open(f"{d}/ddp_torch.py", "w") as f:
        f.write(script)
    env = dict(os.environ, GLOO_SOCKET_IFNAME="lo", OMP_NUM_THREADS="1")
    t = subprocess.run([python, "ddp_torch.py"], cwd=d, capture_output=True, text=True,
                       timeout=TORCH_TIMEOUT_S, env=env)
    if t.returncode != 0:
        fail(f"{LESSON}: the PyTorch script exited {t.returncode}: {t.stderr.strip()}")
    ref = step_lines(t.stdout)
    if not ours or [s[:2] for s in ours] != [s[:2] for s in ref]:
        fail(f"{LESSON}: ddplab printed steps {ours}, the script {ref}")
    # Six decimals: a difference of 1e-7 may still round the last one apart.
    same = sum(a[2] == b[2] for a, b in zip(ours, ref))
    for a, b in zip(ours, ref):
        if abs(a[2] - b[2]) > 1.5e-6:
            fail(f"{LESSON}: step {a[0]}: ddplab prints loss {a[2]}, the script {b[2]}")
    print(f"ok: {LESSON}: the PyTorch script prints the same {len(ref)} steps, "
          f"{same} losses identical to 6 decimals")


def main():
    if len(sys.argv) != 3:
        print("usage: test_rng_torch.py DDPLAB TESTS_DIR", file=sys.stderr)
        return 2
    exe, tests = os.path.abspath(sys.argv[1]), sys.argv[2]
    with tempfile.TemporaryDirectory(prefix="ddplab-rng-cli-") as top:
        check_cli(exe, top)
    python = os.environ.get("DDPLAB_PYTHON") or "/usr/bin/python3"
    try:
        probe = subprocess.run([python, "-c", "import torch, numpy"], capture_output=True)
    except OSError:
        print(f"SKIP: {python} not found (scripts/setup.sh installs python3-torch)")
        return 77
    if probe.returncode != 0:
        print(f"SKIP: {python} cannot import torch (scripts/setup.sh installs python3-torch)")
        return 77
    ref_script = os.path.join(tests, "conformance", "rng_torch_ref.py")
    with tempfile.TemporaryDirectory(prefix="ddplab-rng-torch-") as top:
        for k, case in enumerate(CASES):
            run_case(exe, ref_script, python, top, k, case)
        check_lesson(exe, tests, python, top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
