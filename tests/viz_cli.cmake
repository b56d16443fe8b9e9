# `ddplab run --viz ...` and `ddplab replay` as a user runs them: text
# frames, a recorded trace replayed, --at, --png, --plot, bad traces; and a
# live run watched in the ncurses view inside tmux (skipped without tmux or
# ncurses).
ddplab_add_test(test_cli_viz
  SOURCES test_cli_viz.c test_cli_run.c test_files.c
  ARGS $<TARGET_FILE:ddplab>
  LABELS cli
  TIMEOUT 300)
add_dependencies(test_cli_viz ddplab)
add_test(NAME test_viz_live_tmux
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_viz_live_tmux.sh $<TARGET_FILE:ddplab>)
# label cpu too: the TSan build runs it (the ranks' thread feeding the view's)
set_tests_properties(test_viz_live_tmux PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77
  LABELS "cli;cpu")
# `ddplab replay --gif` and `ddplab run --gif`: frames decoded with giflib and
# compared with --png's; the refusals (skipped without SDL2, giflib or libpng).
ddplab_add_test(test_cli_gif
  SOURCES test_cli_gif.c test_gif_util.c test_cli_run.c test_files.c
  ARGS $<TARGET_FILE:ddplab>
  LABELS cli
  TIMEOUT 300)
add_dependencies(test_cli_gif ddplab)
if(DDPLAB_HAVE_SDL)
  add_dependencies(test_cli_gif ddplab_viz_sdl_plugin) # the frames are the plugin's
endif()
if(DDPLAB_HAVE_GIF)
  target_include_directories(test_cli_gif PRIVATE ${GIF_INCLUDE_DIR})
  target_link_libraries(test_cli_gif PRIVATE ${GIF_LIBRARY})
  target_compile_definitions(test_cli_gif PRIVATE DDPLAB_HAVE_GIF=1)
endif()
if(DDPLAB_HAVE_PNG)
  target_link_libraries(test_cli_gif PRIVATE PNG::PNG)
  target_compile_definitions(test_cli_gif PRIVATE DDPLAB_HAVE_PNG=1)
endif()
