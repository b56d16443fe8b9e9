#!/usr/bin/env bash
# scripts/gpu_bundle.sh [BUNDLE_DIR]: the GPU checks' programs, built here
# (a machine with the CUDA toolkit but maybe no GPU) for a GPU machine that
# has the CUDA driver and libraries but none of ddplab's other dependencies,
# and that nothing can be installed on.
#
# It builds build-gpu (RelWithDebInfo as CI, stripped; CUDA on; the views, PNG and MPI off: the
# checks need none of them), then packs into BUNDLE_DIR (default
# gpu-bundle, ignored by git) one archive, ddplab-gpu.tar.xz, holding
#   ddplab, lib/ddplab/ddplab-cuda.so (the CUDA backend's plugin, where
#   the program looks for it: beside itself, in lib/ddplab/),
#   bench/nccl_allreduce, tests/<every test labelled cuda>,
#   cuda-tests.list (each of those tests' command line),
#   lib/<every shared library they load, but glibc's and CUDA's own>
# and prints its size. scripts/gpu_check.sh unpacks and runs it there; the
# archive and that script are all that needs to travel:
#   scripts/gpu_bundle.sh && <on the GPU machine> scripts/gpu_check.sh gpu-bundle
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-gpu-bundle}
build=build-gpu

echo "== building $build (CUDA on; views, PNG and MPI off)"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDDPLAB_WERROR=ON -DDDPLAB_CUDA=ON \
    -DDDPLAB_SDL=OFF -DDDPLAB_NCURSES=OFF -DDDPLAB_PNG=OFF -DCMAKE_DISABLE_FIND_PACKAGE_MPI=ON \
    >"$build.configure.log" 2>&1 || { cat "$build.configure.log" >&2; exit 1; }
grep -q "CUDA backend: toolkit" "$build.configure.log" ||
    { echo "gpu_bundle: the build found no CUDA toolkit with cuBLAS and NCCL" >&2; exit 1; }
# the tests labelled cuda (but the script, which runs from the source tree):
# one line each, "name<TAB>command<TAB>arguments...", with this build's and
# this source tree's paths written @B@ and @S@
abs_build=$(cd "$build" && pwd) abs_src=$(pwd)
# ctest names a test's command only once its program is built: build the
# tests labelled cuda (each test's target has its name) first
mapfile -t names < <(ctest --test-dir "$build" -N -L cuda --show-only=json-v1 2>/dev/null |
    python3 -c 'import json, sys
print("\n".join(t["name"] for t in json.load(sys.stdin)["tests"]))')
targets=$(cmake --build "$build" --target help | sed -n 's/^\.\.\. \([A-Za-z0-9_]*\).*/\1/p')
build_targets=(ddplab ddplab_cuda_plugin nccl_allreduce)
for n in "${names[@]}"; do grep -qx "$n" <<<"$targets" && build_targets+=("$n"); done
cmake --build "$build" -j"$(nproc)" --target "${build_targets[@]}"
ctest --test-dir "$build" -N -L cuda --show-only=json-v1 2>/dev/null |
    B="$abs_build" S="$abs_src" python3 -c 'import json, os, sys
B, S = os.environ["B"], os.environ["S"]
for t in json.load(sys.stdin)["tests"]:
    if "command" not in t:
        sys.exit("gpu_bundle: no program for the test " + t["name"])
    cmd = [c.replace(B, "@B@").replace(S, "@S@") for c in t["command"]]
    if cmd[0].endswith(".sh"):
        continue
    print("\t".join([t["name"]] + cmd))' >"$build/cuda-tests.list"
mapfile -t tests < <(cut -f2 "$build/cuda-tests.list" | grep '^@B@/tests/' | sed 's|^@B@/tests/||' |
    sort -u)

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bench" "$stage/tests" "$stage/lib/ddplab"
cp "$build/ddplab" "$stage/"
cp "$build/lib/ddplab/ddplab-cuda.so" "$stage/lib/ddplab/"
cp "$build/cuda-tests.list" "$stage/"
cp "$build/bench/nccl_allreduce" "$stage/bench/"
for t in "${tests[@]}"; do cp "$build/tests/$t" "$stage/tests/"; done
strip --strip-unneeded "$stage/ddplab" "$stage/lib/ddplab/"* "$stage/bench/"* "$stage/tests/"*
# every library they load, but the C library's and the CUDA driver's and
# toolkit's (there: the driver and the toolkit of the machine itself)
ldd "$stage/ddplab" "$stage/lib/ddplab/"* "$stage/bench/"* "$stage/tests/"* |
    awk '/=> \// {print $3}' | sort -u |
    grep -Ev '/(libc|libm|libpthread|libdl|librt|ld-linux[^/]*|libcuda|libcudart|libcublas|libcublasLt|libnccl|libnvrtc|libnvJitLink)\.so' |
    while read -r lib; do cp -L "$lib" "$stage/lib/"; done
mkdir -p "$out"
tar -C "$stage" -cJf "$out/ddplab-gpu.tar.xz" .
{
    echo "built $(date -u +%Y-%m-%dT%H:%MZ) from $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
    echo "programs: ddplab lib/ddplab/ddplab-cuda.so bench/nccl_allreduce ${tests[*]}"
    echo "libraries: $(find "$stage/lib" -maxdepth 1 -type f -printf '%f\n' | sort | tr '\n' ' ')"
} >"$out/MANIFEST"
echo "gpu_bundle: $out/ddplab-gpu.tar.xz, $(du -h "$out/ddplab-gpu.tar.xz" | cut -f1) (${#tests[@]} tests, $(find "$stage/lib" -maxdepth 1 -type f | wc -l) libraries)"
