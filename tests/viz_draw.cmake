# The canvas, the layout and the panel drawers (viz/canvas.h, viz/layout.h)
# on hand-built scenes: no terminal, no trace. Label cpu: plain C, so the
# sanitizer builds run it too.
foreach(part IN ITEMS canvas layout draw)
  ddplab_add_test(test_viz_draw_${part}
    SOURCES test_viz_draw.c test_viz_hand.c
    LIBS ddplab_viz
    ARGS ${part}
    LABELS cpu
    TIMEOUT 60)
endforeach()

# The text view of a short DDP and a short FSDP run on the engine against
# tests/golden/viz_text_*.txt (DDPLAB_UPDATE_GOLDEN=1 rewrites them), and
# the DDP run followed live.
foreach(run IN ITEMS ddp fsdp live)
  ddplab_add_test(test_viz_golden_${run}
    SOURCES test_viz_golden.c test_ddp_util.c test_world.c
    LIBS ddplab_cpu ddplab_viz Threads::Threads
    ARGS ${run}
    LABELS cpu
    TIMEOUT 120)
  target_compile_definitions(test_viz_golden_${run} PRIVATE
    DDPLAB_GOLDEN_DIR="${CMAKE_CURRENT_SOURCE_DIR}/golden")
endforeach()

# The embedded layout (viz_layout_embed): the view on part of a lesson
# player's screen, from 40x8 up, on hand-built scenes.
foreach(part IN ITEMS layout draw)
  ddplab_add_test(test_viz_embed_${part}
    SOURCES test_viz_embed.c test_viz_hand.c
    LIBS ddplab_viz
    ARGS ${part}
    LABELS cpu
    TIMEOUT 60)
endforeach()
