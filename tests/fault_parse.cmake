# --fault specs: parsing, checking against the world, queries.
ddplab_add_test(test_fault_parse
  SOURCES test_fault_parse.c
  LIBS ddplab_sim
  LABELS sim
  TIMEOUT 30)
