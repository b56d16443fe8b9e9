// viz/view_sdl_load.c: the SDL2 view as the ddplab program has it. The view
// itself (view_sdl*.c) is a plugin, ddplab-sdl.so, that this file opens with
// dlopen the first time a window (viz_sdl_run) or an SDL-drawn PNG
// (viz_sdl_png) is asked for, so that every other command starts without
// SDL2, cairo, pango and the libraries they bring (about 60, several
// milliseconds and megabytes at each start).
//
// Only the program links this file. The plugin calls the program's own
// scene, layout and engine (viz_*, sim_*), which the program exports for it
// (cli/ddplab.dynlist); a test or benchmark exports nothing, so those that
// run the view in-process link the view itself (ddplab_viz_sdl,
// viz/CMakeLists.txt) instead.
#include "views.h"

#include <pthread.h>

#include "base/errbuf.h"     // defines: sim_errbuf_fail
#include "base/plugin.h"     // defines: sim_plugin_open, SimPlugin
#include "view_sdl_plugin.h" // defines: VizSdlPlugin, VIZ_SDL_PLUGIN_*

// What the one load gave: written by load() alone, under load_once, and
// only read after it (pthread_once orders the two). A live run and a lesson
// may ask from more than one thread.
static struct {
    const VizSdlPlugin *table; // NULL when the load failed
    char error[2048];          // why it failed: one line
} plugin;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

// Opens the plugin and takes its table. It is never closed (no dlclose):
// the view may be opened again (a lesson opens it at each pause), and SDL
// and the libraries it loads (video drivers, D-Bus, fontconfig) leave
// threads, exit handlers and thread-local destructors that point into their
// code after SDL_Quit; the system unmaps everything at exit anyway.
static void load(void) {
    static const char what[] = "the SDL view's plugin";
    SimPlugin p;
    if (sim_plugin_open(what, VIZ_SDL_PLUGIN_FILE, VIZ_SDL_PLUGIN_ENTRY, &p, plugin.error,
                        sizeof plugin.error) != SIM_OK)
        return;
    char why[1024] = "";
    const VizSdlPlugin *t =
        ((VizSdlPluginEntry)p.entry)(DDPLAB_VERSION, sizeof(VizSdlPlugin), why, sizeof why);
    if (t != NULL && t->version != VIZ_SDL_PLUGIN_VERSION) {
        sim_errbuf_fail(why, sizeof why, SIM_ENOTSUP, "it holds the view's interface version "
                        "%d, not %d", t->version, VIZ_SDL_PLUGIN_VERSION);
        t = NULL;
    }
    if (t == NULL) {
        sim_errbuf_fail(plugin.error, sizeof plugin.error, SIM_ENOTSUP, "cannot load %s%s: %s: "
                        "%s", what, p.from_env ? " (from " SIM_PLUGIN_DIR_ENV ")" : "", p.path,
                        why);
        sim_plugin_close(&p);
        return;
    }
    plugin.table = t;
}

static const VizSdlPlugin *table(void) {
    pthread_once(&load_once, load);
    return plugin.table;
}

SimStatus viz_sdl_run(VizSource *src, const VizViewOpts *o, char *err, size_t errlen) {
    const VizSdlPlugin *t = table();
    if (t == NULL) // as when the view cannot start here (no display): SIM_ENOTSUP
        return sim_errbuf_fail(err, errlen, SIM_ENOTSUP, "%s; --viz ncurses shows the same "
                               "view in the terminal", plugin.error);
    return t->run(src, o, err, errlen);
}

SimStatus viz_sdl_png(VizModel *m, size_t i, double frac, const VizViewOpts *o,
                      const char *path, char *err, size_t errlen) {
    const VizSdlPlugin *t = table();
    if (t == NULL)
        return sim_errbuf_fail(err, errlen, SIM_ENOTSUP, "cannot draw %s: %s; --viz text "
                               "prints the same frame", path ? path : "the frame",
                               plugin.error);
    return t->png(m, i, frac, o, path, err, errlen);
}

SimStatus viz_sdl_frame(VizModel *m, size_t i, double frac, const VizViewOpts *o, int w, int h,
                        uint8_t *rgba, char *err, size_t errlen) {
    const VizSdlPlugin *t = table();
    if (t == NULL)
        return sim_errbuf_fail(err, errlen, SIM_ENOTSUP, "cannot draw the frame: %s",
                               plugin.error);
    return t->frame(m, i, frac, o, w, h, rgba, err, errlen);
}

SimStatus viz_chart_write(const VizChart *c, const char *path, char *err, size_t errlen) {
    const VizSdlPlugin *t = table();
    if (t == NULL)
        return sim_errbuf_fail(err, errlen, SIM_ENOTSUP, "cannot draw %s: %s",
                               path ? path : "the chart", plugin.error);
    return t->chart(c, path, err, errlen);
}

// As viz_sdl_available: the build has the plugin that draws the charts;
// one that cannot load is named when a chart is written.
int viz_chart_available(char *err, size_t errlen) {
    if (err != NULL && errlen > 0)
        err[0] = '\0';
    return 1;
}

// Whether this build has the view, not whether it loads: the callers check
// their options with it before anything runs (cli/core/viz_cli.c,
// cli/lesson/lesson_cmd.c), and a check must not cost SDL's start. A
// plugin that is missing or cannot load is named when the view is opened.
int viz_sdl_available(void) {
    return 1;
}
