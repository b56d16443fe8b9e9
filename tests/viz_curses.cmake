# The ncurses view in a real terminal: test_viz_curses.sh drives the view
# from tmux (sizes, keys, help, resize, SIGTERM, colours, ASCII) and reads
# the screen back. The driver trains a small DDP run in-process and opens
# the view on its trace; it exits 77 (skipped) in a build without ncurses,
# as the script does without tmux.
add_executable(viz_curses_driver viz_curses_driver.c test_ddp_util.c test_world.c)
target_include_directories(viz_curses_driver PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(viz_curses_driver PRIVATE ddplab_cpu ddplab_viz)
add_test(NAME test_viz_curses
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_viz_curses.sh $<TARGET_FILE:viz_curses_driver>
    $<TARGET_FILE:ddplab>)
set_tests_properties(test_viz_curses PROPERTIES
  TIMEOUT 300 SKIP_RETURN_CODE 77 LABELS cpu)
