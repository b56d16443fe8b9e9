// sim/base/plugin.c: the search for a plugin and its dlopen (see plugin.h).
// Everything is read again on each call (the environment, the program's
// location): a plugin is opened once per process, and its user keeps it.
#include "base/plugin.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// Appends what fmt says to the text in buf (len bytes), cut short when
// full: the error line is built in pieces.
static void append(char *buf, size_t len, const char *fmt, ...) {
    size_t used = strlen(buf);
    if (used + 1 >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, len - used, fmt, ap);
    va_end(ap);
}

int sim_plugin_exe_dir(char *buf, size_t len) {
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return -1;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash == NULL)
        return -1;
    if (slash == exe)
        slash++; // a program in / keeps its "/"
    *slash = '\0';
    if (strlen(exe) + 1 > len)
        return -1;
    memcpy(buf, exe, strlen(exe) + 1);
    return 0;
}

// The folders to look in, in order (plugin.h). Returns how many were
// written: 0 when the program's own folder cannot be read.
static int plugin_dirs(char dirs[2][PATH_MAX]) {
    const char *env = getenv(SIM_PLUGIN_DIR_ENV);
    dirs[0][0] = dirs[1][0] = '\0';
    if (env != NULL && *env != '\0') {
        append(dirs[0], PATH_MAX, "%s", env);
        return 1;
    }
    char exe[PATH_MAX];
    if (sim_plugin_exe_dir(exe, sizeof exe) != 0)
        return 0;
    append(dirs[0], PATH_MAX, "%s/%s", exe, SIM_PLUGIN_BUILD_DIR);
    append(dirs[1], PATH_MAX, "%s/%s", exe, SIM_PLUGIN_INSTALLED_DIR);
    return 2;
}

// Opens the plugin at path and finds entry in it: 0, or -1 with why.
static int open_one(const char *path, const char *entry, SimPlugin *p, char *why, size_t len) {
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *e = dlerror();
        snprintf(why, len, "%s", e ? e : "dlopen failed");
        return -1;
    }
    void *sym = dlsym(handle, entry);
    if (sym == NULL) {
        snprintf(why, len, "it has no entry point %s", entry);
        dlclose(handle);
        return -1;
    }
    p->handle = handle;
    p->entry = sym;
    snprintf(p->path, sizeof p->path, "%s", path);
    return 0;
}

SimStatus sim_plugin_open(const char *what, const char *file, const char *entry, SimPlugin *p,
                          char *err, size_t errlen) {
    char scratch[1];
    if (err == NULL || errlen == 0) { // the search still runs; its words go nowhere
        err = scratch;
        errlen = sizeof scratch;
    }
    memset(p, 0, sizeof *p);
    char dirs[2][PATH_MAX];
    int n = plugin_dirs(dirs);
    if (n == 0) {
        snprintf(err, errlen, "cannot load %s: the program's own location (/proc/self/exe) "
                 "cannot be read to find %s; set %s to its folder", what, file,
                 SIM_PLUGIN_DIR_ENV);
        return SIM_ENOTSUP;
    }
    err[0] = '\0';
    append(err, errlen, "cannot load %s%s: ", what, n == 1 ? " (from " SIM_PLUGIN_DIR_ENV ")" : "");
    for (int i = 0; i < n; i++) {
        char path[PATH_MAX], why[1024];
        if (snprintf(path, sizeof path, "%s/%s", dirs[i], file) >= (int)sizeof path) {
            append(err, errlen, "%s%s/%s: the path is too long", i ? "; " : "", dirs[i], file);
            continue;
        }
        if (open_one(path, entry, p, why, sizeof why) == 0) {
            p->from_env = n == 1;
            err[0] = '\0';
            return SIM_OK;
        }
        // dlerror names the file it cannot open, not a library the file needs
        int named = strncmp(why, path, strlen(path)) == 0;
        append(err, errlen, "%s%s%s%s", i ? "; " : "", named ? "" : path, named ? "" : ": ",
               why);
        if (access(path, F_OK) == 0)
            break; // there but unusable: another copy would be no better
    }
    return SIM_ENOTSUP;
}

void sim_plugin_close(SimPlugin *p) {
    if (p->handle != NULL)
        dlclose(p->handle);
    memset(p, 0, sizeof *p);
}
