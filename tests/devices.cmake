# Tests of the compute devices of the cost model: the table and its sources,
# names and aliases, the roofline on every device, the device in profile
# files, and collectives that hold the compute stream on a CPU device.
ddplab_add_test(test_devices
  SOURCES test_devices.c test_files.c test_world.c
  LIBS ddplab_cpu
  LABELS sim
  TIMEOUT 60)
