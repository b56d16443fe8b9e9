// viz/view_curses_stub.c: the ncurses view of a build without ncurses: it
// says so, and what to install, instead of drawing.
#include <stdio.h>

#include "views.h"

int viz_curses_available(void) {
    return 0;
}

SimStatus viz_curses_run(VizSource *src, const VizViewOpts *o, char *err, size_t errlen) {
    (void)src;
    (void)o;
    if (err != NULL && errlen > 0)
        snprintf(err, errlen,
                 "this ddplab was built without ncurses: install libncurses-dev "
                 "(apt-get install libncurses-dev) and rebuild, or use --viz text");
    return SIM_ENOTSUP;
}
