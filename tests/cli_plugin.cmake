# The CUDA backend as a plugin (backend_cuda/cuda_plugin.h): the program
# links no CUDA library and loads none, nor the plugin, until cuda is asked
# for, and names the file it tried when the plugin is missing. Skipped (77)
# in a build without CUDA, where there is no plugin.
set(ddplab_plugin_file "")
if(DDPLAB_HAVE_CUDA)
  set(ddplab_plugin_file $<TARGET_FILE:ddplab_cuda_plugin>)
endif()
add_test(NAME test_cli_plugin
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_cli_plugin.sh $<TARGET_FILE:ddplab> "${ddplab_plugin_file}")
set_tests_properties(test_cli_plugin PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77 LABELS cli)

# The SDL2 view as a plugin (viz/view_sdl_plugin.h): the program links no
# SDL library and loads none, nor the plugin, until a window or an SDL-drawn
# PNG is asked for, draws through it, and names the file it tried when the
# plugin is missing. Skipped (77) in a build without SDL2.
set(ddplab_sdl_plugin_file "")
if(DDPLAB_HAVE_SDL)
  set(ddplab_sdl_plugin_file $<TARGET_FILE:ddplab_viz_sdl_plugin>)
endif()
add_test(NAME test_cli_plugin_sdl
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_cli_plugin_sdl.sh $<TARGET_FILE:ddplab>
          "${ddplab_sdl_plugin_file}")
set_tests_properties(test_cli_plugin_sdl PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77 LABELS cli)
