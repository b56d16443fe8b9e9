// fuzz/fuzz_ckpt.c: a checkpoint file, as --resume and --init read it: the
// safetensors container (sim/formats/safetensors_read.c) loaded and looked into,
// then the checks of sim_ckpt_open against a small model (FUZZ_MODEL, the
// model of the seeds that `ddplab run --save` wrote), the metadata the
// training loop reads back on --resume, and, for a file that passes every
// check, the copy into the model on a CPU rank.
//
// The model lives in a one-rank world made on the first input and freed at
// exit; a world run (one thread) happens only for files that pass. Accepted
// (fuzz_util.h): the file loads into the model, for --resume or --init.
#include <stdlib.h>
#include <string.h>

#include "cpu_backend.h"         // defines: cpu_backend_ops
#include "engine/timeline.h"     // defines: sim_rank_timeline_read
#include "formats/checkpoint.h"  // defines: SimCkpt, sim_ckpt_open
#include "formats/safetensors.h" // defines: SimStFile, sim_stfile_load

#include "fuzz_util.h"

#define FUZZ_MODEL "mlp:4,8,3,bn"

static SimWorld world;
static SimModel *model;
static int ready; // 1: world and model made; -1: making them failed

typedef struct {
    int create;       // 1: make the model; 0: free it
    const SimCkpt *c; // else: copy c into the model
} Job;

static SimStatus on_rank(SimRank *r, void *arg) {
    const Job *j = arg;
    if (j->c != NULL)
        return sim_ckpt_apply_model(r, j->c, model);
    if (!j->create) {
        sim_model_destroy(r, model);
        model = NULL;
        return SIM_OK;
    }
    SimModelSpec spec;
    char err[256];
    SimStatus st = sim_model_parse(FUZZ_MODEL, &spec, err, sizeof err);
    if (st == SIM_OK)
        st = sim_model_create(r, &spec, 4, 0, &model);
    if (st == SIM_OK)
        st = sim_model_init(r, model, 1);
    return st;
}

static void teardown(void) {
    Job j = {0, NULL};
    if (model != NULL)
        sim_world_run(&world, on_rank, &j);
    sim_world_free(&world);
}

static int setup(void) {
    if (ready != 0)
        return ready > 0;
    SimWorldConfig cfg;
    sim_world_config_default(&cfg);
    cfg.nranks = 1;
    cfg.watchdog_s = 60;
    Job j = {1, NULL};
    ready = -1;
    if (sim_world_init(&world, &cfg, &cpu_backend_ops) != SIM_OK ||
        sim_world_run(&world, on_rank, &j) != SIM_OK) {
        fprintf(stderr, "fuzz_ckpt: cannot make the model: %s\n", sim_world_error(&world));
        return 0;
    }
    atexit(teardown);
    ready = 1;
    return 1;
}

// The metadata the training loop reads on --resume (sim/train/train_ckpt.c).
static void read_meta(const SimCkpt *c) {
    static const char *const ints[] = {"step", "epoch", "batch_in_epoch", "optimizer.steps",
                                       "scaler.enabled", "scaler.growth_tracker",
                                       "scaler.skipped", "files"};
    static const char *const reals[] = {"scaler.scale", "sim_time_s"};
    int64_t i;
    double d;
    for (size_t k = 0; k < sizeof ints / sizeof ints[0]; k++)
        sim_ckpt_meta_i64(c, ints[k], &i);
    for (size_t k = 0; k < sizeof reals / sizeof reals[0]; k++)
        sim_ckpt_meta_f64(c, reals[k], &d);
    // rank 0's timeline record, as a resumed rank reads it (at 4 ranks, so
    // that the point-to-point counters have room to be out of range)
    SimRecIn in;
    SimRankTimeline tl;
    sim_rec_in_init(&in, sim_ckpt_meta(c, "timeline.0"));
    if (sim_rank_timeline_read(&tl, &in, 4) == 0)
        sim_rank_timeline_free(&tl);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_set_accepted(0);
    if (!setup())
        abort(); // not the input's fault: stop rather than report nothing
    const char *path = fuzz_temp_file(0, data, size);
    if (path == NULL)
        return 0;
    char err[512];
    SimStFile f;
    int ok = sim_stfile_load(&f, path, err, sizeof err) == SIM_OK;
    for (int i = 0; ok && i < f.ntensors; i++)
        sim_stfile_find(&f, f.tensors[i].name);
    sim_stfile_free(&f);
    // --resume (full) checks, then --init's (any safetensors file)
    int loaded = 0;
    for (int full = 1; ok && !loaded && full >= 0; full--) {
        SimCkpt c;
        if (sim_ckpt_open(&c, path, model, full, err, sizeof err) != SIM_OK)
            continue;
        read_meta(&c);
        Job j = {0, &c};
        if (sim_world_run(&world, on_rank, &j) != SIM_OK)
            abort(); // a file that passed every check must load
        sim_ckpt_close(&c);
        loaded = 1;
    }
    fuzz_set_accepted(loaded);
    return 0;
}
