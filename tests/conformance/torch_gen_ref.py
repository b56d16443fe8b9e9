"""PyTorch's draws for tests/test_torch_gen.c (torch mode).

Usage: torch_gen_ref.py DIR

Reads DIR/cases.i64: int64 rows [kind, seed, n] with kind 0 = uniform_ on a
float32 tensor of n elements between -b and b (b = 1 / sqrt(seed % 97 + 1),
the bound of a Linear with that fan_in, computed here as the test does),
1 = normal_() of n, 2 = normal_() of n twice in a row (the scalar path keeps
a value between calls), 3 = randperm(n) from a fresh Generator. Each case
calls torch.manual_seed(seed) (or Generator.manual_seed) first. Appends the
values to DIR/out.bin: float32 for kinds 0 to 2 (2n values for kind 2),
int64 for kind 3.
"""
import math
import sys

import numpy as np
import torch


def main():
    d = sys.argv[1]
    cases = np.fromfile(f"{d}/cases.i64", dtype=np.int64).reshape(-1, 3)
    with open(f"{d}/out.bin", "wb") as out:
        for kind, seed, n in cases.tolist():
            if kind == 3:
                g = torch.Generator()
                g.manual_seed(seed)
                out.write(torch.randperm(n, generator=g).numpy().astype(np.int64).tobytes())
                continue
            torch.manual_seed(seed)
            if kind == 0:
                b = 1.0 / math.sqrt(seed % 97 + 1)
                v = torch.empty(n).uniform_(-b, b)
            elif kind == 1:
                v = torch.empty(n).normal_()
            else:
                v = torch.cat([torch.empty(n).normal_(), torch.empty(n).normal_()])
            out.write(v.numpy().astype(np.float32).tobytes())
    return 0


if __name__ == "__main__":
    sys.exit(main())
