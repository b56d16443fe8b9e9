// cli/run/run_diag.c: the diagnosis of a run that failed in a way the backend
// diagnosed (the watchdog, the protocol check, a crashed rank): written in
// full on stderr (unless the run's message already holds it), and to the
// --diagnosis file, atomically (sim/base/outfile.h), so that it survives the
// terminal. The same text is in the trace as its diagnosis event
// (sim_world_trace_diagnosis, done by sim_world_run). A run that succeeds
// writes no file, an elastic one included: its rounds' diagnoses reach the
// file only when the run fails in the end (run_elastic.c).
#include "run/run.h"

#include <stdio.h>
#include <string.h>

#include "base/outfile.h" // defines: SimOutFile
#include "engine/world.h" // defines: sim_world_diagnosis

int run_diag_is_diagnosed(SimStatus st) {
    return st == SIM_ETIMEDOUT || st == SIM_EPROTO || st == SIM_ECRASHED;
}

void run_diag_report(const RunOptions *o, const SimWorld *w, SimStatus st, const char *shown) {
    const char *d = sim_world_diagnosis(w);
    if (!run_diag_is_diagnosed(st) || d[0] == '\0')
        return;
    size_t n = strlen(d);
    const char *nl = n > 0 && d[n - 1] == '\n' ? "" : "\n";
    if (shown == NULL || strstr(shown, d) == NULL) {
        fputs(d, stderr);
        fputs(nl, stderr);
    }
    run_diag_write(o, d);
}

void run_diag_write(const RunOptions *o, const char *d) {
    if (o->diagnosis == NULL || d == NULL || d[0] == '\0')
        return;
    size_t n = strlen(d);
    const char *nl = d[n - 1] == '\n' ? "" : "\n";
    SimOutFile f;
    if (sim_outfile_open(&f, o->diagnosis) != SIM_OK) {
        run_error("--diagnosis: cannot create '%s'", o->diagnosis);
        return;
    }
    fputs(d, f.f);
    fputs(nl, f.f);
    if (sim_outfile_commit(&f) != SIM_OK) {
        run_error("--diagnosis: cannot write '%s' (disk full?)", o->diagnosis);
        return;
    }
    printf("diagnosis written to %s\n", o->diagnosis);
}
