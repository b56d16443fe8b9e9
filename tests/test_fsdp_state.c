// tests/test_fsdp_state.c: FSDP state dicts and checkpoints (sim/strategy/fsdp_state.c,
// sim/strategy/fsdp_shards.c, sim/strategy/fsdp_shards_load.c), numeric mode, Adam (lr 0.01),
// an MLP and a 2-block MiniGPT (and an MLP with BatchNorm, with SGD +
// momentum: see model_mlp_bn): N steps in all, a checkpoint after N/2 steps
// at 4 ranks (full_shard), resumed to N at R' = 2, 4 and 8.
//
// The reference. Resuming keeps --batch (a resumed run must keep its
// settings), so at another world size the global batch, and which samples
// each step takes, change with R'. A fair reference therefore takes the
// same batches: DDP saving its (full) checkpoint after N/2 steps at 4 ranks
// and resumed at R' to N. It starts from the same state and runs the same
// data with the same arithmetic, up to the order of the reductions. At
// R' = 4 the uninterrupted FSDP run is a second reference, and there
// resuming must change nothing at all (diff 0).
//
// Tolerance TOL 1e-6 (|a-b| / (1+|b|), the largest over the parameters and
// the ranks): FSDP computes DDP's gradients up to an ulp per element (its
// reduce-scatter and DDP's all_reduce add in different orders, see
// tests/test_fsdp_parity.c), and Adam's normalised steps carry such ulps
// into the parameters at ~1e-7 (measured: at most 6e-8 for the MLP and the
// GPT, 1.2e-7 with BatchNorm). A real resharding error (a slice at the
// wrong offset, lost optimizer state, a wrong step count in Adam's bias
// correction) moves parameters by 1e-3 or more. Every diff is printed.
//
// Besides the parameters after training on:
//   - resharding itself, bit for bit: the SHARDED checkpoint saved at 4,
//     loaded at 2 and at 8 (and with another --sharding) and saved again as
//     FULL without a step, equals the FULL checkpoint saved at 4 in every
//     tensor (parameters, buffers, optimizer state, step counters, has_grad);
//   - SHARDED saved under hybrid sharding (2 nodes x 2: two shard files)
//     and NO_SHARD (one file), resumed at 8 and 2 under FULL_SHARD;
//   - LOCAL: resumed at 4 it gives the uninterrupted parameters exactly;
//     at 2 ranks, or with another --sharding, it is refused naming both;
//   - --save-every: every save writes a complete checkpoint and removes the
//     files of the one it replaces;
//   - state_dict() called on rank 0 only: with --save-every on 4 ranks a
//     collective mismatch (SIM_EPROTO) well inside the watchdog's time; at
//     the final save (the others have left the loop) the watchdog's
//     SIM_ETIMEDOUT; rank 0's error says what happened in both;
//   - damaged files (truncated, a flipped byte, missing, a damaged index)
//     are a clean error on every rank, the failing rank's reason reported,
//     without a hang; a sharded index given to DDP is named as what it is;
//     a save that cannot be written fails every rank at once.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "formats/safetensors.h"
#include "strategy/fsdp.h"
#include "test_ckpt_util.h"
#include "test_ddp_util.h"
#include "test_env.h"
#include "test_files.h"

#define TOL 1e-6

static char dir[512];

// dir/name in one of 8 buffers used in turn.
static const char *at(const char *name) {
    static char buf[8][768];
    static int next;
    char *b = buf[next++ % 8];
    snprintf(b, sizeof buf[0], "%s/%s", dir, name);
    return b;
}

typedef struct {
    const char *name;
    SimDataset ds;
    SimModelSpec spec;
    int B;        // samples (sequences) per rank per step
    int64_t N;    // steps in all; the checkpoint is taken after N/2
    int sgd;      // 1: SGD with momentum 0.9, lr 0.1 (else Adam, lr 0.01)
} Model;

// One run: its world, its strategy, its checkpoints.
typedef struct {
    int R, nodes;
    int ddp;                 // 1: --strategy ddp (the reference)
    SimFsdpOptions o;        // otherwise fsdp with these options
    int64_t steps, stop_after, save_every;
    const char *save, *resume;
} Job;

static Job fsdp_job(int R, SimFsdpSharding sh, SimFsdpStateDict sd, int64_t steps) {
    Job j;
    memset(&j, 0, sizeof j);
    sim_fsdp_options_default(&j.o);
    j.o.sharding = sh;
    j.o.state_dict = sd;
    j.R = R;
    j.nodes = sh == SIM_FSDP_HYBRID_SHARD || sh == SIM_FSDP_HYBRID_ZERO2 ? 2 : 1;
    j.steps = steps;
    return j;
}

static SimStatus summon(void *arg, SimRank *r, SimTrainer *t) {
    (void)arg;
    return sim_fsdp_summon_full_params(r, t);
}

// Runs j; t holds the result (every rank's full parameters). The caller
// frees t with tddp_free.
static SimStatus run_job(const Model *m, Job *j, TddpRun *t) {
    tddp_config(t, &m->ds, &m->spec, j->R, m->B, j->steps);
    t->nodes = j->nodes;
    if (tddp_set_optim(t, m->sgd ? "sgd" : "adam", 0) != 0)
        return SIM_EINVAL;
    t->cfg.loop.stop_after = j->stop_after;
    t->cfg.ckpt.save_every = j->save_every;
    t->cfg.ckpt.save_path = j->save;
    t->cfg.ckpt.resume_path = j->resume;
    if (j->ddp) {
        t->use_ddp = 1;
    } else {
        t->cfg.strategy = &sim_fsdp_strategy;
        t->cfg.strategy_cfg = &j->o;
        t->after = summon;
    }
    return tddp_run(t);
}

// Runs j, expecting success; prints the error otherwise.
static int run_ok(const Model *m, Job *j, TddpRun *t, const char *what) {
    if (run_job(m, j, t) == SIM_OK)
        return 0;
    fprintf(stderr, "%s %s: %s\n", m->name, what, t->error);
    return 1;
}

// The largest difference of every rank's parameters from the reference's.
static double worst_diff(const TddpRun *t, const TddpRun *ref) {
    double worst = 0;
    for (int r = 0; r < t->R; r++) {
        double d = t->nparam == ref->nparam && t->params[r] && ref->params[0]
                       ? tddp_maxdiff(t->params[r], ref->params[0], ref->nparam)
                       : INFINITY;
        worst = d > worst ? d : worst;
    }
    return worst;
}

// The largest difference between the tensors of two checkpoint files: every
// tensor of a must be in b with the same dtype and shape (-1 otherwise, or
// when a file cannot be read); *n counts the tensors compared.
static double file_diff(const char *a, const char *b, int *n) {
    SimStFile fa, fb;
    *n = 0;
    if (tckpt_load_pair(a, &fa, b, &fb) != 0)
        return -1;
    double worst = fa.ntensors == fb.ntensors ? 0 : -1;
    for (int i = 0; worst >= 0 && i < fa.ntensors; i++) {
        const SimStTensor *x = &fa.tensors[i], *y = sim_stfile_find(&fb, x->name);
        int same = y && y->dtype == x->dtype && y->ndim == x->ndim;
        size_t cnt = 1;
        for (int d = 0; same && d < x->ndim; d++) {
            same = x->shape[d] == y->shape[d];
            cnt *= (size_t)x->shape[d];
        }
        if (!same) {
            fprintf(stderr, "%s: tensor '%s' differs in name, dtype or shape in %s\n", a,
                    x->name, b);
            worst = -1;
            break;
        }
        for (size_t k = 0; k < cnt; k++) {
            double u, v;
            if (x->dtype == SIM_INT64) {
                int64_t p, q;
                memcpy(&p, (const char *)x->data + 8 * k, 8);
                memcpy(&q, (const char *)y->data + 8 * k, 8);
                u = (double)p, v = (double)q;
            } else {
                float p, q;
                memcpy(&p, (const char *)x->data + 4 * k, 4);
                memcpy(&q, (const char *)y->data + 4 * k, 4);
                u = p, v = q;
            }
            double d = fabs(u - v);
            worst = d > worst || isnan(d) ? (isnan(d) ? INFINITY : d) : worst;
        }
        (*n)++;
    }
    sim_stfile_free(&fa);
    sim_stfile_free(&fb);
    return worst;
}

// The number of files a sharded checkpoint's index lists (-1: unreadable).
static int index_files(const char *path) {
    SimStFile f;
    char err[512];
    if (sim_stfile_load(&f, path, err, sizeof err) != SIM_OK) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    const char *v = sim_stfile_meta(&f, "files");
    int n = v ? atoi(v) : -1;
    sim_stfile_free(&f);
    return n;
}

static const char *base(const char *path) {
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

// ----------------------------------------------------------------------------
// resuming at 2, 4 and 8 ranks

// Resumes `ck` (saved at 4 after N/2 steps) with j at j->R ranks to N and
// compares with ref; at R' = 4 also with the uninterrupted run `whole`.
static int resume_case(const Model *m, Job *j, const char *ck, const TddpRun *ref,
                       const TddpRun *whole, const char *what, double *worst) {
    TddpRun t;
    j->resume = ck;
    j->steps = m->N;
    if (run_ok(m, j, &t, what)) {
        tddp_free(&t);
        return 1;
    }
    double d = worst_diff(&t, ref);
    double w = whole ? worst_diff(&t, whole) : 0;
    printf("  %s %-44s max param diff %.3g vs ddp resumed at %d", m->name, what, d, j->R);
    if (whole)
        printf(", %.3g vs uninterrupted", w);
    printf("\n");
    tddp_free(&t);
    *worst = d > *worst ? d : *worst;
    if (!(d <= TOL) || !(w == 0)) {
        fprintf(stderr, "%s %s: diff %.3g from ddp (tol %g), %.3g from the uninterrupted run "
                "(must be 0)\n", m->name, what, d, TOL, w);
        return 1;
    }
    return 0;
}

// The FSDP state after loading `ck` at R ranks with sharding sh, saved
// again at once as FULL, against the FULL checkpoint `full` saved at 4.
static int reshard_exact(const Model *m, const char *ck, int R, SimFsdpSharding sh,
                         const char *full, const char *out) {
    Job j = fsdp_job(R, sh, SIM_FSDP_SD_FULL, m->N);
    j.stop_after = m->N / 2; // no step: load, then the final save
    j.resume = ck;
    j.save = out;
    TddpRun t;
    int fails = run_ok(m, &j, &t, "reshard");
    tddp_free(&t);
    int n = 0;
    double d = fails ? -1 : file_diff(full, out, &n);
    printf("  %s %s at 4 -> %s at %d -> full: %d tensors, max diff %.3g from the full "
           "checkpoint saved at 4\n", m->name, base(ck), sim_fsdp_sharding_name(sh),
           R, n, d);
    if (d != 0 || n == 0) {
        fprintf(stderr, "%s: resharded state differs (%.3g over %d tensors)\n", m->name, d, n);
        return 1;
    }
    return 0;
}

// One model: the references, the three checkpoints at 4, and every resume.
static int resume_model(const Model *m) {
    const int Rs[3] = {2, 4, 8};
    int64_t H = m->N / 2;
    int fails = 0;
    double worst = 0;
    char name[64];
    // references: DDP 4 -> R', and the uninterrupted FSDP run at 4
    TddpRun ref[3], whole;
    memset(ref, 0, sizeof ref);
    Job dj;
    memset(&dj, 0, sizeof dj);
    dj.ddp = 1, dj.R = 4, dj.nodes = 1, dj.steps = m->N, dj.stop_after = H;
    snprintf(name, sizeof name, "%s-ddp", m->name);
    dj.save = at(name);
    TddpRun t;
    fails += run_ok(m, &dj, &t, "ddp save at 4");
    tddp_free(&t);
    for (int k = 0; k < 3 && !fails; k++) {
        Job rj = dj;
        rj.R = Rs[k], rj.stop_after = 0, rj.save = NULL, rj.resume = at(name);
        fails += run_ok(m, &rj, &ref[k], "ddp resume");
    }
    Job wj = fsdp_job(4, SIM_FSDP_FULL_SHARD, SIM_FSDP_SD_FULL, m->N);
    fails += run_ok(m, &wj, &whole, "uninterrupted");
    // the checkpoints after N/2 steps at 4 ranks (full_shard), one per type
    const SimFsdpStateDict sds[3] = {SIM_FSDP_SD_FULL, SIM_FSDP_SD_SHARDED, SIM_FSDP_SD_LOCAL};
    char ck[3][768];
    for (int k = 0; k < 3 && !fails; k++) {
        snprintf(name, sizeof name, "%s-%s", m->name, sim_fsdp_state_dict_name(sds[k]));
        snprintf(ck[k], sizeof ck[k], "%s", at(name));
        Job sj = fsdp_job(4, SIM_FSDP_FULL_SHARD, sds[k], m->N);
        sj.stop_after = H;
        sj.save = ck[k];
        fails += run_ok(m, &sj, &t, "save at 4");
        tddp_free(&t);
    }
    // FULL and SHARDED at 2, 4, 8
    for (int s = 0; s < 2 && !fails; s++)
        for (int k = 0; k < 3; k++) {
            Job j = fsdp_job(Rs[k], SIM_FSDP_FULL_SHARD, SIM_FSDP_SD_FULL, m->N);
            snprintf(name, sizeof name, "%s at 4 -> full_shard at %d",
                     sim_fsdp_state_dict_name(sds[s]), Rs[k]);
            fails += resume_case(m, &j, ck[s], &ref[k], Rs[k] == 4 ? &whole : NULL, name,
                                 &worst);
        }
    // SHARDED into other shardings and wrap policies
    if (!fails) {
        Job j = fsdp_job(2, SIM_FSDP_SHARD_GRAD_OP, SIM_FSDP_SD_FULL, m->N);
        j.o.wrap = SIM_FSDP_WRAP_NONE;
        fails += resume_case(m, &j, ck[1], &ref[0], NULL, "sharded at 4 -> shard_grad_op,"
                             "wrap none at 2", &worst);
        j = fsdp_job(8, SIM_FSDP_ZERO1, SIM_FSDP_SD_FULL, m->N);
        fails += resume_case(m, &j, ck[1], &ref[2], NULL, "sharded at 4 -> zero1 at 8", &worst);
        j = fsdp_job(2, SIM_FSDP_NO_SHARD, SIM_FSDP_SD_FULL, m->N);
        fails += resume_case(m, &j, ck[1], &ref[0], NULL, "sharded at 4 -> no_shard at 2",
                             &worst);
        j = fsdp_job(4, SIM_FSDP_HYBRID_SHARD, SIM_FSDP_SD_FULL, m->N);
        fails += resume_case(m, &j, ck[1], &ref[1], NULL, "sharded at 4 -> hybrid 2x2",
                             &worst);
    }
    // SHARDED saved by hybrid (2 shard files) and no_shard (1 file)
    const SimFsdpSharding from[2] = {SIM_FSDP_HYBRID_SHARD, SIM_FSDP_NO_SHARD};
    for (int k = 0; k < 2 && !fails; k++) {
        snprintf(name, sizeof name, "%s-from-%s", m->name, sim_fsdp_sharding_name(from[k]));
        Job sj = fsdp_job(4, from[k], SIM_FSDP_SD_SHARDED, m->N);
        sj.stop_after = H;
        sj.save = at(name);
        fails += run_ok(m, &sj, &t, "save at 4");
        tddp_free(&t);
        // replicas hold the same shard: only the first replica writes it
        CHECK_EQ_INT(index_files(at(name)), k == 0 ? 2 : 1);
        Job j = fsdp_job(k == 0 ? 8 : 2, SIM_FSDP_FULL_SHARD, SIM_FSDP_SD_FULL, m->N);
        char what[96];
        snprintf(what, sizeof what, "sharded by %s at 4 -> full_shard at %d",
                 sim_fsdp_sharding_name(from[k]), j.R);
        fails += resume_case(m, &j, at(name), &ref[k == 0 ? 2 : 0], NULL, what, &worst);
    }
    // the resharded state, bit for bit
    if (!fails) {
        snprintf(name, sizeof name, "%s-again", m->name);
        fails += reshard_exact(m, ck[1], 2, SIM_FSDP_FULL_SHARD, ck[0], at(name));
        fails += reshard_exact(m, ck[1], 8, SIM_FSDP_FULL_SHARD, ck[0], at(name));
        fails += reshard_exact(m, ck[1], 8, SIM_FSDP_SHARD_GRAD_OP, ck[0], at(name));
        fails += reshard_exact(m, ck[1], 4, SIM_FSDP_ZERO1, ck[0], at(name));
    }
    // LOCAL: the same size exactly; another size or plan refused
    if (!fails) {
        Job j = fsdp_job(4, SIM_FSDP_FULL_SHARD, SIM_FSDP_SD_FULL, m->N);
        fails += resume_case(m, &j, ck[2], &ref[1], &whole, "local at 4 -> full_shard at 4",
                             &worst);
        j = fsdp_job(2, SIM_FSDP_FULL_SHARD, SIM_FSDP_SD_FULL, m->N);
        j.resume = ck[2];
        CHECK(run_job(m, &j, &t) == SIM_EINVAL);
        CHECK_STR_CONTAINS(t.error, "saved at 4 ranks; this run has 2");
        CHECK_STR_CONTAINS(t.error, "--state-dict sharded");
        printf("  %s local at 4 -> 2 refused: %s\n", m->name, t.error);
        tddp_free(&t);
        j = fsdp_job(4, SIM_FSDP_SHARD_GRAD_OP, SIM_FSDP_SD_FULL, m->N);
        j.o.wrap = SIM_FSDP_WRAP_NONE;
        j.resume = ck[2];
        CHECK(run_job(m, &j, &t) == SIM_EINVAL);
        CHECK_STR_CONTAINS(t.error, "saved with another plan (--sharding full_shard");
        tddp_free(&t);
    }
    for (int k = 0; k < 3; k++)
        tddp_free(&ref[k]);
    tddp_free(&whole);
    printf("%s: worst param diff of a resumed run %.3g (tol %g)\n", m->name, worst, TOL);
    return fails;
}

static int model_mlp(Model *m) {
    m->name = "mlp";
    m->sgd = 0;
    m->B = 4;
    m->N = tenv_quick() ? 4 : 8;
    return tddp_data_mlp(&m->ds, 1024, "mlp:16,32,32,4", &m->spec) != SIM_OK;
}

// With BatchNorm: buffers (running statistics, an I64 count) in the index.
// SGD with momentum: the bias of a Linear layer before BatchNorm has a
// gradient that is 0 but for rounding, which Adam would scale up to steps
// of lr, so that the order of any reduction would show (DDP and FSDP alike).
static int model_mlp_bn(Model *m) {
    m->name = "mlp_bn";
    m->sgd = 1;
    m->B = 4;
    m->N = tenv_quick() ? 4 : 6;
    return tddp_data_mlp(&m->ds, 1024, "mlp:16,32,32,4,bn", &m->spec) != SIM_OK;
}

// The tiny GPT of tddp_data_gpt's data with two blocks (units): embd 12, so
// that its flat parameters need padding on 8 ranks.
static int model_gpt(Model *m) {
    SimModelSpec one;
    char text[128], err[256];
    m->name = "gpt";
    m->sgd = 0;
    m->B = 2;
    m->N = tenv_quick() ? 4 : 6;
    if (tddp_data_gpt(&m->ds, &one) != SIM_OK)
        return 1;
    snprintf(text, sizeof text, "gpt:layers=2,embd=12,heads=2,ctx=8,vocab=%d", m->ds.vocab);
    return sim_model_parse(text, &m->spec, err, sizeof err) != SIM_OK;
}

static int test_resume_mlp(void) {
    Model m;
    CHECK(model_mlp(&m) == 0);
    int fails = resume_model(&m);
    sim_dataset_free(&m.ds);
    return fails;
}

static int test_resume_mlp_bn(void) {
    Model m;
    CHECK(model_mlp_bn(&m) == 0);
    int fails = resume_model(&m);
    sim_dataset_free(&m.ds);
    return fails;
}

static int test_resume_gpt(void) {
    Model m;
    CHECK(model_gpt(&m) == 0);
    int fails = resume_model(&m);
    sim_dataset_free(&m.ds);
    return fails;
}

// ----------------------------------------------------------------------------
// --save-every

// Saves at every step of the first half (SHARDED, 4 ranks): the index names
// the last save's files, the earlier saves' files are gone, and the
// checkpoint resumes (at 2 ranks) as DDP's does.
static int test_save_every(void) {
    Model m;
    CHECK(model_mlp(&m) == 0);
    int64_t H = m.N / 2;
    Job j = fsdp_job(4, SIM_FSDP_FULL_SHARD, SIM_FSDP_SD_SHARDED, m.N);
    j.stop_after = H;
    j.save_every = 1;
    j.save = at("every");
    TddpRun t, ref;
    CHECK(run_ok(&m, &j, &t, "save every step") == 0);
    tddp_free(&t);
    char name[96];
    for (int64_t k = 1; k <= H; k++)
        for (int g = 0; g < 4; g++) {
            snprintf(name, sizeof name, "every.step%lld.shard%d-of-4.safetensors", (long long)k, g);
            if (tfile_exists(at(name)) != (k == H)) {
                fprintf(stderr, "%s: %s\n", name, k == H ? "missing" : "left behind");
                sim_dataset_free(&m.ds);
                return 1;
            }
        }
    CHECK_EQ_INT(index_files(at("every")), 4);
    Job dj;
    memset(&dj, 0, sizeof dj);
    dj.ddp = 1, dj.R = 4, dj.nodes = 1, dj.steps = m.N, dj.stop_after = H;
    dj.save = at("every-ddp");
    CHECK(run_ok(&m, &dj, &t, "ddp save") == 0);
    tddp_free(&t);
    dj.R = 2, dj.stop_after = 0, dj.save = NULL, dj.resume = at("every-ddp");
    CHECK(run_ok(&m, &dj, &ref, "ddp resume") == 0);
    double worst = 0;
    Job rj = fsdp_job(2, SIM_FSDP_FULL_SHARD, SIM_FSDP_SD_SHARDED, m.N);
    rj.save = at("every"); // resumes from and saves to the same path
    int fails = resume_case(&m, &rj, at("every"), &ref, NULL, "save-every at 4 -> 2", &worst);
    snprintf(name, sizeof name, "every.step%lld.shard0-of-2.safetensors", (long long)m.N);
    CHECK(tfile_exists(at(name)));
    snprintf(name, sizeof name, "every.step%lld.shard0-of-4.safetensors", (long long)H);
    CHECK(!tfile_exists(at(name)));
    CHECK_EQ_INT(index_files(at("every")), 2);
    tddp_free(&ref);
    sim_dataset_free(&m.ds);
    return fails;
}

// ----------------------------------------------------------------------------
// state_dict() on rank 0 only

static int rank0_case(SimFsdpStateDict sd, int64_t save_every, SimStatus want) {
    Model m;
    CHECK(model_mlp(&m) == 0);
    Job j = fsdp_job(4, SIM_FSDP_FULL_SHARD, sd, 6);
    j.o.state_dict_rank0_call = 1;
    j.save_every = save_every;
    j.save = at(save_every ? "rank0-every" : "rank0-end");
    TddpRun t;
    SimStatus st = run_job(&m, &j, &t);
    printf("  %s, --save-every %lld: %s after %.2f s: %s\n", sim_fsdp_state_dict_name(sd),
           (long long)save_every, sim_strerror(st), t.wall_s, t.error);
    tddp_free(&t);
    sim_dataset_free(&m.ds);
    CHECK_EQ_INT(st, want);
    CHECK_STR_CONTAINS(t.error, "state_dict() called on rank 0 only: every rank must take part");
    CHECK(!tfile_exists(j.save)); // nothing was written
    if (want == SIM_EPROTO) {
        // the protocol check, at once: not the watchdog (5 s in tddp_run)
        CHECK_STR_CONTAINS(t.error, "met the other ranks' next training collectives");
        CHECK_STR_CONTAINS(t.error, "[probable cause: rank 0 called a different collective at #");
        CHECK(strstr(t.error, "watchdog") == NULL);
    } else {
        CHECK_STR_CONTAINS(t.error, "the other ranks had left the training loop");
        CHECK_STR_CONTAINS(t.error, "[probable cause: rank 0 called AllGather #");
        CHECK_STR_CONTAINS(t.error, " after ranks 1,2,3 had finished: ");
    }
    return 0;
}

static int test_rank0_only(void) {
    int fails = rank0_case(SIM_FSDP_SD_FULL, 2, SIM_EPROTO);
    fails += rank0_case(SIM_FSDP_SD_SHARDED, 2, SIM_EPROTO);
    fails += rank0_case(SIM_FSDP_SD_FULL, 0, SIM_ETIMEDOUT);
    return fails;
}

// ----------------------------------------------------------------------------
// damaged files

// Resumes the SHARDED checkpoint "dmg" (4 ranks) at 2 and expects status
// want with `needle` in the error, on every rank, without the watchdog.
static int expect_resume_error(const Model *m, SimStatus want, const char *needle) {
    Job j = fsdp_job(2, SIM_FSDP_FULL_SHARD, SIM_FSDP_SD_FULL, m->N);
    j.resume = at("dmg");
    TddpRun t;
    SimStatus st = run_job(m, &j, &t);
    printf("  %s after %.2f s: %s\n", sim_strerror(st), t.wall_s, t.error);
    tddp_free(&t);
    CHECK_EQ_INT(st, want);
    CHECK_STR_CONTAINS(t.error, needle);
    // every rank failed at once: none was left for the watchdog to stop
    CHECK(strstr(t.error, "watchdog") == NULL);
    return 0;
}

static int test_damaged(void) {
    Model m;
    CHECK(model_mlp(&m) == 0);
    int64_t H = m.N / 2;
    Job j = fsdp_job(4, SIM_FSDP_FULL_SHARD, SIM_FSDP_SD_SHARDED, m.N);
    j.stop_after = H;
    j.save = at("dmg");
    TddpRun t;
    CHECK(run_ok(&m, &j, &t, "save") == 0);
    tddp_free(&t);
    char name[96];
    // shard 3 is read by rank 1 of 2 only: rank 0 learns why from rank 1
    snprintf(name, sizeof name, "dmg.step%lld.shard3-of-4.safetensors", (long long)H);
    const char *shard = at(name);
    size_t len = 0;
    char *good = tfile_read(shard, &len);
    CHECK(good != NULL && len > 64);
    int fails = 0;
    CHECK(tfile_write(shard, good, len / 2) == 0);
    fails += expect_resume_error(&m, SIM_EFORMAT, "shard3-of-4.safetensors: truncated");
    good[len - 5] ^= 0x40; // a bit of the last tensor's data
    CHECK(tfile_write(shard, good, len) == 0);
    fails += expect_resume_error(&m, SIM_EFORMAT, "shard3-of-4.safetensors: checksum mismatch");
    good[len - 5] ^= 0x40;
    CHECK(remove(shard) == 0);
    fails += expect_resume_error(&m, SIM_EIO, "shard3-of-4.safetensors: cannot open");
    CHECK(tfile_write(shard, good, len) == 0);
    free(good);
    // the index
    char *index = tfile_read(at("dmg"), &len);
    CHECK(index != NULL && len > 64);
    CHECK(tfile_write(at("dmg"), index, len - 3) == 0);
    fails += expect_resume_error(&m, SIM_EFORMAT, "dmg: truncated");
    CHECK(tfile_write(at("dmg"), index, len) == 0);
    free(index);
    // whole again: it loads
    j = fsdp_job(2, SIM_FSDP_FULL_SHARD, SIM_FSDP_SD_FULL, m.N);
    j.resume = at("dmg");
    fails += run_ok(&m, &j, &t, "repaired");
    tddp_free(&t);
    // another strategy is told what the index is
    Job dj;
    memset(&dj, 0, sizeof dj);
    dj.ddp = 1, dj.R = 2, dj.nodes = 1, dj.steps = m.N, dj.resume = at("dmg");
    CHECK(run_job(&m, &dj, &t) == SIM_EFORMAT);
    printf("  ddp given the index: %s\n", t.error);
    tddp_free(&t);
    CHECK_STR_CONTAINS(t.error, "not a checkpoint of the whole model");
    CHECK_STR_CONTAINS(t.error, "resume it with --strategy fsdp");
    sim_dataset_free(&m.ds);
    return fails;
}

// A save that cannot be written (its directory does not exist) fails on
// every rank at once, FULL (rank 0 writes) and SHARDED (every rank writes).
static int test_unwritable(void) {
    Model m;
    CHECK(model_mlp(&m) == 0);
    int fails = 0;
    for (int k = 0; k < 2; k++) {
        Job j = fsdp_job(4, SIM_FSDP_FULL_SHARD, k ? SIM_FSDP_SD_SHARDED : SIM_FSDP_SD_FULL, 2);
        j.save = at("no-such-dir/ck");
        TddpRun t;
        SimStatus st = run_job(&m, &j, &t);
        printf("  %s: %s after %.2f s: %s\n", sim_fsdp_state_dict_name(j.o.state_dict),
               sim_strerror(st), t.wall_s, t.error);
        tddp_free(&t);
        if (st != SIM_EIO || !strstr(t.error, "no-such-dir/ck") || !(t.wall_s < 4.5)) {
            fprintf(stderr, "unwritable %s: want SIM_EIO naming the path at once\n",
                    sim_fsdp_state_dict_name(j.o.state_dict));
            fails++;
        }
    }
    sim_dataset_free(&m.ds);
    return fails;
}

int main(void) {
    if (tfile_mkdtemp(dir, sizeof dir, "fsdpstate") != 0)
        return 2;
    int failures = 0;
    RUN(test_resume_mlp);
    RUN(test_resume_mlp_bn);
    RUN(test_resume_gpt);
    RUN(test_save_every);
    RUN(test_rank0_only);
    RUN(test_damaged);
    RUN(test_unwritable);
    tfile_rmtree(dir);
    return failures ? 1 : 0;
}
