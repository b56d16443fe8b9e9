#!/bin/sh
# tests/run_mpi.sh NP COMMAND [ARGS...]: runs COMMAND as a world of NP
# processes under mpirun, for the tests of `--rendezvous mpi`, and exits with
# mpirun's code (124 when the world ran past RUN_MPI_TIMEOUT seconds, 100:
# below the tests' ctest TIMEOUT, so that mpirun still ends its processes).
# Exits 77 (ctest: skipped) when the test cannot say anything
# here: no mpirun on the PATH, or an mpirun that cannot start NP processes
# of `true` (a container without the shared memory or the process limits
# it needs).
#
# Open MPI gets what bench/allreduce_vs_mpi.sh gives it: root allowed (CI
# containers), more processes than cores, and the shared-memory transport,
# which Open MPI 4 calls "vader" and Open MPI 5 "sm" (ompi_info says which
# this one has). Another MPI (MPICH's Hydra) gets plain `mpirun -np NP`.
set -u
np=${1:?usage: run_mpi.sh NP COMMAND [ARGS...]}
shift
[ $# -ge 1 ] || { echo "usage: run_mpi.sh NP COMMAND [ARGS...]" >&2; exit 2; }

if ! command -v mpirun >/dev/null 2>&1; then
    echo "SKIP: no mpirun on the PATH (apt-get install openmpi-bin)"
    exit 77
fi
openmpi=0 btl=sm
if mpirun --version 2>/dev/null | grep -q "Open MPI"; then
    openmpi=1
    if command -v ompi_info >/dev/null 2>&1 &&
        ompi_info --parsable 2>/dev/null | grep -q '^mca:btl:vader:'; then
        btl=vader
    fi
fi

# launch SECONDS COMMAND...: COMMAND as np processes, ended (mpirun and with
# it every process) after SECONDS, so that a hang fails before ctest's own
# TIMEOUT, which might leave the processes behind.
launch() {
    limit=$1
    shift
    if [ "$openmpi" = 1 ]; then
        timeout "$limit" mpirun --allow-run-as-root --oversubscribe --mca pml ob1 \
            --mca btl "self,$btl" -np "$np" "$@"
    else
        timeout "$limit" mpirun -np "$np" "$@"
    fi
}

# The world is mpirun's: a torchrun's variables left in the environment
# would take precedence over mpirun's in ddplab's identity (cuda_rdzv.h).
unset RANK WORLD_SIZE LOCAL_RANK LOCAL_WORLD_SIZE
# In an AddressSanitizer build: Open MPI leaves allocations behind, many
# made by plugins it unloads in MPI_Finalize (LeakSanitizer then sees an
# <unknown module>, which no suppression can name), so leak checking is off
# for the world's processes; ASan's other checks, and the caller's options,
# stay. (The processes run here, so mpirun passes the environment on.)
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

if ! out=$(launch 60 true 2>&1 </dev/null); then
    echo "SKIP: mpirun cannot start $np processes here:"
    printf '%s\n' "$out" | tail -n 5
    exit 77
fi
launch "${RUN_MPI_TIMEOUT:-100}" "$@" </dev/null
