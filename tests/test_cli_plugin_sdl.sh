#!/usr/bin/env bash
# tests/test_cli_plugin_sdl.sh DDPLAB PLUGIN: the SDL2 view is a plugin
# (ddplab-sdl.so) that the program loads only when a window, an SDL-drawn
# PNG or a chart (drawn with cairo) is asked for (viz/view_sdl_load.c):
#   a. the program links no SDL library (libSDL2, libSDL2_ttf), nor cairo,
#      pango or libpng (the charts and the frames are the plugin's);
#   b. --help, a plan, a small cpu run (with a trace) and a text replay load
#      none either, nor the plugin (the dynamic loader's own account,
#      LD_DEBUG=files);
#   c. `replay --png` loads the plugin and writes a PNG of the frame (1600 x
#      1000), as does `run --png`; `replay --viz sdl` opens and closes the
#      window through it under SDL's dummy video driver; `run --plot` and
#      `replay --plot-memory` load it and write their charts (PNG, SVG);
#   d. with DDPLAB_PLUGIN_DIR at an empty folder, --png stops with exit 4
#      and --viz sdl with exit 2 (the codes of the view's other failures:
#      a frame that cannot be drawn, a window that cannot open), each with
#      one line naming the file tried, in dlerror's words, and no file
#      written.
# PLUGIN is the plugin's path; empty in a build without SDL2: skipped (77).
set -u
if [ -z "${2:-}" ]; then
    echo "SKIP: this build has no SDL2 view"
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
# the window's case quits by itself after a few frames (view_sdl.c)
export SDL_VIDEODRIVER=dummy DDPLAB_SDL_QUIT_AFTER=5
unset DDPLAB_PLUGIN_DIR

# a. what the program links
libs='libSDL2(_ttf)?[-.]'
links_none SDL "$libs"
links_none drawing 'lib(cairo|pango[a-z0-9]*|png[0-9]*)[-.]'

# b. what it loads (loaded, tests/plugin_util.sh)
small="run --strategy ddp -n 4 --data blobs --model mlp:16,8,4 --steps 20"
for cmd in "--help" "plan --model gpt2 -n 8" "$small" \
           "$small --trace t.ddptrace" "replay t.ddptrace --viz text"; do
    # shellcheck disable=SC2086 # the words of cmd are the command's
    files=$(loaded "$ddplab" $cmd)
    [ -n "$files" ] || failed "ddplab $cmd: LD_DEBUG=files listed no file"
    if bad=$(grep -E "$libs|ddplab-sdl" <<<"$files"); then
        failed "ddplab $cmd loaded $(tr '\n' ' ' <<<"$bad")"
    fi
done
[ -s t.ddptrace ] || { echo "FAILED: no trace to replay"; exit 1; }

# c. the plugin found where the build put it
png_size() { # file: prints "W H" when it is a PNG, else nothing
    [ "$(head -c 8 "$1" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
        return 0
    od -An -tu1 -j16 -N8 "$1" |
        awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4, $5 * 16777216 + $6 * 65536 + $7 * 256 + $8 }'
}
for cmd in "replay t.ddptrace --png frame.png --at bucket-launch:1" "$small --png frame.png"; do
    rm -f frame.png
    # shellcheck disable=SC2086
    files=$(loaded "$ddplab" $cmd)
    grep -q "ddplab-sdl.so" <<<"$files" || failed "ddplab $cmd did not load the plugin"
    grep -qE "$libs" <<<"$files" || failed "ddplab $cmd loaded no SDL library"
    [ "$(png_size frame.png)" = "1600 1000" ] ||
        failed "ddplab $cmd: frame.png is not a 1600 x 1000 PNG ($(png_size frame.png)): $(tail -3 out)"
done
files=$(loaded "$ddplab" replay t.ddptrace --viz sdl)
grep -q "ddplab-sdl.so" <<<"$files" || failed "replay --viz sdl did not load the plugin"
for cmd in "$small --plot loss.png" "replay t.ddptrace --plot-memory mem.svg"; do
    # shellcheck disable=SC2086
    files=$(loaded "$ddplab" $cmd)
    grep -q "ddplab-sdl.so" <<<"$files" || failed "ddplab $cmd did not load the plugin"
done
[ "$(png_size loss.png)" = "960 600" ] || failed "--plot: loss.png is not a 960 x 600 PNG"
head -c 5 mem.svg 2>/dev/null | grep -q '<?xml' || failed "--plot-memory: mem.svg is not SVG"

# d. no plugin where DDPLAB_PLUGIN_DIR points
mkdir "$tmp/empty"
for want in "4 replay t.ddptrace --png none.png" "2 replay t.ddptrace --viz sdl" \
            "4 replay t.ddptrace --plot-memory none.svg"; do
    read -r code cmd <<<"$want"
    # shellcheck disable=SC2086
    out=$(DDPLAB_PLUGIN_DIR="$tmp/empty" "$ddplab" $cmd 2>&1)
    rc=$?
    [ $rc -eq "$code" ] || failed "ddplab $cmd without the plugin -> exit $rc (want $code): $out"
    [ "$(wc -l <<<"$out")" -eq 1 ] || failed "ddplab $cmd without the plugin: not one line: $out"
    grep -qF "$tmp/empty/ddplab-sdl.so: cannot open shared object file" <<<"$out" ||
        failed "ddplab $cmd without the plugin: the file tried and dlerror's words are not named: $out"
    grep -qF "DDPLAB_PLUGIN_DIR" <<<"$out" ||
        failed "ddplab $cmd without the plugin: DDPLAB_PLUGIN_DIR is not named: $out"
done
[ -e none.png ] && failed "--png without the plugin wrote none.png"
[ -e none.svg ] && failed "--plot-memory without the plugin wrote none.svg"
[ -f "$plugin" ] || failed "no plugin at $plugin"
[ $fail -eq 0 ] && echo "ok: no SDL library linked or loaded but for a window, --png or a chart; a missing plugin is named"
exit $fail
