// sim/strategy/fsdp_plan.c: FSDP's options, names and the plan (sim/strategy/fsdp.h): which
// modules become units, how each unit's parameters are laid out in its flat
// parameter, and which rank owns which slice. Pure: no ranks, no memory
// outside the plan itself.
#include "strategy/fsdp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void sim_fsdp_options_default(SimFsdpOptions *o) {
    memset(o, 0, sizeof *o);
    o->sharding = SIM_FSDP_FULL_SHARD;
    o->wrap = SIM_FSDP_WRAP_AUTO;
    o->min_params = 100000000; // size_based_auto_wrap_policy's min_num_params default (1e8)
    o->prefetch = SIM_FSDP_PREFETCH_PRE;
    o->limit_all_gathers = 1;
    o->param_dtype = o->reduce_dtype = o->buffer_dtype = SIM_FP32;
    o->state_dict = SIM_FSDP_SD_FULL;
    o->rank0_only = 1;
}

static const char *const sharding_names[SIM_FSDP_SHARDING_COUNT] = {
    "full_shard", "shard_grad_op", "no_shard", "hybrid_shard", "hybrid_zero2", "zero1"};
static const char *const wrap_names[SIM_FSDP_WRAP_COUNT] = {"auto", "block", "layer", "size",
                                                            "none"};
static const char *const prefetch_names[SIM_FSDP_PREFETCH_COUNT] = {"backward_pre",
                                                                    "backward_post", "none"};
static const char *const sd_names[SIM_FSDP_SD_COUNT] = {"full", "sharded", "local"};

static const char *name_of(const char *const *names, int n, int i) {
    return i >= 0 && i < n ? names[i] : NULL;
}

// Accepts the name, its upper-case spelling, dashes for underscores, and the
// spellings PyTorch prints (FULL_STATE_DICT, _HYBRID_SHARD_ZERO2).
static int parse_name(const char *const *names, int n, const char *s) {
    if (s == NULL)
        return -1;
    char buf[64];
    size_t k = 0;
    if (*s == '_')
        s++;
    for (; *s && k + 1 < sizeof buf; s++)
        buf[k++] = *s == '-' ? '_' : *s;
    buf[k] = '\0';
    size_t len = strlen(buf);
    if (len > 11 && strcasecmp(buf + len - 11, "_state_dict") == 0)
        buf[len - 11] = '\0';
    if (strcasecmp(buf, "hybrid_shard_zero2") == 0)
        snprintf(buf, sizeof buf, "hybrid_zero2");
    for (int i = 0; i < n; i++)
        if (strcasecmp(buf, names[i]) == 0)
            return i;
    return -1;
}

const char *sim_fsdp_sharding_name(SimFsdpSharding s) {
    return name_of(sharding_names, SIM_FSDP_SHARDING_COUNT, (int)s);
}
const char *sim_fsdp_wrap_name(SimFsdpWrap w) {
    return name_of(wrap_names, SIM_FSDP_WRAP_COUNT, (int)w);
}
const char *sim_fsdp_prefetch_name(SimFsdpPrefetch p) {
    return name_of(prefetch_names, SIM_FSDP_PREFETCH_COUNT, (int)p);
}
const char *sim_fsdp_state_dict_name(SimFsdpStateDict s) {
    return name_of(sd_names, SIM_FSDP_SD_COUNT, (int)s);
}

#define PARSE_INTO(names, count, type)                                                        \
    do {                                                                                      \
        int i_ = parse_name(names, count, s);                                                 \
        if (i_ < 0)                                                                           \
            return -1;                                                                        \
        *out = (type)i_;                                                                      \
        return 0;                                                                             \
    } while (0)

int sim_fsdp_sharding_parse(const char *s, SimFsdpSharding *out) {
    PARSE_INTO(sharding_names, SIM_FSDP_SHARDING_COUNT, SimFsdpSharding);
}
int sim_fsdp_wrap_parse(const char *s, SimFsdpWrap *out) {
    PARSE_INTO(wrap_names, SIM_FSDP_WRAP_COUNT, SimFsdpWrap);
}
int sim_fsdp_prefetch_parse(const char *s, SimFsdpPrefetch *out) {
    PARSE_INTO(prefetch_names, SIM_FSDP_PREFETCH_COUNT, SimFsdpPrefetch);
}
int sim_fsdp_state_dict_parse(const char *s, SimFsdpStateDict *out) {
    PARSE_INTO(sd_names, SIM_FSDP_SD_COUNT, SimFsdpStateDict);
}

int sim_fsdp_zero_stage(const char *strategy, SimFsdpSharding *out) {
    if (strategy == NULL)
        return -1;
    if (strcmp(strategy, "zero1") == 0)
        *out = SIM_FSDP_ZERO1;
    else if (strcmp(strategy, "zero2") == 0)
        *out = SIM_FSDP_SHARD_GRAD_OP;
    else if (strcmp(strategy, "zero3") == 0)
        *out = SIM_FSDP_FULL_SHARD;
    else
        return -1;
    return 0;
}

void sim_fsdp_divide_factors(int n, double *pre, double *post) {
    // FSDP's default hooks: the pre-divide factor doubles while it divides
    // the world size and stays below its cofactor, so neither division alone
    // under- or overflows fp16 (n = 8: 4 and 2; n = 16: 4 and 4).
    int f = 1;
    while (n > 0 && n % f == 0 && n / f > f)
        f *= 2;
    *pre = f;
    *post = n > 0 ? (double)n / f : 1.0;
}

// ----------------------------------------------------------------------------
// wrapping

static int is_block(const SimModuleInfo *mod) {
    return strncmp(mod->name, "blocks.", 7) == 0;
}

// 1 if child module k becomes a unit of its own under policy o.
static int wrapped(const SimModel *m, const SimFsdpOptions *o, SimFsdpWrap w, int k) {
    const SimModuleInfo *mod = &m->modules[k];
    if (mod->nparams == 0)
        return 0;
    switch (w) {
    case SIM_FSDP_WRAP_BLOCK:
        return is_block(mod);
    case SIM_FSDP_WRAP_LAYER:
        return 1;
    case SIM_FSDP_WRAP_SIZE: {
        size_t n = 0;
        for (int i = mod->first_param; i < mod->first_param + mod->nparams; i++)
            n += m->params[i].numel;
        return n >= (size_t)o->min_params;
    }
    default:
        return 0;
    }
}

static SimFsdpWrap resolve_wrap(const SimModel *m, SimFsdpWrap w) {
    if (w != SIM_FSDP_WRAP_AUTO)
        return w;
    return m->spec.kind == SIM_MODEL_GPT ? SIM_FSDP_WRAP_BLOCK : SIM_FSDP_WRAP_LAYER;
}

static int shard_ranks(const SimFsdpOptions *o, int nranks, int nodes) {
    switch (o->sharding) {
    case SIM_FSDP_NO_SHARD:
        return 1;
    case SIM_FSDP_HYBRID_SHARD:
    case SIM_FSDP_HYBRID_ZERO2:
        return nranks / nodes;
    default:
        return nranks;
    }
}

// Appends parameter i to unit u's list and layout.
static void unit_add(SimFsdpUnit *u, const SimModel *m, int i) {
    u->params[u->nparams] = i;
    u->flat_offset[u->nparams] = u->numel;
    u->nparams++;
    u->numel += m->params[i].numel;
}

static SimStatus fail(char *err, size_t len, SimStatus st, const char *msg) {
    snprintf(err, len, "%s", msg);
    return st;
}

SimStatus sim_fsdp_plan_build(SimFsdpPlan *p, const SimModel *m, const SimFsdpOptions *o,
                              int nranks, int nodes, char *err, size_t errlen) {
    memset(p, 0, sizeof *p);
    if (nranks < 1 || nodes < 1 || nranks % nodes != 0)
        return fail(err, errlen, SIM_EINVAL, "fsdp: the ranks must split evenly into nodes");
    SimFsdpWrap w = resolve_wrap(m, o->wrap);
    if (w == SIM_FSDP_WRAP_BLOCK && m->spec.kind != SIM_MODEL_GPT)
        return fail(err, errlen, SIM_EINVAL, "--fsdp-wrap block: an MLP has no transformer "
                    "blocks; allowed for an MLP: layer, size, none");
    p->nparams = m->nparams;
    p->shard_ranks = shard_ranks(o, nranks, nodes);
    p->replicas = nranks / p->shard_ranks;
    // ZeRO-1 keeps one flat buffer of the whole model unless told otherwise,
    // as DeepSpeed flattens every parameter into one partitioned buffer.
    if (o->sharding == SIM_FSDP_ZERO1 && o->wrap == SIM_FSDP_WRAP_AUTO)
        w = SIM_FSDP_WRAP_NONE;
    int *unit_of = calloc((size_t)m->nmodules + 1, sizeof *unit_of);
    p->param_unit = calloc((size_t)m->nparams + 1, sizeof *p->param_unit);
    p->units = calloc((size_t)m->nmodules + 1, sizeof *p->units);
    if (!unit_of || !p->param_unit || !p->units) {
        free(unit_of);
        return fail(err, errlen, SIM_ENOMEM, "fsdp: out of memory");
    }
    // The root first, then the wrapped children in module (forward) order.
    p->nunits = 1;
    p->units[0].module = 0;
    p->units[0].is_root = 1;
    for (int k = 1; k < m->nmodules; k++) {
        unit_of[k] = 0;
        if (wrapped(m, o, w, k)) {
            unit_of[k] = p->nunits;
            p->units[p->nunits].module = k;
            p->nunits++;
        }
    }
    for (int i = 0; i < m->nparams; i++)
        p->param_unit[i] = unit_of[sim_model_param_module(m, i)];
    free(unit_of);
    SimStatus st = SIM_OK;
    for (int u = 0; u < p->nunits && st == SIM_OK; u++) {
        SimFsdpUnit *un = &p->units[u];
        un->order = u;
        un->params = calloc((size_t)m->nparams + 1, sizeof *un->params);
        un->flat_offset = calloc((size_t)m->nparams + 1, sizeof *un->flat_offset);
        if (!un->params || !un->flat_offset)
            st = SIM_ENOMEM;
        if (o->per_param) {
            un->chunk_off = calloc((size_t)m->nparams + 1, sizeof *un->chunk_off);
            un->chunk = calloc((size_t)m->nparams + 1, sizeof *un->chunk);
            if (!un->chunk_off || !un->chunk)
                st = SIM_ENOMEM;
        }
    }
    if (st != SIM_OK) {
        sim_fsdp_plan_free(p);
        return fail(err, errlen, st, "fsdp: out of memory");
    }
    for (int i = 0; i < m->nparams; i++)
        unit_add(&p->units[p->param_unit[i]], m, i);
    size_t S = (size_t)p->shard_ranks;
    p->per_param = o->per_param != 0;
    for (int u = 0; u < p->nunits; u++) {
        SimFsdpUnit *un = &p->units[u];
        if (p->per_param) {
            // FSDP2: every parameter padded on its own to ceil(d0 / S) * S rows
            un->shard = 0;
            for (int k = 0; k < un->nparams; k++) {
                const SimParamInfo *pi = &m->params[un->params[k]];
                size_t d0 = pi->ndim > 0 ? (size_t)pi->shape[0] : 1;
                size_t row = d0 > 0 ? pi->numel / d0 : 0;
                un->chunk_off[k] = un->shard;
                un->chunk[k] = (d0 + S - 1) / S * row;
                un->shard += un->chunk[k];
            }
            un->padded = un->shard * S;
        } else {
            // right-padded so that every rank of the group holds an equal slice
            un->padded = (un->numel + S - 1) / S * S;
            un->shard = un->padded / S;
        }
        p->shard_total += un->shard;
        p->padded_total += un->padded;
        if (un->numel > p->largest_unit)
            p->largest_unit = un->numel;
    }
    return SIM_OK;
}

void sim_fsdp_plan_free(SimFsdpPlan *p) {
    for (int u = 0; p->units && u < p->nunits; u++) {
        free(p->units[u].params);
        free(p->units[u].flat_offset);
        free(p->units[u].chunk_off);
        free(p->units[u].chunk);
    }
    free(p->units);
    free(p->param_unit);
    memset(p, 0, sizeof *p);
}

static size_t param_numel(const SimFsdpUnit *un, int k) {
    size_t end = k + 1 < un->nparams ? un->flat_offset[k + 1] : un->numel;
    return end - un->flat_offset[k];
}

void sim_fsdp_piece(const SimFsdpPlan *p, int u, int k, int g, size_t *flat, size_t *lo,
                    size_t *hi) {
    const SimFsdpUnit *un = &p->units[u];
    size_t n = param_numel(un, k), slo = (size_t)g * un->shard;
    if (un->chunk_off) {
        size_t a = (size_t)g * un->chunk[k];
        *lo = a < n ? a : n;
        *hi = a + un->chunk[k] < n ? a + un->chunk[k] : n;
        *flat = slo + un->chunk_off[k];
        return;
    }
    size_t a = un->flat_offset[k], b = a + n, shi = slo + un->shard;
    size_t from = a > slo ? a : slo, to = b < shi ? b : shi;
    *lo = *hi = 0;
    *flat = slo;
    if (from < to) {
        *lo = from - a;
        *hi = to - a;
        *flat = from;
    }
}

int sim_fsdp_owner(const SimFsdpPlan *p, int param, size_t elem, int *unit, int *owner) {
    if (param < 0 || param >= p->nparams)
        return -1;
    int u = p->param_unit[param];
    const SimFsdpUnit *un = &p->units[u];
    for (int k = 0; k < un->nparams; k++) {
        if (un->params[k] != param)
            continue;
        size_t f = un->flat_offset[k] + elem;
        size_t end = k + 1 < un->nparams ? un->flat_offset[k + 1] : un->numel;
        if (f >= end || un->shard == 0)
            return -1;
        *unit = u;
        *owner = un->chunk ? (int)(elem / un->chunk[k]) : (int)(f / un->shard);
        return 0;
    }
    return -1;
}

// FSDP2's ownership per parameter: the rows of dim 0 each rank holds (the
// last ranks may hold fewer, or none), and the padding rows that fill every
// shard to the same size.
static void print_param_rows(const SimFsdpPlan *p, const SimModel *m, FILE *out) {
    size_t S = (size_t)p->shard_ranks;
    fprintf(out, "each parameter's rows (dim 0) over the %zu rank%s of a shard group:\n", S,
            S == 1 ? "" : "s");
    fprintf(out, "| param | unit | shape | rows per rank | ranks with rows | padding rows |\n");
    fprintf(out, "|---|---|---|---|---|---|\n");
    for (int u = 0; u < p->nunits; u++) {
        const SimFsdpUnit *un = &p->units[u];
        for (int k = 0; k < un->nparams; k++) {
            const SimParamInfo *pi = &m->params[un->params[k]];
            size_t d0 = pi->ndim > 0 ? (size_t)pi->shape[0] : 1;
            size_t rows = d0 ? (d0 + S - 1) / S : 0, with = rows ? (d0 + rows - 1) / rows : 0;
            SimTensor t; // for its shape's spelling, "[129, 16]"
            char shape[64];
            sim_tensor_init(&t, pi->name, SIM_FP32, pi->ndim, pi->shape);
            fprintf(out, "| %s | %d | %s | %zu | %zu of %zu (the last: %zu) | %zu |\n", pi->name,
                    u, sim_tensor_shape_str(&t, shape, sizeof shape), rows, with, S,
                    d0 - (with ? (with - 1) * rows : 0), rows * S - d0);
        }
    }
}

void sim_fsdp_plan_print(const SimFsdpPlan *p, const SimModel *m, FILE *out) {
    fprintf(out, "%s plan: %d unit%s, sharded over %d rank%s x %d replica%s; largest unit "
            "%zu elements\n", p->per_param ? "fsdp2" : "fsdp", p->nunits, p->nunits == 1 ? "" : "s", p->shard_ranks,
            p->shard_ranks == 1 ? "" : "s", p->replicas, p->replicas == 1 ? "" : "s",
            p->largest_unit);
    fprintf(out, "| unit | module | params | elements | padded | per rank | first .. last |\n");
    fprintf(out, "|---|---|---|---|---|---|---|\n");
    for (int u = 0; u < p->nunits; u++) {
        const SimFsdpUnit *un = &p->units[u];
        const char *mod = un->is_root ? "(root)" : m->modules[un->module].name;
        const char *first = un->nparams ? m->params[un->params[0]].name : "-";
        const char *last = un->nparams ? m->params[un->params[un->nparams - 1]].name : "-";
        fprintf(out, "| %d | %s | %d | %zu | %zu | %zu | %s .. %s |\n", u, mod, un->nparams,
                un->numel, un->padded, un->shard, first, last);
    }
    if (p->per_param)
        print_param_rows(p, m, out);
    size_t numel = 0;
    for (int u = 0; u < p->nunits; u++)
        numel += p->units[u].numel;
    fprintf(out, "padding: %zu elements over %d unit%s (%s)\n", p->padded_total - numel,
            p->nunits, p->nunits == 1 ? "" : "s",
            p->per_param ? "each parameter padded to a multiple of the ranks in rows"
                         : "each flat parameter padded to a multiple of the ranks");
}
