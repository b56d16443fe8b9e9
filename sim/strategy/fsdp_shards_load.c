// sim/strategy/fsdp_shards_load.c: restoring a SHARDED or LOCAL state dict (the
// format: sim/strategy/fsdp_shards.c). Every rank reads the index and the files it
// needs into host memory and checks everything (checksums, formats, that
// the files belong to the index, names, shapes, ranges); the ranks then
// agree that every one of them succeeded, and only then is anything copied
// into the run, so a failed restore changes nothing and fails on every rank
// with the failing rank's reason.
//
// SHARDED: rank r needs, of each parameter i, the elements its own shard
// holds in this run's plan ([lo, hi) from fsdp_shard_range, whatever the
// world size, --sharding or wrap policy); the index's "fsdp/ranges" says
// which files hold which elements, and the rank reads just those files.
// LOCAL: rank r reads file r, after checking that the world size and the
// plan are the saved ones.
#include "strategy/fsdp_shards.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/ops.h" // defines: sim_tensor_upload
#include "train/trainer.h"

typedef struct {
    SimCkpt index;                     // open until the buffers are applied
    SimTrainScalars sc;
    int local;
    int64_t nfiles;
    const char *step;                  // the index's "step", which its files repeat
    char dir[1024];                    // the index's directory ("" or ending in '/')
    float *master;                     // [shard_total]
    float *state[SIM_OPTIM_MAX_STATE]; // [shard_total] each
    int64_t *local_steps;              // LOCAL: [nparams]
} Loaded;

static void loaded_free(Loaded *L) {
    sim_ckpt_close(&L->index);
    sim_train_scalars_free(&L->sc);
    free(L->master);
    for (int k = 0; k < SIM_OPTIM_MAX_STATE; k++)
        free(L->state[k]);
    free(L->local_steps);
}

// A restore failure caused by the files (bad input): "--resume: ...".
static SimStatus bad(SimTrainer *t, SimStatus st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static SimStatus bad(SimTrainer *t, SimStatus st, const char *fmt, ...) {
    char msg[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return sim_train_fail(t, st != SIM_ENOMEM, st, "--resume: %s", msg);
}

// Metadata key as a whole number in [lo, hi].
static int meta_int(const SimCkpt *c, const char *key, int64_t lo, int64_t hi, int64_t *out) {
    return sim_ckpt_meta_i64(c, key, out) == 0 && *out >= lo && *out <= hi ? 0 : -1;
}

// Opens one of ddplab's files (index, shard or local file) and checks its
// format, version, checksum and model.
static SimStatus open_file(FsdpState *s, SimTrainer *t, SimCkpt *c, const char *path,
                           const char *format) {
    char err[900];
    memset(c, 0, sizeof *c);
    snprintf(c->path, sizeof c->path, "%s", path);
    SimStatus st = sim_stfile_load(&c->file, path, err, sizeof err);
    if (st != SIM_OK)
        return bad(t, st, "%s", err);
    const char *f = sim_ckpt_meta(c, "format"), *v = sim_ckpt_meta(c, "version");
    const char *model = sim_ckpt_meta(c, "model");
    char spec[256];
    sim_model_spec_str(&s->m->spec, spec, sizeof spec);
    if (f == NULL || strcmp(f, format) != 0)
        return bad(t, SIM_EFORMAT, "%s: format '%.40s'; expected '%s' here", path,
                   f ? f : "(none)", format);
    if (v == NULL || strcmp(v, FSDP_SHARDS_VERSION) != 0)
        return bad(t, SIM_EFORMAT, "%s: version '%.20s'; this ddplab reads version "
                   FSDP_SHARDS_VERSION, path, v ? v : "(none)");
    if (!c->file.checked)
        return bad(t, SIM_EFORMAT, "%s: corrupt header: the file has no checksum", path);
    if (model == NULL || strcmp(model, spec) != 0)
        return bad(t, SIM_EINVAL, "%s: saved for model %.150s; this run's model is %.150s", path,
                   model ? model : "(none)", spec);
    return SIM_OK;
}

// A file of the index's save: its step must be the index's.
static SimStatus open_part(FsdpState *s, SimTrainer *t, const Loaded *L, int k, SimCkpt *c,
                           const char *format) {
    char key[32], path[1200];
    memset(c, 0, sizeof *c);
    snprintf(key, sizeof key, "file.%d", k);
    const char *name = sim_ckpt_meta(&L->index, key);
    if (name == NULL || name[0] == '\0' || name[0] == '.' || strchr(name, '/'))
        return bad(t, SIM_EFORMAT, "%s: corrupt index: file %d has no usable name",
                   L->index.path, k);
    if (snprintf(path, sizeof path, "%s%s", L->dir, name) >= (int)sizeof path)
        return bad(t, SIM_EINVAL, "%s: the path of file %d is too long", L->index.path, k);
    SIM_CHECK(open_file(s, t, c, path, format));
    const char *step = sim_ckpt_meta(c, "step");
    if (step == NULL || strcmp(step, L->step) != 0)
        return bad(t, SIM_EFORMAT, "%s: written by the save at step %.20s, but its index %s is "
                   "from step %.20s: the files do not belong together", path,
                   step ? step : "(none)", L->index.path, L->step);
    return SIM_OK;
}

static SimStatus read_index(FsdpState *s, SimTrainer *t, const char *path, Loaded *L) {
    SIM_CHECK(open_file(s, t, &L->index, path, FSDP_INDEX_FORMAT));
    const SimCkpt *c = &L->index;
    const char *sd = sim_ckpt_meta(c, "state_dict");
    if (sd == NULL || (strcmp(sd, "sharded") != 0 && strcmp(sd, "local") != 0))
        return bad(t, SIM_EFORMAT, "%s: corrupt index: state_dict is '%.20s'", path,
                   sd ? sd : "(none)");
    L->local = strcmp(sd, "local") == 0;
    L->step = sim_ckpt_meta(c, "step");
    if (meta_int(c, "files", 1, 1 << 20, &L->nfiles) != 0 || L->step == NULL)
        return bad(t, SIM_EFORMAT, "%s: corrupt index: the number of files is missing or "
                   "malformed", path);
    SIM_CHECK(sim_train_part_read(t, c, &L->sc));
    for (int b = 0; b < s->m->nbuffers; b++) {
        const SimBufferInfo *bi = &s->m->buffers[b];
        char err[700];
        SimDtype dt = bi->torch_dtype == SIM_INT64 ? SIM_INT64 : SIM_FP32;
        if (sim_ckpt_expect(c, bi->name, dt, bi->ndim, bi->shape, err, sizeof err) != SIM_OK)
            return bad(t, SIM_EINVAL, "%s", err);
    }
    const char *base = fsdp_base_name(path);
    snprintf(L->dir, sizeof L->dir, "%.*s", (int)(base - path), path);
    size_t n = s->plan.shard_total ? s->plan.shard_total : 1;
    L->master = calloc(n, sizeof *L->master);
    for (int k = 0; k < s->optim.nstate; k++)
        L->state[k] = calloc(n, sizeof *L->state[k]);
    L->local_steps = calloc((size_t)s->m->nparams + 1, sizeof *L->local_steps);
    for (int k = 0; k < s->optim.nstate; k++)
        if (L->state[k] == NULL)
            return sim_train_fail(t, 0, SIM_ENOMEM, "--resume: out of memory");
    if (!L->master || !L->local_steps)
        return sim_train_fail(t, 0, SIM_ENOMEM, "--resume: out of memory");
    return SIM_OK;
}

// A 1-D tensor of n elements of type dt in c; its data (maybe unaligned:
// copy it out).
static SimStatus expect_vec(SimTrainer *t, const SimCkpt *c, const char *name, SimDtype dt,
                            size_t n, const void **data) {
    int64_t shape[1] = {(int64_t)n};
    char err[700];
    if (sim_ckpt_expect(c, name, dt, 1, shape, err, sizeof err) != SIM_OK)
        return bad(t, SIM_EINVAL, "%s", err);
    // weights and optimizer state: a NaN here would make every loss NaN
    if (sim_ckpt_check_finite(c->path, sim_ckpt_tensor(c, name), err, sizeof err) != SIM_OK)
        return bad(t, SIM_EINVAL, "%s", err);
    *data = sim_ckpt_tensor(c, name)->data;
    return SIM_OK;
}

// ----------------------------------------------------------------------------
// SHARDED

// The index's ranges (its tensor checked for shape by the caller), checked:
// for each parameter the files' ranges lie in it, do not overlap and cover it.
static SimStatus read_ranges(FsdpState *s, SimTrainer *t, Loaded *L, int64_t *rg) {
    int np = s->m->nparams;
    memcpy(rg, sim_ckpt_tensor(&L->index, "fsdp/ranges")->data,
           (size_t)L->nfiles * (size_t)np * 2 * sizeof *rg);
    for (int i = 0; i < np; i++) {
        int64_t numel = (int64_t)s->m->params[i].numel, total = 0;
        for (int64_t f = 0; f < L->nfiles; f++) {
            const int64_t *a = rg + (f * np + i) * 2;
            int ok = a[0] >= 0 && a[0] <= a[1] && a[1] <= numel;
            for (int64_t g = 0; ok && g < f; g++) {
                const int64_t *b = rg + (g * np + i) * 2;
                ok = a[0] == a[1] || b[0] == b[1] || a[1] <= b[0] || b[1] <= a[0];
            }
            if (!ok)
                return bad(t, SIM_EFORMAT, "%s: corrupt index: the files' ranges of '%s' "
                           "overlap or leave it", L->index.path, s->m->params[i].name);
            total += a[1] - a[0];
        }
        if (total != numel)
            return bad(t, SIM_EFORMAT, "%s: corrupt index: the files hold %" PRId64 " of the %"
                       PRId64 " elements of '%s'", L->index.path, total, numel,
                       s->m->params[i].name);
    }
    return SIM_OK;
}

// Copies [from, to) of parameter i (elements of the parameter) from a file
// slice that starts at element lo into this rank's shard, which starts at
// element need_lo of the parameter at host offset off.
static void copy_part(float *dst, size_t off, size_t need_lo, const void *src, size_t lo,
                      size_t from, size_t to) {
    memcpy(dst + off + (from - need_lo), (const char *)src + (from - lo) * sizeof(float),
           (to - from) * sizeof(float));
}

// File k: checks it against the index and copies what this rank needs.
static SimStatus read_shard_file(FsdpState *s, SimTrainer *t, Loaded *L, const int64_t *rg,
                                 int k) {
    const SimModel *m = s->m;
    int np = m->nparams;
    SimCkpt c;
    SimStatus st = open_part(s, t, L, k, &c, FSDP_SHARD_FORMAT);
    int64_t shard, shards;
    if (st == SIM_OK && (meta_int(&c, "shard", 0, INT32_MAX, &shard) != 0 ||
                         meta_int(&c, "shards", 1, INT32_MAX, &shards) != 0 || shard != k ||
                         shards != L->nfiles))
        st = bad(t, SIM_EFORMAT, "%s: not shard %d of %" PRId64 " as its index %s says",
                 c.path, k, L->nfiles, L->index.path);
    for (int i = 0; st == SIM_OK && i < np; i++) {
        const SimParamInfo *p = &m->params[i];
        const int64_t *a = rg + ((size_t)k * np + i) * 2;
        size_t lo = (size_t)a[0], hi = (size_t)a[1];
        size_t nlo, nhi;
        fsdp_shard_range(s, i, s->gidx, &nlo, &nhi);
        size_t from = lo > nlo ? lo : nlo, to = hi < nhi ? hi : nhi;
        if (from >= to)
            continue;
        char key[SIM_NAME_MAX + 16], want[64], shape[96];
        const char *got;
        snprintf(key, sizeof key, "range:%s", p->name);
        snprintf(want, sizeof want, "%zu,%zu", lo, hi);
        if ((got = sim_ckpt_meta(&c, key)) == NULL || strcmp(got, want) != 0) {
            st = bad(t, SIM_EFORMAT, "%s: '%s' holds elements %.40s; its index %s says %s",
                     c.path, p->name, got ? got : "(none)", L->index.path, want);
            break;
        }
        snprintf(key, sizeof key, "shape:%s", p->name);
        fsdp_shape_str(p->ndim, p->shape, shape, sizeof shape);
        if ((got = sim_ckpt_meta(&c, key)) == NULL || strcmp(got, shape) != 0) {
            st = bad(t, SIM_EINVAL, "%s: parameter '%s' has shape [%.40s] in the file, the "
                     "model expects [%s]", c.path, p->name, got ? got : "?", shape);
            break;
        }
        const void *data = NULL;
        size_t off = s->shard_params[i].offset;
        st = expect_vec(t, &c, p->name, SIM_FP32, hi - lo, &data);
        if (st == SIM_OK)
            copy_part(L->master, off, nlo, data, lo, from, to);
        for (int j = 0; st == SIM_OK && L->sc.param_steps[i] > 0 && j < s->optim.nstate; j++) {
            char name[SIM_NAME_MAX + 48];
            snprintf(name, sizeof name, "optimizer/state.%d.%s", i, s->optim.state_names[j]);
            st = expect_vec(t, &c, name, SIM_FP32, hi - lo, &data);
            if (st == SIM_OK)
                copy_part(L->state[j], off, nlo, data, lo, from, to);
        }
    }
    sim_ckpt_close(&c);
    return st;
}

static SimStatus read_sharded(FsdpState *s, SimTrainer *t, Loaded *L) {
    int np = s->m->nparams;
    int64_t shape[3] = {L->nfiles, np, 2};
    char err[700];
    if (sim_ckpt_expect(&L->index, "fsdp/ranges", SIM_INT64, 3, shape, err, sizeof err))
        return bad(t, SIM_EFORMAT, "%s", err); // (and the files' count is real)
    int64_t *rg = malloc(((size_t)L->nfiles * (size_t)np * 2 + 1) * sizeof *rg);
    if (rg == NULL)
        return sim_train_fail(t, 0, SIM_ENOMEM, "--resume: out of memory");
    SimStatus st = read_ranges(s, t, L, rg);
    for (int k = 0; st == SIM_OK && k < L->nfiles; k++) {
        int needed = 0; // does file k hold anything of this rank's shard?
        for (int i = 0; i < np && !needed; i++) {
            size_t nlo, nhi;
            fsdp_shard_range(s, i, s->gidx, &nlo, &nhi);
            const int64_t *a = rg + ((size_t)k * np + i) * 2;
            needed = nlo < nhi && (size_t)a[0] < nhi && nlo < (size_t)a[1];
        }
        if (needed)
            st = read_shard_file(s, t, L, rg, k);
    }
    free(rg);
    return st;
}

// ----------------------------------------------------------------------------
// LOCAL

// The saved plan against this run's: world size, sharding, units.
static SimStatus check_local_plan(FsdpState *s, SimTrainer *t, const Loaded *L) {
    const SimCkpt *c = &L->index;
    const SimFsdpPlan *p = &s->plan;
    int64_t world, S, units;
    if (meta_int(c, "world_size", 1, INT32_MAX, &world) != 0 ||
        meta_int(c, "shard_ranks", 1, INT32_MAX, &S) != 0 ||
        meta_int(c, "units", 1, INT32_MAX, &units) != 0)
        return bad(t, SIM_EFORMAT, "%s: corrupt index: world size, shard ranks or units are "
                   "missing or malformed", c->path);
    if (world != s->nranks)
        return bad(t, SIM_EINVAL, "%s is a local state dict saved at %" PRId64 " ranks; this "
                   "run has %d: a local state dict holds each rank's flat shards as they were "
                   "and loads only at the world size it was saved at (save with --state-dict "
                   "sharded to resume at another world size)", c->path, world, s->nranks);
    const char *sharding = sim_ckpt_meta(c, "sharding");
    int same = sharding && strcmp(sharding, sim_fsdp_sharding_name(s->o.sharding)) == 0 &&
               S == s->S && units == p->nunits;
    int64_t shape[1] = {p->nunits};
    char err[700];
    if (same && sim_ckpt_expect(c, "fsdp/unit_numel", SIM_INT64, 1, shape, err, sizeof err))
        return bad(t, SIM_EFORMAT, "%s", err);
    if (same && sim_ckpt_expect(c, "fsdp/unit_module", SIM_INT64, 1, shape, err, sizeof err))
        return bad(t, SIM_EFORMAT, "%s", err);
    for (int u = 0; same && u < p->nunits; u++) {
        int64_t numel, module;
        memcpy(&numel, (const char *)sim_ckpt_tensor(c, "fsdp/unit_numel")->data + 8 * u, 8);
        memcpy(&module, (const char *)sim_ckpt_tensor(c, "fsdp/unit_module")->data + 8 * u, 8);
        same = numel == (int64_t)p->units[u].numel && module == p->units[u].module;
    }
    if (!same)
        return bad(t, SIM_EINVAL, "%s is a local state dict saved with another plan (--sharding "
                   "%.20s, %" PRId64 " units over %" PRId64 " ranks each); this run has "
                   "--sharding %s, %d units over %d: a local state dict loads only into the "
                   "plan it was saved with (save with --state-dict sharded to change it)",
                   c->path, sharding ? sharding : "(none)", units, S,
                   sim_fsdp_sharding_name(s->o.sharding), p->nunits, s->S);
    return SIM_OK;
}

static SimStatus read_local(FsdpState *s, SimRank *r, SimTrainer *t, Loaded *L) {
    SIM_CHECK(check_local_plan(s, t, L));
    SimCkpt c;
    SimStatus st = open_part(s, t, L, r->rank, &c, FSDP_LOCAL_FORMAT);
    int64_t rank, world;
    if (st == SIM_OK && (meta_int(&c, "rank", 0, INT32_MAX, &rank) != 0 ||
                         meta_int(&c, "world_size", 1, INT32_MAX, &world) != 0 ||
                         rank != r->rank || world != s->nranks))
        st = bad(t, SIM_EFORMAT, "%s: not rank %d of %d's file as its index %s says", c.path,
                 r->rank, s->nranks, L->index.path);
    const void *data = NULL;
    for (int u = 0; st == SIM_OK && u < s->plan.nunits; u++) {
        size_t n = s->plan.units[u].shard, off = s->u[u].master_off;
        if (n == 0)
            continue;
        char flat[SIM_NAME_MAX + 16], name[SIM_NAME_MAX + 48];
        fsdp_flat_name(s, u, flat, sizeof flat);
        st = expect_vec(t, &c, flat, SIM_FP32, n, &data);
        if (st == SIM_OK)
            memcpy(L->master + off, data, n * sizeof(float));
        for (int j = 0; st == SIM_OK && j < s->optim.nstate; j++) {
            snprintf(name, sizeof name, "optimizer/%s.%s", flat, s->optim.state_names[j]);
            st = expect_vec(t, &c, name, SIM_FP32, n, &data);
            if (st == SIM_OK)
                memcpy(L->state[j] + off, data, n * sizeof(float));
        }
    }
    if (st == SIM_OK)
        st = expect_vec(t, &c, "optimizer/param_steps", SIM_INT64, (size_t)s->m->nparams, &data);
    if (st == SIM_OK)
        memcpy(L->local_steps, data, (size_t)s->m->nparams * sizeof *L->local_steps);
    for (int i = 0; st == SIM_OK && i < s->m->nparams; i++)
        if (L->local_steps[i] < 0)
            st = bad(t, SIM_EFORMAT, "%s: corrupt optimizer state: a negative step count",
                     c.path);
    sim_ckpt_close(&c);
    return st;
}

// ----------------------------------------------------------------------------
// applying, once every rank has read its part

static SimStatus apply(FsdpState *s, SimRank *r, SimTrainer *t, Loaded *L) {
    SimStatus st = SIM_OK;
    if (s->plan.shard_total > 0) {
        st = sim_tensor_upload(r, &s->master, L->master);
        for (int k = 0; st == SIM_OK && k < s->optim.nstate; k++)
            st = sim_tensor_upload(r, &s->optim.state[k], L->state[k]);
    }
    if (st == SIM_OK && s->m->buffer_count > 0)
        st = sim_ckpt_apply_buffers(r, &L->index, s->m);
    if (st != SIM_OK)
        return sim_train_fail(t, 0, st, "--resume: cannot load the state: %s", r->error);
    for (int i = 0; i < s->m->nparams; i++)
        s->optim.param_steps[i] = L->local ? L->local_steps[i] : L->sc.param_steps[i];
    s->optim.steps = L->sc.opt_steps;
    sim_train_part_apply(t, r, &L->sc);
    SIM_CHECK(fsdp_publish(s, r)); // replicated strategies: into the layers' buffer
    return fsdp_poison_sharded(s, r);
}

SimStatus fsdp_restore_shards(FsdpState *s, SimRank *r, SimTrainer *t, const char *path) {
    Loaded L;
    memset(&L, 0, sizeof L);
    SimStatus st = read_index(s, t, path, &L);
    if (st == SIM_OK)
        st = L.local ? read_local(s, r, t, &L) : read_sharded(s, t, &L);
    st = fsdp_agree(s, r, t, st);
    if (st == SIM_OK)
        st = apply(s, r, t, &L);
    loaded_free(&L);
    return st;
}
