# PyTorch's random streams under --rng torch. test_torch_gen: the generator
# and the sampler's randperm against the C++ standard's check value and
# numbers torch 1.13 printed (label sim; needs no torch); test_torch_gen_torch:
# 64 cases drawn by torch itself, bit for bit (skipped without torch). test_rng_torch:
# `ddplab run --strategy ddp --rng torch` against a PyTorch DDP script on
# gloo that builds the same nn.Sequential or MiniGPT after torch.manual_seed and trains
# on DistributedSampler(shuffle=True) batches of the --save-data files
# (label cli; skipped, exit 77, without python3-torch or python3).
ddplab_add_test(test_torch_gen
  SOURCES test_torch_gen.c
  LIBS ddplab_sim ddplab_torch_ref
  LABELS sim
  TIMEOUT 60)
add_test(NAME test_torch_gen_torch COMMAND test_torch_gen torch)
set_tests_properties(test_torch_gen_torch PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77 LABELS sim)

find_package(Python3 COMPONENTS Interpreter QUIET)
if(Python3_Interpreter_FOUND)
  add_test(NAME test_rng_torch
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/test_rng_torch.py
            $<TARGET_FILE:ddplab> ${CMAKE_CURRENT_SOURCE_DIR})
else()
  add_test(NAME test_rng_torch COMMAND sh -c "echo 'SKIP: python3 not found'; exit 77")
endif()
set_tests_properties(test_rng_torch PROPERTIES
  TIMEOUT 400 LABELS cli SKIP_RETURN_CODE 77)
