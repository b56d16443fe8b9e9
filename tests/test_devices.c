// tests/test_devices.c: the compute devices of the cost model
// (sim/cost/cost_devices.c): the table is sane data with sources and the
// datasheet figures it cites; names, aliases and case find the same device
// and an ambiguous or unknown name finds none and lists what exists; the
// roofline gives hand-computed seconds on every device for a large GEMM
// (fp32 and bf16) and an element-wise op; the device a run uses is --gpu's,
// else its system's, else the default; profile files carry a device and
// still load without one; --device-memory reads the same table; and a
// device whose cores run the collectives holds the compute stream for them.
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cost/cost.h"
#include "engine/comm.h"
#include "engine/memory.h"
#include "test_files.h"
#include "test_world.h"

static char tmpdir[256];

static void path_in_tmp(char *out, size_t n, const char *name) {
    snprintf(out, n, "%s/%s", tmpdir, name);
}

// ----------------------------------------------------------------------------
// the table

static int test_table(void) {
    static const char *const order[] = {"h100", "h200", "a100-40", "a100-80", "l40s", "rtx4090"};
    CHECK_EQ_INT(sim_device_count(), 6);
    for (int i = 0; i < sim_device_count(); i++) {
        const SimDeviceProfile *d = sim_device_at(i);
        CHECK(d != NULL && strcmp(d->name, order[i]) == 0);
        CHECK(sim_device_valid(d));
        CHECK(d->description[0] != '\0' && d->source[0] != '\0');
        CHECK(strstr(d->source, "datasheet") || strstr(d->source, "whitepaper"));
        CHECK(strstr(d->source, "efficiency") != NULL); // says where the factor comes from
        CHECK(d->peak_lowp_flops > d->peak_fp32_flops); // tensor cores
        CHECK(d->efficiency >= 0.7 && d->efficiency <= 0.95);
        CHECK(d->launch_s > 0 && d->launch_s < 1e-4);
        CHECK(!d->coll_on_compute); // NCCL runs beside the compute
        CHECK(sim_device_find(d->name) == d);
    }
    CHECK(sim_device_at(-1) == NULL && sim_device_at(6) == NULL);
    CHECK(sim_device_default() == sim_device_at(0));
    // Datasheet figures (dense: half the "with sparsity" ones).
    const SimDeviceProfile *h = sim_device_find("h100");
    CHECK_NEAR(h->peak_fp32_flops, 67e12, 1);
    CHECK_NEAR(h->peak_lowp_flops, 989e12, 1);
    CHECK_NEAR(h->mem_bw_Bps, 3.35e12, 1);
    CHECK_NEAR(h->mem_bytes, 80e9, 1);
    CHECK_NEAR(h->efficiency, 0.80, 1e-12); // MAMF 794.5 / 989
    CHECK_NEAR(sim_device_find("a100-40")->mem_bw_Bps, 1555e9, 1);
    CHECK_NEAR(sim_device_find("a100-80")->mem_bw_Bps, 2039e9, 1);
    CHECK_NEAR(sim_device_find("a100-80")->peak_lowp_flops, 312e12, 1);
    CHECK_NEAR(sim_device_find("a100-80")->efficiency, 0.87, 1e-12); // MAMF 271.2 / 312
    CHECK_NEAR(sim_device_find("h200")->mem_bytes, 141e9, 1);
    // fused attention: PyTorch's flash kernel on an H100, 287-304 of 989
    // TFLOPS; the FlashAttention-2 paper's 50-73% of an A100's peak, low end
    CHECK_NEAR(h->attn_efficiency, 0.30, 1e-12);
    CHECK_NEAR(sim_device_find("h200")->attn_efficiency, 0.30, 1e-12);
    CHECK_NEAR(sim_device_find("a100-80")->attn_efficiency, 0.50, 1e-12);
    CHECK_NEAR(sim_device_find("a100-40")->attn_efficiency, 0.50, 1e-12);
    CHECK_NEAR(sim_device_find("l40s")->attn_efficiency, 0, 0); // none published
    // a flash kernel of 989 TFLOP is priced at 0.30 of the peak: 1 / 0.3 s
    // plus the launch; a 16-bit GEMM of the same FLOPs at 0.80
    CHECK_NEAR(sim_cost_compute_on(h, 989e12, 0, SIM_COST_ATTN), 1 / 0.30 + 5e-6, 1e-9);
    CHECK_NEAR(sim_cost_compute_on(h, 989e12, 0, 1), 1 / 0.80 + 5e-6, 1e-9);
    CHECK_NEAR(sim_cost_compute_on(sim_device_find("l40s"), 362.05e12, 0, SIM_COST_ATTN),
               1 / 0.80 + 5e-6, 1e-9);
    CHECK_NEAR(sim_device_find("h200")->mem_bw_Bps, 4.8e12, 1);
    CHECK_NEAR(sim_device_find("l40s")->peak_lowp_flops, 362.05e12, 1);
    CHECK_NEAR(sim_device_find("l40s")->mem_bytes, 48e9, 1);
    CHECK_NEAR(sim_device_find("rtx4090")->peak_lowp_flops, 165.2e12, 1); // fp32 accumulate
    CHECK_NEAR(sim_device_find("rtx4090")->mem_bytes, 24e9, 1);
    // The DGX systems state their GPUs; the others leave it open.
    CHECK(strcmp(sim_sys_find("dgx-h100")->device.name, "h100") == 0);
    CHECK(strcmp(sim_sys_find("dgx-a100")->device.name, "a100-80") == 0);
    CHECK(!sim_device_valid(&sim_sys_find("pcie-ib200")->device));
    CHECK(memcmp(&sim_sys_find("dgx-a100")->device, sim_device_find("a100-80"),
                 sizeof(SimDeviceProfile)) == 0);
    return 0;
}

static int test_names(void) {
    static const struct {
        const char *name, *is;
    } cases[] = {
        {"H100", "h100"},          {"h100-sxm", "h100"},        {"H100-SXM5", "h100"},
        {"h100-80gb", "h100"},     {"h200-sxm", "h200"},        {"A100-40", "a100-40"},
        {"a100-40gb", "a100-40"},  {"a100-sxm4-80gb", "a100-80"}, {"A100-80GB", "a100-80"},
        {"L40S", "l40s"},          {"RTX4090", "rtx4090"},      {"rtx-4090", "rtx4090"},
        {"4090", "rtx4090"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const SimDeviceProfile *d = sim_device_find(cases[i].name);
        if (d == NULL || strcmp(d->name, cases[i].is) != 0)
            fprintf(stderr, "%s -> %s\n", cases[i].name, d ? d->name : "NULL");
        CHECK(d != NULL && strcmp(d->name, cases[i].is) == 0);
    }
    // A bare A100 is 40 or 80 GB: ambiguous, so nothing.
    CHECK(sim_device_find("a100") == NULL && sim_device_find("A100") == NULL);
    CHECK(sim_device_find("h100 ") == NULL && sim_device_find("") == NULL);
    CHECK(sim_device_find(NULL) == NULL && sim_device_find("v100") == NULL);
    char names[256];
    CHECK(strcmp(sim_device_names(names, sizeof names),
                 "h100 (80 GB), h200 (141 GB), a100-40 (40 GB), a100-80 (80 GB), l40s (48 GB), "
                 "rtx4090 (24 GB)") == 0);
    char tiny[10];
    sim_device_names(tiny, sizeof tiny); // truncates, terminated
    CHECK(strlen(tiny) == sizeof tiny - 1);

    // --gpu resolution: names and aliases; bad names list what exists.
    char err[1024];
    SimDeviceProfile d;
    CHECK_EQ_INT(sim_device_resolve("H100-SXM", &d, err, sizeof err), SIM_OK);
    CHECK(strcmp(d.name, "h100") == 0);
    CHECK_EQ_INT(sim_device_resolve("v100", &d, err, sizeof err), SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "unknown device \"v100\"");
    for (int i = 0; i < sim_device_count(); i++)
        CHECK_STR_CONTAINS(err, sim_device_at(i)->name);
    CHECK(strchr(err, '\n') == NULL);
    CHECK_EQ_INT(sim_device_resolve("a100", &d, err, sizeof err), SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "did you mean a100-40 or a100-80?");
    CHECK_EQ_INT(sim_device_resolve("", &d, err, sizeof err), SIM_EINVAL);
    CHECK_EQ_INT(sim_device_resolve(NULL, &d, err, sizeof err), SIM_EINVAL);
    char small[12];
    CHECK_EQ_INT(sim_device_resolve("v100", &d, small, sizeof small), SIM_EINVAL);
    CHECK(strlen(small) < sizeof small);

    // --device-memory reads the same table, aliases included.
    uint64_t bytes = 0;
    CHECK_EQ_INT(sim_mem_device_capacity("h100-sxm", &bytes), 0);
    CHECK(bytes == 80000000000ULL);
    CHECK_EQ_INT(sim_mem_device_capacity("RTX-4090", &bytes), 0);
    CHECK(bytes == 24000000000ULL);
    CHECK_EQ_INT(sim_mem_device_capacity("a100", &bytes), -1);
    CHECK(strcmp(sim_mem_device_names(names, sizeof names),
                 sim_device_names(err, sizeof err)) == 0);
    return 0;
}

// ----------------------------------------------------------------------------
// the roofline

static int test_roofline(void) {
    // Seconds worked out by hand from the datasheet figures:
    //   GEMM 8192^3: F = 2 x 8192^3 = 1.0995e12 FLOPs; bytes 3 x 8192^2 x 4
    //     (fp32) or x 2 (bf16); compute-bound on every device.
    //     fp32: F / fp32 peak / efficiency + 5 us; bf16: F / lowp peak / ...
    //   add of n = 2^26 floats: n FLOPs, 12n bytes (read a, b, write out);
    //     memory-bound: 12n / bandwidth / efficiency + 5 us.
    // e.g. h100: 1.0995e12 / 67e12 / 0.8 + 5e-6 = 0.0205182766 s;
    //      1.0995e12 / 989e12 / 0.8 + 5e-6 = 0.00139467597 s;
    //      8.053e8 / 3.35e12 / 0.8 + 5e-6 = 0.000305487451 s.
    static const struct {
        const char *name;
        double gemm32, gemm16, add;
    } want[] = {
        {"h100", 0.0205182766, 0.00139467597, 0.000305487451},
        {"h200", 0.0205182766, 0.00139467597, 0.0002147152},
        {"a100-40", 0.0648155881, 0.00405566176, 0.000600266562},
        {"a100-80", 0.0648155881, 0.00405566176, 0.000458967388},
        {"l40s", 0.0150092526, 0.00380113185, 0.00117008444},
        {"rtx4090", 0.0147953098, 0.00740015488, 0.000892683386},
    };
    double M = 8192, F = 2 * M * M * M, n = (double)(1 << 26);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        SimCost c;
        sim_cost_init(&c, sim_sys_find("pcie-ib200"), 8, 8); // a system without a device
        c.device = *sim_device_find(want[i].name);
        CHECK(sim_cost_device(&c) == &c.device);
        // (the literals carry 9 significant digits)
        CHECK_NEAR(sim_cost_compute(&c, F, 3 * M * M * 4, 0), want[i].gemm32, 1e-8 * want[i].gemm32);
        CHECK_NEAR(sim_cost_compute(&c, F, 3 * M * M * 2, 1), want[i].gemm16, 1e-8 * want[i].gemm16);
        CHECK_NEAR(sim_cost_compute(&c, n, 12 * n, 0), want[i].add, 1e-8 * want[i].add);
        // A tiny op costs its launch.
        CHECK_NEAR(sim_cost_compute(&c, 0, 0, 0), 5e-6, 1e-15);
    }
    return 0;
}

static int test_which_device(void) {
    SimCost c;
    // No device anywhere: the default (H100).
    sim_cost_init(&c, sim_sys_find("pcie-eth25"), 2, 2);
    CHECK(sim_cost_device(&c) == sim_device_default());
    // The system's own.
    sim_cost_init(&c, sim_sys_find("dgx-a100"), 8, 8);
    CHECK(strcmp(sim_cost_device(&c)->name, "a100-80") == 0);
    // --gpu wins over the system's.
    c.device = *sim_device_find("l40s");
    CHECK(strcmp(sim_cost_device(&c)->name, "l40s") == 0);
    CHECK(sim_device_effective(NULL, NULL) == sim_device_default());
    CHECK(strcmp(sim_device_effective(NULL, sim_sys_find("dgx-a100"))->name, "a100-80") == 0);
    // An incomplete device is not used.
    SimDeviceProfile half = *sim_device_find("l40s");
    half.efficiency = 0;
    CHECK(!sim_device_valid(&half));
    CHECK(strcmp(sim_device_effective(&half, sim_sys_find("dgx-a100"))->name, "a100-80") == 0);
    half = *sim_device_find("l40s");
    half.mem_bw_Bps = NAN;
    CHECK(!sim_device_valid(&half));
    half = *sim_device_find("l40s");
    half.efficiency = 1.5;
    CHECK(!sim_device_valid(&half));
    CHECK(!sim_device_valid(NULL));
    return 0;
}

// ----------------------------------------------------------------------------
// profile files

// A calibrated CPU, as `ddplab bench --calibrate` writes one.
static SimDeviceProfile cpu_device(void) {
    SimDeviceProfile d;
    memset(&d, 0, sizeof d);
    strcpy(d.name, "cpu-test");
    strcpy(d.description, "a \"test\" CPU, 2 ranks at once");
    d.peak_fp32_flops = 123.456789e9;
    d.peak_lowp_flops = 123.456789e9;
    d.mem_bw_Bps = 29.87654321e9;
    d.mem_bytes = 24.5e9;
    d.efficiency = 1.0;
    d.attn_efficiency = 0.25;
    d.launch_s = 0.0432e-6;
    d.coll_on_compute = 1;
    strcpy(d.source, "measured by ddplab bench");
    return d;
}

static int same_device(const SimDeviceProfile *a, const SimDeviceProfile *b) {
    return strcmp(a->name, b->name) == 0 && strcmp(a->description, b->description) == 0 &&
           strcmp(a->source, b->source) == 0 &&
           fabs(a->peak_fp32_flops - b->peak_fp32_flops) <= 1e-12 * a->peak_fp32_flops &&
           fabs(a->peak_lowp_flops - b->peak_lowp_flops) <= 1e-12 * a->peak_lowp_flops &&
           fabs(a->mem_bw_Bps - b->mem_bw_Bps) <= 1e-12 * a->mem_bw_Bps &&
           fabs(a->mem_bytes - b->mem_bytes) <= 1e-12 * a->mem_bytes &&
           fabs(a->efficiency - b->efficiency) <= 1e-15 &&
           fabs(a->attn_efficiency - b->attn_efficiency) <= 1e-15 &&
           fabs(a->launch_s - b->launch_s) <= 1e-12 * a->launch_s &&
           a->coll_on_compute == b->coll_on_compute;
}

static int test_file_round_trip(void) {
    char path[512], err[512];
    path_in_tmp(path, sizeof path, "cal.json");
    // With a device: links and device come back; --gpu FILE gives the device.
    SimSysProfile p = *sim_sys_find("eth25"), q;
    strcpy(p.name, "calibrated-test");
    p.device = cpu_device();
    CHECK_EQ_INT(sim_sys_save(&p, path), SIM_OK);
    memset(&q, 0x5a, sizeof q);
    CHECK_EQ_INT(sim_sys_load(path, &q, err, sizeof err), SIM_OK);
    CHECK(same_device(&p.device, &q.device));
    CHECK(strcmp(q.name, "calibrated-test") == 0 && q.intra.bw_Bps == p.intra.bw_Bps);
    CHECK_EQ_INT(sim_sys_resolve(path, &q, err, sizeof err), SIM_OK);
    CHECK(same_device(&p.device, &q.device));
    SimDeviceProfile d;
    CHECK_EQ_INT(sim_device_resolve(path, &d, err, sizeof err), SIM_OK);
    CHECK(same_device(&p.device, &d));
    // ... and the cost model prices compute on it: 123.456789 GFLOP at
    // efficiency 1 take one second, plus 0.0432 us.
    SimCost c;
    sim_cost_init(&c, &q, 2, 2);
    CHECK_NEAR(sim_cost_compute(&c, 123.456789e9, 1, 0), 1.0 + 0.0432e-6, 1e-9);
    char *text = tfile_read(path, NULL);
    CHECK(text != NULL);
    CHECK_STR_CONTAINS(text, "\"device\": {\"name\": \"cpu-test\"");
    CHECK_STR_CONTAINS(text, "\"coll_on_compute\": 1");

    // Without a device: no "device" object, and none comes back.
    p.device = (SimDeviceProfile){0};
    CHECK_EQ_INT(sim_sys_save(&p, path), SIM_OK);
    free(text);
    text = tfile_read(path, NULL);
    CHECK(text != NULL && strstr(text, "\"device\"") == NULL);
    free(text);
    memset(&q, 0x5a, sizeof q);
    CHECK_EQ_INT(sim_sys_load(path, &q, err, sizeof err), SIM_OK);
    CHECK(!sim_device_valid(&q.device) && q.device.name[0] == '\0');
    CHECK_EQ_INT(sim_device_resolve(path, &d, err, sizeof err), SIM_EFORMAT);
    CHECK_STR_CONTAINS(err, "states no device");
    CHECK_STR_CONTAINS(err, "ddplab bench --calibrate");

    // A file written before devices existed (version 1, no "device") loads.
    static const char old[] =
        "{\"format\": \"ddplab-profile\", \"version\": 1, \"name\": \"old\", "
        "\"ranks_per_node\": 2,\n"
        " \"intra\": {\"name\": \"m\", \"alpha_us\": 50, \"bw_GBps\": 6.5},\n"
        " \"inter\": {\"name\": \"m\", \"alpha_us\": 50, \"bw_GBps\": 6.5}}\n";
    CHECK_EQ_INT(tfile_write(path, old, strlen(old)), 0);
    CHECK_EQ_INT(sim_sys_load(path, &q, err, sizeof err), SIM_OK);
    CHECK(strcmp(q.name, "old") == 0 && !sim_device_valid(&q.device));
    sim_cost_init(&c, &q, 2, 2);
    CHECK(sim_cost_device(&c) == sim_device_default());
    // ... and a "device" that is not an object is refused, naming it.
    char notobj[sizeof old + 32];
    snprintf(notobj, sizeof notobj, "%.*s, \"device\": 7}\n", (int)(strlen(old) - 2), old);
    CHECK_EQ_INT(tfile_write(path, notobj, strlen(notobj)), 0);
    CHECK_EQ_INT(sim_sys_load(path, &q, err, sizeof err), SIM_EFORMAT);
    CHECK_STR_CONTAINS(err, "field \"device\" must be an object");

    // A half-stated device is refused before anything is written.
    p.device = cpu_device();
    p.device.efficiency = 0;
    unlink(path);
    CHECK_EQ_INT(sim_sys_save(&p, path), SIM_EINVAL);
    CHECK(!tfile_exists(path));
    return 0;
}

// Writes the profile with a device, replaces `from` by `to` in it and
// expects the load to fail naming `needle`.
static int expect_bad_device(const char *from, const char *to, const char *needle) {
    char path[512], err[512];
    path_in_tmp(path, sizeof path, "bad.json");
    SimSysProfile p = *sim_sys_find("eth25"), q;
    p.device = cpu_device();
    CHECK_EQ_INT(sim_sys_save(&p, path), SIM_OK);
    char *text = tfile_read(path, NULL);
    CHECK(text != NULL);
    char *at = strstr(text, from);
    if (at == NULL)
        fprintf(stderr, "'%s' not in:\n%s\n", from, text);
    CHECK(at != NULL);
    char out[8192];
    snprintf(out, sizeof out, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    free(text);
    CHECK_EQ_INT(tfile_write(path, out, strlen(out)), 0);
    memset(&q, 0, sizeof q);
    SimStatus st = sim_sys_load(path, &q, err, sizeof err);
    if (st != SIM_EFORMAT || strstr(err, needle) == NULL)
        fprintf(stderr, "for %s: got %s (%s)\n", needle, sim_status_name(st), err);
    CHECK_EQ_INT(st, SIM_EFORMAT);
    CHECK_STR_CONTAINS(err, needle);
    CHECK(strchr(err, '\n') == NULL);
    CHECK(q.name[0] == '\0'); // out untouched
    unlink(path);
    return 0;
}

static int test_file_errors(void) {
    CHECK_EQ_INT(expect_bad_device("\"efficiency\": 1", "\"efficiency\": 1.5", "device.efficiency"), 0);
    CHECK_EQ_INT(expect_bad_device("\"efficiency\": 1", "\"efficiency\": 0", "device.efficiency"), 0);
    CHECK_EQ_INT(expect_bad_device("\"fp32_TFLOPS\"", "\"fp32_TFLOPZ\"", "device.fp32_TFLOPZ"), 0);
    CHECK_EQ_INT(expect_bad_device("\"mem_bw_GBps\": ", "\"mem_bw_GBps\": -", "device.mem_bw_GBps"), 0);
    CHECK_EQ_INT(expect_bad_device("\"launch_us\"", "\"xlaunch_us\": 1, \"launch_us\"",
                                   "device.xlaunch_us"), 0);
    CHECK_EQ_INT(expect_bad_device("\"coll_on_compute\": 1", "\"coll_on_compute\": 2",
                                   "device.coll_on_compute"), 0);
    CHECK_EQ_INT(expect_bad_device("\"name\": \"cpu-test\"", "\"name\": \"\"", "device.name"), 0);
    CHECK_EQ_INT(expect_bad_device("\"name\": \"cpu-test\", ", "", "device.name"), 0);
    CHECK_EQ_INT(expect_bad_device("\"lowp_TFLOPS\": 0.", "\"lowp_TFLOPS\": 5e9",
                                   "device.lowp_TFLOPS"), 0); // 5e9123456789: not finite
    CHECK_EQ_INT(expect_bad_device("\"mem_GB\": 24.5", "\"mem_GB\": 2e9", "device.mem_GB"), 0);
    return 0;
}

// ----------------------------------------------------------------------------
// collectives on the compute cores

typedef struct {
    double compute_after[2], coll_end[2];
} HoldRun;

static SimStatus hold_rank(SimRank *r, void *arg) {
    HoldRun *h = arg;
    float buf[256] = {0};
    sim_rank_compute(r, "work", 1e-3 * (r->rank + 1)); // rank 1 arrives later
    SimCollArgs a;
    memset(&a, 0, sizeof a);
    a.kind = SIM_COLL_ALL_REDUCE;
    a.algo = SIM_ALGO_RING;
    a.sendbuf = a.recvbuf = buf;
    a.count = 256;
    a.dtype = SIM_FP32;
    a.op = SIM_SUM;
    SimCollHandle ch;
    SIM_CHECK(sim_coll_launch(r, &a, &ch));
    h->compute_after[r->rank] = r->clock[SIM_STREAM_COMPUTE];
    h->coll_end[r->rank] = ch.sim_end;
    return sim_coll_wait(r, &ch);
}

static int run_hold(int on_compute, HoldRun *h) {
    SimWorld w;
    SimStatus st = tworld_init_cpu(&w, 2, 0, 30);
    if (st == SIM_OK) {
        w.cost.device = *sim_device_find("h100");
        w.cost.device.coll_on_compute = on_compute;
        st = sim_world_run(&w, hold_rank, h);
    }
    if (st != SIM_OK)
        fprintf(stderr, "%s\n", sim_world_error(&w));
    sim_world_free(&w);
    CHECK_EQ_INT(st, SIM_OK);
    return 0;
}

static int test_coll_on_compute(void) {
    HoldRun gpu, cpu;
    memset(&gpu, 0, sizeof gpu);
    memset(&cpu, 0, sizeof cpu);
    CHECK_EQ_INT(run_hold(0, &gpu), 0);
    CHECK_EQ_INT(run_hold(1, &cpu), 0);
    for (int r = 0; r < 2; r++) {
        // The collective starts when rank 1 arrives (2 ms) and takes time.
        CHECK(gpu.coll_end[r] > 2e-3 && cpu.coll_end[r] == gpu.coll_end[r]);
        // A GPU computes on meanwhile: its compute stream is where it was.
        CHECK_NEAR(gpu.compute_after[r], 1e-3 * (r + 1), 1e-15);
        // A CPU rank's thread is busy moving the chunks: held to the end.
        CHECK_NEAR(cpu.compute_after[r], cpu.coll_end[r], 1e-15);
    }
    return 0;
}

int main(void) {
    if (tfile_mkdtemp(tmpdir, sizeof(tmpdir), "test-devices") != 0) {
        perror("mkdtemp");
        return 1;
    }
    int failures = 0;
    RUN(test_table);
    RUN(test_names);
    RUN(test_roofline);
    RUN(test_which_device);
    RUN(test_file_round_trip);
    RUN(test_file_errors);
    RUN(test_coll_on_compute);
    tfile_rmtree(tmpdir);
    return failures != 0;
}
