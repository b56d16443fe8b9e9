# `ddplab interview`: the questions against arithmetic written out in the
# test and the grading (library), then the program as a user runs it:
# golden first lines for fixed seeds, scores of expected, wrong and
# borderline answers, every topic, bad options, and every printed command
# run with the built ddplab.
ddplab_add_test(test_interview_gen
  SOURCES test_interview_gen.c test_env.c
  LIBS ddplab_cli ddplab_viz_sdl
  LABELS cli
  TIMEOUT 120)
ddplab_add_test(test_cli_interview
  SOURCES test_cli_interview.c test_cli_run.c test_files.c test_env.c
  LIBS ddplab_cli ddplab_viz_sdl
  ARGS $<TARGET_FILE:ddplab>
  LABELS cli
  TIMEOUT 600)
add_dependencies(test_cli_interview ddplab)
