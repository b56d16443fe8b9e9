// viz/chart_file.c: which file names a chart can be written to (chart.h),
// known without the plugin so that options are checked before a run.
#include <ctype.h>
#include <string.h>

#include "chart.h"

int viz_chart_format_ok(const char *path) {
    static const char *const known[] = {"png", "svg", "pdf"};
    const char *dot = path ? strrchr(path, '.') : NULL;
    if (dot == NULL || strchr(dot, '/') != NULL)
        return 0;
    char ext[8];
    size_t n = strlen(dot + 1);
    if (n == 0 || n >= sizeof ext)
        return 0;
    for (size_t k = 0; k <= n; k++)
        ext[k] = (char)tolower((unsigned char)dot[1 + k]);
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strcmp(ext, known[i]) == 0)
            return 1;
    return 0;
}
