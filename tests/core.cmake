ddplab_add_test(test_sched SOURCES test_sched.c LIBS ddplab_sim LABELS sim TIMEOUT 60)
ddplab_add_test(test_dtype SOURCES test_dtype.c LIBS ddplab_sim LABELS sim TIMEOUT 60)
ddplab_add_test(test_record SOURCES test_record.c LIBS ddplab_sim LABELS sim TIMEOUT 60)
ddplab_add_test(test_memory_events SOURCES test_memory_events.c test_world.c LIBS ddplab_cpu LABELS sim TIMEOUT 60)
