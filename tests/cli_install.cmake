# The installed program (cmake --install), moved elsewhere, reads its own
# lessons and plugin, and plays a lesson (docs/installing.md).
add_test(NAME test_cli_install
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_cli_install.sh ${CMAKE_COMMAND} ${CMAKE_BINARY_DIR}
          ${PROJECT_SOURCE_DIR})
set_tests_properties(test_cli_install PROPERTIES TIMEOUT 120 LABELS cli)
