#!/bin/sh
# tests/test_cuda_rdzv_mpi_nogpu.sh DDPLAB: `ddplab run --backend cuda
# --rendezvous mpi` as a world of 2 processes under mpirun (run_mpi.sh), on
# a machine without a GPU: every process stops with the no-GPU line and
# exit 4 before it calls MPI, so none is left waiting for the other in a
# broadcast and mpirun ends with 4. Skipped (77) with a GPU, or where
# mpirun cannot run here.
set -u
ddplab=${1:?usage: test_cuda_rdzv_mpi_nogpu.sh DDPLAB}
here=$(dirname "$0")
if out=$("$ddplab" run --backend cuda --steps 1 2>&1); then
    echo "SKIP: a GPU is present: $out" | tail -n 1
    exit 77
fi
out=$(sh "$here/run_mpi.sh" 2 "$ddplab" run --backend cuda -n 2 --rendezvous mpi \
    --strategy ddp --steps 1 2>&1)
rc=$?
[ "$rc" -eq 77 ] && { printf '%s\n' "$out"; exit 77; }
nogpu="^ddplab run: cannot start the ranks: backend cuda: no CUDA device"
lines=$(printf '%s\n' "$out" | grep -c "$nogpu")
if [ "$rc" -ne 4 ] || [ "$lines" -ne 2 ]; then
    echo "FAILED: exit $rc (want 4), $lines no-GPU lines (want 2, one a process):"
    printf '%s\n' "$out"
    exit 1
fi
echo "ok: both processes said there is no GPU, and mpirun exited 4"
