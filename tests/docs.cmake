# The documents made from the option tables (cli/core/optable.h): --help, the
# man page and the bash completion list what the parsers of run, plan and
# bench take; the page passes groff's checks and the script completes, where
# groff and bash are installed.
find_program(DDPLAB_GROFF groff)
find_program(DDPLAB_BASH bash)
set(DDPLAB_DOCS_ARGS "")
if(DDPLAB_GROFF)
  list(APPEND DDPLAB_DOCS_ARGS --groff=${DDPLAB_GROFF})
endif()
if(DDPLAB_BASH)
  list(APPEND DDPLAB_DOCS_ARGS --bash=${DDPLAB_BASH})
endif()
ddplab_add_test(test_cli_docs
  SOURCES test_cli_docs.c test_cli_run.c test_files.c
  LIBS ddplab_cli ddplab_viz_sdl
  ARGS $<TARGET_FILE:ddplab> ${DDPLAB_DOCS_ARGS}
  LABELS cli
  TIMEOUT 180)
add_dependencies(test_cli_docs ddplab)
