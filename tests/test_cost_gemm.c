// tests/test_cost_gemm.c: matrix products priced by their shape
// (sim/cost/cost_gemm.c), the fit of a device's product efficiency and launch
// cost to measured products (what `ddplab bench --calibrate` runs on a GPU),
// and the profile file fields that carry them (the device's SMs and tile, the
// system's NICs).
//   - hand-computed seconds: a large square product on H100 (16 waves of
//     128x256 tiles on 132 SMs), a product of 8 rows (one wave of 64x64
//     tiles at 3/8 of the large tile's rate), A100's 4096-cube (5 waves of
//     256x128 tiles on 108 SMs, 512 of 540 slots busy), and a device without
//     tiles (plain 2MNK / peak);
//   - the fit recovers the efficiency and launch cost that made synthetic
//     measurements, to rounding, and refuses what cannot be fitted;
//   - the new fields survive a profile file and are refused when partial.
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cost/cost.h"
#include "test_files.h"

static char tmpdir[256];

static double rel(double want) {
    return 1e-12 * want;
}

static int test_shapes(void) {
    const SimDeviceProfile *h = sim_device_find("h100"), *a = sim_device_find("a100-80");
    CHECK(h != NULL && a != NULL);
    CHECK_EQ_INT(h->sm_count, 132);
    CHECK_EQ_INT(a->sm_count, 108);
    double per_sm_h = 989e12 / 132, per_sm_a = 312e12 / 108;
    // 8192^3: 64 x 32 = 2048 tiles of 128x256, 16 waves of 132 (15.5 filled)
    SimCostGemm big = {8192, 8192, 8192, 3.0 * 8192 * 8192 * 2};
    double want = 16 * 2.0 * 128 * 256 * 8192 / per_sm_h / 0.80 + 5e-6;
    CHECK_NEAR(sim_cost_gemm_on(h, &big, 1), want, rel(want));
    // 8 rows: 64x64 tiles (intensity 32 against 128x256's 256/3: rate 3/8),
    // 64 tiles in one wave; the arithmetic (11.9 us) outlasts the 33.7 MB
    // of traffic (10.1 us)
    SimCostGemm skinny = {8, 4096, 4096, 2.0 * (8 * 4096 + 4096.0 * 4096 + 8 * 4096)};
    want = 2.0 * 64 * 64 * 4096 / (0.375 * per_sm_h) / 0.80 + 5e-6;
    CHECK_NEAR(sim_cost_gemm_on(h, &skinny, 1), want, rel(want));
    CHECK(sim_cost_gemm_math(h, &skinny, 1) > 2.0 * 8 * 4096 * 4096 / 989e12 * 40);
    // A100 4096^3: 16 x 32 = 512 tiles of 256x128 in 5 waves of 108
    SimCostGemm cube = {4096, 4096, 4096, 3.0 * 4096 * 4096 * 2};
    want = 5 * 2.0 * 256 * 128 * 4096 / per_sm_a / 0.87 + 5e-6;
    CHECK_NEAR(sim_cost_gemm_on(a, &cube, 1), want, rel(want));
    // no tiles stated: the plain rate; fp32 on its own peak
    SimDeviceProfile plain = *h;
    plain.sm_count = 0;
    want = 2.0 * 8192 * 8192 * 8192 / 989e12 / 0.80 + 5e-6;
    CHECK_NEAR(sim_cost_gemm_on(&plain, &big, 1), want, rel(want));
    want = 2.0 * 8192 * 8192 * 8192 / 67e12 / 0.80 + 5e-6;
    CHECK_NEAR(sim_cost_gemm_on(&plain, &big, 0), want, rel(want));
    // an empty product costs its launch
    SimCostGemm none = {0, 4096, 4096, 0};
    CHECK_NEAR(sim_cost_gemm_on(h, &none, 1), 5e-6, 1e-18);
    return 0;
}

// Synthetic measurements made by a device of efficiency 0.7 and launch
// 7 us: the fit on a profile that says 0.5 and 0 finds them.
static int test_fit(void) {
    SimDeviceProfile truth = *sim_device_find("h100"), d = truth;
    truth.efficiency = 0.7;
    truth.launch_s = 7e-6;
    const SimCostGemm g[] = {
        {256, 256, 256, 3.0 * 256 * 256 * 2},       {1024, 1024, 1024, 3.0 * 1024 * 1024 * 2},
        {4096, 4096, 4096, 3.0 * 4096 * 4096 * 2}, {8, 4096, 4096, 2.0 * 4096 * 4112},
        {16384, 1536, 6144, 2.0 * (16384.0 * 6144 + 1536.0 * 6144 + 16384.0 * 1536)},
    };
    int n = (int)(sizeof g / sizeof g[0]);
    double secs[5];
    for (int i = 0; i < n; i++)
        secs[i] = sim_cost_gemm_on(&truth, &g[i], 1);
    d.efficiency = 0.5;
    d.launch_s = 0;
    CHECK_EQ_INT(sim_cost_fit_gemm(&d, g, secs, n, 1), SIM_OK);
    CHECK_NEAR(d.efficiency, 0.7, 1e-9);
    CHECK_NEAR(d.launch_s, 7e-6, 1e-12);
    // faster than the peak allows: efficiency 1, not more
    for (int i = 0; i < n; i++)
        secs[i] = sim_cost_gemm_math(&truth, &g[i], 1) / 2 + 1e-6;
    CHECK_EQ_INT(sim_cost_fit_gemm(&d, g, secs, n, 1), SIM_OK);
    CHECK_NEAR(d.efficiency, 1.0, 0);
    CHECK_NEAR(d.launch_s, 1e-6, 1e-12);
    // a negative intercept (noise) is no launch cost
    for (int i = 0; i < n; i++)
        secs[i] = sim_cost_gemm_math(&truth, &g[i], 1) * 2 - 1e-6;
    CHECK_EQ_INT(sim_cost_fit_gemm(&d, g, secs, n, 1), SIM_OK);
    CHECK_NEAR(d.efficiency, 0.5, 1e-9);
    CHECK_NEAR(d.launch_s, 0.0, 0);
    // refusals: one shape, equal shapes, times that fall as work grows, NaN
    SimDeviceProfile keep = d;
    CHECK_EQ_INT(sim_cost_fit_gemm(&d, g, secs, 1, 1), SIM_EINVAL);
    const SimCostGemm same[2] = {g[2], g[2]};
    CHECK_EQ_INT(sim_cost_fit_gemm(&d, same, secs, 2, 1), SIM_EINVAL);
    double falling[2] = {1e-3, 1e-6};
    CHECK_EQ_INT(sim_cost_fit_gemm(&d, &g[1], falling, 2, 1), SIM_EINVAL);
    double nan_secs[2] = {NAN, 1e-3};
    CHECK_EQ_INT(sim_cost_fit_gemm(&d, g, nan_secs, 2, 1), SIM_EINVAL);
    CHECK(d.efficiency == keep.efficiency && d.launch_s == keep.launch_s);
    return 0;
}

static int test_file_fields(void) {
    char path[512], err[512];
    snprintf(path, sizeof path, "%s/tiles.json", tmpdir);
    SimSysProfile p = *sim_sys_find("dgx-h100"), q;
    CHECK_EQ_INT(p.nics_per_node, 8);
    CHECK_EQ_INT(sim_sys_save(&p, path), SIM_OK);
    memset(&q, 0, sizeof q);
    CHECK_EQ_INT(sim_sys_load(path, &q, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(q.nics_per_node, 8);
    CHECK_EQ_INT(q.device.sm_count, 132);
    CHECK_EQ_INT(q.device.gemm_tile_m, 128);
    CHECK_EQ_INT(q.device.gemm_tile_n, 256);
    // a tile without the SMs is refused, naming the fields
    char *text = tfile_read(path, NULL);
    CHECK(text != NULL);
    char *at = strstr(text, "\"sm_count\": 132, ");
    CHECK(at != NULL);
    char out[8192];
    snprintf(out, sizeof out, "%.*s%s", (int)(at - text), text, at + strlen("\"sm_count\": 132, "));
    free(text);
    CHECK_EQ_INT(tfile_write(path, out, strlen(out)), 0);
    CHECK_EQ_INT(sim_sys_load(path, &q, err, sizeof err), SIM_EFORMAT);
    CHECK_STR_CONTAINS(err, "go together");
    unlink(path);
    return 0;
}

int main(void) {
    if (tfile_mkdtemp(tmpdir, sizeof(tmpdir), "test-cost-gemm") != 0) {
        perror("mkdtemp");
        return 1;
    }
    int failures = 0;
    RUN(test_shapes);
    RUN(test_fit);
    RUN(test_file_fields);
    tfile_rmtree(tmpdir);
    return failures != 0;
}
