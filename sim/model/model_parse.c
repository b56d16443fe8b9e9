// sim/model/model_parse.c: the model spec language of --model, its canonical
// printed form, and the one-line name of the equivalent PyTorch module.
//
//   mlp:W0,W1,...,Wk[,act=relu|gelu][,bn][,unused][,mse]
//   gpt:layers=L,embd=C,heads=H,ctx=T,vocab=V[,bias=mlp|all|none][,tied]
//       [,norm=layer|rms][,mlp=gelu|swiglu][,ffn=F][,kv_heads=K]
//       [,pos=learned|rope][,encoder][,type_vocab=N][,dropout]
//       [,ckpt=none|selective|full][,attn=eager|flash|triton]
//   count:params=N[,flops=F]
//   a preset's name (sim/model/model_presets.c), e.g. llama2-7b
//
// Widths come first, options after them in any order; gpt's fields and
// options in any order. An option given its default value is the default
// (kv_heads=heads, ffn=4*embd, type_vocab=2), so a model has one canonical
// spec and a plain gpt spec stays MiniGPT. Every error names the field and
// what is allowed, because a spec is typed by a person.
#include "model/model.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MLP_MAX_WIDTH 1048576L
#define GPT_MAX_LAYERS 1024L
#define GPT_MAX_EMBD 65536L
#define GPT_MAX_CTX 131072L
#define GPT_MAX_VOCAB 1048576L
#define GPT_MAX_FFN 1048576L
#define GPT_MAX_TYPES 1024L
#define COUNT_MAX_PARAMS 1000000000000000LL // 1e15
#define COUNT_MAX_FLOPS 1000000000000000000LL // 1e18 per sample

static SimStatus fail(char *err, size_t errlen, const char *text, const char *fmt, ...) {
    char why[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    if (err && errlen)
        snprintf(err, errlen, "model spec \"%s\": %s", text, why);
    return SIM_EINVAL;
}

// Strict decimal integer in [lo, hi]: all of tok, no sign games, no overflow.
static int parse_int(const char *tok, long lo, long hi, int *out) {
    if (tok[0] < '0' || tok[0] > '9')
        return -1;
    char *end = NULL;
    errno = 0;
    long v = strtol(tok, &end, 10);
    if (errno != 0 || *end != '\0' || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

// A token meant as a width (a sign counts, so "-5" is reported as a bad width).
static int is_number(const char *tok) {
    return (tok[0] >= '0' && tok[0] <= '9') || tok[0] == '-' || tok[0] == '+';
}

// Splits the comma list in place: tokens point into buf. Returns the count,
// or -1 if there are more than max tokens.
static int split(char *buf, char **tok, int max) {
    int n = 0;
    for (char *p = buf;;) {
        if (n == max)
            return -1;
        tok[n++] = p;
        char *c = strchr(p, ',');
        if (!c)
            return n;
        *c = '\0';
        p = c + 1;
    }
}

static SimStatus parse_mlp(const char *text, char *body, SimModelSpec *s, char *err,
                           size_t errlen) {
    char *tok[40];
    int n = split(body, tok, 40);
    if (n < 0)
        return fail(err, errlen, text, "too many fields (an mlp has 2..16 widths and options "
                                       "act=relu|gelu, bn, unused, mse)");
    int seen_option = 0, seen_act = 0;
    for (int i = 0; i < n; i++) {
        const char *t = tok[i];
        if (is_number(t)) {
            if (seen_option)
                return fail(err, errlen, text, "width \"%s\" after an option (widths come first)",
                            t);
            if (s->nwidths == 16)
                return fail(err, errlen, text, "more than 16 widths (allowed: 2..16)");
            if (parse_int(t, 1, MLP_MAX_WIDTH, &s->widths[s->nwidths]) != 0)
                return fail(err, errlen, text, "width %d \"%s\" is not an integer in 1..%ld",
                            s->nwidths + 1, t, MLP_MAX_WIDTH);
            s->nwidths++;
            continue;
        }
        seen_option = 1;
        int *flag = NULL;
        if (strcmp(t, "bn") == 0)
            flag = &s->batchnorm;
        else if (strcmp(t, "unused") == 0)
            flag = &s->unused_branch;
        else if (strcmp(t, "mse") == 0)
            flag = &s->mse;
        if (flag) {
            if (*flag)
                return fail(err, errlen, text, "option %s given twice", t);
            *flag = 1;
        } else if (strncmp(t, "act=", 4) == 0) {
            if (seen_act)
                return fail(err, errlen, text, "option act given twice");
            seen_act = 1;
            if (strcmp(t + 4, "relu") == 0)
                s->act = SIM_ACT_RELU;
            else if (strcmp(t + 4, "gelu") == 0)
                s->act = SIM_ACT_GELU;
            else
                return fail(err, errlen, text, "act=\"%s\" is unknown (allowed: relu, gelu)",
                            t + 4);
        } else if (t[0] == '\0') {
            return fail(err, errlen, text, "empty field %d (fields are separated by one comma)",
                        i + 1);
        } else {
            return fail(err, errlen, text,
                        "unknown option \"%s\" (allowed: act=relu|gelu, bn, unused, mse)", t);
        }
    }
    if (s->nwidths < 2)
        return fail(err, errlen, text, "%d width%s given (an mlp needs 2..16 widths: input, "
                    "hidden..., output)", s->nwidths, s->nwidths == 1 ? "" : "s");
    if (s->batchnorm && s->nwidths < 3)
        return fail(err, errlen, text, "bn needs a hidden layer (3 or more widths)");
    return SIM_OK;
}

typedef struct {
    const char *key;
    long lo, hi;
} GptField;

static const GptField gpt_fields[5] = {
    {"layers", 1, GPT_MAX_LAYERS},
    {"embd", 1, GPT_MAX_EMBD},
    {"heads", 1, GPT_MAX_EMBD},
    {"ctx", 1, GPT_MAX_CTX},
    {"vocab", 1, GPT_MAX_VOCAB},
};

#define GPT_OPTIONS "bias=mlp|all|none, tied, norm=layer|rms, mlp=gelu|swiglu, ffn=N, " \
                    "kv_heads=N, pos=learned|rope, encoder, type_vocab=N, dropout, "    \
                    "ckpt=none|selective|full, attn=eager|flash|triton"

// An option's value among names[0..n): its index, or -1.
static int pick(const char *v, const char *const *names, int n) {
    for (int i = 0; i < n; i++)
        if (strcmp(v, names[i]) == 0)
            return i;
    return -1;
}

static const char *const bias_names[3] = {"mlp", "all", "none"};
static const char *const norm_names[2] = {"layer", "rms"};
static const char *const mlp_names[2] = {"gelu", "swiglu"};
static const char *const pos_names[2] = {"learned", "rope"};
static const char *const ckpt_names[3] = {"none", "selective", "full"};
// "plain" is the default's name only: the syntax gives the others
static const char *const attn_names[4] = {"plain", "eager", "flash", "triton"};
#define ATTN_ALLOWED "eager, flash, triton"

const char *sim_model_ckpt_name(SimActCkpt c) {
    return (unsigned)c < 3 ? ckpt_names[c] : "?";
}

int sim_model_ckpt_parse(const char *s, SimActCkpt *out) {
    int k = s ? pick(s, ckpt_names, 3) : -1;
    if (k < 0)
        return -1;
    *out = (SimActCkpt)k;
    return 0;
}

// One architecture option "key" or "key=value" (eq: the value, or NULL).
// seen: a bit per option, so none is given twice.
const char *sim_model_attn_name(SimAttnKind a) {
    return (unsigned)a < 4 ? attn_names[a] : "?";
}

int sim_model_attn_fused(SimAttnKind a) {
    return a == SIM_ATTN_FLASH || a == SIM_ATTN_TRITON;
}

int sim_model_attn_parse(const char *s, SimAttnKind *out) {
    int k = s ? pick(s, attn_names, 4) : -1;
    if (k < 1)
        return -1;
    *out = (SimAttnKind)k;
    return 0;
}

static SimStatus parse_gpt_option(const char *text, const char *key, const char *eq,
                                  SimModelSpec *s, unsigned *seen, char *err, size_t errlen) {
    static const char *const keys[] = {"bias", "tied", "norm", "mlp", "ffn", "kv_heads", "pos",
                                       "encoder", "type_vocab", "dropout", "ckpt", "attn"};
    static const int has_value[] = {1, 0, 1, 1, 1, 1, 1, 0, 1, 0, 1, 1};
    int k = pick(key, keys, 12);
    if (k < 0)
        return fail(err, errlen, text, "unknown field \"%s\" (allowed: layers=, embd=, heads=, "
                    "ctx=, vocab=) or an option (" GPT_OPTIONS ")", key);
    if (*seen & (1u << k))
        return fail(err, errlen, text, "option %s given twice", key);
    *seen |= 1u << k;
    if (has_value[k] && !eq)
        return fail(err, errlen, text, "option %s needs a value (%s=...)", key, key);
    if (!has_value[k] && eq)
        return fail(err, errlen, text, "option %s takes no value", key);
    int v = 0;
    switch (k) {
    case 0:
        if ((v = pick(eq, bias_names, 3)) < 0)
            return fail(err, errlen, text, "bias=\"%s\" is unknown (allowed: mlp, all, none)",
                        eq);
        s->bias = (SimGptBias)v;
        return SIM_OK;
    case 1:
        s->tied = 1;
        return SIM_OK;
    case 2:
        if ((v = pick(eq, norm_names, 2)) < 0)
            return fail(err, errlen, text, "norm=\"%s\" is unknown (allowed: layer, rms)", eq);
        s->norm = (SimNormKind)v;
        return SIM_OK;
    case 3:
        if ((v = pick(eq, mlp_names, 2)) < 0)
            return fail(err, errlen, text, "mlp=\"%s\" is unknown (allowed: gelu, swiglu)", eq);
        s->mlp = (SimMlpKind)v;
        return SIM_OK;
    case 4:
        if (parse_int(eq, 1, GPT_MAX_FFN, &s->ffn) != 0)
            return fail(err, errlen, text, "ffn=\"%s\" is not an integer in 1..%ld", eq,
                        GPT_MAX_FFN);
        return SIM_OK;
    case 5:
        if (parse_int(eq, 1, GPT_MAX_EMBD, &s->kv_heads) != 0)
            return fail(err, errlen, text, "kv_heads=\"%s\" is not an integer in 1..%ld", eq,
                        GPT_MAX_EMBD);
        return SIM_OK;
    case 6:
        if ((v = pick(eq, pos_names, 2)) < 0)
            return fail(err, errlen, text, "pos=\"%s\" is unknown (allowed: learned, rope)", eq);
        s->pos = (SimPosKind)v;
        return SIM_OK;
    case 7:
        s->encoder = 1;
        return SIM_OK;
    case 8:
        if (parse_int(eq, 1, GPT_MAX_TYPES, &s->type_vocab) != 0)
            return fail(err, errlen, text, "type_vocab=\"%s\" is not an integer in 1..%ld", eq,
                        GPT_MAX_TYPES);
        return SIM_OK;
    case 9:
        s->dropout = 1;
        return SIM_OK;
    case 11:
        if (sim_model_attn_parse(eq, &s->attn) != 0)
            return fail(err, errlen, text, "attn=\"%s\" is unknown (allowed: " ATTN_ALLOWED ")",
                        eq);
        return SIM_OK;
    default:
        if ((v = pick(eq, ckpt_names, 3)) < 0)
            return fail(err, errlen, text, "ckpt=\"%s\" is unknown (allowed: none, selective, "
                        "full)", eq);
        s->ckpt = (SimActCkpt)v;
        return SIM_OK;
    }
}

static SimStatus parse_gpt(const char *text, char *body, SimModelSpec *s, char *err,
                           size_t errlen) {
    char *tok[24];
    int n = split(body, tok, 24);
    if (n < 0)
        return fail(err, errlen, text, "too many fields (gpt takes layers, embd, heads, ctx, "
                                       "vocab and the options " GPT_OPTIONS ")");
    int *dst[5] = {&s->layers, &s->embd, &s->heads, &s->ctx, &s->vocab};
    int have[5] = {0};
    unsigned seen = 0;
    for (int i = 0; i < n; i++) {
        char *eq = strchr(tok[i], '=');
        int f = -1;
        if (eq)
            *eq = '\0';
        for (int k = 0; k < 5; k++)
            if (strcmp(tok[i], gpt_fields[k].key) == 0)
                f = k;
        if (f >= 0 && !eq) // "layers" alone names no field of the syntax
            f = -2;
        if (f == -2)
            return fail(err, errlen, text, "unknown field \"%s\" (allowed: layers=, embd=, "
                        "heads=, ctx=, vocab=) or an option (" GPT_OPTIONS ")", tok[i]);
        if (f < 0) {
            if (tok[i][0] == '\0')
                return fail(err, errlen, text, "empty field %d (fields are separated by one "
                            "comma)", i + 1);
            SIM_CHECK(parse_gpt_option(text, tok[i], eq ? eq + 1 : NULL, s, &seen, err, errlen));
            continue;
        }
        if (have[f])
            return fail(err, errlen, text, "field %s given twice", gpt_fields[f].key);
        have[f] = 1;
        if (parse_int(eq + 1, gpt_fields[f].lo, gpt_fields[f].hi, dst[f]) != 0)
            return fail(err, errlen, text, "%s=\"%s\" is not an integer in %ld..%ld",
                        gpt_fields[f].key, eq + 1, gpt_fields[f].lo, gpt_fields[f].hi);
    }
    for (int k = 0; k < 5; k++)
        if (!have[k])
            return fail(err, errlen, text, "missing %s= (gpt needs all of layers, embd, heads, "
                        "ctx, vocab)", gpt_fields[k].key);
    if (s->embd % s->heads != 0)
        return fail(err, errlen, text, "embd=%d is not divisible by heads=%d", s->embd, s->heads);
    if (s->kv_heads && (s->kv_heads > s->heads || s->heads % s->kv_heads != 0))
        return fail(err, errlen, text, "kv_heads=%d does not divide heads=%d (each key/value "
                    "head serves heads/kv_heads query heads)", s->kv_heads, s->heads);
    if (s->type_vocab && !s->encoder)
        return fail(err, errlen, text, "type_vocab is an encoder's option (add encoder)");
    if (s->encoder && s->tied)
        return fail(err, errlen, text, "tied: an encoder has no LM head to tie to tok_emb");
    // Values equal to the defaults are the defaults, so every model has one
    // canonical spec (and MiniGPT stays MiniGPT).
    if (s->kv_heads == s->heads)
        s->kv_heads = 0;
    if ((long)s->ffn == 4L * s->embd)
        s->ffn = 0;
    if (s->type_vocab == 2)
        s->type_vocab = 0;
    return SIM_OK;
}

static SimStatus parse_count(const char *text, char *body, SimModelSpec *s, char *err,
                             size_t errlen) {
    char *tok[4];
    int n = split(body, tok, 4);
    int have_params = 0, have_flops = 0;
    for (int i = 0; i < n && n > 0; i++) {
        char *eq = strchr(tok[i], '=');
        int64_t *dst = NULL;
        long long hi = 0;
        int *have = NULL;
        if (eq) {
            *eq = '\0';
            if (strcmp(tok[i], "params") == 0)
                dst = &s->count_params, hi = COUNT_MAX_PARAMS, have = &have_params;
            else if (strcmp(tok[i], "flops") == 0)
                dst = &s->count_flops, hi = COUNT_MAX_FLOPS, have = &have_flops;
        }
        if (!dst)
            return fail(err, errlen, text, "unknown field \"%s\" (allowed: params=N, flops=F: "
                        "forward FLOPs per sample)", tok[i]);
        if (*have)
            return fail(err, errlen, text, "field %s given twice", tok[i]);
        *have = 1;
        char *end = NULL;
        errno = 0;
        long long v = strtoll(eq + 1, &end, 10);
        long long lo = dst == &s->count_params ? 1 : 0;
        if (eq[1] < '0' || eq[1] > '9' || errno != 0 || *end != '\0' || v < lo || v > hi)
            return fail(err, errlen, text, "%s=\"%s\" is not an integer in %lld..%lld", tok[i],
                        eq + 1, lo, hi);
        *dst = v;
    }
    if (!have_params)
        return fail(err, errlen, text, "missing params= (count:params=N[,flops=F])");
    return SIM_OK;
}

SimStatus sim_model_parse(const char *text, SimModelSpec *out, char *err, size_t errlen) {
    if (err && errlen)
        err[0] = '\0';
    if (!text || !out)
        return fail(err, errlen, text ? text : "(null)", "no spec given");
    SimModelSpec s;
    memset(&s, 0, sizeof s);
    s.act = SIM_ACT_RELU;
    const char *colon = strchr(text, ':');
    size_t kindlen = colon ? (size_t)(colon - text) : strlen(text);
    char body[512];
    if (colon && strlen(colon + 1) >= sizeof body)
        return fail(err, errlen, text, "longer than %zu characters", sizeof body - 1);
    if (colon)
        strcpy(body, colon + 1);
    SimStatus st;
    if (kindlen == 3 && strncmp(text, "mlp", 3) == 0 && colon) {
        s.kind = SIM_MODEL_MLP;
        st = parse_mlp(text, body, &s, err, errlen);
    } else if (kindlen == 3 && strncmp(text, "gpt", 3) == 0 && colon) {
        s.kind = SIM_MODEL_GPT;
        s.act = SIM_ACT_GELU;
        st = parse_gpt(text, body, &s, err, errlen);
    } else if (kindlen == 5 && strncmp(text, "count", 5) == 0 && colon) {
        s.kind = SIM_MODEL_COUNT;
        st = parse_count(text, body, &s, err, errlen);
    } else if (!colon && sim_model_preset(text, &s) == 0) {
        st = SIM_OK;
    } else if (!colon && (strcmp(text, "mlp") == 0 || strcmp(text, "gpt") == 0 ||
                          strcmp(text, "count") == 0)) {
        return fail(err, errlen, text, "%s needs its fields after a colon, e.g. %s", text,
                    text[0] == 'm'   ? "mlp:784,256,10"
                    : text[0] == 'g' ? "gpt:layers=4,embd=128,heads=4,ctx=64,vocab=65"
                                     : "count:params=25557032");
    } else {
        char names[400];
        return fail(err, errlen, text, "unknown model kind \"%.*s\" (allowed: "
                    "mlp:784,256,10[,act=relu|gelu][,bn][,unused][,mse] or "
                    "gpt:layers=4,embd=128,heads=4,ctx=64,vocab=65[,options] or "
                    "count:params=N[,flops=F], or a preset: %s)", (int)kindlen, text,
                    sim_model_preset_names(names, sizeof names));
    }
    if (st == SIM_OK)
        *out = s;
    return st;
}

// Appends with snprintf semantics; keeps *used within len.
static void put(char *buf, size_t len, size_t *used, const char *fmt, ...) {
    if (*used >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(buf + *used, len - *used, fmt, ap);
    va_end(ap);
    if (k > 0)
        *used = (*used + (size_t)k < len) ? *used + (size_t)k : len - 1;
}

const char *sim_model_spec_str(const SimModelSpec *s, char *buf, size_t len) {
    size_t u = 0;
    if (!len)
        return buf;
    buf[0] = '\0';
    if (s->kind == SIM_MODEL_GPT) {
        put(buf, len, &u, "gpt:layers=%d,embd=%d,heads=%d,ctx=%d,vocab=%d", s->layers, s->embd,
            s->heads, s->ctx, s->vocab);
        if (s->bias != SIM_GPT_BIAS_MLP && (unsigned)s->bias < 3)
            put(buf, len, &u, ",bias=%s", bias_names[s->bias]);
        if (s->tied)
            put(buf, len, &u, ",tied");
        if (s->norm == SIM_NORM_RMS)
            put(buf, len, &u, ",norm=rms");
        if (s->mlp == SIM_MLP_SWIGLU)
            put(buf, len, &u, ",mlp=swiglu");
        if (s->ffn)
            put(buf, len, &u, ",ffn=%d", s->ffn);
        if (s->kv_heads)
            put(buf, len, &u, ",kv_heads=%d", s->kv_heads);
        if (s->pos == SIM_POS_ROPE)
            put(buf, len, &u, ",pos=rope");
        if (s->encoder)
            put(buf, len, &u, ",encoder");
        if (s->type_vocab)
            put(buf, len, &u, ",type_vocab=%d", s->type_vocab);
        if (s->dropout)
            put(buf, len, &u, ",dropout");
        if (s->ckpt != SIM_CKPT_NONE && (unsigned)s->ckpt < 3)
            put(buf, len, &u, ",ckpt=%s", ckpt_names[s->ckpt]);
        if (s->attn != SIM_ATTN_PLAIN)
            put(buf, len, &u, ",attn=%s", sim_model_attn_name(s->attn));
        return buf;
    }
    if (s->kind == SIM_MODEL_COUNT) {
        put(buf, len, &u, "count:params=%lld", (long long)s->count_params);
        if (s->count_flops)
            put(buf, len, &u, ",flops=%lld", (long long)s->count_flops);
        return buf;
    }
    put(buf, len, &u, "mlp:");
    for (int i = 0; i < s->nwidths; i++)
        put(buf, len, &u, "%s%d", i ? "," : "", s->widths[i]);
    if (s->act == SIM_ACT_GELU)
        put(buf, len, &u, ",act=gelu");
    if (s->batchnorm)
        put(buf, len, &u, ",bn");
    if (s->unused_branch)
        put(buf, len, &u, ",unused");
    if (s->mse)
        put(buf, len, &u, ",mse");
    return buf;
}

const char *sim_model_describe(const SimModelSpec *s, char *buf, size_t len) {
    size_t u = 0;
    if (!len)
        return buf;
    buf[0] = '\0';
    if (s->kind == SIM_MODEL_COUNT) {
        put(buf, len, &u, "a parameter count only: %lld parameters in one flat tensor, no "
            "layers", (long long)s->count_params);
        if (s->count_flops)
            put(buf, len, &u, ", %lld forward FLOPs per sample (backward twice that)",
                (long long)s->count_flops);
        return buf;
    }
    if (s->kind == SIM_MODEL_GPT && sim_model_spec_phantom_only(s)) {
        int ffn = s->ffn ? s->ffn : 4 * s->embd;
        put(buf, len, &u, "%s of %d layers, width %d, %d heads", s->encoder
            ? "BERT-style encoder (post-norm, bidirectional)" : "decoder-only transformer "
            "(pre-norm, causal)", s->layers, s->embd, s->heads);
        if (s->kv_heads)
            put(buf, len, &u, " (%d key/value heads)", s->kv_heads);
        put(buf, len, &u, ", %s, %s MLP of width %d, %s positions, %s biases, context %d, "
            "vocabulary %d", s->norm == SIM_NORM_RMS ? "RMSNorm" : "LayerNorm",
            s->mlp == SIM_MLP_SWIGLU ? "SwiGLU" : "GELU", ffn,
            s->pos == SIM_POS_ROPE ? "rotary" : "learned",
            s->bias == SIM_GPT_BIAS_ALL ? "all" : s->bias == SIM_GPT_BIAS_NONE ? "no" : "MLP",
            s->ctx, s->vocab);
        if (s->encoder)
            put(buf, len, &u, ", %d token types, pooler, no LM head",
                s->type_vocab ? s->type_vocab : 2);
        else
            put(buf, len, &u, ", %s head", s->tied ? "tied" : "separate");
        if (s->ckpt != SIM_CKPT_NONE)
            put(buf, len, &u, ", %s activation checkpointing", sim_model_ckpt_name(s->ckpt));
        if (s->attn != SIM_ATTN_PLAIN)
            put(buf, len, &u, ", %s attention", sim_model_attn_name(s->attn));
        put(buf, len, &u, " (phantom mode only)");
        return buf;
    }
    if (s->kind == SIM_MODEL_GPT) {
        put(buf, len, &u, "MiniGPT(vocab=%d, n_embed=%d, n_head=%d, n_layer=%d, block=%d) "
            "without dropout, cross-entropy over B*T tokens", s->vocab, s->embd, s->heads,
            s->layers, s->ctx);
        return buf;
    }
    const char *act = s->act == SIM_ACT_GELU ? "GELU()" : "ReLU()";
    int L = s->nwidths - 1;
    put(buf, len, &u, "%s(", s->unused_branch ? "Sequential with an extra head" : "nn.Sequential");
    for (int i = 0; i < L; i++) {
        put(buf, len, &u, "%sLinear(%d, %d)", i ? ", " : "", s->widths[i], s->widths[i + 1]);
        if (i < L - 1) {
            if (s->batchnorm)
                put(buf, len, &u, ", BatchNorm1d(%d)", s->widths[i + 1]);
            put(buf, len, &u, ", %s", act);
        }
    }
    if (s->unused_branch)
        put(buf, len, &u, ", Linear(%d, %d) added to the output on even steps only",
            s->widths[L - 1], s->widths[L]);
    put(buf, len, &u, "), %s loss", s->mse ? "MSE" : "cross-entropy");
    return buf;
}
