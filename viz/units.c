// viz/units.c: choosing a unit for a value (units.h).
#include "units.h"

#include <math.h>
#include <stdio.h>

static const VizUnitChoice seconds[] = {{"us", 1e-6}, {"ms", 1e-3}, {"s", 1}};
static const VizUnitChoice bytes[] = {{"bytes", 1},
                                {"KiB", 1024.0},
                                {"MiB", 1024.0 * 1024},
                                {"GiB", 1024.0 * 1024 * 1024},
                                {"TiB", 1024.0 * 1024 * 1024 * 1024}};
static const VizUnitChoice si[] = {{"bytes", 1}, {"kB", 1e3}, {"MB", 1e6}, {"GB", 1e9},
                                   {"TB", 1e12}};
static const VizUnitChoice rates[] = {{"B/s", 1},   {"KB/s", 1e3}, {"MB/s", 1e6},
                                {"GB/s", 1e9}, {"TB/s", 1e12}};

VizUnitChoice viz_unit_pick(VizChartUnit u, double v) {
    const VizUnitChoice *t = NULL;
    int n = 0;
    if (u == VIZ_UNIT_SECONDS)
        t = seconds, n = 3;
    else if (u == VIZ_UNIT_BYTES)
        t = bytes, n = 5;
    else if (u == VIZ_UNIT_BYTES_SI)
        t = si, n = 5;
    else if (u == VIZ_UNIT_BYTES_S)
        t = rates, n = 5;
    if (t == NULL)
        return (VizUnitChoice){"", 1};
    VizUnitChoice best = t[0];
    for (int i = 0; i < n; i++)
        if (fabs(v) >= t[i].div)
            best = t[i];
    return best;
}

void viz_unit_fmt(VizChartUnit u, double v, char *buf, size_t len) {
    VizUnitChoice k = viz_unit_pick(u, v);
    double x = v / k.div;
    const char *sp = k.name[0] ? " " : "";
    if ((x == floor(x) && fabs(x) < 1e6) || fabs(x) >= 100)
        snprintf(buf, len, "%.0f%s%s", x, sp, k.name);
    else if (fabs(x) >= 10)
        snprintf(buf, len, "%.1f%s%s", x, sp, k.name);
    else
        snprintf(buf, len, "%.2g%s%s", x, sp, k.name);
}
