#!/usr/bin/env bash
# tests/test_cli_plugin.sh DDPLAB PLUGIN: the CUDA backend is a plugin that
# the program loads only when cuda is asked for (cli/core/backends.c):
#   a. the program links no CUDA library (cudart, cuBLAS, cuBLASLt, NCCL);
#   b. --help, a plan and a small cpu run load none either, nor the plugin
#      (the dynamic loader's own account, LD_DEBUG=files);
#   c. with DDPLAB_PLUGIN_DIR at an empty folder, run and bench on cuda stop
#      with exit 4 and one line naming the file tried, in dlerror's words;
#   d. where the plugin's libraries are all found, it loads (the program
#      exports all the plugin calls: no "undefined symbol") and stops only
#      for want of a GPU, or runs.
# PLUGIN is the plugin's path; empty in a build without CUDA: skipped (77).
set -u
if [ -z "${2:-}" ]; then
    echo "SKIP: this build has no CUDA backend"
    exit 77
fi
ddplab=$(realpath "$1") plugin=$(realpath "$2") || exit 1
fail=0
failed() { echo "FAILED: $*"; fail=1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/plugin_util.sh
. "$(dirname "$0")/plugin_util.sh"
cd "$tmp" || exit 1

# a. what the program links
libs='lib(cudart|cublas|cublasLt|nccl|cuda)\.so'
links_none CUDA "$libs"

# b. what it loads (loaded, tests/plugin_util.sh)
for cmd in "--help" "plan --model gpt2 -n 8" \
           "run --strategy ddp -n 4 --data blobs --model mlp:16,8,4 --steps 20"; do
    # shellcheck disable=SC2086 # the words of cmd are the command's
    files=$(loaded "$ddplab" $cmd)
    [ -n "$files" ] || failed "ddplab $cmd: LD_DEBUG=files listed no file"
    if bad=$(grep -E "$libs|ddplab-cuda" <<<"$files"); then
        failed "ddplab $cmd loaded $(tr '\n' ' ' <<<"$bad")"
    fi
done

# c. no plugin where DDPLAB_PLUGIN_DIR points
mkdir "$tmp/empty"
for cmd in "run --backend cuda --steps 1" "bench -B cuda"; do
    # shellcheck disable=SC2086
    out=$(DDPLAB_PLUGIN_DIR="$tmp/empty" "$ddplab" $cmd 2>&1)
    rc=$?
    [ $rc -eq 4 ] || failed "ddplab $cmd without the plugin -> exit $rc (want 4): $out"
    [ "$(wc -l <<<"$out")" -eq 1 ] || failed "ddplab $cmd without the plugin: not one line: $out"
    grep -qF "$tmp/empty/ddplab-cuda.so: cannot open shared object file" <<<"$out" ||
        failed "ddplab $cmd without the plugin: the file tried and dlerror's words are not named: $out"
    grep -qF "DDPLAB_PLUGIN_DIR" <<<"$out" ||
        failed "ddplab $cmd without the plugin: DDPLAB_PLUGIN_DIR is not named: $out"
done

# d. the plugin found where the build put it, when its libraries are here
if ldd "$plugin" | grep -q "not found"; then
    echo "note: the plugin's libraries are not all here ($(ldd "$plugin" | grep "not found" |
        awk '{print $1}' | tr '\n' ' ')): its loading is not checked"
else
    files=$(LD_DEBUG=files LD_DEBUG_OUTPUT="$tmp/ldc" "$ddplab" run --backend cuda --steps 1 \
        >"$tmp/out" 2>&1; cat "$tmp"/ldc.*)
    grep -q "ddplab-cuda.so.*dynamically loaded by" <<<"$files" ||
        failed "run --backend cuda did not load the plugin: $(cat "$tmp/out")"
    if grep -q "cannot load" "$tmp/out"; then
        failed "run --backend cuda: the plugin does not load: $(cat "$tmp/out")"
    fi
fi
[ $fail -eq 0 ] && echo "ok: no CUDA library linked or loaded but for cuda; a missing plugin is named"
exit $fail
