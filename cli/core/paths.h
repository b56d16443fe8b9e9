// cli/core/paths.h: where this program is, and so where it finds what it
// ships with (the lessons here; the plugins: sim/base/plugin.h) in the build
// tree and once installed:
//   build tree   BUILD/ddplab, BUILD/lib/ddplab/ (plugins), the source
//                tree's lessons/
//   installed    PREFIX/bin/ddplab, PREFIX/lib/ddplab/ (plugins),
//                PREFIX/share/ddplab/lessons/
// docs/installing.md describes both.
#ifndef DDPLAB_CLI_PATHS_H
#define DDPLAB_CLI_PATHS_H

#include <stddef.h>

// Relative to the program's folder: the installed lessons.
#define CLI_PATHS_INSTALLED_LESSONS "../share/ddplab/lessons"

// The folder of the running program (from /proc/self/exe, symbolic links
// resolved) into buf, as the plugins' search reads it (sim_plugin_exe_dir).
// 0, or -1 when it cannot be read or does not fit.
int cli_paths_exe_dir(char *buf, size_t len);
// 1 when the running program lies in the build tree it was built in (the
// folder CMake built it in, or one below it); 0 otherwise, and for a
// program that was copied or installed elsewhere.
int cli_paths_in_build_tree(void);
// 1 when path names a directory.
int cli_paths_is_dir(const char *path);

#endif
