# What the charts hold, without drawing them (viz/ticks.h, viz/units.h,
# viz/plots.h): runs in every build. The drawing is test_viz_chart
# (viz_chart.cmake).
ddplab_add_test(test_viz_plot
  SOURCES test_viz_plot.c test_chart_trace.c
  LIBS ddplab_viz
  LABELS sim
  TIMEOUT 60)
