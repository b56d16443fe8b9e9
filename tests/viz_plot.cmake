# PNG line charts (viz/plot.h): ticks, font and raster run everywhere; the
# PNG round trip decodes with libpng and exits 77 (skipped) when the build
# has no libpng, after checking that the writer names the missing package.
foreach(mode IN ITEMS raster png)
  ddplab_add_test(test_viz_plot_${mode}
    SOURCES test_viz_plot.c test_files.c test_env.c
    LIBS ddplab_viz
    ARGS ${mode}
    LABELS sim
    TIMEOUT 60)
  if(DDPLAB_HAVE_PNG)
    target_link_libraries(test_viz_plot_${mode} PRIVATE PNG::PNG)
    target_compile_definitions(test_viz_plot_${mode} PRIVATE DDPLAB_HAVE_PNG=1)
  endif()
endforeach()
