// cli/core/backends.c: the registry of the backends in this build (see
// backends.h). The CPU backend is always built in and comes first, so it is
// the default. The CUDA backend, when the build found the CUDA toolkit,
// cuBLAS and NCCL, is a plugin (ddplab-cuda.so): listed from data kept here,
// loaded with dlopen the first time something asks for it, so that a program
// that never runs on a GPU never maps the CUDA libraries (hundreds of MiB of
// address space, and time at every start). The sym backend (one rank
// standing for all in a phantom world, for `ddplab plan`) is always built
// but not offered: cli_backend_find knows it, the list that run and bench
// show and accept by default does not.
#include "core/backends.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "cpu_backend.h" // defines: cpu_backend_ops
#include "cpu_sym.h"     // defines: cpu_sym_backend_ops
#ifdef DDPLAB_HAVE_CUDA
#include "base/errbuf.h" // defines: sim_errbuf_fail
#include "base/plugin.h" // defines: sim_plugin_open, SimPlugin
#include "cuda_plugin.h" // defines: CUDA_BACKEND_*, CUDA_PLUGIN_*, CudaPluginEntry
#endif

// How a plugin is loaded, and what came of it. Written once, under
// plugin_lock, by the first caller that asks for the backend; read only
// after that, under the same lock.
typedef struct {
    int tried;                 // 1 once the load was attempted
    const SimBackendOps *ops;  // the plugin's table, NULL when it failed
    char error[2048];          // why it failed: one line
} PluginState;

typedef struct {
    const char *name;
    const char *description;  // shown by `ddplab --help`, loaded or not
    const SimBackendOps *ops; // built in; NULL: a plugin
    const char *file;         // the plugin's file (found by sim_plugin_open)
    const char *entry;        // its entry point (CudaPluginEntry)
    PluginState *state;
} Backend;

#ifdef DDPLAB_HAVE_CUDA
static PluginState cuda_state;
#endif

// The offered backends, the default first. Builtins take their name and
// description from their table; a plugin's are written here.
static const Backend backends[] = {
    {.ops = &cpu_backend_ops},
#ifdef DDPLAB_HAVE_CUDA
    {.name = CUDA_BACKEND_NAME,
     .description = CUDA_BACKEND_DESCRIPTION,
     .file = CUDA_PLUGIN_FILE,
     .entry = CUDA_PLUGIN_ENTRY,
     .state = &cuda_state},
#endif
};
#define NBACKENDS ((int)(sizeof backends / sizeof backends[0]))

// Serialises the loads of plugins: a command may ask from several threads
// (the lessons' runs, the comparison's two sides). The loaded plugin stays
// loaded until the process ends (no dlclose): its table, and the CUDA
// runtime's own exit handlers, must outlive every world, and the system
// unmaps everything at exit anyway.
static pthread_mutex_t plugin_lock = PTHREAD_MUTEX_INITIALIZER;

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

// Backends for one purpose, found by name but not listed.
static const SimBackendOps *const special_backends[] = {
    &cpu_sym_backend_ops,
    NULL,
};

static const char *backend_name(const Backend *b) {
    return b->ops ? b->ops->name : b->name;
}

static const Backend *listed(const char *name) {
    for (int i = 0; name && i < NBACKENDS; i++)
        if (strcmp(backend_name(&backends[i]), name) == 0)
            return &backends[i];
    return NULL;
}

static const SimBackendOps *special(const char *name) {
    for (int i = 0; name && special_backends[i]; i++)
        if (strcmp(special_backends[i]->name, name) == 0)
            return special_backends[i];
    return NULL;
}

#ifdef DDPLAB_HAVE_CUDA
// Loads the backend's plugin: the search and the dlopen are sim_plugin_open's
// (the same for every plugin of the program), which names every file tried
// when none loads; the plugin's entry point then checks that it comes from
// this build, and the table it returns must be the backend asked for.
static void plugin_load(const Backend *b) {
    PluginState *st = b->state;
    char what[64];
    snprintf(what, sizeof what, "the %s backend's plugin", b->name);
    SimPlugin p;
    if (sim_plugin_open(what, b->file, b->entry, &p, st->error, sizeof st->error) != SIM_OK)
        return;
    char why[1024] = "";
    const SimBackendOps *ops =
        ((CudaPluginEntry)p.entry)(DDPLAB_VERSION, sizeof(SimBackendOps), why, sizeof why);
    if (ops != NULL && (ops->version != SIM_BACKEND_VERSION || strcmp(ops->name, b->name) != 0)) {
        snprintf(why, sizeof why, "it holds the backend '%s' of interface version %d, not '%s' "
                 "of version %d", ops->name, ops->version, b->name, SIM_BACKEND_VERSION);
        ops = NULL;
    }
    if (ops == NULL) {
        sim_errbuf_fail(st->error, sizeof st->error, SIM_ENOTSUP, "cannot load %s%s: %s: %s",
                        what, p.from_env ? " (from " SIM_PLUGIN_DIR_ENV ")" : "", p.path, why);
        sim_plugin_close(&p);
        return;
    }
    st->ops = ops; // the plugin stays open: see plugin_lock
}
#endif

// The backend's table, loading its plugin the first time.
static const SimBackendOps *backend_ops(const Backend *b) {
    if (b->ops)
        return b->ops;
    pthread_mutex_lock(&plugin_lock);
    if (!b->state->tried) {
        b->state->tried = 1;
#ifdef DDPLAB_HAVE_CUDA
        plugin_load(b);
#endif
    }
    const SimBackendOps *ops = b->state->ops;
    pthread_mutex_unlock(&plugin_lock);
    return ops;
}

const SimBackendOps *cli_backend_default(void) {
    return backends[0].ops;
}

int cli_backend_count(void) {
    return NBACKENDS;
}

const char *cli_backend_name(int i) {
    return i >= 0 && i < NBACKENDS ? backend_name(&backends[i]) : NULL;
}

const char *cli_backend_description(int i) {
    if (i < 0 || i >= NBACKENDS)
        return NULL;
    return backends[i].ops ? backends[i].ops->description : backends[i].description;
}

int cli_backend_listed(const char *name) {
    return listed(name) != NULL;
}

int cli_backend_exists(const char *name) {
    return listed(name) != NULL || special(name) != NULL;
}

const SimBackendOps *cli_backend_find(const char *name) {
    const Backend *b = listed(name);
    return b ? backend_ops(b) : special(name);
}

const char *cli_backend_load_error(const char *name) {
    const Backend *b = listed(name);
    if (b == NULL || b->ops != NULL)
        return NULL;
    pthread_mutex_lock(&plugin_lock);
    const char *err = b->state->tried && b->state->ops == NULL ? b->state->error : NULL;
    pthread_mutex_unlock(&plugin_lock);
    return err;
}

const char *cli_backend_missing_hint(const char *name) {
    if (name == NULL || cli_backend_exists(name))
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
    for (int i = 0; i < NBACKENDS; i++) {
        int n = snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
                         backend_name(&backends[i]));
        if (n < 0 || (size_t)n >= len - used)
            return; // truncated, still terminated
        used += (size_t)n;
    }
}
