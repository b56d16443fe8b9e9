// viz/screen_stub.c: the terminal of a build without ncurses (screen.h):
// no screen opens, and the error says what to install.
#include <stdio.h>

#include "screen.h"

VizScreen *viz_screen_open(FILE *out, FILE *in, const char *term, int unicode, char *err,
                           size_t errlen) {
    (void)out, (void)in, (void)term, (void)unicode;
    snprintf(err, errlen, "this ddplab was built without ncurses: install libncurses-dev "
                          "(apt-get install libncurses-dev) and rebuild, or use --viz text");
    return NULL;
}

// Nothing below is reached without an open screen.
void viz_screen_close(VizScreen *s) { (void)s; }
void viz_screen_suspend(VizScreen *s) { (void)s; }
void viz_screen_size(const VizScreen *s, int *w, int *h) {
    (void)s;
    *w = *h = 0;
}
SimStatus viz_screen_resize(VizScreen *s, int w, int h) {
    (void)s, (void)w, (void)h;
    return SIM_ENOTSUP;
}
int viz_screen_unicode(const VizScreen *s) { (void)s; return 0; }
int viz_screen_colors(const VizScreen *s) { (void)s; return 0; }
void viz_screen_show(VizScreen *s, const VizCanvas *c) { (void)s, (void)c; }
void viz_screen_invalidate(VizScreen *s) { (void)s; }
int viz_screen_key(VizScreen *s, int timeout_ms) {
    (void)s, (void)timeout_ms;
    return VIZ_SCREEN_NOKEY;
}
