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
# Every number question of every lesson asks for something the learner
# was shown: test_lesson_shown plays the lesson as lesson_* does, runs its
# blocks for their facts, and finds each answer printed between the
# question's run and its prompt to the precision the question asks for, or
# each figure of its from: printed before it (one test per lesson:
# tests/lessons.cmake). test_lesson_shown_fixture runs the checker on its
# own fixture, whose unshown questions must be the ones that fail.
add_executable(test_lesson_shown test_lesson_shown.c test_cli_run.c test_files.c)
target_include_directories(test_lesson_shown PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(test_lesson_shown PRIVATE ddplab_cli ddplab_viz_sdl)
add_dependencies(test_lesson_shown ddplab)
# The play's own time limit, inside the test's (tests/lessons.cmake): the
# test plays the lesson and then runs its blocks again for their facts.
if(DDPLAB_SANITIZE STREQUAL "")
  target_compile_definitions(test_lesson_shown PRIVATE DDPLAB_LESSON_PLAY_TIMEOUT_S=280)
else()
  target_compile_definitions(test_lesson_shown PRIVATE DDPLAB_LESSON_PLAY_TIMEOUT_S=840)
endif()
add_test(NAME test_lesson_shown_fixture
  COMMAND test_lesson_shown $<TARGET_FILE:ddplab> ${CMAKE_CURRENT_SOURCE_DIR}/lessons/play-shown.md
    --expect-unshown 27,41)
set_tests_properties(test_lesson_shown_fixture PROPERTIES TIMEOUT 120 LABELS cli)
# The options of every multiple-choice question, the lessons' and the
# interview drill's: the right one is not the longest or the shortest in
# most questions, and no option names its own verdict.
ddplab_add_test(test_choice_lint
  SOURCES test_choice_lint.c
  LIBS ddplab_cli ddplab_viz_sdl
  ARGS ${PROJECT_SOURCE_DIR}/lessons
  LABELS cli
  TIMEOUT 120)
# A lesson's blocks name no file outside their scratch directory: every
# option table row that speaks of a file says what of its value names one,
# and each such value is refused outside in every form the parser takes.
ddplab_add_test(test_lesson_confine
  SOURCES test_lesson_confine.c test_files.c
  LIBS ddplab_cli ddplab_viz_sdl
  LABELS cli
  TIMEOUT 60)
