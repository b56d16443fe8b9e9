#!/usr/bin/env bash
# tests/test_cli_install.sh CMAKE BUILD_DIR SOURCE_DIR: ddplab installed
# (cmake --install BUILD_DIR --prefix P) and then moved elsewhere works on
# its own: it finds its lessons in P/share/ddplab/lessons (not the source
# tree's, which only a program in its build tree reads), lists them and
# plays one non-interactively, with DDPLAB_LESSONS unset, in a scratch HOME
# and working directory; the plugins are in P/lib/ddplab and found there:
# the SDL view's in a build with SDL2 (a frame drawn to a PNG), the CUDA
# backend's in a CUDA build.
set -u
cmake=$1 build=$2 src=$(realpath "$3")
fail=0
failed() { echo "FAILED: $*"; fail=1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$cmake" --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log" 2>&1 ||
    { echo "FAILED: cmake --install:"; cat "$tmp/install.log"; exit 1; }
for f in bin/ddplab share/ddplab/lessons/index.md; do
    [ -e "$tmp/prefix/$f" ] || failed "the install has no $f"
done
# moved after the install: nothing may point back into the prefix either
mv "$tmp/prefix" "$tmp/moved"
p=$tmp/moved
mkdir "$tmp/home" "$tmp/work"
cd "$tmp/work" || exit 1
run() { # command...: runs it as a user of the installed copy would
    env -u DDPLAB_LESSONS -u DDPLAB_PLUGIN_DIR HOME="$tmp/home" XDG_STATE_HOME="$tmp/home/state" \
        "$@"
}

out=$(run "$p/bin/ddplab" lesson --list 2>&1)
rc=$?
[ $rc -eq 0 ] || failed "lesson --list -> exit $rc: $out"
head=$(head -1 <<<"$out")
[ "$head" = "ddplab lessons ($p/share/ddplab/lessons/index.md)" ] ||
    failed "lesson --list does not read the installed lessons: $head"
grep -qF "$src" <<<"$out" && failed "lesson --list names the source tree: $head"
grep -q "why-distributed" <<<"$out" || failed "lesson --list lists no why-distributed: $out"

out=$(run "$p/bin/ddplab" lesson why-distributed --non-interactive --viz text 2>&1)
rc=$?
[ $rc -eq 0 ] || failed "lesson why-distributed --non-interactive -> exit $rc: $(tail -5 <<<"$out")"
grep -q "questions answered right" <<<"$out" || failed "the lesson did not end: $(tail -3 <<<"$out")"

# the SDL view's plugin, in a build that has one
if grep -q "ddplab-sdl.so" "$tmp/install.log"; then
    [ -f "$p/lib/ddplab/ddplab-sdl.so" ] || failed "the install has no lib/ddplab/ddplab-sdl.so"
    out=$(run "$p/bin/ddplab" run --steps 2 --png frame.png 2>&1)
    rc=$?
    if [ $rc -ne 0 ] || [ ! -s frame.png ]; then
        failed "run --png with the installed plugin -> exit $rc: $(tail -3 <<<"$out")"
    fi
fi

# the CUDA plugin, in a build that has one
if grep -q "ddplab-cuda.so" "$tmp/install.log"; then
    plugin=$p/lib/ddplab/ddplab-cuda.so
    [ -f "$plugin" ] || failed "the install has no lib/ddplab/ddplab-cuda.so"
    out=$(run "$p/bin/ddplab" run --backend cuda --steps 1 2>&1)
    if ldd "$plugin" | grep -q "not found"; then
        grep -qF "$plugin" <<<"$out" || failed "run --backend cuda does not name $plugin: $out"
    elif grep -q "cannot load" <<<"$out"; then
        failed "run --backend cuda: the installed plugin does not load: $out"
    fi
fi
[ $fail -eq 0 ] && echo "ok: installed in $p, it reads its own lessons and plugins"
exit $fail
