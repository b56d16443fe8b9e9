// cli/run/run_metrics.c: the --metrics log (run_metrics.h): opened at the
// first line, cut back to the steps before the run's first, appended and
// flushed line by line.
#include "run/run_metrics.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int run_metrics_init(RunMetrics *m, const char *path) {
    memset(m, 0, sizeof *m);
    m->path = path;
    if (path == NULL || access(path, W_OK) == 0)
        return 0;
    if (errno != ENOENT)
        return -1; // there, but not ours to write
    // created at the first line: its directory must take a new file
    const char *slash = strrchr(path, '/');
    char dir[4096];
    if (slash == NULL)
        snprintf(dir, sizeof dir, ".");
    else
        snprintf(dir, sizeof dir, "%.*s", slash == path ? 1 : (int)(slash - path), path);
    return access(dir, W_OK | X_OK) == 0 ? 0 : -1;
}

// The step a metrics line is for: {"step":N,...} or {"eval_step":N,...},
// whole (ending in "}\n"). 0 for anything else.
static int line_step(const char *line, size_t n, int64_t *step, int *eval) {
    const char *p;
    if (n < 2 || line[n - 1] != '\n' || line[n - 2] != '}')
        return 0; // torn, or not one of ours
    if (strncmp(line, "{\"step\":", 8) == 0)
        p = line + 8, *eval = 0;
    else if (strncmp(line, "{\"eval_step\":", 13) == 0)
        p = line + 13, *eval = 1;
    else
        return 0;
    char *end;
    errno = 0;
    long long v = strtoll(p, &end, 10);
    if (end == p || errno != 0 || (*end != ',' && *end != '}'))
        return 0;
    *step = v;
    return 1;
}

// The length of f's leading lines that belong to steps before first_step
// (what a run resumed at first_step - 1 keeps); m->first gets the first
// step among them. -1 on a read error.
static long kept_length(RunMetrics *m, FILE *f, int64_t first_step) {
    char *line = NULL;
    size_t cap = 0;
    long at = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, f)) > 0) {
        int64_t step;
        int eval;
        if (!line_step(line, (size_t)n, &step, &eval) || step >= first_step)
            break;
        if (!eval && m->first == 0)
            m->first = step;
        at += (long)n;
    }
    int bad = ferror(f);
    free(line);
    return bad ? -1 : at;
}

static FILE *open_log(RunMetrics *m, int64_t first_step) {
    struct stat st;
    int exists = stat(m->path, &st) == 0;
    // a device or a pipe is written in place; a fresh run keeps nothing
    if ((exists && !S_ISREG(st.st_mode)) || first_step <= 1)
        return fopen(m->path, "w");
    FILE *f = fopen(m->path, exists ? "r+" : "w");
    if (f == NULL || !exists)
        return f;
    long keep = kept_length(m, f, first_step);
    if (keep < 0 || ftruncate(fileno(f), (off_t)keep) != 0 || fseek(f, keep, SEEK_SET) != 0) {
        fclose(f);
        return NULL;
    }
    return f;
}

FILE *run_metrics_file(RunMetrics *m, int64_t step) {
    if (m == NULL || m->path == NULL || m->failed)
        return NULL;
    if (m->f == NULL)
        m->f = open_log(m, step);
    if (m->f == NULL)
        m->failed = 1;
    return m->f;
}

void run_metrics_flush(RunMetrics *m, int64_t step) {
    if (m == NULL || m->f == NULL)
        return;
    if (fflush(m->f) != 0 || ferror(m->f))
        m->failed = 1;
    if (step > 0) {
        m->last = step;
        if (m->first == 0)
            m->first = step;
    }
}

int run_metrics_close(RunMetrics *m) {
    if (m->f != NULL) {
        if (fflush(m->f) != 0 || ferror(m->f))
            m->failed = 1;
        // a pipe or a terminal cannot be synced: that is no failure
        if (fsync(fileno(m->f)) != 0 && errno != EINVAL && errno != EROFS)
            m->failed = 1;
        if (fclose(m->f) != 0)
            m->failed = 1;
        m->f = NULL;
    }
    return m->failed ? -1 : 0;
}
