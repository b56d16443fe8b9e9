// cli/core/opts.c: the option parsers' shared pieces (see opts.h): the shown form
// of a value, one-line messages, the output-file checks and the options
// several commands take, so that `ddplab run`, `plan` and `bench` reject the
// same bad values with the same words.
#include "core/opts.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/backends.h" // defines: cli_backend_exists, cli_backend_names
#include "engine/memory.h" // defines: sim_mem_parse_size, sim_mem_device_capacity

const char *cli_opt_shown(const char *val, char *buf, size_t len) {
    size_t n = 0;
    for (; val && val[n] && n + 4 < len && n < 60; n++)
        buf[n] = isprint((unsigned char)val[n]) ? val[n] : '?';
    if (val && val[n])
        memcpy(buf + n, "...", 3), n += 3;
    buf[n] = '\0';
    return buf;
}

void cli_opt_vline(char *buf, size_t len, const char *fmt, va_list ap) {
    vsnprintf(buf, len, fmt, ap);
    for (char *p = buf; len > 0 && *p; p++)
        if (*p == '\n')
            *p = ' ';
}

static int problem(const char **what, const char **allowed, const char *w, const char *a) {
    *what = w;
    *allowed = a;
    return 1;
}

int cli_opt_output_problem(const char *path, const char **what, const char **allowed) {
    char dir[4096];
    struct stat st;
    if (path[0] == '\0')
        return problem(what, allowed, "is empty", "a file name");
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return problem(what, allowed, "is a directory", "a file name");
    // A device or pipe (/dev/stdout) is written in place (sim/base/outfile.h).
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return access(path, W_OK) == 0
                   ? 0
                   : problem(what, allowed, "cannot be written", "a writable file or device");
    // The directory part: "." for a bare name, "/" for a file at the root.
    const char *slash = strrchr(path, '/');
    if (slash == NULL)
        snprintf(dir, sizeof dir, ".");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path) + (slash == path), path);
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return problem(what, allowed, "is in no existing directory",
                       "a file in an existing directory");
    if (access(dir, W_OK) != 0)
        return problem(what, allowed, "is in a directory you cannot write",
                       "a file in a writable directory");
    return 0;
}

int cli_opt_device_memory(const CliOptCtx *cx, const CliOptRow *row, const char *text,
                          uint64_t *bytes) {
    char names[256], allowed[400];
    *bytes = 0;
    if (sim_mem_device_capacity(text, bytes) != 0 && sim_mem_parse_size(text, bytes) != 0) {
        snprintf(allowed, sizeof allowed, "a size such as 80GB, 80GiB, 512MiB or 1.5e9 (bytes), "
                 "or a device: %s", sim_mem_device_names(names, sizeof names));
        return cli_optab_fail(cx, row->name, text, "is not a size or a device", allowed);
    }
    if (*bytes == 0)
        return cli_optab_fail(cx, row->name, text, "is not above 0",
                              "a size above 0 (leave the option out for unlimited memory)");
    return 0;
}

int cli_opt_bucket_mib(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v) {
    if (v->x > 0 && v->x <= 1048576)
        return 0;
    return cli_optab_fail(cx, row->name, v->text, v->x <= 0 ? "is not above 0" : "is too large",
                          "a size in MiB above 0 and at most 1048576");
}

int cli_opt_watchdog(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v,
                     void *dest) {
    (void)dest;
    return v->x > 0 && v->x <= 86400 ? 0 : cli_optab_reject(cx, row, v->text);
}

int cli_opt_backend(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v,
                    void *dest) {
    (void)dest;
    char names[256];
    if (cli_backend_exists(v->text) || cli_backend_missing_hint(v->text))
        return 0;
    cli_backend_names(names, sizeof names);
    return cli_optab_fail(cx, row->name, v->text, "is not a backend", names);
}
