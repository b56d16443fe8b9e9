// sim/model/model_syncbn.c: SyncBatchNorm, BatchNorm1d over the global
// batch. Each rank computes its rows' mean and variance, all-gathers them
// with its row count (counts may differ between ranks, so a sum would not
// do: the means are weighed by their counts), and every rank combines the
// same gathered stats into the same mean and invstd. Backward all-reduces
// the two per-channel sums the input gradient needs, so each rank's rows get
// the gradient the whole batch's normalisation sends them. The weight's and
// bias's gradients stay each rank's own: DDP averages them as any other.
#include "model/model_impl.h"

#include "engine/comm.h" // defines: sim_all_gather, sim_all_reduce
#include "engine/world.h"

void sim_model_syncbn_take(SimModelArena *acts, SimSyncBnViews *v, int C, int R) {
    int64_t row[1] = {2 * (int64_t)C + 1}, all[2] = {R, 2 * (int64_t)C + 1};
    int64_t one[1] = {1}, sums[1] = {2 * (int64_t)C};
    sim_model_take(acts, &v->stats, "syncbn stats", SIM_FP32, 1, row);
    sim_model_take(acts, &v->all, "syncbn gathered stats", SIM_FP32, 2, all);
    sim_model_take(acts, &v->count, "syncbn count", SIM_FP32, 1, one);
    sim_model_take(acts, &v->sums, "syncbn sums", SIM_FP32, 1, sums);
}

SimStatus sim_model_syncbn_forward(SimRank *r, SimSyncBnViews *v, SimTensor *out,
                                   SimTensor *mean, SimTensor *invstd, SimTensor *running_mean,
                                   SimTensor *running_var, const SimTensor *inp,
                                   const SimTensor *weight, const SimTensor *bias,
                                   float momentum, float eps) {
    SIM_CHECK(sim_op_batchnorm_stats(r, &v->stats, inp));
    SIM_CHECK(sim_all_gather(r, v->stats.data, v->all.data, sim_tensor_numel(&v->stats),
                             SIM_FP32, r->world->cfg.algo));
    SIM_CHECK(sim_op_batchnorm_gather_stats(r, mean, invstd, running_mean, running_var,
                                            &v->count, &v->all, momentum, eps));
    return sim_op_batchnorm_elemt(r, out, inp, mean, invstd, weight, bias);
}

SimStatus sim_model_syncbn_backward(SimRank *r, SimSyncBnViews *v, SimTensor *dinp,
                                    SimTensor *dweight, SimTensor *dbias, const SimTensor *dout,
                                    const SimTensor *inp, const SimTensor *weight,
                                    const SimTensor *mean, const SimTensor *invstd) {
    SIM_CHECK(sim_op_batchnorm_backward_reduce(r, &v->sums, dweight, dbias, dout, inp, mean,
                                               invstd));
    SIM_CHECK(sim_all_reduce(r, v->sums.data, v->sums.data, sim_tensor_numel(&v->sums),
                             SIM_FP32, SIM_SUM, r->world->cfg.algo));
    return sim_op_batchnorm_backward_elemt(r, dinp, dout, inp, weight, mean, invstd, &v->sums,
                                           &v->count);
}
