// sim/base/plugin.h: finding and opening one of ddplab's plugins, the shared
// objects that the program loads with dlopen only when a part of it is asked
// for (the CUDA backend: cli/core/backends.c; the SDL view:
// viz/view_sdl_load.c), so that a command that needs neither never maps
// their libraries. Only the search and the dlopen are here: what a plugin's
// entry point returns, and how it is checked, are its user's.
//
// A plugin is looked for, in order:
//   1. in $DDPLAB_PLUGIN_DIR alone, when it is set and not empty: a folder
//      chosen on purpose is never overridden by another copy found elsewhere;
//   2. in lib/ddplab/ beside the program (the build tree: BUILD/lib/ddplab);
//   3. in ../lib/ddplab/ from the program's folder (installed:
//      PREFIX/bin/../lib/ddplab).
// docs/installing.md describes it for users.
#ifndef DDPLAB_SIM_PLUGIN_H
#define DDPLAB_SIM_PLUGIN_H

#include <limits.h>
#include <stddef.h>

#include "base/status.h"

#define SIM_PLUGIN_DIR_ENV "DDPLAB_PLUGIN_DIR"
// Relative to the program's folder: the plugins in the build tree, installed.
#define SIM_PLUGIN_BUILD_DIR "lib/ddplab"
#define SIM_PLUGIN_INSTALLED_DIR "../lib/ddplab"

// An opened plugin. Its user keeps it open for the rest of the process
// (what the entry point returned lives in it).
typedef struct {
    void *handle;         // dlopen's
    void *entry;          // the entry point's address, for the user to cast
    char path[PATH_MAX];  // the file that was opened
    int from_env;         // 1: found in $DDPLAB_PLUGIN_DIR
} SimPlugin;

// Opens the first of the candidates for `file` (a file name) that exists,
// with RTLD_NOW | RTLD_LOCAL (a symbol missing from the program or from a
// library shows here, not as a crash later), and finds its entry point
// `entry`. SIM_OK with *p filled in. Otherwise SIM_ENOTSUP, *p cleared, and
// one line in err that names every file tried with the loader's own words
// (dlerror), which tell a missing plugin from a library it lacks:
//   cannot load WHAT[ (from DDPLAB_PLUGIN_DIR)]: PATH: why; PATH: why
// (WHAT: "the cuda backend's plugin"). A file that exists but cannot be
// loaded ends the search: another copy would be no better. Keeps no state.
SimStatus sim_plugin_open(const char *what, const char *file, const char *entry, SimPlugin *p,
                          char *err, size_t errlen);
// Closes a plugin that was opened but refused by its user (its entry point
// says it was built for another program); nothing of it may be in use.
void sim_plugin_close(SimPlugin *p);

// The folder of the running program (from /proc/self/exe, symbolic links
// resolved) into buf: where the plugins are looked for. 0, or -1 when it
// cannot be read or does not fit.
int sim_plugin_exe_dir(char *buf, size_t len);

#endif
