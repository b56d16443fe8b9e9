# The SDL2 view (viz/view_sdl*.c, painted by viz/paint*.c), without a
# display: frames painted into cairo image surfaces, the window under SDL's
# dummy video driver; the charts are test_viz_chart (viz_chart.cmake). Engine traces of a ring all_reduce
# and of FSDP come from CPU ranks (label cpu). Each part exits 77 (skipped)
# when the build has no SDL2 or no libpng. The view is linked in
# (ddplab_viz_sdl; the stub without SDL2), not loaded as the program's
# plugin; the plugin is tested through the program (test_cli_plugin_sdl).
ddplab_add_test(test_viz_sdl_parts
  SOURCES test_viz_sdl.c test_viz_sdl_util.c test_ddp_util.c test_world.c test_files.c
          test_env.c
  LIBS ddplab_viz_sdl ddplab_cpu
  ARGS parts
  LABELS cpu
  TIMEOUT 60)
if(DDPLAB_HAVE_SDL)
  target_link_libraries(test_viz_sdl_parts PRIVATE PkgConfig::SDL2 PkgConfig::CAIRO)
  target_compile_definitions(test_viz_sdl_parts PRIVATE DDPLAB_HAVE_SDL=1)
endif()
# The DDP trace the bucket frames are drawn from, and the golden images of
# the painted panels (DDPLAB_UPDATE_GOLDEN=1 writes them again here).
target_compile_definitions(test_viz_sdl_parts PRIVATE
  DDPLAB_SDL_TEST_DATA="${CMAKE_CURRENT_SOURCE_DIR}/data")
if(DDPLAB_HAVE_PNG)
  target_link_libraries(test_viz_sdl_parts PRIVATE PNG::PNG)
  target_compile_definitions(test_viz_sdl_parts PRIVATE DDPLAB_HAVE_PNG=1)
endif()
foreach(part IN ITEMS frames window nodisplay)
  add_test(NAME test_viz_sdl_${part} COMMAND test_viz_sdl_parts ${part})
  set_tests_properties(test_viz_sdl_${part} PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77
    LABELS cpu)
endforeach()
