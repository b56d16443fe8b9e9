// sim/data/dataset_synth.c: the built-in synthetic datasets, generated from a
// seed with splitmix64 (sampler.h), so a run is reproducible anywhere:
//
// - blobs:   C cluster centres c_k ~ N(0, spread^2 I) in D dimensions; each
//            sample draws a class k uniformly and x = c_k + N(0, noise^2 I).
// - teacher: a fixed random MLP D -> hidden (tanh) -> K with weights
//            N(0, 1/fan_in) and biases N(0, 0.1^2); x ~ N(0, I) and
//            y = teacher(x) + N(0, noise^2). A student MLP can fit it well.
// - arith:   lines "a+b=c\n" with a, b uniform in 0 .. 10^digits - 1, as a
//            character-level text for MiniGPT. The operands are random but
//            the sum is determined by them, so the loss falls visibly: first
//            the format ('+', '=', '\n' in the right places), then the digits
//            of the sum. The vocabulary is the task's alphabet "\n+0123456789="
//            (13 tokens), whatever the seed and length.
// - tokens:  n windows of seq tokens drawn uniformly from 0..vocab-1, for
//            sizing a run rather than learning anything (a llama's 4096-token
//            sequences without a text file): the stream holds n + seq + 1
//            ids, so there are exactly n samples (dataset.h). Ids are not
//            bytes; decoding shows none of them.
//
// The parameters of the generator (the centres, the teacher) come from one
// stream and the samples from another, so the same seed gives the same
// clusters or teacher whatever the number of samples.
#include "data/dataset.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errbuf.h"  // defines: sim_errbuf_fail
#include "data/sampler.h" // defines: SimSplitMix

#define SYNTH_MAX_ELEMS (1LL << 30) // N x D (or N x K) floats
#define ARITH_ALPHABET "\n+0123456789="
#define SYNTH_TWO_PI 6.283185307179586476925

// A standard normal by Box-Muller (one of the pair; the other is dropped so
// that every draw costs exactly two generator steps).
static double normal(SimSplitMix *g) {
    double u1 = 1.0 - sim_splitmix_unit(g); // (0, 1]: log is finite
    double u2 = sim_splitmix_unit(g);
    return sqrt(-2.0 * log(u1)) * cos(SYNTH_TWO_PI * u2);
}

// ----------------------------------------------------------------------------
// specs

SimStatus sim_dataset_synth_defaults(const char *name, SimSynthSpec *out) {
    memset(out, 0, sizeof *out);
    if (name == NULL)
        return SIM_EINVAL;
    if (strcmp(name, "blobs") == 0) {
        *out = (SimSynthSpec){.n = 2048, .features = 16, .classes = 4, .noise = 1.0f,
                              .spread = 3.0f};
    } else if (strcmp(name, "teacher") == 0) {
        *out = (SimSynthSpec){.n = 2048, .features = 16, .target_dim = 4, .hidden = 32,
                              .noise = 0.01f};
    } else if (strcmp(name, "arith") == 0) {
        *out = (SimSynthSpec){.n = 4000, .digits = 2};
    } else if (strcmp(name, "tokens") == 0) {
        *out = (SimSynthSpec){.n = 1024, .vocab = 256};
    } else {
        return SIM_EINVAL;
    }
    snprintf(out->name, sizeof out->name, "%s", name);
    return SIM_OK;
}

typedef struct {
    const char *key;
    const char *sets; // the sets it belongs to, as "b" (blobs) "t" (teacher) "a" (arith)
                      // "k" (tokens)
    long long lo, hi; // integer range (float keys use lo only, as >= lo)
    int is_float;
} Key;

static const Key KEYS[] = {
    {"n", "btk", 1, 100000000, 0},    {"features", "bt", 1, 1 << 20, 0},
    {"classes", "b", 2, 1 << 20, 0},  {"targets", "t", 1, 1 << 16, 0},
    {"hidden", "t", 1, 1 << 16, 0},   {"noise", "bt", 0, 0, 1},
    {"spread", "b", 0, 0, 1},         {"lines", "a", 1, 10000000, 0},
    {"digits", "a", 1, 9, 0},         {"ctx", "a", 1, 1 << 16, 0},
    {"seq", "k", 1, 1 << 17, 0},      {"vocab", "k", 1, 1 << 20, 0},
    {"seed", "btak", 0, 0, 0},
};

// The letter KEYS uses for a set.
static char set_letter(const char *name) {
    return strcmp(name, "tokens") == 0 ? 'k' : name[0];
}

// Stores value text v for key k into the spec.
static SimStatus set_key(SimSynthSpec *s, const Key *k, const char *v, char *err,
                         size_t errlen) {
    char *end;
    errno = 0;
    if (k->is_float) {
        double d = strtod(v, &end);
        if (*v == '\0' || *end != '\0' || errno != 0 || !isfinite(d) || d < 0 || d > 1e6)
            return sim_errbuf_fail(err, errlen, SIM_EINVAL,
                                   "%s: %s=%s: expected a number from 0 to 1e6", s->name, k->key,
                                   v);
        *(strcmp(k->key, "noise") == 0 ? &s->noise : &s->spread) = (float)d;
        return SIM_OK;
    }
    if (strcmp(k->key, "seed") == 0) {
        unsigned long long u = strtoull(v, &end, 10);
        if (*v < '0' || *v > '9' || *end != '\0' || errno != 0)
            return sim_errbuf_fail(err, errlen, SIM_EINVAL,
                                   "%s: seed=%s: expected an unsigned integer", s->name, v);
        s->seed = u;
        s->seed_given = 1;
        return SIM_OK;
    }
    long long x = strtoll(v, &end, 10);
    if (*v == '\0' || *end != '\0' || errno != 0 || x < k->lo || x > k->hi)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL,
                               "%s: %s=%s: expected an integer from %lld to %lld", s->name, k->key,
                               v, k->lo, k->hi);
    if (strcmp(k->key, "n") == 0 || strcmp(k->key, "lines") == 0)
        s->n = x;
    else if (strcmp(k->key, "features") == 0)
        s->features = (int)x;
    else if (strcmp(k->key, "classes") == 0)
        s->classes = (int)x;
    else if (strcmp(k->key, "targets") == 0)
        s->target_dim = (int)x;
    else if (strcmp(k->key, "hidden") == 0)
        s->hidden = (int)x;
    else if (strcmp(k->key, "digits") == 0)
        s->digits = (int)x;
    else if (strcmp(k->key, "vocab") == 0)
        s->vocab = (int)x;
    else
        s->ctx = (int)x; // ctx (arith) or seq (tokens): the window length
    return SIM_OK;
}

SimStatus sim_dataset_synth_parse(const char *text, SimSynthSpec *out, char *err,
                                  size_t errlen) {
    char buf[256];
    if (text == NULL || out == NULL)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL, "dataset: no spec");
    if (strlen(text) >= sizeof buf)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL, "dataset spec is too long");
    snprintf(buf, sizeof buf, "%s", text);
    char *colon = strchr(buf, ':');
    if (colon != NULL)
        *colon = '\0';
    if (sim_dataset_synth_defaults(buf, out) != SIM_OK)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL,
                               "unknown dataset '%s' (built-in sets: blobs, teacher, arith, "
                               "tokens)", buf);
    char set = set_letter(buf);
    for (char *item = colon ? colon + 1 : NULL, *next; item != NULL; item = next) {
        next = strchr(item, ',');
        if (next != NULL)
            *next++ = '\0';
        char *eq = strchr(item, '=');
        if (eq == NULL || eq == item)
            return sim_errbuf_fail(err, errlen, SIM_EINVAL, "%s: '%s': expected key=value",
                                   out->name, item);
        *eq = '\0';
        const Key *k = NULL;
        for (size_t j = 0; j < sizeof KEYS / sizeof KEYS[0]; j++)
            if (strcmp(KEYS[j].key, item) == 0)
                k = &KEYS[j];
        if (k == NULL || strchr(k->sets, set) == NULL)
            return sim_errbuf_fail(err, errlen, SIM_EINVAL, "%s: unknown key '%s'", out->name,
                                   item);
        SIM_CHECK(set_key(out, k, eq + 1, err, errlen));
    }
    return SIM_OK;
}

// ----------------------------------------------------------------------------
// generators

static SimStatus gen_blobs(SimDataset *ds, const SimSynthSpec *s) {
    size_t n = (size_t)s->n, d = (size_t)s->features, c = (size_t)s->classes;
    float *centres = malloc(c * d * sizeof(float));
    ds->x = malloc(n * d * sizeof(float));
    ds->labels = malloc(n * sizeof(int32_t));
    if (centres == NULL || ds->x == NULL || ds->labels == NULL) {
        free(centres);
        return SIM_ENOMEM;
    }
    SimSplitMix gp, gs; // parameters, samples
    sim_splitmix_seed(&gp, s->seed);
    sim_splitmix_seed(&gs, sim_splitmix_next(&gp));
    for (size_t k = 0; k < c * d; k++)
        centres[k] = (float)(s->spread * normal(&gp));
    for (size_t i = 0; i < n; i++) {
        size_t k = (size_t)sim_splitmix_below(&gs, c);
        ds->labels[i] = (int32_t)k;
        for (size_t j = 0; j < d; j++)
            ds->x[i * d + j] = (float)(centres[k * d + j] + s->noise * normal(&gs));
    }
    free(centres);
    ds->kind = SIM_DATA_CLASSES;
    ds->classes = s->classes;
    return SIM_OK;
}

static SimStatus gen_teacher(SimDataset *ds, const SimSynthSpec *s) {
    size_t n = (size_t)s->n, d = (size_t)s->features, h = (size_t)s->hidden;
    size_t k = (size_t)s->target_dim;
    // w1 [h, d], b1 [h], w2 [k, h], b2 [k], then a scratch hidden row [h].
    double *w = malloc((h * d + h + k * h + k + h) * sizeof(double));
    ds->x = malloc(n * d * sizeof(float));
    ds->targets = malloc(n * k * sizeof(float));
    if (w == NULL || ds->x == NULL || ds->targets == NULL) {
        free(w);
        return SIM_ENOMEM;
    }
    double *w1 = w, *b1 = w1 + h * d, *w2 = b1 + h, *b2 = w2 + k * h, *hid = b2 + k;
    SimSplitMix gp, gs;
    sim_splitmix_seed(&gp, s->seed);
    sim_splitmix_seed(&gs, sim_splitmix_next(&gp));
    for (size_t q = 0; q < h * d; q++)
        w1[q] = normal(&gp) / sqrt((double)d);
    for (size_t q = 0; q < h; q++)
        b1[q] = 0.1 * normal(&gp);
    for (size_t q = 0; q < k * h; q++)
        w2[q] = normal(&gp) / sqrt((double)h);
    for (size_t q = 0; q < k; q++)
        b2[q] = 0.1 * normal(&gp);
    for (size_t i = 0; i < n; i++) {
        float *x = ds->x + i * d;
        for (size_t j = 0; j < d; j++)
            x[j] = (float)normal(&gs);
        for (size_t u = 0; u < h; u++) {
            double a = b1[u];
            for (size_t j = 0; j < d; j++)
                a += w1[u * d + j] * x[j];
            hid[u] = tanh(a);
        }
        for (size_t o = 0; o < k; o++) {
            double y = b2[o];
            for (size_t u = 0; u < h; u++)
                y += w2[o * h + u] * hid[u];
            ds->targets[i * k + o] = (float)(y + s->noise * normal(&gs));
        }
    }
    free(w);
    ds->kind = SIM_DATA_TARGETS;
    ds->target_dim = s->target_dim;
    return SIM_OK;
}

static SimStatus gen_arith(SimDataset *ds, const SimSynthSpec *s, char *err, size_t errlen) {
    if (s->ctx < 1)
        return sim_errbuf_fail(
            err, errlen, SIM_EINVAL,
            "arith: the context length is not set (give ctx=, or a model with ctx=)");
    uint64_t limit = 1;
    for (int k = 0; k < s->digits; k++)
        limit *= 10;
    size_t line_max = 3 * (size_t)s->digits + 4; // a, b, a sum one digit longer, "+=\n"
    unsigned char *text = malloc((size_t)s->n * line_max + 1);
    if (text == NULL)
        return sim_errbuf_fail(err, errlen, SIM_ENOMEM, "arith: out of memory for %lld lines",
                               (long long)s->n);
    SimSplitMix g;
    sim_splitmix_seed(&g, s->seed);
    size_t len = 0;
    for (int64_t i = 0; i < s->n; i++) {
        unsigned long long a = sim_splitmix_below(&g, limit);
        unsigned long long b = sim_splitmix_below(&g, limit);
        len += (size_t)snprintf((char *)text + len, line_max + 1, "%llu+%llu=%llu\n", a, b,
                                a + b);
    }
    const unsigned char *alpha = (const unsigned char *)ARITH_ALPHABET;
    SimStatus st = sim_dataset_from_bytes(ds, "arith", text, len, s->ctx, alpha,
                                          (int)strlen(ARITH_ALPHABET), err, errlen);
    free(text);
    return st;
}

static SimStatus gen_tokens(SimDataset *ds, const SimSynthSpec *s, char *err, size_t errlen) {
    if (s->ctx < 1)
        return sim_errbuf_fail(
            err, errlen, SIM_EINVAL,
            "tokens: the sequence length is not set (give seq=, or a model with ctx=)");
    if (s->n < 1 || s->n > 100000000 || s->vocab < 1 || s->vocab > (1 << 20) ||
        s->ctx > (1 << 17))
        return sim_errbuf_fail(err, errlen, SIM_EINVAL,
                               "tokens: n=%lld seq=%d vocab=%d out of range (n 1..1e8, seq "
                               "1..131072, vocab 1..1048576)", (long long)s->n, s->ctx, s->vocab);
    int64_t len = s->n + s->ctx + 1; // N = L - T - 1 windows (dataset.h)
    ds->tokens = malloc((size_t)len * sizeof *ds->tokens);
    if (ds->tokens == NULL)
        return sim_errbuf_fail(err, errlen, SIM_ENOMEM, "tokens: out of memory for %lld ids",
                               (long long)len);
    SimSplitMix g;
    sim_splitmix_seed(&g, s->seed);
    for (int64_t i = 0; i < len; i++)
        ds->tokens[i] = (int32_t)sim_splitmix_below(&g, (uint64_t)s->vocab);
    ds->kind = SIM_DATA_TOKENS;
    ds->n = s->n;
    ds->ctx = s->ctx;
    ds->ntokens = len;
    ds->vocab = s->vocab;
    memset(ds->vocab_bytes, '?', sizeof ds->vocab_bytes); // ids are no bytes
    snprintf(ds->name, sizeof ds->name, "tokens");
    return SIM_OK;
}

SimStatus sim_dataset_synth(SimDataset *ds, const SimSynthSpec *spec, char *err,
                            size_t errlen) {
    if (ds == NULL || spec == NULL)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL, "dataset: no spec");
    memset(ds, 0, sizeof *ds);
    SimSynthSpec def;
    if (sim_dataset_synth_defaults(spec->name, &def) != SIM_OK)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL,
                               "unknown dataset '%s' (built-in sets: blobs, teacher, arith, "
                               "tokens)", spec->name);
    if (strcmp(spec->name, "arith") == 0) {
        if (spec->n < 1 || spec->digits < 1 || spec->digits > 9)
            return sim_errbuf_fail(err, errlen, SIM_EINVAL,
                                   "arith: lines=%lld digits=%d out of range", (long long)spec->n,
                                   spec->digits);
        return gen_arith(ds, spec, err, errlen);
    }
    if (strcmp(spec->name, "tokens") == 0)
        return gen_tokens(ds, spec, err, errlen);
    int blobs = strcmp(spec->name, "blobs") == 0;
    int cols = blobs ? spec->features : spec->features + spec->target_dim;
    if (spec->n < 1 || spec->features < 1 || (blobs && spec->classes < 2) ||
        (!blobs && (spec->target_dim < 1 || spec->hidden < 1)) || !(spec->noise >= 0) ||
        !(spec->spread >= 0) || !isfinite(spec->noise) || !isfinite(spec->spread))
        return sim_errbuf_fail(err, errlen, SIM_EINVAL, "%s: invalid parameters", spec->name);
    if ((long long)cols > SYNTH_MAX_ELEMS / spec->n)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL, "%s: %lld samples x %d values is too large",
                               spec->name, (long long)spec->n, cols);
    SimStatus st = blobs ? gen_blobs(ds, spec) : gen_teacher(ds, spec);
    if (st != SIM_OK) {
        sim_dataset_free(ds);
        return sim_errbuf_fail(err, errlen, st, "%s: out of memory", spec->name);
    }
    ds->n = spec->n;
    ds->features = spec->features;
    snprintf(ds->name, sizeof ds->name, "%s", spec->name);
    return SIM_OK;
}
