# Tests of the real architectures and presets (sim/model/model_arch.c,
# sim/model/model_presets.c, sim/model/model_count.c), the activation formula
# (sim/model/model_act.c) and the random-token dataset: exact parameter counts of
# every preset built in phantom mode on one CPU rank, one step of each, the
# ledger's activations against the formula, the formula against Korthikanti
# et al.'s and Calculon's GPT-3 175B and Megatron-1T figures.
ddplab_add_test(test_model_presets
  SOURCES test_model_presets.c test_model_util.c test_world.c
  LIBS ddplab_cpu
  LABELS sim
  TIMEOUT 120)
# The phantom model's activations against Korthikanti et al.'s closed forms
# across shapes (no, selective and full checkpointing; eager and flash
# attention), and the flash kernel's FLOPs and time against its roofline.
ddplab_add_test(test_model_flash
  SOURCES test_model_flash.c test_model_util.c test_world.c
  LIBS ddplab_cpu
  LABELS sim
  TIMEOUT 120)
