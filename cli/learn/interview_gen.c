// cli/learn/interview_gen.c: the topics of `ddplab interview`, how a drill picks
// them, and the helpers the generators share. The generators themselves
// live one topic per file (cli/interview_<topic>.c).
#include "learn/interview.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef int (*IvGen)(SimSplitMix *g, IvQuestion *q, char *err, size_t errlen);

// A conceptual topic is its items alone; q->topic, set by iv_generate,
// says which topic's.
static int gen_choice(SimSplitMix *g, IvQuestion *q, char *err, size_t errlen) {
    if (iv_gen_choice(q->topic, g, q) == 0)
        return 0;
    snprintf(err, errlen, "topic %s holds no items", iv_topic_name(q->topic));
    return -1;
}

static const struct {
    const char *name;
    IvGen gen;
} topics[IV_TOPIC_COUNT] = {
    [IV_MEMORY] = {"memory", iv_gen_memory},
    [IV_COLLECTIVES] = {"collectives", iv_gen_collectives},
    [IV_BATCH] = {"batch", iv_gen_batch},
    [IV_BUCKETS] = {"buckets", iv_gen_buckets},
    [IV_SHARDING] = {"sharding", iv_gen_sharding},
    [IV_FAILURES] = {"failures", iv_gen_failures},
    [IV_STRATEGIES] = {"strategies", gen_choice},
    [IV_PRECISION] = {"precision", gen_choice},
    [IV_LAUNCHING] = {"launching", gen_choice},
    [IV_LOOP] = {"loop", gen_choice},
    [IV_RESILIENCE] = {"resilience", gen_choice},
};

const char *iv_topic_name(IvTopic t) {
    return (unsigned)t < IV_TOPIC_COUNT ? topics[t].name : "?";
}

int iv_topic_parse(const char *s, IvTopic *out) {
    for (int i = 0; i < IV_TOPIC_COUNT; i++)
        if (strcmp(s, topics[i].name) == 0) {
            *out = (IvTopic)i;
            return 0;
        }
    return -1;
}

int iv_generate(IvTopic t, uint64_t seed, int ordinal, IvQuestion *q, char *err,
                size_t errlen) {
    memset(q, 0, sizeof *q);
    if ((unsigned)t >= IV_TOPIC_COUNT || ordinal < 0) {
        snprintf(err, errlen, "unknown topic %d or ordinal %d", (int)t, ordinal);
        return -1;
    }
    q->topic = t;
    q->seed = seed;
    q->ordinal = ordinal;
    q->command_exits = IV_EXIT(0);
    // the ordinal-th question of the topic: its own stream of draws
    SimSplitMix g;
    sim_splitmix_seed(&g, seed ^ ((uint64_t)ordinal * 0x9E3779B97F4A7C15ull));
    sim_splitmix_next(&g);
    return topics[t].gen(&g, q, err, errlen);
}

void iv_plan_drill(uint64_t seed, const IvTopic *sel, int ntopics, int count, IvTopic *topic_of,
                   uint64_t *seeds, int *ordinals) {
    SimSplitMix g;
    sim_splitmix_seed(&g, seed);
    uint64_t topic_seed[IV_TOPIC_COUNT];
    int asked[IV_TOPIC_COUNT] = {0};
    for (int t = 0; t < IV_TOPIC_COUNT; t++)
        topic_seed[t] = sim_splitmix_next(&g);
    IvTopic order[IV_TOPIC_COUNT];
    int n = ntopics < IV_TOPIC_COUNT ? ntopics : IV_TOPIC_COUNT;
    memcpy(order, sel, (size_t)n * sizeof *order);
    for (int i = n - 1; i > 0; i--) { // Fisher-Yates
        int j = (int)sim_splitmix_below(&g, (uint64_t)i + 1);
        IvTopic t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (int i = 0; i < count; i++) {
        IvTopic t = order[i % n];
        topic_of[i] = t;
        seeds[i] = topic_seed[t];
        ordinals[i] = asked[t]++;
    }
}

uint64_t iv_text_hash(const char *s) {
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

int iv_generate_fresh(IvTopic t, uint64_t seed, int ordinal, int count,
                          const uint64_t *asked, int nasked, IvQuestion *q, char *err,
                          size_t errlen) {
    enum { TRIES = 16 };
    for (int k = 0; k < TRIES; k++) {
        if (iv_generate(t, seed, ordinal + k * count, q, err, errlen) != 0)
            return -1;
        uint64_t h = iv_text_hash(q->text);
        int seen = 0;
        for (int i = 0; i < nasked && !seen; i++)
            seen = asked[i] == h;
        if (!seen)
            return 0;
    }
    return iv_generate(t, seed, ordinal, q, err, errlen);
}

int iv_pick(SimSplitMix *g, int n) {
    return n <= 1 ? 0 : (int)sim_splitmix_below(g, (uint64_t)n);
}

const char *iv_grouped(int64_t v, char *buf, size_t len) {
    char digits[32];
    int neg = v < 0;
    uint64_t u = neg ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    int nd = snprintf(digits, sizeof digits, "%llu", (unsigned long long)u);
    size_t o = 0;
    if (neg && o + 1 < len)
        buf[o++] = '-';
    for (int i = 0; i < nd && o + 2 < len; i++) {
        if (i > 0 && (nd - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
    return buf;
}

void iv_append(char *buf, size_t len, const char *fmt, ...) {
    size_t used = strlen(buf);
    if (used + 1 >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, len - used, fmt, ap);
    va_end(ap);
}

void iv_set_value(IvQuestion *q, int k, const char *name, const char *unit, double value,
                  int decimals, double rel_tol, double abs_tol) {
    IvValue *v = &q->val[k];
    snprintf(v->name, sizeof v->name, "%s", name);
    snprintf(v->unit, sizeof v->unit, "%s", unit);
    v->value = value;
    v->decimals = decimals;
    v->rel_tol = rel_tol;
    v->abs_tol = abs_tol;
    if (q->nvalues < k + 1)
        q->nvalues = k + 1;
}
