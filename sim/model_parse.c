// sim/model_parse.c: the model spec language of --model, its canonical
// printed form, and the one-line name of the equivalent PyTorch module.
//
//   mlp:W0,W1,...,Wk[,act=relu|gelu][,bn][,unused][,mse]
//   gpt:layers=L,embd=C,heads=H,ctx=T,vocab=V
//
// Widths come first, options after them in any order. Every error names the
// field and what is allowed, because a spec is typed by a person.
#include "model.h"

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

static SimStatus fail(char *err, size_t errlen, const char *text, const char *fmt, ...) {
    char why[256];
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

static SimStatus parse_gpt(const char *text, char *body, SimModelSpec *s, char *err,
                           size_t errlen) {
    char *tok[8];
    int n = split(body, tok, 8);
    if (n < 0)
        return fail(err, errlen, text, "too many fields (gpt takes layers, embd, heads, ctx, "
                                       "vocab)");
    int *dst[5] = {&s->layers, &s->embd, &s->heads, &s->ctx, &s->vocab};
    int have[5] = {0};
    for (int i = 0; i < n; i++) {
        char *eq = strchr(tok[i], '=');
        int f = -1;
        if (eq) {
            *eq = '\0';
            for (int k = 0; k < 5; k++)
                if (strcmp(tok[i], gpt_fields[k].key) == 0)
                    f = k;
        }
        if (f < 0)
            return fail(err, errlen, text, "unknown field \"%s\" (allowed: layers=, embd=, "
                        "heads=, ctx=, vocab=)", tok[i]);
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
    } else if (!colon && (strcmp(text, "mlp") == 0 || strcmp(text, "gpt") == 0)) {
        return fail(err, errlen, text, "%s needs its fields after a colon, e.g. %s", text,
                    text[0] == 'm' ? "mlp:784,256,10"
                                   : "gpt:layers=4,embd=128,heads=4,ctx=64,vocab=65");
    } else {
        return fail(err, errlen, text, "unknown model kind \"%.*s\" (allowed: "
                    "mlp:784,256,10[,act=relu|gelu][,bn][,unused][,mse] or "
                    "gpt:layers=4,embd=128,heads=4,ctx=64,vocab=65)", (int)kindlen, text);
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
