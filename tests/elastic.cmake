# Elastic training (`ddplab run --elastic MIN:MAX`): the rendezvous state
# machine, membership specs and the fault plan of a later round (label cpu,
# no world); and whole runs through the program: a crash and one restart
# equal bit for bit to a crash-free run at the same sizes, --max-restarts
# exceeded, a join, FSDP resharded from a sharded checkpoint, bad input
# (label cpu: ranks are threads, so the sanitizer builds run them too).
ddplab_add_test(test_elastic
  SOURCES test_elastic.c
  LIBS ddplab_sim
  LABELS cpu
  TIMEOUT 30)
ddplab_add_test(test_cli_elastic
  SOURCES test_cli_elastic.c test_ckpt_util.c test_cli_run.c test_files.c test_env.c
  LIBS ddplab_sim
  ARGS $<TARGET_FILE:ddplab>
  LABELS cpu
  TIMEOUT 180)
add_dependencies(test_cli_elastic ddplab)
