#!/usr/bin/env bash
# The whole test suite, from scratch: install what is needed, then
#  1. a warnings-as-errors build (with the CUDA backend when the toolkit is
#     present; GPU tests skip without a GPU) and every test;
#     Then, with CUDA, the GPU bundle (scripts/gpu_bundle.sh) and a rehearsal
#     of scripts/gpu_check.sh with it;
#  2. an AddressSanitizer + UndefinedBehaviorSanitizer build and every test;
#  3. a ThreadSanitizer build and the tests of the pthread backend (label cpu);
#  4. the fuzz targets (clang, libFuzzer) over their seed corpora, 15 s each.
# Sanitized runs use DDPLAB_TEST_QUICK=1, which shrinks the big test matrices
# (every kind of check still runs).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
jobs=$(nproc)

echo "== build (warnings are errors)"
scripts/build.sh build
ctest --test-dir build --output-on-failure -j"$jobs"

# The bundle a GPU machine without ddplab's dependencies runs, and a
# rehearsal of the script that runs it there (every part skips here).
if grep -q "CUDA backend: toolkit" build.configure.log; then
  echo "== GPU bundle (scripts/gpu_bundle.sh; scripts/gpu_check.sh rehearsed)"
  scripts/gpu_bundle.sh
  GPU_CHECK_DRY_RUN=1 scripts/gpu_check.sh gpu-bundle "$(mktemp -d)"
fi

echo "== ASan + UBSan"
scripts/build.sh build-asan -DDDPLAB_SANITIZE=address -DDDPLAB_CUDA=OFF -DCMAKE_BUILD_TYPE=Debug >/dev/null
DDPLAB_TEST_QUICK=1 DDPLAB_SANITIZED=1 ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j"$jobs" -LE cuda

echo "== TSan (pthread backend)"
scripts/build.sh build-tsan -DDDPLAB_SANITIZE=thread -DDDPLAB_CUDA=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
# TSan needs a fixed address-space layout on kernels with high mmap entropy.
run_tsan=()
if command -v setarch >/dev/null && setarch "$(uname -m)" -R true 2>/dev/null; then
  run_tsan=(setarch "$(uname -m)" -R)
fi
DDPLAB_TEST_QUICK=1 DDPLAB_SANITIZED=1 TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
  "${run_tsan[@]}" ctest --test-dir build-tsan --output-on-failure -j"$jobs" -L cpu

echo "== fuzzing (scripts/fuzz.sh: libFuzzer, 15 s per target; a finding fails the run)"
scripts/fuzz.sh 15
