// viz/plots.h: charts of a whole trace as PNG files (the line charts of
// plot.h fed from the scene model's series):
//   viz_plot_loss_png    the loss logged at each iteration's end, against
//                        the iteration (a log axis when it falls by more
//                        than a factor of 30);
//   viz_plot_memory_png  each rank's device memory (the ledger's total)
//                        over simulated time, as steps, one series per
//                        rank for the first VIZ_PLOT_MAX_SERIES ranks; units
//                        chosen from the data (us / ms / s, KiB ... GiB).
// Both write 800 x 500 pixels, atomically. SIM_EINVAL with a message when
// the trace has nothing to plot (a benchmark has no loss), SIM_ENOTSUP
// without libpng, SIM_EIO when the file cannot be written, SIM_ENOMEM.
#ifndef DDPLAB_VIZ_PLOTS_H
#define DDPLAB_VIZ_PLOTS_H

#include <stddef.h>

#include "base/status.h" // defines: SimStatus
#include "scene.h"       // defines: VizModel

SimStatus viz_plot_loss_png(const VizModel *m, const char *path, char *err, size_t errlen);
SimStatus viz_plot_memory_png(const VizModel *m, const char *path, char *err, size_t errlen);

#endif
