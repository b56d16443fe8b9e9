// tests/test_memory.c: the per-rank memory ledger (sim/engine/memory.h): charges,
// releases, moves, totals without the backing store, the peak and what was
// resident at it, the capacity check with its itemised report (for direct
// charges and for tensors, whose storage is then never allocated), the
// balance of phantom tensors (charged like real ones, released on free),
// the memory events and their export, and the sizes a person types and
// reads.
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cpu_backend.h"
#include "engine/ops.h"
#include "model/model.h"
#include "model/optim.h"
#include "test_files.h"

#define MiB 1048576LL

typedef int (*RankTest)(SimRank *r);

typedef struct {
    RankTest fn;
    int rc;
} Job;

static SimStatus job_main(SimRank *r, void *arg) {
    Job *j = arg;
    j->rc = j->fn(r);
    return SIM_OK;
}

// Runs fn on rank 0 of a one-rank CPU world with this device capacity and a
// trace. The world is *keep when keep is not NULL (the caller frees it with
// sim_world_free), else a local one freed here.
static int on_rank(RankTest fn, uint64_t capacity, SimWorld *keep) {
    SimWorldConfig cfg;
    sim_world_config_default(&cfg);
    cfg.nranks = 1;
    cfg.watchdog_s = 30;
    cfg.device_memory = capacity;
    SimWorld local, *w = keep ? keep : &local;
    Job j = {fn, 1};
    SimStatus st = sim_world_init(w, &cfg, &cpu_backend_ops);
    if (st == SIM_OK)
        st = sim_world_run(w, job_main, &j);
    if (st != SIM_OK)
        fprintf(stderr, "%s\n", sim_world_error(w));
    if (keep == NULL)
        sim_world_free(w);
    return st == SIM_OK ? j.rc : 1;
}

static int all_zero(const SimMemLedger *l) {
    for (int s = 0; s < SIM_MEM_SPACE_COUNT; s++) {
        if (l->total[s] != 0)
            return 0;
        for (int c = 0; c < SIM_MEM_CAT_COUNT; c++)
            if (l->cur[s][c] != 0)
                return 0;
    }
    return 1;
}

// ----------------------------------------------------------------------------
// names and sizes

static int test_names(void) {
    CHECK(strcmp(sim_mem_cat_name(SIM_MEM_PARAM_LOWP), "params (low precision)") == 0);
    CHECK(strcmp(sim_mem_cat_name(SIM_MEM_COMM), "comm buffers") == 0);
    CHECK(strcmp(sim_mem_cat_key(SIM_MEM_GRAD_SHARD), "grad_shard") == 0);
    CHECK(strcmp(sim_mem_cat_key(SIM_MEM_OTHER), "other") == 0);
    CHECK(strcmp(sim_mem_cat_key(SIM_MEM_BACKING), "backing") == 0);
    CHECK(strcmp(sim_mem_cat_name(SIM_MEM_CAT_COUNT), "?") == 0);
    CHECK(strcmp(sim_mem_space_name(SIM_MEM_HOST), "host") == 0);
    CHECK(strcmp(sim_mem_space_name(SIM_MEM_DEVICE), "device") == 0);
    return 0;
}

static int test_sizes(void) {
    static const struct {
        const char *text;
        unsigned long long bytes;
    } good[] = {
        {"80GB", 80000000000ULL},      {"80GiB", 85899345920ULL}, {"512MiB", 536870912ULL},
        {"1.5e9", 1500000000ULL},      {"123", 123ULL},           {"80 GB", 80000000000ULL},
        {"80gb", 80000000000ULL},      {"0.5KB", 500ULL},         {"2kib", 2048ULL},
        {"1TB", 1000000000000ULL},     {"1TiB", 1099511627776ULL}, {"7B", 7ULL},
        {"0", 0ULL},                   {"2.5MB", 2500000ULL},
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        uint64_t v = 1;
        if (sim_mem_parse_size(good[i].text, &v) != 0 || v != good[i].bytes) {
            fprintf(stderr, "'%s' -> %llu, want %llu\n", good[i].text, (unsigned long long)v,
                    good[i].bytes);
            return 1;
        }
    }
    static const char *const bad[] = {"", "GB", "-1GB", "80XB", "80 G", "80G", " 80GB", "nan",
                                      "inf", "1e30", "80GBs", "80  GB", "+5"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint64_t v = 7;
        if (sim_mem_parse_size(bad[i], &v) != -1 || v != 7) {
            fprintf(stderr, "'%s' was taken as %llu\n", bad[i], (unsigned long long)v);
            return 1;
        }
    }
    CHECK_EQ_INT(sim_mem_parse_size(NULL, NULL), -1);
    char h[32];
    CHECK(strcmp(sim_mem_human(0, h, sizeof h), "0 B") == 0);
    CHECK(strcmp(sim_mem_human(1023, h, sizeof h), "1023 B") == 0);
    CHECK(strcmp(sim_mem_human(1024, h, sizeof h), "1.00 KiB") == 0);
    CHECK(strcmp(sim_mem_human(1536, h, sizeof h), "1.50 KiB") == 0);
    CHECK(strcmp(sim_mem_human(12 * MiB, h, sizeof h), "12.0 MiB") == 0);
    CHECK(strcmp(sim_mem_human(512 * MiB, h, sizeof h), "512 MiB") == 0);
    CHECK(strcmp(sim_mem_human(1536 * MiB, h, sizeof h), "1.50 GiB") == 0);
    CHECK(strcmp(sim_mem_human(80000000000LL, h, sizeof h), "74.5 GiB") == 0);
    CHECK(strcmp(sim_mem_human(3LL << 40, h, sizeof h), "3.00 TiB") == 0);
    CHECK(strcmp(sim_mem_human(-2048, h, sizeof h), "-2.00 KiB") == 0);
    // Devices by their datasheets' decimal GB.
    static const struct {
        const char *name;
        unsigned long long bytes;
    } dev[] = {{"h100", 80000000000ULL},   {"H100", 80000000000ULL}, {"h200", 141000000000ULL},
               {"a100-40", 40000000000ULL}, {"a100-80", 80000000000ULL},
               {"l40s", 48000000000ULL},    {"rtx4090", 24000000000ULL}};
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++) {
        uint64_t v = 0;
        CHECK_EQ_INT(sim_mem_device_capacity(dev[i].name, &v), 0);
        CHECK(v == dev[i].bytes);
    }
    uint64_t v = 5;
    CHECK_EQ_INT(sim_mem_device_capacity("a100", &v), -1);
    CHECK_EQ_INT(v, 5);
    char names[256];
    CHECK(strcmp(sim_mem_device_names(names, sizeof names),
                 "h100 (80 GB), h200 (141 GB), a100-40 (40 GB), a100-80 (80 GB), l40s (48 GB), "
                 "rtx4090 (24 GB)") == 0);
    return 0;
}

// ----------------------------------------------------------------------------
// the ledger

static int ledger_rank(SimRank *r) {
    SimMemLedger *l = &r->mem;
    CHECK_EQ_INT(l->capacity, 0);
    CHECK(all_zero(l) && l->peak[SIM_MEM_DEVICE] == 0);
    CHECK_EQ_INT(sim_mem_charge(r, SIM_MEM_DEVICE, SIM_MEM_PARAM, 1000, "params"), SIM_OK);
    CHECK_EQ_INT(sim_mem_charge(r, SIM_MEM_DEVICE, SIM_MEM_GRAD, 500, "grads"), SIM_OK);
    // The backing store is tracked, never counted.
    CHECK_EQ_INT(sim_mem_charge(r, SIM_MEM_DEVICE, SIM_MEM_BACKING, 4000, "backing"), SIM_OK);
    CHECK_EQ_INT(sim_mem_charge(r, SIM_MEM_HOST, SIM_MEM_OPTIM, 800, "host optim"), SIM_OK);
    CHECK_EQ_INT(l->total[SIM_MEM_DEVICE], 1500);
    CHECK_EQ_INT(l->cur[SIM_MEM_DEVICE][SIM_MEM_BACKING], 4000);
    CHECK_EQ_INT(l->peak[SIM_MEM_DEVICE], 1500);
    CHECK_EQ_INT(l->total[SIM_MEM_HOST], 800);
    CHECK_EQ_INT(l->peak[SIM_MEM_HOST], 800);
    // Releases lower the total, never the peak or what was resident at it.
    CHECK_EQ_INT(sim_mem_charge(r, SIM_MEM_DEVICE, SIM_MEM_GRAD, -500, "grads"), SIM_OK);
    CHECK_EQ_INT(sim_mem_charge(r, SIM_MEM_DEVICE, SIM_MEM_ACT, 200, "acts"), SIM_OK);
    CHECK_EQ_INT(l->total[SIM_MEM_DEVICE], 1200);
    CHECK_EQ_INT(l->peak[SIM_MEM_DEVICE], 1500);
    CHECK_EQ_INT(l->at_peak[SIM_MEM_DEVICE][SIM_MEM_GRAD], 500);
    CHECK_EQ_INT(l->at_peak[SIM_MEM_DEVICE][SIM_MEM_ACT], 0);
    // A new peak, at a simulated time, itemised.
    r->clock[SIM_STREAM_COMPUTE] = 2.5;
    CHECK_EQ_INT(sim_mem_charge(r, SIM_MEM_DEVICE, SIM_MEM_ACT, 600, "acts"), SIM_OK);
    CHECK_EQ_INT(l->peak[SIM_MEM_DEVICE], 1800);
    CHECK_NEAR(l->peak_sim, 2.5, 0);
    CHECK_EQ_INT(l->at_peak[SIM_MEM_DEVICE][SIM_MEM_PARAM], 1000);
    CHECK_EQ_INT(l->at_peak[SIM_MEM_DEVICE][SIM_MEM_GRAD], 0);
    CHECK_EQ_INT(l->at_peak[SIM_MEM_DEVICE][SIM_MEM_ACT], 800);
    CHECK_EQ_INT(sim_mem_model_states(l, SIM_MEM_DEVICE, 1), 1000);
    // Moves: into the backing store the total falls; out of it, it grows.
    CHECK_EQ_INT(sim_mem_move(r, SIM_MEM_DEVICE, SIM_MEM_PARAM, SIM_MEM_BACKING, 400, "reshard"),
                 SIM_OK);
    CHECK_EQ_INT(l->total[SIM_MEM_DEVICE], 1400);
    CHECK_EQ_INT(l->cur[SIM_MEM_DEVICE][SIM_MEM_PARAM], 600);
    CHECK_EQ_INT(l->cur[SIM_MEM_DEVICE][SIM_MEM_BACKING], 4400);
    CHECK_EQ_INT(sim_mem_move(r, SIM_MEM_DEVICE, SIM_MEM_BACKING, SIM_MEM_PARAM, 1000, "gather"),
                 SIM_OK);
    CHECK_EQ_INT(l->total[SIM_MEM_DEVICE], 2400);
    CHECK_EQ_INT(l->peak[SIM_MEM_DEVICE], 2400);
    CHECK_EQ_INT(sim_mem_move(r, SIM_MEM_DEVICE, SIM_MEM_ACT, SIM_MEM_COMM, 300, "to comm"),
                 SIM_OK);
    CHECK_EQ_INT(l->total[SIM_MEM_DEVICE], 2400);
    // Misuse changes nothing.
    CHECK_EQ_INT(sim_mem_charge(r, SIM_MEM_DEVICE, SIM_MEM_GRAD, -1, "grads"), SIM_EINVAL);
    CHECK_STR_CONTAINS(r->error, "releasing 1 bytes of grads (grads) on the device, but 0 are");
    CHECK_EQ_INT(sim_mem_charge(r, SIM_MEM_DEVICE, SIM_MEM_CAT_COUNT, 1, "x"), SIM_EINVAL);
    CHECK_EQ_INT(sim_mem_charge(r, SIM_MEM_SPACE_COUNT, SIM_MEM_PARAM, 1, "x"), SIM_EINVAL);
    CHECK_EQ_INT(sim_mem_move(r, SIM_MEM_DEVICE, SIM_MEM_COMM, SIM_MEM_ACT, 301, "x"),
                 SIM_EINVAL);
    CHECK_STR_CONTAINS(r->error, "moving 301 bytes of comm buffers (x) to activations");
    CHECK_EQ_INT(sim_mem_charge(r, SIM_MEM_DEVICE, SIM_MEM_ACT, 0, "nothing"), SIM_OK);
    CHECK_EQ_INT(l->total[SIM_MEM_DEVICE], 2400);
    // The text: the current items, then those at the peak.
    char buf[1024];
    sim_mem_format(l, SIM_MEM_DEVICE, 0, buf, sizeof buf);
    CHECK(strcmp(buf, "  params                       1.56 KiB\n"
                      "  activations                     500 B\n"
                      "  comm buffers                    300 B\n"
                      "  backing                      3.32 KiB  (not counted)\n"
                      "  total                        2.34 KiB\n") == 0);
    sim_mem_format(l, SIM_MEM_DEVICE, 1, buf, sizeof buf);
    CHECK(strcmp(buf, "  params                       1.56 KiB\n"
                      "  activations                     800 B\n"
                      "  backing                      3.32 KiB  (not counted)\n"
                      "  total at the peak            2.34 KiB\n") == 0);
    sim_mem_format(l, SIM_MEM_HOST, 0, buf, sizeof buf);
    CHECK(strcmp(buf, "  optimizer                       800 B\n"
                      "  total                           800 B\n") == 0);
    // The trace: one event per change (two per move), with the category,
    // the space and the space's total after it.
    const SimEvent *ev = sim_trace_rank_events(r->world->trace, r->rank);
    size_t n = sim_trace_rank_count(r->world->trace, r->rank), k = 0;
    static const struct {
        const char *name, *label;
        SimMemCat cat;
        SimMemSpace space;
        long long bytes, count;
    } want[] = {
        {"params", "alloc", SIM_MEM_PARAM, SIM_MEM_DEVICE, 1000, 1000},
        {"grads", "alloc", SIM_MEM_GRAD, SIM_MEM_DEVICE, 500, 1500},
        {"backing", "alloc", SIM_MEM_BACKING, SIM_MEM_DEVICE, 4000, 1500},
        {"host optim", "alloc", SIM_MEM_OPTIM, SIM_MEM_HOST, 800, 800},
        {"grads", "free", SIM_MEM_GRAD, SIM_MEM_DEVICE, 500, 1000},
        {"acts", "alloc", SIM_MEM_ACT, SIM_MEM_DEVICE, 200, 1200},
        {"acts", "alloc", SIM_MEM_ACT, SIM_MEM_DEVICE, 600, 1800},
        {"reshard", "free", SIM_MEM_PARAM, SIM_MEM_DEVICE, 400, 1400},
        {"reshard", "alloc", SIM_MEM_BACKING, SIM_MEM_DEVICE, 400, 1400},
        {"gather", "free", SIM_MEM_BACKING, SIM_MEM_DEVICE, 1000, 2400},
        {"gather", "alloc", SIM_MEM_PARAM, SIM_MEM_DEVICE, 1000, 2400},
        {"to comm", "free", SIM_MEM_ACT, SIM_MEM_DEVICE, 300, 2400},
        {"to comm", "alloc", SIM_MEM_COMM, SIM_MEM_DEVICE, 300, 2400},
    };
    for (size_t i = 0; i < n; i++) {
        if (ev[i].kind != SIM_EV_MEMORY)
            continue;
        CHECK(k < sizeof want / sizeof want[0]);
        CHECK(strcmp(ev[i].name, want[k].name) == 0);
        CHECK(strcmp(ev[i].label, want[k].label) == 0);
        CHECK_EQ_INT(ev[i].mem_cat, want[k].cat);
        CHECK_EQ_INT(ev[i].mem_space, want[k].space);
        CHECK_EQ_INT(ev[i].bytes, want[k].bytes);
        CHECK_EQ_INT(ev[i].count, want[k].count);
        k++;
    }
    CHECK_EQ_INT(k, sizeof want / sizeof want[0]);
    // Release everything: the ledger balances.
    CHECK_EQ_INT(sim_mem_charge(r, SIM_MEM_DEVICE, SIM_MEM_PARAM, -1600, "params"), SIM_OK);
    CHECK_EQ_INT(sim_mem_charge(r, SIM_MEM_DEVICE, SIM_MEM_ACT, -500, "acts"), SIM_OK);
    CHECK_EQ_INT(sim_mem_charge(r, SIM_MEM_DEVICE, SIM_MEM_COMM, -300, "comm"), SIM_OK);
    CHECK_EQ_INT(sim_mem_charge(r, SIM_MEM_DEVICE, SIM_MEM_BACKING, -3400, "backing"), SIM_OK);
    CHECK_EQ_INT(sim_mem_charge(r, SIM_MEM_HOST, SIM_MEM_OPTIM, -800, "host optim"), SIM_OK);
    CHECK(all_zero(l));
    CHECK_EQ_INT(l->peak[SIM_MEM_DEVICE], 2400);
    // reset_peak restarts the peaks from what is held now.
    sim_mem_reset_peak(l, 3.0);
    CHECK_EQ_INT(l->peak[SIM_MEM_DEVICE], 0);
    CHECK_EQ_INT(l->at_peak[SIM_MEM_DEVICE][SIM_MEM_PARAM], 0);
    CHECK_NEAR(l->peak_sim, 3.0, 0);
    CHECK(!l->oom);
    return 0;
}

static int test_ledger(void) {
    return on_rank(ledger_rank, 0, NULL);
}

// ----------------------------------------------------------------------------
// the capacity

static void vec(SimTensor *t, const char *name, int64_t n, SimMemCat cat) {
    sim_tensor_init(t, name, SIM_FP32, 1, &n);
    t->mem_cat = (int16_t)cat;
}

static int capacity_rank(SimRank *r) {
    SimMemLedger *l = &r->mem;
    CHECK_EQ_INT(l->capacity, 8 * MiB);
    SimTensor p, g, a, o;
    vec(&p, "params", MiB / 2, SIM_MEM_PARAM);      // 2 MiB each
    vec(&g, "grads", MiB / 2, SIM_MEM_GRAD);
    vec(&a, "activations", MiB / 2, SIM_MEM_ACT);
    vec(&o, "exp_avg", 3 * MiB / 4, SIM_MEM_OPTIM); // 3 MiB
    CHECK_EQ_INT(sim_tensor_alloc(r, &p, 0), SIM_OK);
    CHECK_EQ_INT(sim_tensor_alloc(r, &g, 0), SIM_OK);
    CHECK_EQ_INT(sim_tensor_alloc(r, &a, 1), SIM_OK); // phantom: charged all the same
    CHECK(a.data == NULL && a.charged == 2 * MiB);
    CHECK_EQ_INT(r->mem_bytes, 4 * MiB);             // real storage: p and g
    CHECK_EQ_INT(l->total[SIM_MEM_DEVICE], 6 * MiB);
    // 6 + 3 > 8 MiB: refused before anything is allocated, and itemised.
    CHECK_EQ_INT(sim_tensor_alloc(r, &o, 0), SIM_ENOMEM);
    CHECK(strcmp(r->error, "out of device memory on rank 0: allocating 3.00 MiB of optimizer "
                           "(exp_avg) would bring the device to 9.00 MiB, over its capacity of "
                           "8.00 MiB; in use: params 2.00 MiB, grads 2.00 MiB, activations "
                           "2.00 MiB") == 0);
    CHECK(o.data == NULL && o.charged == 0);
    CHECK_EQ_INT(r->mem_bytes, 4 * MiB);
    CHECK_EQ_INT(l->total[SIM_MEM_DEVICE], 6 * MiB);
    CHECK_EQ_INT(l->cur[SIM_MEM_DEVICE][SIM_MEM_OPTIM], 0);
    CHECK_EQ_INT(l->peak[SIM_MEM_DEVICE], 6 * MiB);
    CHECK(l->oom && l->oom_bytes == 3 * MiB && l->oom_cat == SIM_MEM_OPTIM &&
          l->oom_space == SIM_MEM_DEVICE);
    CHECK(strcmp(l->oom_what, "exp_avg") == 0);
    CHECK_EQ_INT(l->oom_cur[SIM_MEM_PARAM], 2 * MiB);
    CHECK_EQ_INT(l->oom_cur[SIM_MEM_ACT], 2 * MiB);
    sim_tensor_free(r, &o); // a refused tensor frees nothing
    CHECK_EQ_INT(l->total[SIM_MEM_DEVICE], 6 * MiB);
    // Exactly full is allowed; one byte more is not.
    CHECK_EQ_INT(sim_mem_charge(r, SIM_MEM_DEVICE, SIM_MEM_COMM, 2 * MiB, "bucket"), SIM_OK);
    CHECK_EQ_INT(sim_mem_charge(r, SIM_MEM_DEVICE, SIM_MEM_COMM, 1, "one more"), SIM_ENOMEM);
    CHECK_STR_CONTAINS(r->error, "allocating 1 B of comm buffers (one more) would bring the "
                                 "device to 8.00 MiB, over its capacity of 8.00 MiB");
    CHECK(strcmp(l->oom_what, "exp_avg") == 0); // the first refusal is kept
    // The backing store and the host are not held against the capacity.
    CHECK_EQ_INT(sim_mem_charge(r, SIM_MEM_DEVICE, SIM_MEM_BACKING, 100 * MiB, "b"), SIM_OK);
    CHECK_EQ_INT(sim_mem_charge(r, SIM_MEM_HOST, SIM_MEM_OPTIM, 100 * MiB, "h"), SIM_OK);
    // Out of the backing store over the capacity: refused; into it: fine.
    CHECK_EQ_INT(sim_mem_move(r, SIM_MEM_DEVICE, SIM_MEM_BACKING, SIM_MEM_PARAM, 1, "g"),
                 SIM_ENOMEM);
    CHECK_EQ_INT(sim_mem_move(r, SIM_MEM_DEVICE, SIM_MEM_PARAM, SIM_MEM_BACKING, MiB, "f"),
                 SIM_OK);
    CHECK_EQ_INT(sim_mem_move(r, SIM_MEM_DEVICE, SIM_MEM_BACKING, SIM_MEM_PARAM, MiB, "g"),
                 SIM_OK);
    CHECK_EQ_INT(sim_mem_charge(r, SIM_MEM_DEVICE, SIM_MEM_BACKING, -100 * MiB, "b"), SIM_OK);
    CHECK_EQ_INT(sim_mem_charge(r, SIM_MEM_HOST, SIM_MEM_OPTIM, -100 * MiB, "h"), SIM_OK);
    CHECK_EQ_INT(sim_mem_charge(r, SIM_MEM_DEVICE, SIM_MEM_COMM, -2 * MiB, "bucket"), SIM_OK);
    sim_tensor_free(r, &a);
    sim_tensor_free(r, &g);
    sim_tensor_free(r, &p);
    CHECK(a.charged == 0 && p.charged == 0 && p.data == NULL);
    CHECK(all_zero(l));
    CHECK_EQ_INT(r->mem_bytes, 0);
    return 0;
}

static int test_capacity(void) {
    return on_rank(capacity_rank, 8 * MiB, NULL);
}

// ----------------------------------------------------------------------------
// phantom mode accounts as numeric mode does

// The ledger of a model and its Adam state, created (phantom or not) and
// destroyed on r; cur after creation in *held, at the end it must be empty.
static int model_ledger(SimRank *r, const char *spec_text, int batch, int phantom,
                        SimMemLedger *held, size_t *psi) {
    SimModelSpec spec;
    char err[256];
    CHECK_EQ_INT(sim_model_parse(spec_text, &spec, err, sizeof err), SIM_OK);
    sim_mem_ledger_init(&r->mem, 0);
    SimModel *m = NULL;
    CHECK_EQ_INT(sim_model_create(r, &spec, batch, phantom, &m), SIM_OK);
    SimOptimOptions opt;
    sim_optim_options_default(&opt);
    opt.kind = SIM_OPTIM_ADAM;
    SimOptim o;
    CHECK_EQ_INT(sim_optim_init(&o, r, &opt, &m->param, &m->grad, m->params, m->nparams),
                 SIM_OK);
    *held = r->mem;
    *psi = m->param_count;
    CHECK_EQ_INT(m->param.data == NULL, phantom);
    sim_optim_free(&o, r);
    sim_model_destroy(r, m);
    CHECK(all_zero(&r->mem));
    return 0;
}

static int phantom_rank(SimRank *r) {
    static const char *const specs[] = {"mlp:16,64,64,4,bn", "gpt:layers=2,embd=32,heads=4,"
                                                              "ctx=16,vocab=64"};
    for (int i = 0; i < 2; i++) {
        SimMemLedger real, ph;
        size_t psi = 0, psi2 = 0;
        uint64_t before = r->mem_bytes;
        CHECK(model_ledger(r, specs[i], 8, 0, &real, &psi) == 0);
        CHECK(model_ledger(r, specs[i], 8, 1, &ph, &psi2) == 0);
        CHECK_EQ_INT(r->mem_bytes, before);
        CHECK_EQ_INT(psi, psi2);
        // The same bytes in every category, 16 bytes per parameter of model
        // states (fp32 parameters, gradients, exp_avg and exp_avg_sq).
        CHECK(memcmp(real.cur, ph.cur, sizeof real.cur) == 0);
        CHECK(memcmp(real.at_peak, ph.at_peak, sizeof real.at_peak) == 0);
        CHECK_EQ_INT(ph.cur[SIM_MEM_DEVICE][SIM_MEM_PARAM], 4 * psi);
        CHECK_EQ_INT(ph.cur[SIM_MEM_DEVICE][SIM_MEM_GRAD], 4 * psi);
        CHECK_EQ_INT(ph.cur[SIM_MEM_DEVICE][SIM_MEM_OPTIM], 8 * psi);
        CHECK_EQ_INT(sim_mem_model_states(&ph, SIM_MEM_DEVICE, 0), 16 * psi);
        CHECK(ph.cur[SIM_MEM_DEVICE][SIM_MEM_ACT] > 0);
    }
    // GPT-3 175B in phantom mode: 2.8 TB of model states, nothing allocated.
    SimMemLedger big;
    size_t psi = 0;
    CHECK(model_ledger(r, "gpt:layers=96,embd=12288,heads=96,ctx=2048,vocab=50257", 1, 1, &big,
                       &psi) == 0);
    CHECK(psi > 174000000000ULL && psi < 176000000000ULL);
    CHECK_EQ_INT(sim_mem_model_states(&big, SIM_MEM_DEVICE, 0), 16 * (int64_t)psi);
    CHECK_EQ_INT(r->mem_bytes, 0);
    return 0;
}

static int test_phantom_balance(void) {
    return on_rank(phantom_rank, 0, NULL);
}

// ----------------------------------------------------------------------------
// the exporters

static int export_rank(SimRank *r) {
    SIM_CHECK(sim_mem_charge(r, SIM_MEM_DEVICE, SIM_MEM_PARAM, 3 * MiB, "params"));
    r->clock[SIM_STREAM_COMPUTE] = 1e-3;
    SIM_CHECK(sim_mem_charge(r, SIM_MEM_DEVICE, SIM_MEM_GRAD, MiB, "grads"));
    SIM_CHECK(sim_mem_charge(r, SIM_MEM_HOST, SIM_MEM_OPTIM, 2 * MiB, "offloaded"));
    SIM_CHECK(sim_mem_charge(r, SIM_MEM_DEVICE, SIM_MEM_PARAM, -MiB, "params"));
    return 0;
}

static const cJSON *arg(const cJSON *ev, const char *key) {
    return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(ev, "args"), key);
}

static int test_export(void) {
    SimWorld w;
    int rc = on_rank(export_rank, 0, &w);
    if (rc != 0)
        sim_world_free(&w);
    CHECK(rc == 0);
    char dir[512], path[600];
    CHECK(tfile_mkdtemp(dir, sizeof dir, "memory") == 0);
    snprintf(path, sizeof path, "%s/t.json", dir);
    CHECK_EQ_INT(sim_trace_write_chrome(w.trace, path, 0), SIM_OK);
    char *text = tfile_read(path, NULL);
    cJSON *root = text ? cJSON_Parse(text) : NULL;
    CHECK(root != NULL);
    int counters = 0, memory = 0;
    double last_param = -1, last_grad = -1, host_optim = -1;
    const cJSON *ev;
    cJSON_ArrayForEach(ev, cJSON_GetObjectItemCaseSensitive(root, "traceEvents")) {
        const char *ph = cJSON_GetObjectItemCaseSensitive(ev, "ph")->valuestring;
        const char *name = cJSON_GetObjectItemCaseSensitive(ev, "name")->valuestring;
        if (strcmp(ph, "C") == 0) {
            counters++;
            CHECK(arg(ev, "backing") == NULL); // not counted, not drawn
            if (strcmp(name, "device memory (MiB)") == 0) {
                last_param = arg(ev, "param")->valuedouble;
                last_grad = arg(ev, "grad")->valuedouble;
            } else {
                CHECK(strcmp(name, "host memory (MiB)") == 0);
                host_optim = arg(ev, "optim")->valuedouble;
            }
        } else if (strcmp(ph, "X") == 0 &&
                   strcmp(cJSON_GetObjectItemCaseSensitive(ev, "cat")->valuestring,
                          "memory") == 0) {
            if (memory++ == 0) {
                CHECK(strcmp(name, "params") == 0);
                CHECK(strcmp(arg(ev, "label")->valuestring, "alloc") == 0);
                CHECK(strcmp(arg(ev, "mem_cat")->valuestring, "param") == 0);
                CHECK(strcmp(arg(ev, "mem_space")->valuestring, "device") == 0);
            }
        }
    }
    CHECK_EQ_INT(memory, 4);
    CHECK_EQ_INT(counters, 4);
    CHECK_NEAR(last_param, 2.0, 0);
    CHECK_NEAR(last_grad, 1.0, 0);
    CHECK_NEAR(host_optim, 2.0, 0);
    cJSON_Delete(root);
    free(text);
    // JSON lines: the category and space on memory events.
    snprintf(path, sizeof path, "%s/t.jsonl", dir);
    CHECK_EQ_INT(sim_trace_write_jsonl(w.trace, path), SIM_OK);
    text = tfile_read(path, NULL);
    CHECK(text != NULL);
    CHECK_STR_CONTAINS(text, "\"mem_cat\":\"optim\",\"mem_space\":\"host\"");
    CHECK_STR_CONTAINS(text, "\"name\":\"grads\",\"label\":\"alloc\"");
    free(text);
    sim_world_free(&w);
    tfile_rmtree(dir);
    return 0;
}

int main(void) {
    int failures = 0;
    RUN(test_names);
    RUN(test_sizes);
    RUN(test_ledger);
    RUN(test_capacity);
    RUN(test_phantom_balance);
    RUN(test_export);
    return failures ? 1 : 0;
}
