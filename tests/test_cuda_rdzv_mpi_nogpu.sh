#!/bin/sh
# tests/test_cuda_rdzv_mpi_nogpu.sh DDPLAB: `ddplab run --backend cuda
# --rendezvous mpi` as a world of 2 processes under mpirun (run_mpi.sh), on
# a machine without a GPU: every process stops with the no-GPU line and
# exit 4 before it calls MPI, so none is left waiting for the other in a
# broadcast. Each process says its own exit code: mpirun is told not to
# end the others when the first fails (on a busy machine it could end the
# second before that one printed its line), so every process is heard.
# Skipped (77) with a GPU, or where mpirun cannot run here.
set -u
ddplab=${1:?usage: test_cuda_rdzv_mpi_nogpu.sh DDPLAB}
here=$(dirname "$0")
if out=$("$ddplab" run --backend cuda --steps 1 2>&1); then
    echo "SKIP: a GPU is present: $out" | tail -n 1
    exit 77
fi
out=$(OMPI_MCA_orte_abort_on_non_zero_status=0 sh "$here/run_mpi.sh" 2 sh -c \
    '"$0" run --backend cuda -n 2 --rendezvous mpi --strategy ddp --steps 1; echo "process exit $?"' \
    "$ddplab" 2>&1)
rc=$?
[ "$rc" -eq 77 ] && { printf '%s\n' "$out"; exit 77; }
nogpu="^ddplab run: cannot start the ranks: backend cuda: no CUDA device"
lines=$(printf '%s\n' "$out" | grep -c "$nogpu")
fours=$(printf '%s\n' "$out" | grep -cx "process exit 4")
if [ "$rc" -eq 124 ] || [ "$fours" -ne 2 ] || [ "$lines" -ne 2 ]; then
    echo "FAILED: mpirun $rc, $fours processes exited 4 and $lines said there is no GPU (want 2 and 2):"
    printf '%s\n' "$out"
    exit 1
fi
echo "ok: both processes said there is no GPU and exited 4, none waited for the other"
