# Tests of the compute devices of the cost model: the table and its sources,
# names and aliases, the roofline on every device, the device in profile
# files, and collectives that hold the compute stream on a CPU device.
ddplab_add_test(test_devices
  SOURCES test_devices.c test_files.c test_world.c
  LIBS ddplab_cpu
  LABELS sim
  TIMEOUT 60)

# Matrix products priced by their shape (waves of tiles on the SMs), the fit
# of a device's product efficiency and launch cost that bench --calibrate runs,
# and the profile file fields that carry them.
ddplab_add_test(test_cost_gemm
  SOURCES test_cost_gemm.c test_files.c
  LIBS ddplab_sim
  LABELS sim
  TIMEOUT 60)
