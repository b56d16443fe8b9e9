"""What init_process_group(init_method="env://") does in PyTorch itself when
every process reads RANK=0: WORLD processes on this host, gloo, each given
RANK=0 and WORLD_SIZE=WORLD, as a SLURM batch script that exported
RANK=$SLURM_PROCID once makes them.

    launch_ref.py OUTDIR WORLD TIMEOUT_S

Writes OUTDIR/fates.bin: int32 [WORLD], each process's fate in the order
they were started: 0 joined the group, 1 failed to bind MASTER_PORT
("Address already in use"), 2 timed out waiting for the others, 3 anything
else (its message on stderr)."""
import datetime
import os
import socket
import subprocess
import sys

import numpy as np


def worker(timeout):
    import torch.distributed as dist
    try:
        dist.init_process_group("gloo", init_method="env://",
                                timeout=datetime.timedelta(seconds=timeout))
    except RuntimeError as e:
        msg = str(e)
        if "Address already in use" in msg:
            return 1
        if "imeout" in msg or "imed out" in msg:
            return 2
        print(f"launch_ref: {msg}", file=sys.stderr)
        return 3
    dist.destroy_process_group()
    return 0


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    if sys.argv[1] == "worker":
        sys.exit(10 + worker(float(sys.argv[2])))
    outdir, world, timeout = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(free_port()),
               RANK="0", WORLD_SIZE=str(world), GLOO_SOCKET_IFNAME="lo",
               OMP_NUM_THREADS="1")
    procs = [subprocess.Popen([sys.executable, os.path.abspath(__file__), "worker",
                               str(timeout)], env=env) for _ in range(world)]
    fates = []
    for p in procs:
        try:
            rc = p.wait(timeout=timeout + 60)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            rc = 13
        fates.append(rc - 10 if 10 <= rc <= 13 else 3)
    np.array(fates, dtype="<i4").tofile(os.path.join(outdir, "fates.bin"))


if __name__ == "__main__":
    main()
