# The scene model (viz/scene.h) on traces of the real engine: a ring
# all_reduce at several R (transfers, contribution bitmasks, captions),
# scenes forwards / backwards / from a fresh model, a live trace synced in
# pieces, a million-event trace's indexing time; DDP buckets, FSDP shard
# states, memory against the ledgers, jumps. Label cpu: ranks are threads.
foreach(t IN ITEMS scene scene_train scene_ddp)
  ddplab_add_test(test_viz_${t}
    SOURCES test_viz_${t}.c test_viz_scene_util.c test_ddp_util.c test_world.c test_env.c
    LIBS ddplab_viz ddplab_cpu
    LABELS cpu
    TIMEOUT 120)
endforeach()
