# Checkpoints and `ddplab run`: the container and the training state in it
# (label sim: one CPU rank, no concurrency), and the program as a user runs
# it (label cli): bad input, resume bit-exactness, training that learns, and
# the end-to-end conformance with PyTorch (skipped without python3-torch).
ddplab_add_test(test_checkpoint_file
  SOURCES test_checkpoint_file.c test_files.c
  LIBS ddplab_sim
  LABELS sim
  TIMEOUT 60)

ddplab_add_test(test_checkpoint_model
  SOURCES test_checkpoint_model.c test_files.c test_world.c
  LIBS ddplab_cpu
  LABELS sim
  TIMEOUT 60)

ddplab_add_test(test_cli_run_errors
  SOURCES test_cli_run_errors.c test_cli_run.c test_files.c
  LIBS ddplab_sim
  ARGS $<TARGET_FILE:ddplab>
  LABELS cli
  TIMEOUT 180)
add_dependencies(test_cli_run_errors ddplab)

ddplab_add_test(test_cli_run_resume
  SOURCES test_cli_run_resume.c test_cli_run.c test_files.c test_env.c
  LIBS ddplab_sim ${CJSON_LIBRARY}
  ARGS $<TARGET_FILE:ddplab>
  LABELS cli
  TIMEOUT 300)
target_include_directories(test_cli_run_resume PRIVATE ${CJSON_INCLUDE_DIR})
add_dependencies(test_cli_run_resume ddplab)

# The simulated clock across --resume: metrics, checkpoints and traces of an
# interrupted and resumed run against the straight run, for every strategy
# that checkpoints; the older checkpoint is one written before checkpoints
# carried every rank's timeline.
ddplab_add_test(test_cli_run_resume_timeline
  SOURCES test_cli_run_resume_timeline.c test_cli_run.c test_files.c
  LIBS ddplab_sim ${CJSON_LIBRARY}
  ARGS $<TARGET_FILE:ddplab> ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/ckpt/ok-run-save.safetensors
  LABELS cli
  TIMEOUT 300)
target_include_directories(test_cli_run_resume_timeline PRIVATE ${CJSON_INCLUDE_DIR})
add_dependencies(test_cli_run_resume_timeline ddplab)

foreach(t IN ITEMS learn output)
  ddplab_add_test(test_cli_run_${t}
    SOURCES test_cli_run_${t}.c test_cli_run.c test_files.c
    LIBS ${CJSON_LIBRARY}
    ARGS $<TARGET_FILE:ddplab>
    LABELS cli
    TIMEOUT 300)
  target_include_directories(test_cli_run_${t} PRIVATE ${CJSON_INCLUDE_DIR})
  add_dependencies(test_cli_run_${t} ddplab)
endforeach()

ddplab_add_test(test_cli_run_torch
  SOURCES test_cli_run_torch.c test_train_ref.c test_cli_run.c test_files.c
  LIBS ddplab_sim ddplab_torch_ref ${CJSON_LIBRARY}
  ARGS $<TARGET_FILE:ddplab>
  LABELS cli
  TIMEOUT 300)
target_include_directories(test_cli_run_torch PRIVATE ${CJSON_INCLUDE_DIR})
add_dependencies(test_cli_run_torch ddplab)
