# The layers: every #include line against scripts/layers.txt, and the check
# itself against planted breaches. Both need python3 (scripts/setup.sh
# installs it); without it they are reported as skipped, not left out.
find_package(Python3 COMPONENTS Interpreter QUIET)
if(Python3_Interpreter_FOUND)
  add_test(NAME check_layers COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/check_layers.py ${PROJECT_SOURCE_DIR})
  add_test(NAME check_layers_planted COMMAND ${PROJECT_SOURCE_DIR}/tests/check_layers_planted.sh)
else()
  foreach(t check_layers check_layers_planted)
    add_test(NAME ${t} COMMAND sh -c "echo 'SKIP: python3 not found'; exit 77")
  endforeach()
endif()
set_tests_properties(check_layers check_layers_planted PROPERTIES
  TIMEOUT 60 LABELS "sim" SKIP_RETURN_CODE 77)
