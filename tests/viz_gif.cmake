# Animated GIFs (viz/gif*.c): the palette, the changed rectangles and files
# of synthetic frames decoded back with giflib (writer); frames of a ring
# all_reduce and of FSDP drawn by the SDL2 view, offscreen, each GIF frame
# checked against viz_sdl_frame and viz_sdl_png (frames: CPU ranks, label
# cpu). A part exits 77 (skipped) when the build lacks giflib, or, for
# frames, SDL2 or libpng.
ddplab_add_test(test_viz_gif_parts
  SOURCES test_viz_gif.c test_gif_util.c test_viz_sdl_util.c test_ddp_util.c test_world.c
          test_files.c test_env.c
  LIBS ddplab_viz_sdl ddplab_cpu
  ARGS writer
  LABELS cpu
  TIMEOUT 60)
if(DDPLAB_HAVE_GIF)
  target_include_directories(test_viz_gif_parts PRIVATE ${GIF_INCLUDE_DIR})
  target_link_libraries(test_viz_gif_parts PRIVATE ${GIF_LIBRARY})
  target_compile_definitions(test_viz_gif_parts PRIVATE DDPLAB_HAVE_GIF=1)
endif()
if(DDPLAB_HAVE_PNG)
  target_link_libraries(test_viz_gif_parts PRIVATE PNG::PNG)
  target_compile_definitions(test_viz_gif_parts PRIVATE DDPLAB_HAVE_PNG=1)
endif()
foreach(part IN ITEMS writer frames)
  add_test(NAME test_viz_gif_${part} COMMAND test_viz_gif_parts ${part})
  set_tests_properties(test_viz_gif_${part} PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77
    LABELS cpu)
endforeach()
