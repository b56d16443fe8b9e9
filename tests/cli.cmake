# Tests of the `ddplab` program, run as a user runs it: the drivers get the
# path of the built program and check exit codes, messages, output and files.
ddplab_add_test(test_cli_usage
  SOURCES test_cli_usage.c test_cli_run.c test_files.c
  ARGS $<TARGET_FILE:ddplab>
  LABELS cli
  TIMEOUT 120)
ddplab_add_test(test_cli_bench
  SOURCES test_cli_bench.c test_cli_run.c test_files.c test_env.c
  LIBS ${CJSON_LIBRARY}
  ARGS $<TARGET_FILE:ddplab>
  LABELS cli
  TIMEOUT 300)
target_include_directories(test_cli_bench PRIVATE ${CJSON_INCLUDE_DIR})
# Building a driver builds the program it runs.
add_dependencies(test_cli_usage ddplab)
add_dependencies(test_cli_bench ddplab)
# The verifiable data of the bench, tested directly against sim/'s kernels.
ddplab_add_test(test_cli_verify
  SOURCES test_cli_verify.c
  LIBS ddplab_cli ddplab_viz_sdl
  LABELS cli
  TIMEOUT 120)
# The device `bench --calibrate` measures, on a cpu backend dressed as a GPU.
ddplab_add_test(test_bench_device
  SOURCES test_bench_device.c
  LIBS ddplab_cli ddplab_viz_sdl
  LABELS cli
  TIMEOUT 120)
# `ddplab plan`: the seeds' and the ZeRO paper's memory figures from both
# accountings, verdicts and the nearest fit, --compare, --sweep, --plot,
# --trace, bad input, and planning at 1024 and 16384 ranks.
ddplab_add_test(test_cli_plan
  SOURCES test_cli_plan.c test_cli_run.c test_files.c
  ARGS $<TARGET_FILE:ddplab>
  LABELS cli
  TIMEOUT 300)
add_dependencies(test_cli_plan ddplab)
# `ddplab plan` on transformers: activations between steps and at the peak
# against Korthikanti et al.'s bytes per layer, flash against eager
# attention, MFU and HFU by the benchmarks' definitions.
ddplab_add_test(test_cli_plan_attn
  SOURCES test_cli_plan_attn.c test_cli_run.c test_files.c
  ARGS $<TARGET_FILE:ddplab>
  LABELS cli
  TIMEOUT 120)
add_dependencies(test_cli_plan_attn ddplab)
# `ddplab plan` against MosaicML's published FSDP throughput of MPT models on
# H100 and A100 (tests/data/llm_foundry_mpt.csv): every run fits, the
# published MFU and HFU follow from the definitions, planned against
# measured tokens/s per GPU row by row (the table in docs/planning.md).
ddplab_add_test(test_plan_llm_foundry
  SOURCES test_plan_llm_foundry.c test_cli_run.c test_files.c
  ARGS $<TARGET_FILE:ddplab> ${CMAKE_CURRENT_SOURCE_DIR}/data/llm_foundry_mpt.csv
  LABELS cli
  TIMEOUT 900)
add_dependencies(test_plan_llm_foundry ddplab)
# One rule for an input file that cannot be read: every command that reads
# one exits 2 for a missing file, a directory and (not as root) a file it
# may not read, with one line naming it.
ddplab_add_test(test_cli_exit_codes
  SOURCES test_cli_exit_codes.c test_cli_run.c test_files.c
  ARGS $<TARGET_FILE:ddplab>
  LABELS cli
  TIMEOUT 180)
add_dependencies(test_cli_exit_codes ddplab)
