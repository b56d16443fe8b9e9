// tests/test_world.h: setting up and running CPU-backend worlds from a test.
#ifndef DDPLAB_TESTS_WORLD_H
#define DDPLAB_TESTS_WORLD_H

#include "engine/world.h"

// Initialises w as a world of R ranks on the CPU backend with the given
// watchdog (seconds), recording a trace when trace is 1. The caller frees w
// with sim_world_free, also when this fails (the reason is then in
// sim_world_error).
SimStatus tworld_init_cpu(SimWorld *w, int R, int trace, double watchdog_s);
// As tworld_init_cpu, with the R ranks spread over `nodes` nodes (R/nodes
// per node; nodes <= 1: one node), as HYBRID_SHARD and the inter-node
// links need.
SimStatus tworld_init_cpu_nodes(SimWorld *w, int R, int nodes, int trace, double watchdog_s);

// Runs fn(rank, arg) once on a fresh world of R ranks as above with a 30 s
// watchdog. On failure the world's explanation is printed to stderr.
// Returns the run's status.
SimStatus tworld_run_cpu(int R, int trace, SimRankMain fn, void *arg);

#endif
