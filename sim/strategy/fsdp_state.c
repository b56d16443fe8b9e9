// sim/strategy/fsdp_state.c: FSDP state dicts and checkpoints.
//
// FULL (the default): every rank takes part. Each unit is all-gathered in
// turn and its values kept (rank0_only: only rank 0's copy is the result;
// in numeric mode the layers' buffer stands for that CPU copy), and so is
// the optimizer state; rank 0 then writes the same checkpoint a replicated
// run writes (sim/formats/checkpoint.h), so a FULL checkpoint resumes under any
// strategy and any world size. If only rank 0 calls it (the bug
// state_dict_rank0_call puts in on purpose), rank 0's gathers meet the other
// ranks' next collectives and the protocol check reports the mismatch.
//
// The same holds for SHARDED and LOCAL (sim/strategy/fsdp_shards.c), which agree on
// the step counters and on every rank's success with collectives: the bug
// applies to every state dict type.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/comm.h"   // defines: sim_all_reduce
#include "engine/memory.h" // defines: SIM_MEM_BACKING
#include "engine/ops.h"    // defines: sim_tensor_alloc

#include "strategy/fsdp_internal.h"
#include "train/trainer.h"

// Gathers state tensor k of the sharded optimizer into the loop's optimizer
// (full layout), unit by unit.
static SimStatus gather_state(FsdpState *s, SimRank *r, int k) {
    SimTensor *full = &s->t->optim.state[k];
    SimTensor *mine = &s->optim.state[k];
    for (int u = 0; u < s->plan.nunits; u++) {
        const SimFsdpUnit *un = &s->plan.units[u];
        if (un->numel == 0)
            continue;
        SimTensor flat, send = fsdp_view(mine, s->u[u].master_off, un->shard);
        SimCollHandle h;
        SIM_CHECK(fsdp_alloc(r, &flat, "fsdp gathered optimizer state", SIM_FP32, un->padded));
        SimStatus st = fsdp_all_gather(s, r, &send, &flat, &h);
        if (st == SIM_OK)
            st = fsdp_coll_wait(r, &h);
        if (st == SIM_OK)
            st = fsdp_unpack(s, r, u, &flat, full);
        sim_tensor_free(r, &flat);
        SIM_CHECK(st);
    }
    return SIM_OK;
}

// Per-parameter step counters: a rank whose shard holds nothing of a
// parameter never stepped it, so the largest count over the ranks is torch's.
SimStatus fsdp_gather_steps(FsdpState *s, SimRank *r) {
    int n = s->m->nparams;
    SimTensor v;
    int64_t shape[1] = {n};
    sim_tensor_init(&v, "fsdp step counters", SIM_FP32, 1, shape);
    v.mem_cat = SIM_MEM_BACKING;
    SIM_CHECK(sim_tensor_alloc(r, &v, 0));
    float *host = malloc(((size_t)n + 1) * sizeof *host);
    if (!host) {
        sim_tensor_free(r, &v);
        return SIM_ENOMEM;
    }
    for (int i = 0; i < n; i++)
        host[i] = (float)s->optim.param_steps[i];
    SimStatus st = sim_tensor_upload(r, &v, host);
    if (st == SIM_OK && s->nranks > 1)
        st = sim_all_reduce(r, v.data, v.data, (size_t)n, SIM_FP32, SIM_MAX,
                            r->world->cfg.algo);
    if (st == SIM_OK)
        st = sim_tensor_download(r, &v, host);
    sim_tensor_free(r, &v);
    for (int i = 0; st == SIM_OK && i < n; i++)
        s->t->optim.param_steps[i] = (int64_t)host[i];
    free(host);
    SIM_CHECK(st);
    s->t->optim.steps = s->optim.steps;
    return SIM_OK;
}

static SimStatus save_full(FsdpState *s, SimRank *r, SimTrainer *t, const char *path) {
    SIM_CHECK(fsdp_gather_all(s, r));
    for (int k = 0; k < s->optim.nstate && k < t->optim.nstate; k++)
        SIM_CHECK(gather_state(s, r, k));
    SIM_CHECK(fsdp_gather_steps(s, r));
    SimStatus st = r->rank == 0 && path ? sim_train_save(t, r, path) : SIM_OK;
    SimStatus st2 = fsdp_poison_sharded(s, r);
    // rank 0 failing to write fails every rank at once, with its reason
    return fsdp_agree(s, r, t, st != SIM_OK ? st : st2);
}

// The last line of the backend's diagnosis (the CPU backend's probable
// cause, cpu_diagnosis.h), or "".
static void diagnosis(const SimRank *r, char *out, size_t n) {
    const SimWorld *w = r->world;
    const char *d = w->ops->last_error ? w->ops->last_error(w->ctx) : NULL;
    out[0] = '\0';
    if (d == NULL)
        return;
    size_t end = strlen(d);
    while (end > 0 && (d[end - 1] == '\n' || d[end - 1] == ' '))
        end--;
    size_t begin = end;
    while (begin > 0 && d[begin - 1] != '\n')
        begin--;
    while (begin < end && d[begin] == ' ')
        begin++;
    snprintf(out, n, "%.*s", (int)(end - begin), d + begin);
}

// Rank 0's error when it alone called state_dict(): its collectives met the
// other ranks' training collectives (the protocol check: SIM_EPROTO), or,
// at the final save, the others had left and the watchdog found rank 0
// waiting alone (SIM_ETIMEDOUT).
static SimStatus rank0_only_failed(SimRank *r, SimTrainer *t, SimStatus st) {
    char diag[400];
    diagnosis(r, diag, sizeof diag);
    const char *how = st == SIM_ETIMEDOUT
                          ? "rank 0 waited alone in the state dict's collectives (the other "
                            "ranks had left the training loop) until the watchdog stopped it"
                      : st == SIM_EPROTO
                          ? "rank 0's state-dict collectives met the other ranks' next "
                            "training collectives"
                          : "rank 0's state-dict collectives failed";
    return sim_train_fail(t, 0, st, "--save: state_dict() called on rank 0 only: every rank "
                          "must take part (gathering the shards is a collective); %s: "
                          "%.200s%s%.400s%s", how, r->error, diag[0] ? " [" : "", diag,
                          diag[0] ? "]" : "");
}

SimStatus fsdp_save(void *state, SimRank *r, SimTrainer *t, const char *path) {
    FsdpState *s = state;
    int rank0_only = s->o.state_dict_rank0_call && s->nranks > 1;
    if (rank0_only && r->rank != 0)
        return SIM_OK; // `if rank == 0: model.state_dict()`: the others never call it
    SimStatus st = s->o.state_dict == SIM_FSDP_SD_FULL ? save_full(s, r, t, path)
                                                       : fsdp_save_shards(s, r, t, path);
    if (st != SIM_OK && rank0_only)
        return rank0_only_failed(r, t, st);
    return st;
}

// Takes this rank's slices of the loop's (full-layout) optimizer state.
static SimStatus shard_state(FsdpState *s, SimRank *r) {
    SimOptim *full = &s->t->optim;
    for (int k = 0; k < s->optim.nstate && k < full->nstate; k++) {
        for (int i = 0; i < s->m->nparams; i++) {
            const SimParamInfo *sp = &s->shard_params[i];
            if (sp->numel == 0)
                continue;
            SimTensor src = fsdp_view(&full->state[k], s->m->params[i].offset + s->shard_src[i],
                                      sp->numel);
            SimTensor dst = fsdp_view(&s->optim.state[k], sp->offset, sp->numel);
            SIM_CHECK(fsdp_backing_cast(r, &dst, &src));
        }
    }
    for (int i = 0; i < s->m->nparams; i++)
        s->optim.param_steps[i] = full->param_steps[i];
    s->optim.steps = full->steps;
    return SIM_OK;
}

SimStatus fsdp_restore(void *state, SimRank *r, SimTrainer *t, const char *path) {
    FsdpState *s = state;
    if (fsdp_shards_is_index(path))
        return fsdp_restore_shards(s, r, t, path);
    SIM_CHECK(sim_train_restore(t, r)); // a full checkpoint: any strategy, any world size
    for (int u = 0; u < s->plan.nunits; u++)
        SIM_CHECK(fsdp_shard_from_model(s, r, u));
    SIM_CHECK(shard_state(s, r));
    return fsdp_poison_sharded(s, r);
}
