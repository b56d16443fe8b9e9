// viz/chart.h: charts (loss, memory by category, bandwidth, a planner's
// sweep) drawn with cairo and pango, written as PNG or SVG by the file
// name's extension. A chart is plain data (VizChart); viz_chart_write draws
// it. The drawing lives with the SDL view's plugin (the program links no
// cairo): the program's viz_chart_write opens the plugin (view_sdl_load.c).
#ifndef DDPLAB_VIZ_CHART_H
#define DDPLAB_VIZ_CHART_H

#include <stddef.h>

#include "base/status.h" // defines: SimStatus

typedef struct VizChart VizChart;

// Draws c into path (.png or .svg), atomically. SIM_EINVAL for a chart
// with nothing to draw or an unknown extension, SIM_EIO when the file cannot
// be written, SIM_ENOTSUP without the plugin, SIM_ENOMEM.
SimStatus viz_chart_write(const VizChart *c, const char *path, char *err, size_t errlen);

#endif
