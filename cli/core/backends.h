// cli/core/backends.h: the registry of the backends of this program: built in
// (cpu) or loaded as a plugin on first use (cuda).
//
// sim/ knows a backend only through the ops table it is handed; this is the
// one place that names the tables, so that adding a backend means adding one
// line to backends.c (and nothing in sim/ changes).
#ifndef DDPLAB_CLI_BACKENDS_H
#define DDPLAB_CLI_BACKENDS_H

#include <stddef.h>

#include "engine/backend.h" // defines: SimBackendOps

// The backends offered to the user, in order, the default first: how many,
// and each one's name and description (NULL past the end). They are data in
// the program: listing a backend (`ddplab --help`, the checks of --backend)
// never loads it.
int cli_backend_count(void);
const char *cli_backend_name(int i);
const char *cli_backend_description(int i);
// 1 when `name` is one of the offered backends (nothing is loaded).
int cli_backend_listed(const char *name);
// 1 when cli_backend_find knows `name`: offered, or built for one purpose
// (below). Nothing is loaded.
int cli_backend_exists(const char *name);

// The default backend (cpu, always built in).
const SimBackendOps *cli_backend_default(void);
// The backend called `name`, or NULL. A backend built as a plugin (cuda:
// ddplab-cuda.so) is loaded by the first call that names it, once per
// process, whichever thread asks; when it cannot be loaded this returns NULL
// and cli_backend_load_error says why. Besides the offered backends it finds
// those built for one purpose and not offered: "sym" (phantom worlds with
// represent = 1, for `ddplab plan`; backend_cpu/cpu_sym.c).
const SimBackendOps *cli_backend_find(const char *name);
// Why the offered backend `name` could not be loaded: one line naming the
// file or files tried, with the system loader's words. NULL when it is built
// in, was loaded, or was never asked for.
const char *cli_backend_load_error(const char *name);
// Why a backend that ddplab knows is not in this build (a hint on how to get
// it), or NULL when `name` is in this build or is not a ddplab backend.
const char *cli_backend_missing_hint(const char *name);
// Writes the offered names as "cpu, cuda" into buf (always terminated).
void cli_backend_names(char *buf, size_t len);

#endif
