# The fuzz targets (fuzz/) replayed over their seed corpora and the inputs
# they once crashed on (tests/fuzz/<target>/), with an ordinary main()
# (fuzz/fuzz_replay.c): every file must go through without a crash, leak or
# sanitizer report, seeds named ok-* must be accepted and bad-* rejected.
# Runs in every build; libFuzzer itself is only needed to find new inputs
# (scripts/fuzz.sh).
set(DDPLAB_FUZZ_REPLAY cmdline trace ckpt shards profile npy progress answers text)
if(DDPLAB_HAVE_MD4C)
  list(APPEND DDPLAB_FUZZ_REPLAY lesson) # without md4c every lesson is refused
endif()
foreach(t IN LISTS DDPLAB_FUZZ_REPLAY)
  ddplab_add_test(test_fuzz_${t}
    SOURCES ${PROJECT_SOURCE_DIR}/fuzz/fuzz_${t}.c ${PROJECT_SOURCE_DIR}/fuzz/fuzz_util.c
            ${PROJECT_SOURCE_DIR}/fuzz/fuzz_replay.c
    LIBS ddplab_cli ddplab_viz_sdl
    LABELS cpu
    TIMEOUT 120
    ARGS ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/${t})
endforeach()
