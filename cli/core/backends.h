// cli/core/backends.h: the registry of the backends compiled into this program.
//
// sim/ knows a backend only through the ops table it is handed; this is the
// one place that names the tables, so that adding a backend means adding one
// line to backends.c (and nothing in sim/ changes).
#ifndef DDPLAB_CLI_BACKENDS_H
#define DDPLAB_CLI_BACKENDS_H

#include <stddef.h>

#include "engine/backend.h" // defines: SimBackendOps

// The compiled-in backends offered to the user, NULL-terminated. The first
// one is the default.
extern const SimBackendOps *const cli_backends[];

// The default backend (the first of cli_backends).
const SimBackendOps *cli_backend_default(void);
// The compiled-in backend called `name`, or NULL. Besides cli_backends it
// finds the backends built for one purpose and not offered: "sym" (phantom
// worlds with represent = 1, for `ddplab plan`; backend_cpu/cpu_sym.c).
const SimBackendOps *cli_backend_find(const char *name);
// Why a backend that ddplab knows is not in this build (a hint on how to get
// it), or NULL when `name` is compiled in or is not a ddplab backend at all.
const char *cli_backend_missing_hint(const char *name);
// Writes the compiled-in names as "cpu, cuda" into buf (always terminated).
void cli_backend_names(char *buf, size_t len);

#endif
