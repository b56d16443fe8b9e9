// fuzz/fuzz_profile.c: a system profile, the JSON file that
// `ddplab bench --calibrate FILE` writes and --profile FILE reads
// (sim/cost/cost_file.c), loaded the way --profile and --gpu load it. A profile
// that loads must price a 1 GiB transfer between nodes and a large compute
// op in finite time: every simulated clock is a sum of such prices.
#include <math.h>
#include <stdlib.h>

#include "cost/cost.h" // defines: sim_sys_load, sim_device_resolve, SimCost

#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_set_accepted(0);
    const char *path = fuzz_temp_file(0, data, size);
    if (path == NULL)
        return 0;
    SimSysProfile p;
    SimDeviceProfile d;
    char err[512];
    int ok = sim_sys_load(path, &p, err, sizeof err) == SIM_OK;
    if (ok) {
        // --gpu FILE: the same file, its device required
        sim_device_resolve(path, &d, err, sizeof err);
        SimCost c;
        sim_cost_init(&c, &p, 2 * p.ranks_per_node, p.ranks_per_node);
        double t = sim_cost_p2p(&c, 0, p.ranks_per_node, (size_t)1 << 30) +
                   sim_cost_compute(&c, 1e15, 1e12, 0) + sim_cost_compute(&c, 1e15, 1e12, 1);
        if (!isfinite(t) || t < 0) {
            fprintf(stderr, "fuzz_profile: a profile that loads prices at %g s\n", t);
            abort();
        }
    }
    fuzz_set_accepted(ok);
    return 0;
}
