// backend_cuda/cuda_plugin.c: the entry point of ddplab-cuda.so, the only
// symbol the plugin exports (cuda_plugin.map). Built into the plugin alone:
// the tests link the backend's static library and take cuda_backend_ops
// directly.
#include "cuda_plugin.h"

#include <stdio.h>
#include <string.h>

#include "cuda_backend.h" // defines: cuda_backend_ops

const SimBackendOps *cuda_plugin_entry(const char *version, size_t ops_size, char *err,
                                       size_t errlen) {
    if (version == NULL || strcmp(version, DDPLAB_VERSION) != 0) {
        snprintf(err, errlen, "it was built for ddplab %s, and this is ddplab %s",
                 DDPLAB_VERSION, version ? version : "(unknown)");
        return NULL;
    }
    if (ops_size != sizeof(SimBackendOps)) {
        snprintf(err, errlen, "it was built with another backend interface (an ops table of "
                 "%zu bytes, the program's has %zu): rebuild both from one source tree",
                 sizeof(SimBackendOps), ops_size);
        return NULL;
    }
    return &cuda_backend_ops;
}
