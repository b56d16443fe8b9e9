# tests/plugin_util.sh: what the plugin tests (test_cli_plugin.sh,
# test_cli_plugin_sdl.sh) share, sourced by them: the checks that the
# program neither links nor loads a family of libraries. The sourcing script
# sets $ddplab and $tmp and defines failed().

# links_none WHAT REGEX: the program names no library matching REGEX, in
# ldd's list or as NEEDED.
links_none() {
    local needed
    if needed=$(ldd "$ddplab" | grep -E "$2"); then
        failed "ddplab links $1 libraries: $needed"
    fi
    if needed=$(readelf -d "$ddplab" | grep NEEDED | grep -E "$2"); then
        failed "ddplab names $1 libraries as NEEDED: $needed"
    fi
}

# loaded COMMAND...: prints the files the dynamic loader opened for it (each
# process's list goes to $tmp/ld.PID); a non-zero exit is a failure.
loaded() {
    rm -f "$tmp"/ld.*
    LD_DEBUG=files LD_DEBUG_OUTPUT="$tmp/ld" "$@" >"$tmp/out" 2>&1
    local rc=$?
    [ $rc -eq 0 ] || failed "$* -> exit $rc: $(tail -3 "$tmp/out")"
    cat "$tmp"/ld.* 2>/dev/null | sed -n 's/.*file=\([^ ]*\).*/\1/p' | sort -u
}
