// tests/test_world.c: CPU-backend worlds for the tests (see test_world.h).
// tworld_run_cpu's watchdog is generous because sanitized builds run many
// ranks on two cores slowly; a real hang still fails well inside the tests'
// timeouts.
#include "test_world.h"

#include <stdio.h>

#include "cpu_backend.h"

SimStatus tworld_init_cpu(SimWorld *w, int R, int trace, double watchdog_s) {
    return tworld_init_cpu_nodes(w, R, 1, trace, watchdog_s);
}

SimStatus tworld_init_cpu_nodes(SimWorld *w, int R, int nodes, int trace, double watchdog_s) {
    SimWorldConfig cfg;
    sim_world_config_default(&cfg);
    cfg.nranks = R;
    cfg.nodes = nodes > 1 ? nodes : 1;
    cfg.trace = trace;
    cfg.watchdog_s = watchdog_s;
    return sim_world_init(w, &cfg, &cpu_backend_ops);
}

SimStatus tworld_run_cpu(int R, int trace, SimRankMain fn, void *arg) {
    SimWorld w;
    SimStatus st = tworld_init_cpu(&w, R, trace, 30);
    if (st == SIM_OK)
        st = sim_world_run(&w, fn, arg);
    if (st != SIM_OK)
        fprintf(stderr, "%s\n", sim_world_error(&w));
    sim_world_free(&w);
    return st;
}
