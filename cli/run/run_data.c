// cli/run/run_data.c: the dataset `ddplab run` trains on (a synthetic set, a
// pair of .npy files or a text file), the model fitted to it when --model
// is not given, and the checks of one against the other. Every problem is
// one line that names the option and, for files, the file and the index.
#include <stdio.h>
#include <string.h>

#include "core/cli.h" // defines: CLI_EXIT_*
#include "run/run.h"

#define DEFAULT_CTX 32

static int ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

// The window length of token data: the model's, or the default gpt's.
static int token_ctx(const RunOptions *o) {
    return o->model_text && o->model.kind == SIM_MODEL_GPT ? o->model.ctx : DEFAULT_CTX;
}

static int load_npy(const RunOptions *o, SimDataset *ds) {
    char err[1024];
    if (o->labels == NULL) {
        run_error("--data: '%s' needs --labels Y.npy (its labels or targets)", o->data);
        return CLI_EXIT_USAGE;
    }
    int classes = 0; // labels are then checked against the model's outputs
    if (o->model_text && o->model.kind == SIM_MODEL_MLP && !o->model.mse)
        classes = o->model.widths[o->model.nwidths - 1];
    if (sim_dataset_load_npy(ds, o->data, o->labels, classes, err, sizeof err) != SIM_OK) {
        int about_labels = strncmp(err, o->labels, strlen(o->labels)) == 0;
        run_error("%s: %s", about_labels ? "--labels" : "--data", err);
        return CLI_EXIT_USAGE;
    }
    return CLI_EXIT_OK;
}

static int load_synth(const RunOptions *o, SimDataset *ds) {
    char err[1024];
    SimSynthSpec spec;
    const char *text = o->data ? o->data : "blobs";
    if (sim_dataset_synth_parse(text, &spec, err, sizeof err) != SIM_OK) {
        run_error("--data: %s", err);
        return CLI_EXIT_USAGE;
    }
    if (!spec.seed_given)
        spec.seed = o->seed;
    if (spec.ctx == 0)
        spec.ctx = token_ctx(o);
    if (sim_dataset_synth(ds, &spec, err, sizeof err) != SIM_OK) {
        run_error("--data: %s", err);
        return CLI_EXIT_USAGE;
    }
    return CLI_EXIT_OK;
}

// The default model for the data (see --help).
static int fit_model(RunOptions *o, const SimDataset *ds) {
    char text[160], err[512];
    if (ds->kind == SIM_DATA_TOKENS)
        snprintf(text, sizeof text, "gpt:layers=2,embd=64,heads=4,ctx=%d,vocab=%d", ds->ctx,
                 ds->vocab);
    else if (ds->kind == SIM_DATA_TARGETS)
        snprintf(text, sizeof text, "mlp:%d,64,64,%d,mse", ds->features, ds->target_dim);
    else
        snprintf(text, sizeof text, "mlp:%d,64,64,%d", ds->features, ds->classes);
    if (sim_model_parse(text, &o->model, err, sizeof err) != SIM_OK) {
        run_error("--model: the model fitted to the data, %s, is not valid: %s", text, err);
        return CLI_EXIT_USAGE;
    }
    return CLI_EXIT_OK;
}

// --sync-bn converts the model's BatchNorms, so the model must have some.
static int apply_sync_bn(RunOptions *o) {
    o->model.sync_bn = o->sync_bn;
    if (o->sync_bn && (o->model.kind != SIM_MODEL_MLP || !o->model.batchnorm)) {
        run_error("--sync-bn: the model %s has no BatchNorm to synchronise; allowed: an mlp "
                  "with ',bn', e.g. --model mlp:16,64,64,4,bn", o->model_text ? o->model_text
                  : "fitted to the data");
        return CLI_EXIT_USAGE;
    }
    if (o->sync_bn && o->join) {
        run_error("--sync-bn: cannot be combined with --join: a rank that has joined shadows "
                  "DDP's all_reduces but not the collectives in SyncBatchNorm's forward (DDP's "
                  "join in PyTorch does not support them either); allowed: --sync-bn without "
                  "--join");
        return CLI_EXIT_USAGE;
    }
    return CLI_EXIT_OK;
}

// --batch against the samples one replica of the sampler reads in an epoch:
// a rank's share under DDP and the other per-rank strategies, the whole
// dataset under dp, whose one loader draws the whole batch.
static int check_batch(const RunOptions *o, const SimDataset *ds) {
    int replicas = run_sampler_replicas(o);
    int64_t per_rank = sim_sampler_num_samples(ds->n, replicas, o->sampler_drop_last);
    if (per_rank < 1) {
        run_error("--sampler-drop-last: '1' leaves no sample for a rank (%lld samples in %s "
                  "over %d ranks); allowed: 0, or a dataset of at least %d samples",
                  (long long)ds->n, ds->name, replicas, replicas);
        return CLI_EXIT_USAGE;
    }
    if (o->batch > per_rank) {
        run_error("--batch: '%d' is larger than the dataset (%lld samples in %s%s); allowed: "
                  "1..%lld", o->batch, (long long)ds->n, ds->name,
                  replicas > 1 ? ", per rank" : "", (long long)per_rank);
        return CLI_EXIT_USAGE;
    }
    return CLI_EXIT_OK;
}

int run_data_load(RunOptions *o, SimDataset *ds) {
    char err[1024];
    int rc;
    memset(ds, 0, sizeof *ds);
    if (o->text) {
        if (sim_dataset_load_text(ds, o->text, token_ctx(o), err, sizeof err) != SIM_OK) {
            run_error("--text: %s", err);
            return CLI_EXIT_USAGE;
        }
        rc = CLI_EXIT_OK;
    } else if (o->data && ends_with(o->data, ".npy")) {
        rc = load_npy(o, ds);
    } else {
        rc = load_synth(o, ds);
    }
    if (rc != CLI_EXIT_OK)
        return rc;
    if (o->model_text == NULL && (rc = fit_model(o, ds)) != CLI_EXIT_OK)
        return rc;
    if ((rc = apply_sync_bn(o)) != CLI_EXIT_OK)
        return rc;
    if (sim_train_check_data(&o->model, ds, err, sizeof err) != SIM_OK) {
        run_error("%s: %s; --model %s", o->text ? "--text" : "--data", err,
                  o->model_text ? o->model_text : "fitted to the data");
        return CLI_EXIT_USAGE;
    }
    return check_batch(o, ds);
}
