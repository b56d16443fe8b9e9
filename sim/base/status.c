// sim/base/status.c: names and descriptions of SimStatus values.
#include "base/status.h"

#include <stdio.h>
#include <stdlib.h>

const char *sim_status_name(SimStatus st) {
    switch (st) {
#define SIM_STATUS_NAME(name, desc)                                            \
    case SIM_##name:                                                           \
        return #name;
        SIM_STATUS_MAP(SIM_STATUS_NAME)
#undef SIM_STATUS_NAME
    default:
        return "UNKNOWN";
    }
}

const char *sim_strerror(SimStatus st) {
    switch (st) {
#define SIM_STATUS_DESC(name, desc)                                            \
    case SIM_##name:                                                           \
        return desc;
        SIM_STATUS_MAP(SIM_STATUS_DESC)
#undef SIM_STATUS_DESC
    default:
        return "unknown status";
    }
}

void sim_status_trace(SimStatus st, const char *file, int line) {
    if (getenv("DDPLAB_DEBUG") != NULL)
        fprintf(stderr, ".. %s:%d -> %s\n", file, line, sim_status_name(st));
}
