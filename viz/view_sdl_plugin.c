// viz/view_sdl_plugin.c: the entry point of ddplab-sdl.so, the only symbol
// the plugin exports (view_sdl_plugin.map). Built into the plugin alone: the
// tests and benchmarks link the view's static library and call viz_sdl_run
// and viz_sdl_png directly.
#include "view_sdl_plugin.h"

#include <stdio.h>
#include <string.h>

// The view's own functions (view_sdl.c): bound inside the plugin when it is
// linked, since the version script keeps them local, and never to the
// program's functions of the same names (view_sdl_load.c).
static const VizSdlPlugin table = {
    .version = VIZ_SDL_PLUGIN_VERSION,
    .run = viz_sdl_run,
    .png = viz_sdl_png,
    .frame = viz_sdl_frame,
    .chart = viz_chart_write,
};

const VizSdlPlugin *viz_sdl_plugin_entry(const char *version, size_t table_size, char *err,
                                         size_t errlen) {
    if (version == NULL || strcmp(version, DDPLAB_VERSION) != 0) {
        snprintf(err, errlen, "it was built for ddplab %s, and this is ddplab %s",
                 DDPLAB_VERSION, version ? version : "(unknown)");
        return NULL;
    }
    if (table_size != sizeof(VizSdlPlugin)) {
        snprintf(err, errlen, "it was built with another view interface (a table of %zu "
                 "bytes, the program's has %zu): rebuild both from one source tree",
                 sizeof(VizSdlPlugin), table_size);
        return NULL;
    }
    return &table;
}
