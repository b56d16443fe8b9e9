# Every lesson plays in the test suite: one test per lesson file in
# lessons/ (a .md file that opens with a lesson header; FORMAT.md, README.md
# and index.md do not), run as `ddplab lesson FILE --non-interactive --viz
# text`: each recorded answer must equal the fact its run computes, each
# command must end with the exit code the lesson expects, each pause must
# name an event. The learner's progress goes to the build directory.
# lesson_shown_STEM checks that each number question asks for a figure the
# lesson showed (test_lesson_shown, tests/cli_lesson.cmake).
# A lesson plays every run it shows: lesson 28's five GPT runs take 40-130 s
# in the plain build (by machine, and by what shares its cores) and four to
# eight times that under the sanitizers' Debug build, where two lessons share
# the two cores. lesson_shown_* plays the lesson (within the play limit set
# in tests/cli_lesson.cmake) and then runs its blocks once more: about twice
# as long.
if(DDPLAB_SANITIZE STREQUAL "")
  set(DDPLAB_LESSON_TIMEOUT 300)
  set(DDPLAB_LESSON_SHOWN_TIMEOUT 600)
else()
  set(DDPLAB_LESSON_TIMEOUT 900)
  set(DDPLAB_LESSON_SHOWN_TIMEOUT 1800)
endif()
file(GLOB DDPLAB_LESSON_FILES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/lessons/*.md)
foreach(f IN LISTS DDPLAB_LESSON_FILES)
  file(READ ${f} head LIMIT 4)
  if(NOT head MATCHES "^---\r?\n")
    continue()
  endif()
  get_filename_component(stem ${f} NAME_WE)
  add_test(NAME lesson_${stem}
    COMMAND $<TARGET_FILE:ddplab> lesson ${f} --non-interactive --viz text)
  set_tests_properties(lesson_${stem} PROPERTIES
    TIMEOUT ${DDPLAB_LESSON_TIMEOUT} LABELS cli
    ENVIRONMENT "XDG_STATE_HOME=${CMAKE_BINARY_DIR}/lesson-state")
  add_test(NAME lesson_shown_${stem}
    COMMAND test_lesson_shown $<TARGET_FILE:ddplab> ${f})
  set_tests_properties(lesson_shown_${stem} PROPERTIES
    TIMEOUT ${DDPLAB_LESSON_SHOWN_TIMEOUT} LABELS cli
    ENVIRONMENT "XDG_STATE_HOME=${CMAKE_BINARY_DIR}/lesson-state")
endforeach()
