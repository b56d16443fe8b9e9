// cli/core/paths.c: where this program is (see paths.h). Everything is read
// again on each call: the callers (the lessons' folder) ask once or twice
// per process, and keep what they need.
#define _XOPEN_SOURCE 700 // realpath()
#include "core/paths.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/plugin.h" // defines: sim_plugin_exe_dir

int cli_paths_exe_dir(char *buf, size_t len) {
    return sim_plugin_exe_dir(buf, len);
}

int cli_paths_in_build_tree(void) {
#ifdef DDPLAB_BUILD_DIR
    char dir[PATH_MAX], build[PATH_MAX];
    // the build folder as the kernel names the program's: without symbolic links
    if (cli_paths_exe_dir(dir, sizeof dir) != 0 || realpath(DDPLAB_BUILD_DIR, build) == NULL)
        return 0;
    size_t n = strlen(build);
    return strncmp(dir, build, n) == 0 && (dir[n] == '\0' || dir[n] == '/');
#else
    return 0;
#endif
}

int cli_paths_is_dir(const char *path) {
    struct stat st;
    return path != NULL && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}
