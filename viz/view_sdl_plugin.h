// viz/view_sdl_plugin.h: what the ddplab program and the SDL2 view's plugin
// (ddplab-sdl.so: view_sdl*.c with view_sdl_plugin.c) know of each other.
// The program's side, view_sdl_load.c, opens the plugin the first time a
// window or an SDL-drawn PNG is asked for, and calls its one entry point for
// the table below; it then runs the view's two functions through it.
//
// Like views.h, this header includes no SDL header.
#ifndef DDPLAB_VIZ_VIEW_SDL_PLUGIN_H
#define DDPLAB_VIZ_VIEW_SDL_PLUGIN_H

#include <stddef.h>

#include "chart.h" // defines: VizChart
#include "views.h" // defines: VizSource, VizViewOpts, VizModel

// The plugin's file name (found by sim_plugin_open, sim/base/plugin.h), and
// the name of its entry point's symbol.
#define VIZ_SDL_PLUGIN_FILE "ddplab-sdl.so"
#define VIZ_SDL_PLUGIN_ENTRY "viz_sdl_plugin_entry"
// The table's layout and meaning; changed with either.
#define VIZ_SDL_PLUGIN_VERSION 2

// The view as the plugin holds it: viz_sdl_run, viz_sdl_png and viz_sdl_frame
// (views.h), and the charts (viz_chart_write, chart.h).
typedef struct {
    int version; // VIZ_SDL_PLUGIN_VERSION
    SimStatus (*run)(VizSource *src, const VizViewOpts *o, char *err, size_t errlen);
    SimStatus (*png)(VizModel *m, size_t i, double frac, const VizViewOpts *o, const char *path,
                     char *err, size_t errlen);
    SimStatus (*frame)(VizModel *m, size_t i, double frac, const VizViewOpts *o, int w, int h,
                       uint8_t *rgba, char *err, size_t errlen);
    // viz_chart_write (chart.h): the charts are drawn with the same library
    SimStatus (*chart)(const VizChart *c, const char *path, char *err, size_t errlen);
} VizSdlPlugin;

// The entry point. The plugin carries no scene, layout or engine of its own:
// it calls the program's (viz_*, sim_*), so it only works with the program
// of its own build. The caller passes the version it was built as
// (DDPLAB_VERSION) and its sizeof(VizSdlPlugin); the plugin returns its
// table, or NULL with one line in err when it was built for another program.
typedef const VizSdlPlugin *(*VizSdlPluginEntry)(const char *version, size_t table_size,
                                                 char *err, size_t errlen);
const VizSdlPlugin *viz_sdl_plugin_entry(const char *version, size_t table_size, char *err,
                                         size_t errlen);

#endif
