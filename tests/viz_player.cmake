# The player's controls (viz/player.h): keys, ticks, speed, go to, status
# and scene options without a trace; N / P, ] / [, g iN and the zoom
# windows on a hand-built trace of 3 iterations on 2 ranks.
ddplab_add_test(test_viz_player
  SOURCES test_viz_player.c
  LIBS ddplab_viz
  LABELS sim
  TIMEOUT 30)
