# cmake/ddplab_docs.cmake: writes one of the documents the program makes from
# its option tables (docs/options.md), for the build (cli/CMakeLists.txt):
#   cmake -DEXE=path/to/ddplab -DDOC=man|bash -DOUT=file -P ddplab_docs.cmake
# The file is replaced only when the program succeeded, so a failed run
# leaves no half-written page to install.
if(DOC STREQUAL "man")
  set(args help --man)
elseif(DOC STREQUAL "bash")
  set(args completion bash)
else()
  message(FATAL_ERROR "DOC must be man or bash, not '${DOC}'")
endif()
execute_process(COMMAND ${EXE} ${args} OUTPUT_FILE ${OUT}.part RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  file(REMOVE ${OUT}.part)
  message(FATAL_ERROR "'${EXE} ${args}' failed: ${rc}")
endif()
file(RENAME ${OUT}.part ${OUT})
