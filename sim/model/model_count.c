// sim/model/model_count.c: a model that is a parameter count and nothing else
// ("count:params=N[,flops=F]", the resnet50 preset). It stands for a model
// whose layers ddplab does not write out, so that strategies can still
// bucket, shard and all-reduce its parameters and the ledger can hold its
// model states:
//
//   params    one flat tensor [N], the only parameter, held by the root
//             module (there are no children, so FSDP makes it one unit)
//
// Forward and backward do no layer math. With flops=F, forward accounts F
// FLOPs per sample and backward 2F (the usual rule that backward costs
// twice the forward), each as one cost-only op ("count_fwd", "count_bwd")
// priced on the device like a matrix product; bytes are not modelled.
// Activations are not modelled either: nothing is charged to the ledger's
// activations. Phantom mode only (sim_model_create refuses it otherwise).
#include "model/model_impl.h"

SimStatus sim_model_count_build(SimModel *m) {
    int64_t shape[1] = {m->spec.count_params};
    return sim_model_add_param(m, "params", 1, shape);
}

SimStatus sim_model_count_forward(SimRank *r, SimModel *m, const SimBatch *b, float *loss) {
    SimModelImpl *im = m->impl;
    *loss = 0.0f;
    im->fwd_seq = b->seq;
    im->used[0] = 1;
    SIM_CHECK(sim_model_module_event(m, SIM_MODULE_PRE_FORWARD, 0));
    if (m->spec.count_flops) {
        const SimTensor *t[1] = {&im->pv[0]};
        double flops = (double)m->spec.count_flops * b->n;
        SIM_CHECK(sim_op_cost(r, "count_fwd", flops, 0, im->amp != SIM_FP32, im->amp, t, 1));
    }
    return sim_model_module_event(m, SIM_MODULE_POST_FORWARD, 0);
}

SimStatus sim_model_count_backward(SimRank *r, SimModel *m, SimGradHook hook, void *arg) {
    SimModelImpl *im = m->impl;
    SIM_CHECK(sim_model_module_event(m, SIM_MODULE_PRE_BACKWARD, 0));
    if (m->spec.count_flops) {
        const SimTensor *t[1] = {&im->gv[0]};
        double flops = 2.0 * (double)m->spec.count_flops * im->fwd_n;
        SIM_CHECK(sim_op_cost(r, "count_bwd", flops, 0, im->amp != SIM_FP32, im->amp, t, 1));
    }
    sim_model_ready(m, hook, arg, 0);
    return sim_model_module_event(m, SIM_MODULE_POST_BACKWARD, 0);
}
