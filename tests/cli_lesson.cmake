# `ddplab lesson`, the lesson player. test_lesson_facts runs lesson blocks
# in-process and checks every fact of lessons/FORMAT.md against what the run
# printed or the raw trace, grading and the progress file; test_cli_lesson
# plays the small lessons in tests/lessons/ as a learner would (recorded
# answers, answers typed on stdin, the menu, bad input); test_lesson_tui
# drives the full-screen player's state with keys and reads its screens as
# text; test_lesson_tmux_WxH plays three lessons in a tmux terminal of that
# size (skipped without tmux or ncurses).
ddplab_add_test(test_lesson_facts
  SOURCES test_lesson_facts.c test_files.c
  LIBS ddplab_cli ddplab_viz_sdl
  LABELS cli
  TIMEOUT 300)
ddplab_add_test(test_cli_lesson
  SOURCES test_cli_lesson.c test_cli_run.c test_files.c
  ARGS $<TARGET_FILE:ddplab> ${CMAKE_CURRENT_SOURCE_DIR}/lessons
  LABELS cli
  TIMEOUT 300)
add_dependencies(test_cli_lesson ddplab)
ddplab_add_test(test_lesson_tui
  SOURCES test_lesson_tui.c
  LIBS ddplab_cli ddplab_viz_sdl
  ARGS ${CMAKE_CURRENT_SOURCE_DIR}/lessons
  LABELS cli
  TIMEOUT 120)
# The full-screen player in a terminal, at the smallest size it lays out
# and at a wide one.
foreach(size 80x24 140x45)
  add_test(NAME test_lesson_tmux_${size}
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_lesson_tmux.sh $<TARGET_FILE:ddplab>
      ${CMAKE_CURRENT_SOURCE_DIR}/lessons ${size})
  set_tests_properties(test_lesson_tmux_${size} PROPERTIES TIMEOUT 240 SKIP_RETURN_CODE 77
    LABELS cli)
endforeach()
