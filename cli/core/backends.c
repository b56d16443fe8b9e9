// cli/core/backends.c: the registry of compiled-in backends (see backends.h). The
// CPU backend is always built and comes first, so it is the default; the CUDA
// backend is added when the build found the CUDA toolkit, cuBLAS and NCCL.
// The sym backend (one rank standing for all in a phantom world, for
// `ddplab plan`) is always built but not offered: cli_backend_find knows it,
// the list that run and bench show and accept by default does not.
#include "core/backends.h"

#include <stdio.h>
#include <string.h>

#include "cpu_backend.h" // defines: cpu_backend_ops
#include "cpu_sym.h"     // defines: cpu_sym_backend_ops
#ifdef DDPLAB_HAVE_CUDA
#include "cuda_backend.h" // defines: cuda_backend_ops
#endif

const SimBackendOps *const cli_backends[] = {
    &cpu_backend_ops,
#ifdef DDPLAB_HAVE_CUDA
    &cuda_backend_ops,
#endif
    NULL,
};

// Backends that ddplab has, whether or not this build includes them, with
// what it takes to get one into the build.
static const struct {
    const char *name;
    const char *hint;
} known_backends[] = {
    {"cpu", "it is always built"},
    {"cuda", "this build has no CUDA backend: install the CUDA toolkit with cuBLAS "
             "and NCCL, then reconfigure (cmake -DDDPLAB_CUDA=ON)"},
};

const SimBackendOps *cli_backend_default(void) {
    return cli_backends[0];
}

// Backends for one purpose, found by name but not listed.
static const SimBackendOps *const special_backends[] = {
    &cpu_sym_backend_ops,
    NULL,
};

const SimBackendOps *cli_backend_find(const char *name) {
    for (int i = 0; name && cli_backends[i]; i++)
        if (strcmp(cli_backends[i]->name, name) == 0)
            return cli_backends[i];
    for (int i = 0; name && special_backends[i]; i++)
        if (strcmp(special_backends[i]->name, name) == 0)
            return special_backends[i];
    return NULL;
}

const char *cli_backend_missing_hint(const char *name) {
    if (name == NULL || cli_backend_find(name) != NULL)
        return NULL;
    for (size_t i = 0; i < sizeof known_backends / sizeof known_backends[0]; i++)
        if (strcmp(known_backends[i].name, name) == 0)
            return known_backends[i].hint;
    return NULL;
}

void cli_backend_names(char *buf, size_t len) {
    size_t used = 0;
    if (len == 0)
        return;
    buf[0] = '\0';
    for (int i = 0; cli_backends[i]; i++) {
        int n = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", cli_backends[i]->name);
        if (n < 0 || (size_t)n >= len - used)
            return; // truncated, still terminated
        used += (size_t)n;
    }
}
