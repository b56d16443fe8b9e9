// cli/core/opts.c: the option parsers' shared pieces (see opts.h): the shown form
// of a value, one-line messages and the output-file checks, so that `ddplab
// run` and `ddplab bench` reject the same bad file names with the same words.
#include "core/opts.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
