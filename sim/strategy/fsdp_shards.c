// sim/strategy/fsdp_shards.c: SHARDED and LOCAL state dicts (PyTorch's
// StateDictType.SHARDED_STATE_DICT and LOCAL_STATE_DICT), saved by every
// rank: the format, the files' names, the ranks' agreement, and saving.
// Restoring: fsdp_shards_load.c.
//
// Files, for --save PATH at optimizer step K:
//   PATH                                 the index (rank 0 writes it last)
//   PATH.stepK.shardG-of-S.safetensors   SHARDED: shard G of the S shards of
//                                        every flat parameter (S: the
//                                        sharding group's size: the world
//                                        under FULL_SHARD, a node under
//                                        HYBRID_SHARD, 1 under NO_SHARD),
//                                        written by the ranks of the first
//                                        replica (rank G under FULL_SHARD)
//   PATH.stepK.rankR-of-N.safetensors    LOCAL: rank R's own flat shards
// Every file is written atomically (sim/base/outfile.h), and the index only once
// every rank has written its file, so the index at PATH only ever lists
// complete files; the step in the names keeps a new save from overwriting
// the files the current index lists. Once the new index is in place, rank 0
// removes the files of the save it replaced.
//
// A shard file (format "ddplab-fsdp-shard") holds, for each parameter with
// elements in shard G, its slice as a 1-D tensor named as the parameter
// ("0.weight": F32 [hi - lo], elements [lo, hi) of the parameter flattened
// row-major), the same slice of its optimizer state for parameters that
// have taken a step ("optimizer/state.<i>.exp_avg", ...), and metadata
// "range:<name>" = "lo,hi" and "shape:<name>" = "64,16" (the whole
// parameter's shape). Slices are per parameter and carry no unit layout, so
// they load into any plan: another world size, another --sharding or wrap
// policy. Each rank of the new run reads only the files whose ranges meet
// its own (the index lists every file's ranges).
//
// A local file (format "ddplab-fsdp-local") holds a rank's state exactly as
// the rank holds it: "<module>.flat_param" F32 [shard] for each unit with a
// non-empty shard (padding included), "optimizer/<module>.flat_param.<kind>"
// for each optimizer state, and "optimizer/param_steps" I64 [nparams], the
// rank's own step counters. It loads only at the same world size with the
// same plan.
//
// The index (format "ddplab-fsdp-index") holds the rest, the trainer's own
// part exactly as a full checkpoint holds it (sim/train/train_internal.h):
//   "optimizer/state.<i>.step", "train/has_grad"  the trainer's part
//   the model's buffers, under their names        rank 0's, as FULL saves them
//   "fsdp/ranges" I64 [files, nparams, 2]         SHARDED: each file's range
//                                                 of each parameter
//   "fsdp/unit_module", "fsdp/unit_numel",        the plan of the save
//   "fsdp/unit_padded" I64 [units],
//   "fsdp/param_unit", "fsdp/param_offset" I64 [nparams]
//   metadata    the trainer's scalars (step, epoch, sampler position,
//               scaler, optimizer step count, run settings); "state_dict",
//               "world_size", "nodes", "sharding", "wrap", "shard_ranks",
//               "units", "files" and "file.<k>" (names in the index's
//               directory), and a "description" saying how to resume it
// Its format is not "ddplab-checkpoint" and it holds no parameter, so it is
// never taken for a full checkpoint: another strategy's --resume is told
// what it is (sim/formats/checkpoint.c).
#include "strategy/fsdp_shards.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/comm.h"         // defines: sim_all_reduce, sim_broadcast
#include "engine/memory.h"       // defines: SIM_MEM_BACKING
#include "engine/ops.h"          // defines: sim_tensor_download
#include "formats/safetensors.h" // defines: sim_stfile_save
#include "train/trainer.h"

// ----------------------------------------------------------------------------
// layout and names

void fsdp_shard_range(const FsdpState *s, int i, int g, size_t *lo, size_t *hi) {
    int u = s->plan.param_unit[i];
    const SimFsdpUnit *un = &s->plan.units[u];
    *lo = *hi = 0;
    for (int k = 0; k < un->nparams; k++) {
        if (un->params[k] != i)
            continue;
        size_t flat;
        sim_fsdp_piece(&s->plan, u, k, g, &flat, lo, hi);
        return;
    }
}

void fsdp_flat_name(const FsdpState *s, int u, char *out, size_t n) {
    const char *mod = s->m->modules[s->plan.units[u].module].name;
    snprintf(out, n, "%s%sflat_param", mod, mod[0] ? "." : "");
}

void fsdp_shape_str(int ndim, const int64_t *shape, char *out, size_t n) {
    size_t at = 0;
    out[0] = '\0';
    for (int d = 0; d < ndim && at < n; d++)
        at += (size_t)snprintf(out + at, n - at, "%s%" PRId64, d ? "," : "", shape[d]);
}

const char *fsdp_base_name(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

// PATH.stepK.shardG-of-S.safetensors or PATH.stepK.rankR-of-N.safetensors;
// -1 if it does not fit.
static int file_name(char *out, size_t n, const char *path, int local, int64_t step, int k,
                     int of) {
    int w = snprintf(out, n, "%s.step%" PRId64 ".%s%d-of-%d.safetensors", path, step,
                     local ? "rank" : "shard", k, of);
    return w > 0 && (size_t)w < n ? 0 : -1;
}

// ----------------------------------------------------------------------------
// the ranks' agreement

// The reason travels as its first REASON_BYTES - 1 bytes (a checkpoint's
// reasons are short; the size is that of the broadcast the trace shows).
#define REASON_BYTES 1024
#define AGREE_WORDS (2 + REASON_BYTES / 4)
_Static_assert(sizeof(((SimTrainer *)0)->error) >= REASON_BYTES, "the reason is in t->error");

static SimStatus int_tensor(SimRank *r, SimTensor *v, size_t n) {
    int64_t shape[1] = {(int64_t)n};
    sim_tensor_init(v, "fsdp checkpoint agreement", SIM_INT32, 1, shape);
    v->mem_cat = SIM_MEM_BACKING;
    return sim_tensor_alloc(r, v, 0);
}

// The lowest failing rank (an all_reduce MIN), then its status, bad-input
// flag and reason (a broadcast from it): words [status, bad_input, reason].
SimStatus fsdp_agree(FsdpState *s, SimRank *r, SimTrainer *t, SimStatus mine) {
    if (s->nranks < 2)
        return mine;
    if (mine != SIM_OK && t->error[0] == '\0')
        sim_train_fail(t, 0, mine, "%s", r->error[0] ? r->error : sim_strerror(mine));
    int32_t *words = calloc(AGREE_WORDS, sizeof *words);
    SimTensor v = {0};
    SimStatus st = words ? int_tensor(r, &v, AGREE_WORDS) : SIM_ENOMEM;
    if (st == SIM_OK) {
        words[0] = mine == SIM_OK ? s->nranks : r->rank;
        st = sim_tensor_upload(r, &v, words);
    }
    if (st == SIM_OK)
        st = sim_all_reduce(r, v.data, v.data, 1, SIM_INT32, SIM_MIN, r->world->cfg.algo);
    if (st == SIM_OK)
        st = sim_tensor_download(r, &v, words);
    int who = words ? words[0] : 0;
    if (st == SIM_OK && who >= 0 && who < s->nranks) {
        if (r->rank == who) {
            words[0] = (int32_t)mine;
            words[1] = t->bad_input;
            memcpy(words + 2, t->error, REASON_BYTES);
            ((char *)(words + 2))[REASON_BYTES - 1] = '\0';
        }
        st = sim_tensor_upload(r, &v, words);
        if (st == SIM_OK)
            st = sim_broadcast(r, v.data, v.data, AGREE_WORDS, SIM_INT32, who,
                               r->world->cfg.algo);
        if (st == SIM_OK)
            st = sim_tensor_download(r, &v, words);
        if (st == SIM_OK) {
            if (r->rank != who) {
                memcpy(t->error, words + 2, REASON_BYTES);
                t->error[REASON_BYTES - 1] = '\0';
                t->bad_input = words[1];
            }
            st = words[0] != SIM_OK ? (SimStatus)words[0] : SIM_EINVAL;
        }
    }
    sim_tensor_free(r, &v);
    free(words);
    return st;
}

// ----------------------------------------------------------------------------
// what one file lists: tensors and metadata, with the storage behind names

typedef struct {
    SimStTensor *t;
    int nt, cap_t;
    SimStMeta *meta;
    int nmeta, cap_meta;
    char (*text)[256];               // names, keys and values made here (a
                                     // model spec is at most 255 characters)
    int ntext, cap_text;
    int overflow;                    // 1: an entry did not fit (a bug)
} FileList;

static SimStatus list_init(FileList *l, int tensors, int meta, int text) {
    memset(l, 0, sizeof *l);
    l->t = calloc((size_t)tensors + 1, sizeof *l->t);
    l->meta = calloc((size_t)meta + 1, sizeof *l->meta);
    l->text = calloc((size_t)text + 1, sizeof *l->text);
    l->cap_t = tensors;
    l->cap_meta = meta;
    l->cap_text = text;
    return l->t && l->meta && l->text ? SIM_OK : SIM_ENOMEM;
}

static void list_free(FileList *l) {
    free(l->t);
    free(l->meta);
    free(l->text);
    memset(l, 0, sizeof *l);
}

static const char *list_text(FileList *l, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static const char *list_text(FileList *l, const char *fmt, ...) {
    if (l->ntext == l->cap_text) {
        l->overflow = 1;
        return "";
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(l->text[l->ntext], sizeof l->text[0], fmt, ap);
    va_end(ap);
    return l->text[l->ntext++];
}

static void list_add(FileList *l, const SimStTensor *t) {
    if (l->nt == l->cap_t)
        l->overflow = 1;
    else
        l->t[l->nt++] = *t;
}

static void list_tensor(FileList *l, const char *name, SimDtype dt, int ndim,
                        const int64_t *shape, const void *data) {
    SimStTensor t = {name, dt, ndim, {0}, data};
    memcpy(t.shape, shape, (size_t)ndim * sizeof *shape);
    list_add(l, &t);
}

static void list_meta(FileList *l, const char *key, const char *value) {
    if (l->nmeta == l->cap_meta)
        l->overflow = 1;
    else
        l->meta[l->nmeta++] = (SimStMeta){key, value};
}

// "format", "version", "model", "description", "step": every file has them
// (the index's "step" is the trainer's own: step < 0 leaves it out here).
static void list_common(FileList *l, const FsdpState *s, const char *format, int64_t step,
                        const char *description) {
    char spec[256];
    sim_model_spec_str(&s->m->spec, spec, sizeof spec);
    list_meta(l, "format", format);
    list_meta(l, "version", FSDP_SHARDS_VERSION);
    list_meta(l, "model", list_text(l, "%s", spec));
    list_meta(l, "description", description);
    if (step >= 0)
        list_meta(l, "step", list_text(l, "%" PRId64, step));
}

static SimStatus list_save(FileList *l, SimTrainer *t, const char *path) {
    char err[900];
    if (l->overflow)
        return sim_train_fail(t, 0, SIM_EINVAL, "--save: %s: the file's list overflowed", path);
    SimStatus st = (sim_train_fault_save_crash(t, path) ? sim_stfile_save_killed
                                                         : sim_stfile_save)(
        path, l->t, l->nt, l->meta, l->nmeta, err, sizeof err);
    return st == SIM_OK ? SIM_OK : sim_train_fail(t, 0, st, "--save: %s", err);
}

// ----------------------------------------------------------------------------
// saving

// This rank's master shards and optimizer state, in host memory.
typedef struct {
    float *master;                      // [shard_total]
    float *state[SIM_OPTIM_MAX_STATE];  // [shard_total] each
} HostShards;

static void host_free(HostShards *h) {
    free(h->master);
    for (int k = 0; k < SIM_OPTIM_MAX_STATE; k++)
        free(h->state[k]);
    memset(h, 0, sizeof *h);
}

static SimStatus host_fetch(FsdpState *s, SimRank *r, SimTrainer *t, HostShards *h) {
    size_t n = s->plan.shard_total;
    h->master = malloc((n ? n : 1) * sizeof(float));
    for (int k = 0; k < s->optim.nstate; k++)
        h->state[k] = malloc((n ? n : 1) * sizeof(float));
    for (int k = 0; k < s->optim.nstate; k++)
        if (h->state[k] == NULL)
            return sim_train_fail(t, 0, SIM_ENOMEM, "--save: out of memory");
    if (h->master == NULL)
        return sim_train_fail(t, 0, SIM_ENOMEM, "--save: out of memory");
    if (n == 0)
        return SIM_OK;
    SimStatus st = sim_tensor_download(r, &s->master, h->master);
    for (int k = 0; st == SIM_OK && k < s->optim.nstate; k++)
        st = sim_tensor_download(r, &s->optim.state[k], h->state[k]);
    return st == SIM_OK ? SIM_OK
                        : sim_train_fail(t, 0, st, "--save: cannot read the shards: %s",
                                         r->error);
}

// Shard s->gidx: every parameter's slice, and the slices of its state.
static SimStatus write_shard(FsdpState *s, SimTrainer *t, const HostShards *h, const char *file,
                             const char *path) {
    const SimModel *m = s->m;
    int np = m->nparams, ns = s->optim.nstate;
    FileList l;
    SimStatus st = list_init(&l, np * (1 + ns), 2 * np + 8, np * (4 + ns) + 8);
    if (st != SIM_OK) {
        list_free(&l);
        return sim_train_fail(t, 0, st, "--save: out of memory");
    }
    list_common(&l, s, FSDP_SHARD_FORMAT, t->step,
                list_text(&l, "shard %d of %d of a sharded FSDP checkpoint: resume from its "
                          "index, %.80s", s->gidx, s->S, fsdp_base_name(path)));
    list_meta(&l, "shard", list_text(&l, "%d", s->gidx));
    list_meta(&l, "shards", list_text(&l, "%d", s->S));
    for (int i = 0; i < np; i++) {
        size_t lo, hi;
        fsdp_shard_range(s, i, s->gidx, &lo, &hi);
        if (lo == hi)
            continue;
        const SimParamInfo *p = &m->params[i];
        const float *at = h->master + s->shard_params[i].offset;
        int64_t n[1] = {(int64_t)(hi - lo)};
        char shape[96];
        fsdp_shape_str(p->ndim, p->shape, shape, sizeof shape);
        list_tensor(&l, p->name, SIM_FP32, 1, n, at);
        list_meta(&l, list_text(&l, "range:%s", p->name), list_text(&l, "%zu,%zu", lo, hi));
        list_meta(&l, list_text(&l, "shape:%s", p->name), list_text(&l, "%s", shape));
        for (int k = 0; t->optim.param_steps[i] > 0 && k < ns; k++)
            list_tensor(&l, list_text(&l, "optimizer/state.%d.%s", i, s->optim.state_names[k]),
                        SIM_FP32, 1, n, h->state[k] + s->shard_params[i].offset);
    }
    st = list_save(&l, t, file);
    list_free(&l);
    return st;
}

// This rank's flat shards as held.
static SimStatus write_local(FsdpState *s, SimRank *r, SimTrainer *t, const HostShards *h,
                             const char *file, const char *path) {
    int nu = s->plan.nunits, ns = s->optim.nstate;
    FileList l;
    SimStatus st = list_init(&l, nu * (1 + ns) + 1, 8, nu * (1 + ns) + 8);
    if (st != SIM_OK) {
        list_free(&l);
        return sim_train_fail(t, 0, st, "--save: out of memory");
    }
    list_common(&l, s, FSDP_LOCAL_FORMAT, t->step,
                list_text(&l, "rank %d's flat shards of a local FSDP state dict: resume from "
                          "its index, %.80s, at %d ranks", r->rank, fsdp_base_name(path),
                          s->nranks));
    list_meta(&l, "rank", list_text(&l, "%d", r->rank));
    list_meta(&l, "world_size", list_text(&l, "%d", s->nranks));
    for (int u = 0; u < nu; u++) {
        const SimFsdpUnit *un = &s->plan.units[u];
        if (un->shard == 0)
            continue;
        char flat[SIM_NAME_MAX + 16];
        fsdp_flat_name(s, u, flat, sizeof flat);
        int64_t n[1] = {(int64_t)un->shard};
        list_tensor(&l, list_text(&l, "%s", flat), SIM_FP32, 1, n, h->master + s->u[u].master_off);
        for (int k = 0; k < ns; k++)
            list_tensor(&l, list_text(&l, "optimizer/%s.%s", flat, s->optim.state_names[k]),
                        SIM_FP32, 1, n, h->state[k] + s->u[u].master_off);
    }
    int64_t np[1] = {s->m->nparams};
    list_tensor(&l, "optimizer/param_steps", SIM_INT64, 1, np, s->optim.param_steps);
    st = list_save(&l, t, file);
    list_free(&l);
    return st;
}

// The files the index now at path lists (the save this one replaces), for
// removal once the new index is in place; NULL when there is none.
static char **previous_files(const char *path, int *n) {
    SimCkpt c;
    char err[256];
    *n = 0;
    if (sim_stfile_load(&c.file, path, err, sizeof err) != SIM_OK)
        return NULL;
    snprintf(c.path, sizeof c.path, "%s", path);
    const char *format = sim_ckpt_meta(&c, "format");
    int64_t files = 0;
    char **names = NULL;
    if (format && strcmp(format, FSDP_INDEX_FORMAT) == 0 &&
        sim_ckpt_meta_i64(&c, "files", &files) == 0 && files > 0 && files <= (1 << 20))
        names = calloc((size_t)files, sizeof *names);
    for (int k = 0; names && k < files; k++) {
        char key[32];
        snprintf(key, sizeof key, "file.%d", k);
        const char *v = sim_ckpt_meta(&c, key);
        names[k] = v ? strdup(v) : NULL;
    }
    if (names)
        *n = (int)files;
    sim_ckpt_close(&c);
    return names;
}

// Removes the previous save's files that the new index does not list. Only
// names of this checkpoint's own pattern (PATH.step...) are touched.
static void remove_previous(const char *path, char **old, int nold, const FileList *now) {
    const char *base = fsdp_base_name(path);
    size_t dirlen = (size_t)(base - path), blen = strlen(base);
    for (int k = 0; k < nold; k++) {
        const char *name = old[k];
        if (!name || strchr(name, '/') || strncmp(name, base, blen) != 0 ||
            strncmp(name + blen, ".step", 5) != 0)
            continue;
        int listed = 0;
        for (int j = 0; j < now->nmeta && !listed; j++)
            listed = strncmp(now->meta[j].key, "file.", 5) == 0 &&
                     strcmp(now->meta[j].value, name) == 0;
        char full[1200];
        if (!listed && snprintf(full, sizeof full, "%.*s%s", (int)dirlen, path, name) <
                           (int)sizeof full)
            (void)remove(full);
    }
}

// The index's tensors beyond the trainer's part: buffers, layout, ranges.
typedef struct {
    float *buf;            // [buffer_count]
    int64_t *ints;         // [buffer_count]
    int64_t *units;        // [3 * nunits]: module, numel, padded
    int64_t *params;       // [2 * nparams]: unit, flat offset
    int64_t *ranges;       // [nfiles * nparams * 2]
} IndexData;

static void index_data_free(IndexData *d) {
    free(d->buf);
    free(d->ints);
    free(d->units);
    free(d->params);
    free(d->ranges);
}

static SimStatus index_data(FsdpState *s, SimRank *r, int local, int nfiles, IndexData *d) {
    const SimModel *m = s->m;
    const SimFsdpPlan *p = &s->plan;
    size_t bc = m->buffer_count;
    d->buf = malloc((bc ? bc : 1) * sizeof *d->buf);
    d->ints = malloc((bc ? bc : 1) * sizeof *d->ints);
    d->units = malloc((3 * (size_t)p->nunits + 1) * sizeof *d->units);
    d->params = malloc((2 * (size_t)m->nparams + 1) * sizeof *d->params);
    d->ranges = malloc(((size_t)nfiles * (size_t)m->nparams * 2 + 1) * sizeof *d->ranges);
    if (!d->buf || !d->ints || !d->units || !d->params || !d->ranges)
        return SIM_ENOMEM;
    if (bc > 0)
        SIM_CHECK(sim_tensor_download(r, &m->buffer, d->buf));
    for (size_t i = 0; i < bc; i++)
        d->ints[i] = (int64_t)d->buf[i];
    for (int u = 0; u < p->nunits; u++) {
        d->units[u] = p->units[u].module;
        d->units[p->nunits + u] = (int64_t)p->units[u].numel;
        d->units[2 * p->nunits + u] = (int64_t)p->units[u].padded;
        for (int k = 0; k < p->units[u].nparams; k++) {
            d->params[p->units[u].params[k]] = u;
            d->params[m->nparams + p->units[u].params[k]] = (int64_t)p->units[u].flat_offset[k];
        }
    }
    for (int f = 0; !local && f < nfiles; f++) {
        for (int i = 0; i < m->nparams; i++) {
            size_t lo, hi;
            fsdp_shard_range(s, i, f, &lo, &hi);
            d->ranges[((size_t)f * (size_t)m->nparams + (size_t)i) * 2] = (int64_t)lo;
            d->ranges[((size_t)f * (size_t)m->nparams + (size_t)i) * 2 + 1] = (int64_t)hi;
        }
    }
    return SIM_OK;
}

static SimStatus write_index(FsdpState *s, SimRank *r, SimTrainer *t, const char *path,
                             int local, int nfiles) {
    const SimModel *m = s->m;
    const SimFsdpPlan *p = &s->plan;
    SimTrainPart *part = calloc(1, sizeof *part);
    IndexData d = {0};
    FileList l = {0};
    SimStatus st = part ? sim_train_part_make(part, t, r) : SIM_ENOMEM;
    if (st == SIM_OK)
        st = index_data(s, r, local, nfiles, &d);
    if (st == SIM_OK)
        st = list_init(&l, part->nhost + m->nbuffers + 6, part->nmeta + 16 + nfiles,
                       2 * nfiles + 16);
    if (st != SIM_OK) {
        st = sim_train_fail(t, 0, st, "--save: %s: cannot build the index: %s", path,
                            st == SIM_ENOMEM ? "out of memory" : r->error);
        goto done;
    }
    list_common(&l, s, FSDP_INDEX_FORMAT, -1,
                local ? list_text(&l, "the index of a local FSDP state dict (--state-dict local, "
                                  "%d rank files): resume it with --strategy fsdp -n %d and the "
                                  "same sharding", nfiles, s->nranks)
                      : list_text(&l, "the index of a sharded FSDP checkpoint (--state-dict "
                                  "sharded, %d shard files): resume it with --strategy fsdp at "
                                  "any world size", nfiles));
    list_meta(&l, "state_dict", local ? "local" : "sharded");
    list_meta(&l, "world_size", list_text(&l, "%d", s->nranks));
    list_meta(&l, "nodes", list_text(&l, "%d", r->world->cfg.nodes));
    list_meta(&l, "sharding", sim_fsdp_sharding_name(s->o.sharding));
    list_meta(&l, "wrap", sim_fsdp_wrap_name(s->o.wrap));
    list_meta(&l, "shard_ranks", list_text(&l, "%d", s->S));
    list_meta(&l, "units", list_text(&l, "%d", p->nunits));
    list_meta(&l, "files", list_text(&l, "%d", nfiles));
    for (int k = 0; k < nfiles; k++) {
        char file[1100];
        if (file_name(file, sizeof file, path, local, t->step, k, nfiles) != 0) {
            st = sim_train_fail(t, 1, SIM_EINVAL, "--save: %.200s: the path is too long", path);
            goto done;
        }
        list_meta(&l, list_text(&l, "file.%d", k), list_text(&l, "%s", fsdp_base_name(file)));
    }
    for (int k = 0; k < part->nmeta; k++)
        list_meta(&l, part->meta[k].key, part->meta[k].value);
    for (int k = 0; k < part->nhost; k++)
        list_add(&l, &part->host[k]);
    for (int b = 0; b < m->nbuffers; b++) {
        const SimBufferInfo *bi = &m->buffers[b];
        int ints = bi->torch_dtype == SIM_INT64;
        const void *data = ints ? (const void *)(d.ints + bi->offset)
                                : (const void *)(d.buf + bi->offset);
        list_tensor(&l, bi->name, ints ? SIM_INT64 : SIM_FP32, bi->ndim, bi->shape, data);
    }
    int64_t nu[1] = {p->nunits}, np[1] = {m->nparams};
    list_tensor(&l, "fsdp/unit_module", SIM_INT64, 1, nu, d.units);
    list_tensor(&l, "fsdp/unit_numel", SIM_INT64, 1, nu, d.units + p->nunits);
    list_tensor(&l, "fsdp/unit_padded", SIM_INT64, 1, nu, d.units + 2 * p->nunits);
    list_tensor(&l, "fsdp/param_unit", SIM_INT64, 1, np, d.params);
    list_tensor(&l, "fsdp/param_offset", SIM_INT64, 1, np, d.params + m->nparams);
    if (!local) {
        int64_t shape[3] = {nfiles, m->nparams, 2};
        list_tensor(&l, "fsdp/ranges", SIM_INT64, 3, shape, d.ranges);
    }
    int nold = 0;
    char **old = previous_files(path, &nold);
    st = list_save(&l, t, path);
    if (st == SIM_OK && old)
        remove_previous(path, old, nold, &l);
    for (int k = 0; old && k < nold; k++)
        free(old[k]);
    free(old);
done:
    if (part)
        sim_train_part_free(part);
    free(part);
    index_data_free(&d);
    list_free(&l);
    return st;
}

SimStatus fsdp_save_shards(FsdpState *s, SimRank *r, SimTrainer *t, const char *path) {
    int local = s->o.state_dict == SIM_FSDP_SD_LOCAL;
    if (s->m->param.data == NULL) // the same on every rank
        return sim_train_fail(t, 1, SIM_EINVAL, "--save: %s: a model without storage "
                              "(phantom) cannot be saved", path ? path : "");
    SIM_CHECK(fsdp_gather_steps(s, r));
    int nfiles = local ? s->nranks : s->S;
    // replicas hold the same shard: the first replica's ranks write it (and
    // nobody when path is NULL: the save's collectives alone)
    int writes = path && (local || s->rep_group.n < 2 || s->rep_group.me == 0);
    int k = local ? r->rank : s->gidx;
    char file[1100];
    SimStatus st = SIM_OK;
    if (writes && file_name(file, sizeof file, path, local, t->step, k, nfiles) != 0)
        st = sim_train_fail(t, 1, SIM_EINVAL, "--save: %.200s: the path is too long", path);
    int wrote = 0;
    if (writes && st == SIM_OK) {
        HostShards h = {0};
        st = host_fetch(s, r, t, &h);
        if (st == SIM_OK)
            st = local ? write_local(s, r, t, &h, file, path) : write_shard(s, t, &h, file, path);
        host_free(&h);
        wrote = st == SIM_OK;
    }
    // every file is in place before the index; when one is not (a rank
    // failed, or the run was stopped: Ctrl-C, SIGTERM), no index is written
    // and this save's own files go, so that no file of a checkpoint that
    // never was stays beside the last one (its files are named for its step)
    SimStatus agreed = fsdp_agree(s, r, t, st);
    if (agreed != SIM_OK) {
        if (wrote)
            (void)remove(file);
        return agreed;
    }
    st = r->rank == 0 && path ? write_index(s, r, t, path, local, nfiles) : SIM_OK;
    return fsdp_agree(s, r, t, st);
}

// ----------------------------------------------------------------------------
// recognising an index

int fsdp_shards_is_index(const char *path) {
    // A look at the header first, so that a full checkpoint (which may be
    // large) is not read twice.
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return 0;
    unsigned char len[8];
    uint64_t n = 0;
    int maybe = 0;
    if (fread(len, 1, 8, f) == 8) {
        for (int b = 7; b >= 0; b--)
            n = n << 8 | len[b];
        char *hdr = n > 0 && n < (1u << 26) ? malloc((size_t)n + 1) : NULL;
        if (hdr && fread(hdr, 1, (size_t)n, f) == n) {
            hdr[n] = '\0';
            maybe = strstr(hdr, FSDP_INDEX_FORMAT) != NULL;
        }
        free(hdr);
    }
    fclose(f);
    if (!maybe)
        return 0;
    SimStFile st;
    char err[256];
    if (sim_stfile_load(&st, path, err, sizeof err) != SIM_OK)
        return 1; // it says it is one: restoring it reports what is wrong
    const char *format = sim_stfile_meta(&st, "format");
    int yes = format && strcmp(format, FSDP_INDEX_FORMAT) == 0;
    sim_stfile_free(&st);
    return yes;
}
