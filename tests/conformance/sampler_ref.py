"""Reference batches from PyTorch's DistributedSampler and DataLoader.

Usage: sampler_ref.py DIR

Reads DIR/cases.i64: int64 rows [N, R, B, drop_last, drop_last_batch,
shuffle, seed, epoch]. For every case and every rank r in 0..R-1 it builds
DistributedSampler(range(N), num_replicas=R, rank=r, shuffle, seed,
drop_last), calls set_epoch(epoch), iterates
DataLoader(batch_size=B, drop_last=drop_last_batch, sampler=...) and appends
to DIR/batches.i64: the number of batches, then for each batch its size
followed by its indices.
"""
import sys

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, DistributedSampler


class Indices(Dataset):
    """Sample i is the number i, so a batch is the list of its indices."""

    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return i


def main():
    d = sys.argv[1]
    cases = np.fromfile(d + "/cases.i64", dtype="<i8").reshape(-1, 8)
    out = []
    for n, r, b, drop_last, drop_last_batch, shuffle, seed, epoch in cases.tolist():
        ds = Indices(n)
        for rank in range(r):
            s = DistributedSampler(ds, num_replicas=r, rank=rank, shuffle=bool(shuffle),
                                   seed=seed, drop_last=bool(drop_last))
            s.set_epoch(epoch)
            batches = [x.tolist() for x in
                       DataLoader(ds, batch_size=b, sampler=s, drop_last=bool(drop_last_batch))]
            out.append(len(batches))
            for x in batches:
                out.append(len(x))
                out.extend(x)
    np.asarray(out, dtype="<i8").tofile(d + "/batches.i64")
    return 0


if __name__ == "__main__":
    torch.set_num_threads(1)
    sys.exit(main())
