# Process groups (sim/engine/group.h): node and cross-node groups, every collective
# against a serial reference, the trace, simulated time, and the errors. Label
# cpu: ranks are threads, so TSan runs them too.
ddplab_add_test(test_group
  SOURCES test_group.c test_env.c
  LIBS ddplab_cpu
  LABELS cpu
  TIMEOUT 120)
