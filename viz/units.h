// viz/units.h: the unit a value reads best in (us / ms / s, KiB .. GiB,
// KB/s .. TB/s), for chart axes and notes. Pure arithmetic.
#ifndef DDPLAB_VIZ_UNITS_H
#define DDPLAB_VIZ_UNITS_H

#include <stddef.h>

#include "chart.h" // defines: VizChartUnit

typedef struct {
    const char *name; // "ms"; "" for plain numbers
    double div;       // value / div is the value in this unit
} VizUnitChoice;

// The largest unit of u's table that is at most |v| (the smallest when none is).
VizUnitChoice viz_unit_pick(VizChartUnit u, double v);
// "3.2 GiB", "410 ms", "12.5 GB/s", "0.75": v in base units.
void viz_unit_fmt(VizChartUnit u, double v, char *buf, size_t len);

#endif
