# The lesson parser (cli/learn/lesson.h): a good lesson parsed to its structure,
# malformed ones rejected with file, line and problem, mutated copies never
# crashing it; the index and lesson_dir(). Needs md4c (without it the
# parser only says how to get it).
if(DDPLAB_HAVE_MD4C)
  ddplab_add_test(test_lesson_parse
    SOURCES test_lesson_parse.c test_files.c test_env.c
    LIBS ddplab_cli ddplab_viz_sdl
    LABELS cli
    TIMEOUT 120)
  target_compile_definitions(test_lesson_parse PRIVATE
    DDPLAB_TEST_DIR="${CMAKE_CURRENT_SOURCE_DIR}")
  ddplab_add_test(test_lesson_index
    SOURCES test_lesson_index.c test_files.c
    LIBS ddplab_cli ddplab_viz_sdl
    LABELS cli
    TIMEOUT 60)
  target_compile_definitions(test_lesson_index PRIVATE
    DDPLAB_SOURCE_LESSONS="${PROJECT_SOURCE_DIR}/lessons")
endif()
