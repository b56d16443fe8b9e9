# The charts as drawn (viz/chart*.c): pixels, layout, SVG, golden images in
# tests/data (regenerating them: tests/test_viz_chart.c). Linked with the SDL
# view's library, which holds the drawing; in a build without it, the stub
# is checked and the test is skipped (77).
ddplab_add_test(test_viz_chart
  SOURCES test_viz_chart.c test_chart_trace.c test_files.c
  LIBS ddplab_viz_sdl
  ARGS ${CMAKE_CURRENT_SOURCE_DIR}/data
  LABELS sim
  TIMEOUT 60)
if(DDPLAB_HAVE_SDL)
  # fontconfig: the test lets go of its caches at the end (FcFini), so that
  # LeakSanitizer counts the charts' memory alone
  target_link_libraries(test_viz_chart PRIVATE PkgConfig::CAIRO)
  pkg_check_modules(DDPLAB_FONTCONFIG QUIET IMPORTED_TARGET fontconfig)
  if(DDPLAB_FONTCONFIG_FOUND)
    target_link_libraries(test_viz_chart PRIVATE PkgConfig::DDPLAB_FONTCONFIG)
    target_compile_definitions(test_viz_chart PRIVATE DDPLAB_HAVE_FONTCONFIG=1)
  endif()
  target_compile_definitions(test_viz_chart PRIVATE DDPLAB_HAVE_SDL=1)
endif()
