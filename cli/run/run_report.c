// cli/run/run_report.c: what `ddplab run` tells its user: the configuration as a
// `| key | value |` table (as llm.c prints its own) on stdout, progress on
// stderr (a bar on a terminal, a line every few steps otherwise), one JSON
// line per step in the --metrics file, and the summary at the end.
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "base/outfile.h"         // defines: SimJsonOut
#include "run/run.h"
#include "strategy/layer_owner.h" // defines: sim_layer_owner_strategy
#include "trace/trace_report.h"   // defines: sim_trace_report_of

void run_report_init(RunReport *rep, const RunOptions *o, const SimDataset *ds,
                     const SimTrainConfig *cfg, RunMetrics *metrics) {
    memset(rep, 0, sizeof *rep);
    rep->o = o;
    rep->ds = ds;
    rep->cfg = cfg;
    rep->metrics = metrics;
    rep->bar = o->progress < 0 ? isatty(2) : o->progress;
    rep->log_every = o->log_every > 0 ? o->log_every : (cfg->loop.steps + 9) / 10;
    if (rep->log_every < 1)
        rep->log_every = 1;
    rep->end = cfg->loop.stop_after > 0 && cfg->loop.stop_after < cfg->loop.steps ? cfg->loop.stop_after : cfg->loop.steps;
    rep->wall_start = sim_wall_now();
    rep->last_draw = -1;
}

// ----------------------------------------------------------------------------
// the configuration table

#define MAX_ROWS 32

typedef struct {
    char value[MAX_ROWS][200];
    char keys[MAX_ROWS][32];
    int n;
} Table;

static void row(Table *t, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void row(Table *t, const char *key, const char *fmt, ...) {
    if (t->n == MAX_ROWS)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->value[t->n], sizeof t->value[t->n], fmt, ap);
    va_end(ap);
    snprintf(t->keys[t->n], sizeof t->keys[t->n], "%s", key);
    t->n++;
}

static void rule(int w) {
    printf("+-----------------------+-%.*s-+\n", w,
           "----------------------------------------------------------------------------------"
           "----------------------------------------------------------------------------------"
           "----------------------------------------");
}

// Values longer than the column continue on rows of their own, broken
// at spaces.
#define VALUE_W 50

static void print_table(const Table *t) {
    rule(VALUE_W);
    printf("| %-21s | %-*s |\n", "Parameter", VALUE_W, "Value");
    rule(VALUE_W);
    for (int i = 0; i < t->n; i++) {
        const char *v = t->value[i], *key = t->keys[i];
        do {
            int n = (int)strlen(v);
            if (n > VALUE_W) {
                n = VALUE_W;
                while (n > 0 && v[n] != ' ')
                    n--;
                if (n == 0)
                    n = VALUE_W;
            }
            printf("| %-21s | %-*.*s |\n", key, VALUE_W, n, v);
            key = "";
            v += n;
            while (*v == ' ')
                v++;
        } while (*v);
    }
    rule(VALUE_W);
}

// 1234567 -> "1,234,567"
static const char *grouped(size_t v, char *buf, size_t len) {
    char digits[32];
    int n = snprintf(digits, sizeof digits, "%zu", v), k = 0;
    for (int i = 0; i < n && (size_t)k + 2 < len; i++) {
        if (i > 0 && (n - i) % 3 == 0)
            buf[k++] = ',';
        buf[k++] = digits[i];
    }
    buf[k] = '\0';
    return buf;
}

static void optimizer_rows(Table *tb, const SimTrainConfig *c, int nranks) {
    const SimOptimOptions *op = &c->opt.optim;
    if (op->kind == SIM_OPTIM_SGD)
        row(tb, "optimizer", "sgd: lr %g, momentum %g, dampening %g, weight_decay %g%s", op->lr,
            op->momentum, op->dampening, op->weight_decay, op->nesterov ? ", nesterov" : "");
    else
        row(tb, "optimizer", "%s: lr %g, betas (%g, %g), eps %g, weight_decay %g%s",
            sim_optim_kind_name(op->kind), op->lr, op->beta1, op->beta2, op->eps,
            op->weight_decay, op->kind == SIM_OPTIM_ADAMW ? " (decoupled)" : "");
    const SimLrOptions *lr = &c->opt.lr;
    if (lr->kind == SIM_LR_CONSTANT)
        row(tb, "lr schedule", "constant%s%lld warmup steps", lr->warmup ? " after " : ", ",
            (long long)lr->warmup);
    else
        row(tb, "lr schedule", "%s decay to %g over %lld steps, after %lld warmup steps",
            sim_lr_kind_name(lr->kind), lr->min_lr, (long long)c->loop.steps, (long long)lr->warmup);
    char sentence[256];
    sim_lr_scale_sentence(lr, op->lr, nranks, c->loop.accum, sentence, sizeof sentence);
    if (sentence[0])
        row(tb, "lr scaling", "%s", sentence);
    else
        row(tb, "lr scaling", "none: lr %g as given (--lr-scale linear: x ranks x accum)", op->lr);
    if (c->opt.clip_grad_norm > 0)
        row(tb, "gradient clipping", "total 2-norm at most %g (clip_grad_norm_)",
            c->opt.clip_grad_norm);
    else
        row(tb, "gradient clipping", "off");
    const SimAmpOptions *amp = &c->opt.amp;
    if (amp->amp == SIM_FP16)
        row(tb, "mixed precision", "fp16 matmul inputs; GradScaler from %g, x%g every %d steps",
            amp->init_scale, amp->growth_factor, amp->growth_interval);
    else if (amp->amp == SIM_BF16)
        row(tb, "mixed precision", "bf16 matmul inputs (no loss scaler needed)");
    else
        row(tb, "mixed precision", "off (fp32)");
}

// 1 when the loss the progress lines and the summary show is rank 0's own,
// not the mean over the ranks: on several ranks the loop logs its rank's
// loss unless --loss-log asks for the mean (DataParallel's one process
// computes the loss of the whole batch).
static int loss_is_rank0(const RunOptions *o, const SimTrainConfig *c) {
    return o->nranks > 1 && c->strategy != &sim_dp_strategy && c->loop.loss_log == SIM_LOSS_LOCAL;
}

// The loss the progress lines show.
static void loss_row(Table *tb, const RunOptions *o, const SimTrainConfig *c) {
    if (o->nranks < 2 || c->loop.loss_log == SIM_LOSS_LOCAL)
        row(tb, "loss shown", "rank 0's (each rank's loss is of its own batch)");
    else
        row(tb, "loss shown", "%s", c->loop.loss_log == SIM_LOSS_AVG
            ? "mean over the ranks: all_reduce(loss, AVG)"
            : "mean over the ranks: all_reduce(loss, SUM) / world_size");
}

// --strategy ddp: its options and what the progress lines show.
static void ddp_rows(Table *tb, const RunOptions *o, const SimTrainConfig *c) {
    const SimDdpOptions *d = &o->ddp;
    row(tb, "ddp", "bucket_cap_mb %g, find_unused_parameters %s, static_graph %s, "
        "gradient_as_bucket_view %s, broadcast_buffers %s%s%s", d->buckets.bucket_cap_mb,
        d->buckets.find_unused ? "on" : "off", d->buckets.static_graph ? "on" : "off",
        d->gradient_as_bucket_view ? "on" : "off", d->broadcast_buffers ? "on" : "off",
        d->init_broadcast ? "" : ", no initial broadcast (rank r seeded with seed + r)",
        d->buckets.last_bucket_cap ? ", DDP_SET_LAST_BUCKET_CAP" : "");
    if (o->sync_bn)
        row(tb, "batchnorm", "SyncBatchNorm: batch statistics over the %d ranks' %d rows "
            "(per BatchNorm and step an all_gather of mean, variance and count, and an "
            "all_reduce of the backward's two sums)", o->nranks, o->nranks * o->batch);
    if (c->loop.accum > 1)
        row(tb, "accumulation", "%s", c->loop.accum_sync_every
            ? "all_reduce after every micro-step (--accum-sync every)"
            : "no_sync on the first micro-steps, one all_reduce per step");
    if (d->comm_hook == SIM_DDP_HOOK_POWERSGD)
        row(tb, "comm hook", "powerSGD_hook: matrix_approximation_rank %d, plain all_reduce "
            "for iterations 0..%d, then each matrix as factors P and Q, with error feedback "
            "and warm start", d->powersgd.rank, d->powersgd.start_iter - 1);
    else if (d->comm_hook != SIM_DDP_HOOK_ALLREDUCE)
        row(tb, "comm hook", "%s", d->comm_hook == SIM_DDP_HOOK_SUM
            ? "sum: all_reduce without dividing by the world size (gradients R times too "
              "large)"
            : d->comm_hook == SIM_DDP_HOOK_FP16 ? "fp16_compress_hook (half the bytes)"
                                                : "bf16_compress_hook (half the bytes)");
    if (c->data.uneven > 0)
        row(tb, "uneven inputs", "rank r has %d*r/%d fewer batches per epoch; %s", c->data.uneven,
            o->nranks - 1, c->data.join
            ? "Join: ranks out of data shadow the collectives with zero gradients"
            : "no Join: the others will wait for a rank that has left (watchdog)");
    loss_row(tb, o, c);
}

// --strategy fsdp / zero1-3: the sharding and its schedule.
static void fsdp_rows(Table *tb, const RunOptions *o, const SimTrainConfig *c,
                      const SimTrainer *t) {
    const SimFsdpOptions *f = &o->fsdp;
    const SimFsdpPlan *p = sim_fsdp_plan_of(t);
    static const char *const what[SIM_FSDP_SHARDING_COUNT] = {
        "ZeRO-3: parameters, gradients and optimizer state sharded; units gathered for "
        "forward and again for backward",
        "ZeRO-2: parameters, gradients and optimizer state sharded; units stay gathered "
        "from forward to the end of their backward",
        "DDP's layout: everything replicated, gradients all_reduced",
        "full_shard inside each node, replicated across nodes",
        "shard_grad_op inside each node, replicated across nodes",
        "ZeRO-1: only the optimizer state sharded; gradients all_reduced, updated "
        "parameters all-gathered after the step"};
    row(tb, "sharding", "%s: %s", sim_fsdp_sharding_name(f->sharding), what[f->sharding]);
    if (p)
        row(tb, "units", "%d (wrap %s), %s padded to a multiple of %d%s and sharded over %d "
            "rank%s x %d replica%s; largest unit %zu parameters", p->nunits,
            sim_fsdp_wrap_name(f->wrap), p->per_param ? "each parameter" : "each flat parameter",
            p->shard_ranks, p->per_param ? " rows on dim 0" : "", p->shard_ranks,
            p->shard_ranks == 1 ? "" : "s", p->replicas, p->replicas == 1 ? "" : "s",
            p->largest_unit);
    double pre, post;
    sim_fsdp_divide_factors(o->nranks, &pre, &post);
    row(tb, "schedule", "backward prefetch %s, forward prefetch %s, limit_all_gathers %s; "
        "gradients divided by %g before and %g after the reduction",
        sim_fsdp_prefetch_name(f->prefetch), f->forward_prefetch ? "on" : "off",
        f->limit_all_gathers ? "on" : "off", pre, post);
    if (f->param_dtype != SIM_FP32 || f->reduce_dtype_set || f->buffer_dtype != SIM_FP32)
        row(tb, "MixedPrecision", "param_dtype %s, reduce_dtype %s, buffer_dtype %s (fp32 "
            "master shards)", sim_dtype_name(f->param_dtype),
            sim_dtype_name(f->reduce_dtype_set ? f->reduce_dtype : f->param_dtype),
            sim_dtype_name(f->buffer_dtype));
    if (f->cpu_offload)
        row(tb, "CPU offload", "sharded parameters, gradients and optimizer state in host "
            "memory; the step runs there");
    if (c->loop.accum > 1)
        row(tb, "accumulation", "%s", c->loop.accum_sync_every
            ? "reduce-scatter after every micro-step into the sharded gradients"
            : "no_sync on the first micro-steps: unsharded gradients held until the last");
    if (c->ckpt.save_path)
        row(tb, "state dict", "%s%s", sim_fsdp_state_dict_name(f->state_dict),
            f->state_dict_rank0_call ? " (called on rank 0 only: a bug on purpose)" : "");
    loss_row(tb, o, c);
}

// --strategy dp: what DataParallel does each step.
static void dp_rows(Table *tb, const RunOptions *o, const SimTrainConfig *c) {
    int sizes[64], D = o->nranks < 64 ? o->nranks : 64;
    int nch = sim_dp_chunks(c->data.batch, D, sizes);
    row(tb, "dp", "torch.nn.DataParallel: device 0 alone holds the model and optimizer");
    row(tb, "each forward", "replicate parameters and buffers to %d devices; scatter the "
        "batch of %d on dim 0 in chunks of %d (torch.chunk: %d device%s used%s)", o->nranks,
        c->data.batch, sizes[0], nch, nch == 1 ? "" : "s", nch < o->nranks ? ", others idle" : "");
    row(tb, "loss", "outputs gathered to device 0, loss there (mean over the whole batch)");
    row(tb, "each backward", "output gradients scattered; gradients reduced onto device 0, "
        "which alone steps");
    row(tb, "controller", "device 0's host issues every replica's kernels in turn (%.0f us "
        "per launch)", o->dp.launch_s * 1e6);
    row(tb, "batchnorm", "each replica normalises with its chunk's statistics; device 0's "
        "running stats are kept");
    if (c->loop.accum > 1)
        row(tb, "accumulation", "DataParallel has no no_sync: every backward reduces onto "
            "device 0");
}

// --strategy layer-owner: the wrong picture of FSDP, and who owns what.
static void layer_owner_rows(Table *tb, const RunOptions *o, const SimTrainConfig *c,
                             const SimModel *m) {
    row(tb, "layer-owner", "the WRONG picture of FSDP, run to compare: real FSDP shards every "
        "layer over all ranks; here each layer lives whole on one rank");
    char buf[200];
    size_t len = 0;
    for (int r = 0; r < o->nranks && len + 1 < sizeof buf; r++) {
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%srank %d:", r ? "; " : "", r);
        int any = 0;
        for (int k = 1; k < m->nmodules && len + 1 < sizeof buf; k++)
            if (sim_layer_owner_of(m, k, o->nranks) == r)
                len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s", any++ ? "," : " ",
                                        m->modules[k].name);
        if (!any && len + 1 < sizeof buf)
            len += (size_t)snprintf(buf + len, sizeof buf - len, " nothing");
    }
    row(tb, "owners", "%s", buf);
    row(tb, "each layer", "broadcast by its owner before its forward and again before its "
        "backward, dropped by the others after use; gradient reduced (SUM, then / R) into the "
        "owner, which alone steps it");
    loss_row(tb, o, c); // rank 0's: the loop logs no mean here
}

static void start_rows(Table *tb, const RunReport *rep, const SimTrainer *t) {
    const RunOptions *o = rep->o;
    const SimTrainConfig *c = rep->cfg;
    if (t->resumed)
        row(tb, "weights", "resumed from %s at step %lld (epoch %lld)", o->resume,
            (long long)t->step, (long long)t->epoch);
    else if (o->init)
        row(tb, "weights", "from %s (weights only)", o->init);
    else if (c->rng == SIM_RNG_TORCH)
        row(tb, "weights", "PyTorch's default initialisation and generator: "
            "torch.manual_seed(%llu); shuffles by torch.randperm",
            (unsigned long long)c->seed);
    else
        row(tb, "weights", "PyTorch's default initialisation, seed %llu",
            (unsigned long long)c->seed);
    if (o->save && o->save_every > 0)
        row(tb, "checkpoint", "%s every %lld steps and at the end", o->save,
            (long long)o->save_every);
    else if (o->save)
        row(tb, "checkpoint", "%s at the end", o->save);
    if (o->metrics)
        row(tb, "metrics", "%s (one JSON line per step)", o->metrics);
    if (o->trace)
        row(tb, "trace", "%s", o->trace);
}

// --stream: the seeds, and how much of each step's global batch is new data
// (the ranks' draws recomputed here from the same generators, over the
// run's first STREAM_REPORT_BATCHES micro-batches at most).
#define STREAM_REPORT_BATCHES 4096
static void stream_row(Table *tb, const RunOptions *o, const SimTrainConfig *c) {
    int R = run_sampler_replicas(o);
    int64_t k = c->loop.accum > 0 ? c->loop.accum : 1;
    int64_t nb = c->loop.steps * k;
    nb = nb < STREAM_REPORT_BATCHES ? nb : STREAM_REPORT_BATCHES;
    int64_t d = sim_data_stream_distinct(c->data.stream, c->seed, R, c->data.set->n, c->data.batch, nb);
    double draws = (double)nb * R * c->data.batch;
    char share[96] = "";
    if (d >= 0 && nb > 0)
        snprintf(share, sizeof share, "; %.1f%% of the %d x %d draws per micro-batch distinct",
                 100.0 * (double)d / draws, R, c->data.batch);
    if (c->data.stream == SIM_STREAM_RANK_SEEDS)
        row(tb, "loader", "stream: random batches, rank r seeded with %llu + r%s",
            (unsigned long long)c->seed, share);
    else
        row(tb, "loader", "stream: random batches, every rank seeded with %llu (the same "
            "batches on every rank)%s", (unsigned long long)c->seed, share);
}

// The collectives' algorithm (--algo), in words.
static void algo_row(Table *tb, const RunOptions *o) {
    SimAlgo a = o->algo;
    int cuda = strcmp(o->backend, "cuda") == 0;
    const char *nccl = cuda ? sim_algo_nccl_name(a) : NULL;
    static const char *const what[SIM_ALGO_COUNT] = {
        [SIM_ALGO_AUTO] = "direct on simulated ranks (one shot: each rank reduces its slice "
                          "reading every peer); NCCL's own choice on GPUs",
        [SIM_ALGO_RING] = "reduce-scatter then all-gather round a ring, 2(R-1) steps",
        [SIM_ALGO_TREE] = "binomial tree: whole buffers to the root and back, no pipelining",
        [SIM_ALGO_NAIVE] = "a star through one root",
        [SIM_ALGO_DIRECT] = "one shot: each rank reduces its slice reading every peer",
        [SIM_ALGO_DBTREE] = "NCCL's Tree: two binary trees, each half of the buffer pipelined "
                            "up and down in chunks (all_reduce; the rest on the ring)",
        [SIM_ALGO_NCCL] = "per call, as NCCL's tuner: the ring, or for an all_reduce the "
                          "double binary tree where the cost model prices it lower"};
    row(tb, "collectives", "%s: %s%s%s%s", sim_algo_name(a), (unsigned)a < SIM_ALGO_COUNT ?
        what[a] : "?", nccl ? " (NCCL_ALGO=" : "", nccl ? nccl : "", nccl ? ")" : "");
}

// Epochs that c->loop.steps optimizer steps span: with --accum-tail step or drop
// each epoch restarts its blocks (ceil or floor of its batches / accum
// steps per epoch), with span the blocks run on across epochs.
static double planned_epochs(const SimTrainConfig *c, int64_t per_epoch) {
    int64_t k = c->loop.accum > 0 ? c->loop.accum : 1;
    if (per_epoch <= 0)
        return 0;
    int64_t steps_per_epoch = c->loop.accum_tail == SIM_ACCUM_TAIL_STEP   ? (per_epoch + k - 1) / k
                              : c->loop.accum_tail == SIM_ACCUM_TAIL_DROP ? per_epoch / k
                                                                     : 0;
    if (c->loop.accum_tail != SIM_ACCUM_TAIL_SPAN)
        return steps_per_epoch > 0 ? (double)c->loop.steps / (double)steps_per_epoch : 0;
    return (double)c->loop.steps * (double)k / (double)per_epoch;
}

// Epochs the run went through: where rank 0's sampler stands.
static double epochs_done(const SimTrainer *t, int64_t per_epoch) {
    return (double)t->epoch + (per_epoch > 0 ? (double)t->batch / (double)per_epoch : 0);
}


void run_report_config(RunReport *rep, const SimTrainer *t) {
    const RunOptions *o = rep->o;
    const SimTrainConfig *c = rep->cfg;
    Table tb; // about 7 KiB
    char buf[256], n1[32];
    tb.n = 0;
    row(&tb, "strategy", "%s (%d rank%s, backend %s)", o->strategy, o->nranks,
        o->nranks == 1 ? "" : "s", o->backend);
    const SimWorld *w = rep->world;
    const char *how = w && w->ops->describe ? w->ops->describe(w->ctx) : NULL;
    if (how && how[0])
        row(&tb, "hardware", "%s", how);
    if (o->phantom)
        row(&tb, "phantom", "shapes only: no storage, no math (losses not computed); the "
            "collectives, memory ledger, simulated clock and trace are the numeric run's");
    row(&tb, "model", "%s", sim_model_spec_str(&c->model, buf, sizeof buf));
    row(&tb, "module", "%s", sim_model_describe(&c->model, buf, sizeof buf));
    row(&tb, "parameters", "%s in %d tensors", grouped(t->model->param_count, n1, sizeof n1),
        t->model->nparams);
    row(&tb, "data", "%s", sim_dataset_describe(rep->ds, buf, sizeof buf));
    int R = run_sampler_replicas(o); // dp: one loader, its batch split over the devices
    if (R != o->nranks)
        row(&tb, "batch", "%d per step (split over %d devices) x %d accumulation step%s",
            c->data.batch, o->nranks, c->loop.accum, c->loop.accum == 1 ? "" : "s");
    else
        row(&tb, "batch", "%d per rank x %d accumulation step%s x %d rank%s", c->data.batch,
            c->loop.accum, c->loop.accum == 1 ? "" : "s", o->nranks, o->nranks == 1 ? "" : "s");
    long long eff = (long long)c->data.batch * c->loop.accum * R;
    char toks[64] = ""; // a gpt's sample is a window of ctx tokens
    if (c->model.kind == SIM_MODEL_GPT)
        snprintf(toks, sizeof toks, " (%s tokens)",
                 grouped((size_t)(eff * c->model.ctx), n1, sizeof n1));
    row(&tb, "effective batch", "%lld samples%s per optimizer step; the linear scaling rule "
        "(--lr-scale linear) makes lr %g x %d = %g", eff, toks,
        c->opt.optim.lr, c->loop.accum * R, c->opt.optim.lr * c->loop.accum * R);
    if (c->loop.accum > 1 || c->loop.zero_grad_after_step || c->loop.set_to_none)
        row(&tb, "zero_grad", "%s%s; %s", c->loop.zero_grad_after_step ? "after each step"
            : "at the start of each block", c->loop.set_to_none ? ", set_to_none=True"
            : " (zeros kept)", c->loop.accum_tail == SIM_ACCUM_TAIL_SPAN
            ? "blocks span epochs" : c->loop.accum_tail == SIM_ACCUM_TAIL_STEP
            ? "blocks restart each epoch, its short last block steps"
            : "blocks restart each epoch, its short last block is dropped (no step)");
    if (c->strategy == &sim_dp_strategy)
        dp_rows(&tb, o, c);
    else if (c->strategy == &sim_layer_owner_strategy)
        layer_owner_rows(&tb, o, c, t->model);
    else if (c->strategy == &sim_fsdp_strategy)
        fsdp_rows(&tb, o, c, t);
    else if (c->strategy)
        ddp_rows(&tb, o, c);
    if (c->strategy && o->nranks > 1)
        algo_row(&tb, o);
    int64_t per_epoch = sim_train_batches_per_epoch(c, run_sampler_replicas(o));
    row(&tb, "steps", "%lld (%lld batches per epoch; %.2f epochs)", (long long)c->loop.steps,
        (long long)per_epoch, planned_epochs(c, per_epoch));
    if (c->data.stream != SIM_STREAM_OFF)
        stream_row(&tb, o, c);
    else
        row(&tb, "sampler", "shuffle %s (seed %llu + epoch), drop_last %s%s",
            c->data.shuffle ? "on" : "off", (unsigned long long)c->seed,
            c->data.drop_last ? "on" : "off",
            c->data.sampler_drop_last ? ", the sampler's drop_last on" : "");
    optimizer_rows(&tb, c, R);
    start_rows(&tb, rep, t);
    row(&tb, "simulated hardware", "%s links, %s compute", o->sys.name,
        sim_device_effective(&o->device, &o->sys)->name);
    print_table(&tb);
    fflush(stdout);
}

// ----------------------------------------------------------------------------
// every step

// mem_peak: rank 0's device peak so far in its memory ledger (the most a
// run allocates, as torch.cuda.max_memory_allocated() reports it).
static void metrics_line(FILE *f, const SimStepStats *s, int64_t mem_peak) {
    SimJsonOut j;
    sim_json_begin(&j, f);
    sim_json_raw(&j, "{\"step\":");
    sim_json_i64(&j, s->step);
    sim_json_raw(&j, ",\"epoch\":");
    sim_json_i64(&j, s->epoch);
    sim_json_raw(&j, ",\"loss\":");
    sim_json_num(&j, s->loss);
    if (s->loss_local != s->loss) { // reduced across ranks: this rank's own too
        sim_json_raw(&j, ",\"loss_rank0\":");
        sim_json_num(&j, s->loss_local);
    }
    sim_json_raw(&j, ",\"lr\":");
    sim_json_num(&j, s->lr);
    sim_json_raw(&j, ",\"loss_scale\":");
    sim_json_num(&j, s->loss_scale);
    sim_json_raw(&j, ",\"grad_norm\":");
    sim_json_num(&j, s->grad_norm);
    sim_json_raw(&j, ",\"samples_per_s\":");
    sim_json_num(&j, s->wall_s > 0 ? s->samples / s->wall_s : 0);
    sim_json_raw(&j, ",\"skipped\":");
    sim_json_i64(&j, s->skipped);
    sim_json_raw(&j, ",\"wall_s\":");
    sim_json_num(&j, s->wall_s);
    sim_json_raw(&j, ",\"sim_s\":");
    sim_json_num(&j, s->sim_s);
    sim_json_raw(&j, ",\"mem_peak_bytes\":");
    sim_json_i64(&j, mem_peak);
    sim_json_raw(&j, "}\n");
    sim_json_flush(&j);
}

static double rate(const RunReport *rep) {
    double wall = sim_wall_now() - rep->wall_start;
    return wall > 0 && rep->nsteps > 0 ? rep->samples / wall : 0;
}

static void draw_bar(RunReport *rep, const SimStepStats *s, int last) {
    double now = sim_wall_now();
    if (!last && now - rep->last_draw < 0.1)
        return;
    rep->last_draw = now;
    int width = 30, filled = (int)(width * s->step / rep->cfg->loop.steps);
    char bar[64];
    for (int i = 0; i < width; i++)
        bar[i] = i < filled ? '=' : (i == filled ? '>' : ' ');
    bar[width] = '\0';
    char loss[32] = "-"; // --phantom: not computed
    if (!rep->o->phantom)
        snprintf(loss, sizeof loss, "%.4f", s->loss);
    fprintf(stderr, "\r[%s] %lld/%lld loss %s lr %.3g %.0f samples/s%s", bar,
            (long long)s->step, (long long)rep->cfg->loop.steps, loss, s->lr, rate(rep),
            last ? "\n" : "  ");
    fflush(stderr);
}

void run_report_step(RunReport *rep, const SimStepStats *s) {
    rep->last = *s;
    rep->nsteps++;
    rep->samples += s->samples;
    if (!rep->o->phantom && !isfinite(s->loss) && rep->first_nonfinite == 0)
        rep->first_nonfinite = s->step;
    SimStepStats shown = *s;
    if (rep->o->phantom) // not computed: null in the metrics file
        shown.loss = shown.loss_local = shown.grad_norm = NAN;
    FILE *mf = run_metrics_file(rep->metrics, s->step);
    if (mf) { // on the file as the step ends: a crash later keeps it
        metrics_line(mf, &shown, rep->world ? rep->world->ranks[0].mem.peak[SIM_MEM_DEVICE] : 0);
        run_metrics_flush(rep->metrics, s->step);
    }
    int last = s->step == rep->end;
    if (rep->bar) {
        draw_bar(rep, s, last);
    } else if (last || s->step % rep->log_every == 0 || rep->nsteps == 1) {
        char loss[32] = "-"; // --phantom: not computed
        if (!rep->o->phantom)
            snprintf(loss, sizeof loss, "%.6f", s->loss);
        fprintf(stderr, "step %lld/%lld | epoch %lld | loss %s | lr %.4g | %.0f samples/s%s\n",
                (long long)s->step, (long long)rep->cfg->loop.steps, (long long)s->epoch, loss,
                s->lr, rate(rep), s->skipped ? " | skipped (inf/NaN gradients)" : "");
    }
}

void run_report_eval(RunReport *rep, const SimEvalStats *s) {
    static const char *const variants[] = {"right", "mean-of-means", "rank0-only"};
    const char *variant = variants[rep->cfg->eval.variant % 3];
    fprintf(stderr, "eval after step %lld | loss %.6f | accuracy %.4f (%lld/%lld%s) | %s\n",
            (long long)s->step, s->loss, s->accuracy, (long long)s->correct,
            (long long)s->total, rep->cfg->eval.variant == SIM_EVAL_MEAN_OF_MEANS ?
            " on rank 0" : "", variant);
    FILE *mf = run_metrics_file(rep->metrics, s->step + 1); // after its step's line
    if (mf == NULL)
        return;
    SimJsonOut j;
    sim_json_begin(&j, mf);
    sim_json_raw(&j, "{\"eval_step\":");
    sim_json_i64(&j, s->step);
    sim_json_raw(&j, ",\"eval_loss\":");
    sim_json_num(&j, s->loss);
    sim_json_raw(&j, ",\"eval_accuracy\":");
    sim_json_num(&j, s->accuracy);
    sim_json_raw(&j, ",\"eval_correct\":");
    sim_json_i64(&j, s->correct);
    sim_json_raw(&j, ",\"eval_total\":");
    sim_json_i64(&j, s->total);
    sim_json_raw(&j, ",\"eval_variant\":\"");
    sim_json_raw(&j, variant);
    sim_json_raw(&j, "\"}\n");
    sim_json_flush(&j);
    run_metrics_flush(rep->metrics, 0);
}

#define PROBE_ROWS 16 // ranks listed one by one; more are summarised

void run_report_probe(RunReport *rep, const SimProbeStats *s) {
    (void)rep;
    printf("probe batch after step %lld: rank 0's first batch of the epoch (%d samples),\n"
           "  broadcast from rank 0, forward on every rank in eval mode under no_grad\n",
           (long long)s->step, s->samples);
    printf("  %-6s %16s %16s\n", "rank", "own train loss", "probe loss");
    int differ = 0;
    for (int k = 0; k < s->nranks; k++) {
        differ += s->probe_loss[k] != s->probe_loss[0];
        if (k < PROBE_ROWS)
            printf("  %-6d %16.6f %16.6f\n", k, (double)s->train_loss[k],
                   (double)s->probe_loss[k]);
    }
    if (s->nranks > PROBE_ROWS)
        printf("  (%d more ranks)\n", s->nranks - PROBE_ROWS);
    if (differ == 0)
        printf("  the probe losses are equal on all %d ranks: the replicas hold the same "
               "weights\n", s->nranks);
    else
        printf("  the probe losses differ on %d of %d ranks: their weights are not rank "
               "0's\n", differ, s->nranks);
}

// ----------------------------------------------------------------------------
// the end

// The driver's view of the GPU of rank 0 beside ddplab's own: the tensors
// ddplab holds there (mem_bytes of the ranks on it; the ledger's modelled
// peak is in the memory table) and the rest, which is the CUDA context,
// cuBLAS's workspace, NCCL's buffers and the backend's scratch.
static void report_device_memory(const SimWorld *w) {
    uint64_t used = 0, total = 0, u, tt;
    int dev0 = -1, dev;
    if (w == NULL || w->ops->mem_info == NULL ||
        w->ops->mem_info(w->ctx, 0, &dev0, &used, &total) != SIM_OK)
        return;
    uint64_t own = 0, own_peak = 0;
    for (int r = 0; r < w->cfg.nranks; r++) { // the ranks on rank 0's GPU
        if (w->ops->mem_info(w->ctx, r, &dev, &u, &tt) == SIM_OK && dev == dev0) {
            own += w->ranks[r].mem_bytes;
            own_peak += w->ranks[r].mem_peak;
        }
    }
    printf("  GPU memory (cudaMemGetInfo, rank 0's device): %.1f MiB in use of %.1f MiB, of "
           "which ddplab's tensors %.1f MiB (the ranks' peaks add up to %.1f MiB); the rest "
           "is the CUDA context, cuBLAS, NCCL and scratch\n", used / 1048576.0,
           total / 1048576.0, own / 1048576.0, own_peak / 1048576.0);
}

void run_report_overlap(const SimWorld *w, const char *trace_path) {
    if (w == NULL || w->trace == NULL)
        return;
    SimTraceReport r[2];
    if (sim_trace_report_of(w->trace, SIM_REPORT_CLOCK_SIM, &r[0], NULL, 0) != SIM_OK)
        return;
    if (sim_trace_report_of(w->trace, SIM_REPORT_CLOCK_WALL, &r[1], NULL, 0) != SIM_OK) {
        sim_trace_report_free(&r[0]);
        return;
    }
    double comm[2] = {0}, over[2] = {0};
    for (int c = 0; c < 2; c++)
        for (int i = 0; i < r[c].nranks; i++) {
            comm[c] += r[c].rank[i].comm;
            over[c] += r[c].rank[i].overlap;
        }
    if (comm[0] > 0 && comm[1] > 0)
        printf("  communication under compute: %.1f%% simulated, %.1f%% measured (all ranks' "
               "steps; per rank: ddplab report %s --clock both)\n", 100 * over[0] / comm[0],
               100 * over[1] / comm[1], trace_path ? trace_path : "TRACE");
    sim_trace_report_free(&r[0]);
    sim_trace_report_free(&r[1]);
}

// --comm-hook powersgd: the bytes rank 0 all-reduced for the gradients,
// against what plain all_reduces would have moved.
static void report_powersgd(const SimTrainer *t) {
    SimDdpPowersgdTraffic tr;
    if (!sim_ddp_powersgd_traffic_of(t, &tr) || tr.plain == 0)
        return;
    printf("  powersgd: rank 0 all-reduced %llu gradient bytes, %llu without compression "
           "(%.2fx less; compressed from iteration %d of %lld)\n",
           (unsigned long long)tr.sent * 4, (unsigned long long)tr.plain * 4,
           tr.sent > 0 ? (double)tr.plain / (double)tr.sent : 0.0, tr.start_iter,
           (long long)tr.iter);
}

void run_report_summary(RunReport *rep, const SimTrainer *t) {
    const SimTrainConfig *c = rep->cfg;
    double wall = sim_wall_now() - rep->wall_start;
    double train_wall = t->wall_s > 0 ? t->wall_s : wall;
    int64_t per_epoch = sim_train_batches_per_epoch(c, run_sampler_replicas(rep->o));
    printf("done: %lld steps", (long long)rep->nsteps);
    if (t->start_step > 0)
        printf(" (%lld..%lld, resumed)", (long long)t->start_step + 1, (long long)t->step);
    if (t->step < c->loop.steps)
        printf(", stopped after step %lld of %lld (--stop-after)", (long long)t->step,
               (long long)c->loop.steps);
    if (rep->o->phantom)
        printf(", %.2f epochs in all; losses not computed (--phantom: shapes only)\n",
               epochs_done(t, per_epoch));
    else
        printf(", %.2f epochs in all; final loss %.6f%s\n", epochs_done(t, per_epoch),
               rep->last.loss,
               loss_is_rank0(rep->o, c) ? " (rank 0's, not the mean)" : "");
    printf("  wall time %.3f s (%.3f s in steps), %.1f samples/s, %.1f steps/s\n", wall,
           train_wall, train_wall > 0 ? t->samples / train_wall : 0,
           train_wall > 0 ? rep->nsteps / train_wall : 0);
    printf("  simulated time %.6f s on %s in %s (the whole run)\n",
           rep->last.sim_s, sim_device_effective(&rep->o->device, &rep->o->sys)->name,
           rep->o->sys.name);
    if ((c->want_grad_norm || c->opt.clip_grad_norm > 0) && !rep->o->phantom)
        printf("  gradient norm %.6g at the last step (total 2-norm, before clipping)\n",
               (double)rep->last.grad_norm);
    if (t->scaler.enabled)
        printf("  loss scale %g at the end; %lld step%s skipped for inf/NaN gradients\n",
               (double)t->scaler.scale, (long long)t->scaler.skipped,
               t->scaler.skipped == 1 ? "" : "s");
    report_powersgd(t);
    if (!rep->o->phantom && !isfinite(rep->last.loss))
        printf("  the loss diverged: not finite from step %lld on (inf or NaN); lower --lr,"
               " add --warmup, or add --clip-grad-norm\n",
               (long long)(rep->first_nonfinite > 0 ? rep->first_nonfinite : rep->last.step));
    report_device_memory(rep->world);
    fflush(stdout);
}
