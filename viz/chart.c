// viz/chart.c: viz_chart_write in the plugin.
#include "chart.h"

#include "base/errbuf.h"

SimStatus viz_chart_write(const VizChart *c, const char *path, char *err, size_t errlen) {
    (void)c;
    return sim_errbuf_fail(err, errlen, SIM_ENOTSUP, "cannot draw %s: charts are not drawn "
                           "with cairo yet", path ? path : "the chart");
}
