// sim/train/train_probe.c: the probe batch, the check that proves the DDP
// replicas agree. Each rank's training loss is its own batch's, so R ranks
// print R different losses even when their weights are equal. A probe
// feeds every rank the same batch instead: rank 0 chooses it, broadcasts
// it, and every rank runs it forward in eval mode under no_grad. Equal
// weights then give the same loss to the last bit; a rank whose weights
// drifted (no initial broadcast, a hook that does not average) gives its
// own.
//
// What is broadcast is the batch's sample indices (int64 [B]), from which
// each rank loads the samples themselves: the same bytes a broadcast of
// the batch's tensors would leave on every rank, as one small collective.
#include <math.h>
#include <stdlib.h>

#include "engine/comm.h" // defines: sim_broadcast, sim_all_gather_untimed
#include "engine/ops.h"  // defines: sim_tensor_alloc, sim_tensor_download

#include "train/train_internal.h"

// Rank 0's indices of its first batch of the current epoch, broadcast into
// idx[n] on every rank.
static SimStatus broadcast_indices(SimTrainer *t, SimRank *r, int64_t *idx, int n) {
    const int64_t *mine = NULL;
    sim_sampler_batch(&t->sampler, 0, &mine);
    for (int i = 0; i < n; i++)
        idx[i] = r->rank == 0 ? mine[i] : 0; // the others' buffers: empty, shape only
    SimTensor x;
    int64_t shape[1] = {n};
    sim_tensor_init(&x, "probe_indices", SIM_INT64, 1, shape);
    SimStatus st = sim_tensor_alloc(r, &x, 0);
    if (st == SIM_OK)
        st = sim_tensor_upload(r, &x, idx);
    if (st == SIM_OK)
        st = sim_broadcast(r, x.data, x.data, (size_t)n, SIM_INT64, 0, SIM_ALGO_AUTO);
    if (st == SIM_OK)
        st = sim_tensor_download(r, &x, idx);
    sim_tensor_free(r, &x);
    return st;
}

// Fails the probe as sim_train_fail does, releasing out's arrays first.
static SimStatus probe_fail(SimTrainer *t, SimProbeStats *out, SimStatus st, const char *what,
                            const char *detail) {
    sim_train_probe_free(out);
    return sim_train_fail(t, 0, st, "probe batch%s: %s", what, detail);
}

SimStatus sim_train_probe(SimTrainer *t, SimRank *r, float train_loss, SimProbeStats *out) {
    const SimTrainConfig *c = t->cfg;
    int R = r->world->cfg.nranks;
    const int64_t *first = NULL;
    int n = sim_sampler_batch(&t->sampler, 0, &first); // rank 0's batch size rules
    out->step = t->step;
    out->nranks = R;
    out->samples = n;
    out->probe_loss = calloc((size_t)R, sizeof *out->probe_loss);
    out->train_loss = calloc((size_t)R, sizeof *out->train_loss);
    int64_t *idx = malloc(((size_t)n + 1) * sizeof *idx);
    if (!out->probe_loss || !out->train_loss || !idx) {
        free(idx);
        return probe_fail(t, out, SIM_ENOMEM, "", "out of memory");
    }
    SimStatus st = broadcast_indices(t, r, idx, n);
    if (st != SIM_OK) {
        free(idx);
        return probe_fail(t, out, st, " broadcast", r->error);
    }
    SimBatch b;
    float loss = NAN;
    train_mark(t, r, "phase", "probe", 0);
    sim_model_set_training(t->model, 0);
    st = sim_loader_fill(&t->loader, idx, n, &b);
    if (st == SIM_OK)
        st = sim_model_forward(r, t->model, &b, (int)t->step, c->opt.amp.amp, &loss);
    sim_model_set_training(t->model, 1);
    free(idx);
    if (st != SIM_OK)
        return probe_fail(t, out, st, " forward", r->error);
    // what each rank prints, side by side: simulator bookkeeping, not a
    // collective of the modelled script
    float mine[2] = {loss, train_loss}, *all = malloc((size_t)R * sizeof mine);
    if (all == NULL)
        return probe_fail(t, out, SIM_ENOMEM, "", "out of memory");
    st = sim_all_gather_untimed(r, mine, all, sizeof mine);
    for (int k = 0; st == SIM_OK && k < R; k++) {
        out->probe_loss[k] = all[2 * k];
        out->train_loss[k] = all[2 * k + 1];
    }
    free(all);
    if (st != SIM_OK)
        return probe_fail(t, out, st, "", r->error);
    return SIM_OK;
}

void sim_train_probe_free(SimProbeStats *s) {
    free(s->probe_loss);
    free(s->train_loss);
    s->probe_loss = s->train_loss = NULL;
}
