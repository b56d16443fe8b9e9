# The painted rank, shard and hub panels (viz/paint_ranks*.c,
# paint_shards*.c, paint_hub.c) on a cairo image surface, read back pixel
# by pixel, from engine traces on CPU ranks (label cpu) and hand-made FSDP
# traces. The panels are in the SDL view's library, built with SDL2, cairo
# and pango only. test_viz_paint_panels runs the ranks part, the others
# their part each; DDPLAB_PAINT_OUT=DIR keeps the frames as PNGs.
if(DDPLAB_HAVE_SDL)
  ddplab_add_test(test_viz_paint_panels
    SOURCES test_viz_paint_panels.c test_viz_paint_gallery.c test_viz_paint_canvas.c
            test_viz_paint_util.c test_ddp_util.c test_world.c test_env.c
    LIBS ddplab_viz_sdl ddplab_cpu PkgConfig::CAIRO
    ARGS ranks
    LABELS cpu
    TIMEOUT 120)
  target_include_directories(test_viz_paint_panels PRIVATE ${PROJECT_SOURCE_DIR}/viz)
  foreach(part IN ITEMS compact shards hub gallery)
    add_test(NAME test_viz_paint_${part} COMMAND test_viz_paint_panels ${part})
    set_tests_properties(test_viz_paint_${part} PROPERTIES TIMEOUT 120 LABELS cpu)
  endforeach()
  # the gallery paints some thirty full frames: under ThreadSanitizer on a
  # busy machine that takes minutes
  set_tests_properties(test_viz_paint_gallery PROPERTIES TIMEOUT 400)
endif()
