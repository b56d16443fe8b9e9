// tests/test_interview_gen.c: the interview's questions checked against
// arithmetic written out here, independently of the engine: busbw = algbw x
// 2(R-1)/R (all_reduce) or (R-1)/R, algbw = size / time, a ring all_reduce
// takes 2(R-1) steps and sends 2(R-1)/R of the data per rank, effective
// batch = b R k and lr x R k, ceil(N / R) samples per rank, the ZeRO
// paper's 16Ψ, 4Ψ + 12Ψ/N, 2Ψ + 14Ψ/N, 16Ψ/N, FSDP's padding and divide
// factors, DDP's rebuilt buckets walked over the tensor sizes the question
// lists: every answer from the numbers its question gives, for single draws
// and for whole drills, and each command on the question's own figures.
// And the grading: what is read from an answer, the tolerances, and
// determinism (the same seed gives the same question).
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "learn/interview.h"
#include "test_env.h"

// "13,015,864,320" at s -> 13015864320.
static double grouped_number(const char *s) {
    char digits[40];
    int n = 0;
    for (; *s && n < 39 && ((*s >= '0' && *s <= '9') || *s == ','); s++)
        if (*s != ',')
            digits[n++] = *s;
    digits[n] = '\0';
    return strtod(digits, NULL);
}

static int near(double a, double b, double rel) {
    return fabs(a - b) <= rel * fabs(b) + 1e-12;
}

static int check_collectives(const IvQuestion *q) {
    char kind[32];
    int r = 0;
    double algbw = 0, mib = 0, us = 0;
    const char *t = q->text;
    if (sscanf(t, "nccl-tests runs %31s on %d GPUs and reports an algorithm bandwidth (algbw) "
                  "of %lf GB/s", kind, &r, &algbw) == 3) {
        double f = strcmp(kind, "all_reduce") == 0 ? 2.0 * (r - 1) / r : (double)(r - 1) / r;
        CHECK_EQ_INT(q->nvalues, 1);
        CHECK(near(q->val[0].value, algbw * f, 1e-12));
        return 0;
    }
    if (sscanf(t, "nccl-tests times %31s of fp32 on %d GPUs", kind, &r) == 2) {
        const char *m = strstr(t, " bytes (");
        const char *u = strstr(t, "measures ");
        CHECK(m && u && sscanf(m + 8, "%lf MiB", &mib) == 1 && sscanf(u + 9, "%lf us", &us) == 1);
        double alg = mib * 1048576.0 / (us * 1e-6) / 1e9;
        double f = strcmp(kind, "all_reduce") == 0 ? 2.0 * (r - 1) / r : (double)(r - 1) / r;
        CHECK_EQ_INT(q->nvalues, 2);
        CHECK(near(q->val[0].value, alg, 1e-12));
        CHECK(near(q->val[1].value, alg * f, 1e-12));
        return 0;
    }
    int kib = 0, nodes = 0;
    if (sscanf(t, "An all_reduce of %d KiB of fp32 runs on %d nodes of 8 GPUs", &kib,
               &nodes) == 2) {
        // the double binary tree: K chunks of 64 Ki elements per half, K + 2H - 1 steps
        int R = 8 * nodes, H = 0;
        while ((2 << H) <= R)
            H++;
        long half = (long)kib * 256 / 2, K = (half + 65535) / 65536;
        CHECK_EQ_INT(q->nvalues, 2);
        CHECK_EQ_INT(q->val[0].value, 2 * (R - 1));
        CHECK_EQ_INT(q->val[1].value, (K < 1 ? 1 : K) + 2 * H - 1);
        return 0;
    }
    int m = 0;
    CHECK(sscanf(t, "A ring all_reduce sums %d MiB of fp32 gradients over %d ranks", &m, &r) == 2);
    CHECK_EQ_INT(q->val[0].value, 2 * (r - 1));
    // the chunks differ by an element at most when R does not divide the count
    CHECK_NEAR(q->val[1].value, 2.0 * (r - 1) / r * m, 1e-4);
    return 0;
}

static int check_batch(const IvQuestion *q) {
    double lr = 0;
    int b = 0, r = 0, b2 = 0, k = 0;
    if (sscanf(q->text, "A script tuned with lr %lf for a batch of %d on one GPU moves to DDP on "
                        "%d GPUs, keeps %d samples per GPU and accumulates gradients over %d",
               &lr, &b, &r, &b2, &k) == 5) {
        CHECK_EQ_INT(b, b2);
        CHECK_EQ_INT(q->val[0].value, b * r * k);
        CHECK(near(q->val[1].value, lr * r * k, 1e-12));
        return 0;
    }
    const char *s = strstr(q->text, "splits ");
    CHECK(s != NULL);
    double n = grouped_number(s + 7);
    const char *o = strstr(q->text, " samples over ");
    const char *bs = strstr(q->text, "batch_size=");
    CHECK(o && bs && sscanf(o + 14, "%d", &r) == 1 && sscanf(bs + 11, "%d", &b) == 1);
    int drop = strstr(q->text, "with drop_last=True") != NULL;
    long per = (long)ceil(n / r);
    long batches = drop ? per / b : (per + b - 1) / b;
    CHECK_EQ_INT(q->val[0].value, per);
    CHECK_EQ_INT(q->val[1].value, batches);
    return 0;
}

static int check_memory(const IvQuestion *q) {
    double psi = 0, bil = 0;
    int n = 0;
    if (sscanf(q->text, "A model of %lf billion parameters", &bil) == 1)
        psi = bil * 1e9;
    else
        psi = grouped_number(strchr(q->text, '(') + 1);
    const char *on = strstr(q->text, " GPUs, how many");
    CHECK(on != NULL);
    while (on > q->text && on[-1] != ' ')
        on--;
    CHECK(sscanf(on, "%d", &n) == 1);
    double gb;
    if (strstr(q->text, "With DDP on"))
        gb = 16 * psi;
    else if (strstr(q->text, "ZeRO stage 1"))
        gb = 4 * psi + 12 * psi / n;
    else if (strstr(q->text, "ZeRO stage 2"))
        gb = 2 * psi + 14 * psi / n;
    else if (strstr(q->text, "ZeRO stage 3"))
        gb = 16 * psi / n;
    else {
        CHECK(strstr(q->text, "FSDP FULL_SHARD") != NULL);
        // + padding: under N elements per unit, a few hundred units at most
        double v = q->val[0].value * 1e9;
        CHECK(v >= 16 * psi / n - 1e-3 && v <= 16 * psi / n + 16.0 * 1000);
        // the padding is not in the text: 16 psi / N must grade right anyway
        char ans[64], why[256];
        snprintf(ans, sizeof ans, "%.4f", 16 * psi / n / 1e9);
        CHECK_EQ_INT(iv_grade(q, ans, why, sizeof why), 1);
        return 0;
    }
    CHECK(near(q->val[0].value, gb / 1e9, 1e-12));
    return 0;
}

static int check_sharding(const IvQuestion *q) {
    int d, h, h2, c, n;
    if (sscanf(q->text, "FSDP FULL_SHARD wraps each Linear of nn.Sequential(Linear(%d, %d), "
                        "ReLU(), Linear(%d, %d)) as a unit and shards it over %d ranks",
               &d, &h, &h2, &c, &n) == 5) {
        long numel = (long)d * h + h, per = (numel + n - 1) / n;
        CHECK_EQ_INT(q->val[0].value, per);
        CHECK_EQ_INT(q->val[1].value, per * n - numel);
        return 0;
    }
    const char *on = strstr(q->text, "On ");
    CHECK(on && sscanf(on + 3, "%d", &n) == 1);
    int f = 1; // torch.distributed.fsdp's _get_gradient_predivide_factor
    while (n % f == 0 && n / f > f)
        f *= 2;
    CHECK_EQ_INT(q->val[0].value, f);
    CHECK(near(q->val[1].value, (double)n / f, 1e-15));
    return 0;
}

// The numbers of a list "3,072 9,437,184 ..." at s into v[] (at most max),
// up to the first character that is no digit, comma or blank before a
// digit; the count. *end: where the list stops.
static int number_list(const char *s, double *v, int max, const char **end) {
    int n = 0;
    while (n < max && *s >= '0' && *s <= '9') {
        v[n++] = grouped_number(s);
        while ((*s >= '0' && *s <= '9') || (*s == ',' && s[1] >= '0' && s[1] <= '9'))
            s++;
        if (*s == ' ' && s[1] >= '0' && s[1] <= '9')
            s++;
    }
    *end = s;
    return n;
}

// PyTorch 1.13's rebuild on the sizes the question gives, written out here:
// walk them in ready order, a bucket closes once it holds its limit (1 MiB
// for the first, then the cap), the open one at the end counts too.
static int rebuilt_buckets(const double *bytes, int n, double cap) {
    int buckets = 0;
    double held = 0;
    for (int i = 0; i < n; i++) {
        held += bytes[i];
        if (held >= (buckets == 0 ? 1048576.0 : cap)) {
            buckets++;
            held = 0;
        }
    }
    return buckets + (held > 0);
}

// "K blocks, each in this order: " at p: K, or 0 when p says something else.
static int blocks_at(const char *p) {
    int k = 0, used = 0;
    return sscanf(p, "%d blocks, each in this order: %n", &k, &used) == 1 && used > 0 ? k : 0;
}

// The ready order of a buckets question as the text gives it: a head, a
// number of blocks of the same sizes, a tail. The sizes in order into v;
// their count, or -1 when the text does not read so.
static int ready_sizes(const char *text, double *v, int max) {
    const char *p = strstr(text, "in this order, in bytes: "), *e;
    if (p == NULL)
        return -1;
    p += 25;
    int n = 0, blocks = blocks_at(p);
    if (blocks == 0) {
        n = number_list(p, v, max, &e);
        if (strncmp(e, ", then ", 7) != 0)
            return n; // a list without blocks
        p = e + 7;
        if ((blocks = blocks_at(p)) == 0)
            return -1;
    }
    p = strstr(p, "each in this order: ") + 20;
    double block[64];
    int per = number_list(p, block, 64, &e);
    for (int b = 0; b < blocks; b++)
        for (int i = 0; i < per && n < max; i++)
            v[n++] = block[i];
    if (strncmp(e, ", then ", 7) == 0)
        n += number_list(e + 7, v + n, max - n, &e);
    return n;
}

static int check_buckets(const IvQuestion *q) {
    // every gradient's size is in the text: the counts follow from it alone
    // (the engine's plans are checked against `ddplab run --print-buckets`
    // in test_cli_interview)
    CHECK_EQ_INT(q->val[0].value, 1);
    const char *g = strstr(q->text, "fp32 gradients of ");
    const char *c = strstr(q->text, "bucket_cap_mb=");
    const char *t = strstr(q->text, "parameters in ");
    CHECK(g && c && t && strstr(q->text, "limited to 1 MiB"));
    double total = grouped_number(g + 18), mb = atof(c + 14), sizes[1024], sum = 0;
    int tensors = atoi(t + 14), n = ready_sizes(q->text, sizes, 1024);
    CHECK_EQ_INT(n, tensors);
    for (int i = 0; i < n; i++)
        sum += sizes[i];
    CHECK_NEAR(sum, total, 0.5);
    CHECK_EQ_INT(q->val[1].value, rebuilt_buckets(sizes, n, floor(mb * 1048576)));
    return 0;
}

// The "see it" command runs what the question asks about: its collective,
// its ranks and, where the question gives one, its size.
static int check_command(const IvQuestion *q) {
    const char *t = q->text, *c = q->command;
    char kind[32], want[96];
    int r = 0, mib = 0, kib = 0, nodes = 0;
    if (sscanf(t, "nccl-tests runs %31s on %d GPUs", kind, &r) == 2) {
        snprintf(want, sizeof want, "-c %s -n %d ", kind, r);
    } else if (sscanf(t, "nccl-tests times %31s of fp32 on %d GPUs", kind, &r) == 2) {
        const char *m = strstr(t, " bytes (");
        CHECK(m && sscanf(m + 8, "%d MiB", &mib) == 1);
        snprintf(want, sizeof want, "-c %s -n %d -b %dM -e %dM ", kind, r, mib, mib);
    } else if (sscanf(t, "An all_reduce of %d KiB of fp32 runs on %d nodes", &kib, &nodes) == 2) {
        snprintf(want, sizeof want, "-n %d --nodes %d -b %dK -e %dK ", 8 * nodes, nodes, kib,
                 kib);
    } else if (sscanf(t, "A ring all_reduce sums %d MiB of fp32 gradients over %d ranks", &mib,
                      &r) == 2) {
        snprintf(want, sizeof want, "-c all_reduce -a ring -n %d -b %dM -e %dM ", r, mib, mib);
    } else {
        return 0;
    }
    CHECK_STR_CONTAINS(c, want);
    return 0;
}

// Every check of one question: nothing cut short, the answer from the
// numbers in its text alone, its command on the question's own figures.
// The item of its topic whose question q asks, or NULL.
static const IvChoiceItem *item_of(const IvQuestion *q) {
    int n;
    const IvChoiceItem *items = iv_choice_items(q->topic, &n);
    for (int i = 0; items && i < n; i++)
        if (strcmp(items[i].question, q->text) == 0)
            return &items[i];
    return NULL;
}

// A multiple-choice question is one of its topic's items: four distinct
// choices, exactly one of them the item's right answer and the other three
// its wrong ones, an explanation, and a ddplab command.
static int check_choice(const IvQuestion *q) {
    const IvChoiceItem *it = item_of(q);
    CHECK(it != NULL);
    CHECK_EQ_INT(q->nvalues, 0);
    CHECK(q->correct >= 0 && q->correct < IV_NCHOICES);
    int right = 0;
    for (int a = 0; a < IV_NCHOICES; a++) {
        for (int b = a + 1; b < IV_NCHOICES; b++)
            CHECK(strcmp(q->choice[a], q->choice[b]) != 0);
        int is_wrong = 0;
        for (int w = 0; w < IV_NWRONG; w++)
            is_wrong |= strcmp(q->choice[a], it->wrong[w]) == 0;
        right += strcmp(q->choice[a], it->right) == 0;
        CHECK(is_wrong == (a != q->correct));
    }
    CHECK_EQ_INT(right, 1);
    CHECK(strcmp(q->choice[q->correct], it->right) == 0);
    CHECK(strlen(q->explain) > 80 && strcmp(q->explain, it->explain) == 0);
    CHECK(strncmp(q->command, "ddplab ", 7) == 0);
    CHECK(q->command_exits & IV_EXIT(it->exit_code));
    CHECK((it->exit_code == 0) == (q->command_note[0] == '\0'));
    // the texts fit their fields whole: nothing is cut
    CHECK(strlen(it->question) < sizeof q->text && strlen(it->right) < sizeof q->choice[0]);
    for (int w = 0; w < IV_NWRONG; w++)
        CHECK(strlen(it->wrong[w]) < sizeof q->choice[0]);
    CHECK(strlen(it->explain) < sizeof q->explain && strlen(it->command) < sizeof q->command);
    return 0;
}

static int check_question(const IvQuestion *q) {
    CHECK(q->text[0] && q->explain[0] && strncmp(q->command, "ddplab ", 7) == 0);
    // nothing was cut short by its buffer
    CHECK(strlen(q->text) < sizeof q->text - 1);
    CHECK(strlen(q->explain) < sizeof q->explain - 1);
    CHECK(strlen(q->command) < sizeof q->command - 1);
    int rc = 0;
    switch (q->topic) {
    case IV_COLLECTIVES: rc = check_collectives(q) || check_command(q); break;
    case IV_BATCH: rc = check_batch(q); break;
    case IV_MEMORY: rc = check_memory(q); break;
    case IV_SHARDING: rc = check_sharding(q); break;
    case IV_BUCKETS: rc = check_buckets(q); break;
    default: rc = check_choice(q);
    }
    if (rc)
        fprintf(stderr, "question: %s\ncommand: %s\n", q->text, q->command);
    return rc;
}

static int test_arithmetic(void) {
    int per_topic = tenv_quick() ? 40 : 200;
    for (int t = 0; t < IV_TOPIC_COUNT; t++) {
        for (int s = 0; s < per_topic; s++) {
            if (t == IV_BUCKETS && s >= 30)
                break; // a few presets and caps: 30 draws see them
            IvQuestion q;
            char err[256];
            uint64_t seed = (uint64_t)(s / 10) * 2654435761u + 17; // 10 ordinals a seed
            if (iv_generate((IvTopic)t, seed, s % 10, &q, err, sizeof err)) {
                fprintf(stderr, "%s: %s\n", iv_topic_name((IvTopic)t), err);
                return 1;
            }
            CHECK(q.topic == (IvTopic)t);
            if (check_question(&q))
                return 1;
        }
    }
    return 0;
}

// Whole drills as `ddplab interview --seed S --count N` asks them, among
// them the one whose buckets question once gave no tensor sizes: every
// question passes check_question.
static int test_drills(void) {
    static const uint64_t given[] = {1796153295996ull, 1, 7, 2024};
    int nseeds = tenv_quick() ? 8 : 40, count = 12;
    IvTopic all[IV_TOPIC_COUNT], topic_of[12];
    uint64_t seeds[12], asked[12];
    int ordinals[12];
    for (int t = 0; t < IV_TOPIC_COUNT; t++)
        all[t] = (IvTopic)t;
    for (int k = 0; k < nseeds; k++) {
        uint64_t seed = k < 4 ? given[k] : 1000000007ull * (uint64_t)k + 3;
        iv_plan_drill(seed, all, IV_TOPIC_COUNT, count, topic_of, seeds, ordinals);
        for (int i = 0; i < count; i++) {
            IvQuestion q;
            char err[256];
            CHECK(iv_generate_fresh(topic_of[i], seeds[i], ordinals[i], count, asked, i, &q, err,
                                    sizeof err) == 0);
            asked[i] = iv_text_hash(q.text);
            if (check_question(&q)) {
                fprintf(stderr, "drill --seed %llu, question %d\n", (unsigned long long)seed,
                        i + 1);
                return 1;
            }
        }
    }
    return 0;
}

// The ZeRO paper's Figure 1: 7.5B parameters on 64 GPUs, through the generator.
static int test_zero_paper(void) {
    int seen = 0;
    for (uint64_t s = 0; s < 20000 && seen < 4; s++) {
        IvQuestion q;
        char err[128];
        CHECK(iv_generate(IV_MEMORY, s, 0, &q, err, sizeof err) == 0);
        if (!strstr(q.text, "A model of 7.5 billion") || !strstr(q.text, " on 64 GPUs"))
            continue;
        double want = strstr(q.text, "DDP") ? 120 : strstr(q.text, "stage 1") ? 31.40625
                      : strstr(q.text, "stage 2") ? 16.640625 : 1.875;
        CHECK_NEAR(q.val[0].value, want, 1e-9);
        seen++;
    }
    CHECK(seen > 0);
    return 0;
}

// Topic t's first n questions (n items) ask each item once; the failures
// topic's items are also those iv_failure_item gives.
static int check_walk(IvTopic t) {
    int n;
    const IvChoiceItem *items = iv_choice_items(t, &n);
    if (items == NULL)
        return 0;
    int seen[64] = {0};
    CHECK(n >= 5 && n <= 64);
    CHECK(t != IV_FAILURES || n == iv_failure_count());
    for (int k = 0; k < n; k++) {
        IvQuestion q;
        char err[128];
        CHECK(iv_generate(t, 77, k, &q, err, sizeof err) == 0);
        int item = -1;
        for (int i = 0; i < n && item < 0; i++)
            if (strcmp(items[i].question, q.text) == 0)
                item = i;
        CHECK(item >= 0);
        CHECK_EQ_INT(seen[item]++, 0);
        if (t == IV_FAILURES) {
            IvQuestion x;
            SimSplitMix g;
            sim_splitmix_seed(&g, 1);
            iv_failure_item(item, &g, &x);
            CHECK(strcmp(x.text, q.text) == 0 && strcmp(x.explain, q.explain) == 0);
        }
    }
    return 0;
}

static int test_determinism(void) {
    for (int t = 0; t < IV_TOPIC_COUNT; t++) {
        IvQuestion a, b;
        char err[128];
        CHECK(iv_generate((IvTopic)t, 42, 3, &a, err, sizeof err) == 0);
        CHECK(iv_generate((IvTopic)t, 42, 3, &b, err, sizeof err) == 0);
        CHECK(memcmp(&a, &b, sizeof a) == 0);
        CHECK(iv_generate((IvTopic)t, 42, 4, &b, err, sizeof err) == 0);
        CHECK(a.ordinal == 3 && b.ordinal == 4 && a.seed == 42);
    }
    enum { N = 2 * IV_TOPIC_COUNT };
    IvTopic all[IV_TOPIC_COUNT], t1[N], t2[N], mem = IV_MEMORY, t3[2];
    uint64_t s1[N], s2[N], s3[2];
    int o1[N], o2[N], o3[2];
    for (int t = 0; t < IV_TOPIC_COUNT; t++)
        all[t] = (IvTopic)t;
    iv_plan_drill(9, all, IV_TOPIC_COUNT, N, t1, s1, o1);
    iv_plan_drill(9, all, IV_TOPIC_COUNT, N, t2, s2, o2);
    CHECK(memcmp(t1, t2, sizeof t1) == 0 && memcmp(s1, s2, sizeof s1) == 0 &&
          memcmp(o1, o2, sizeof o1) == 0);
    // every topic once in each run of IV_TOPIC_COUNT, as its ordinal 0 then 1
    for (int i = 0; i < N; i += IV_TOPIC_COUNT) {
        int seen[IV_TOPIC_COUNT] = {0};
        for (int k = 0; k < IV_TOPIC_COUNT; k++) {
            seen[t1[i + k]]++;
            CHECK_EQ_INT(o1[i + k], i / IV_TOPIC_COUNT);
        }
        for (int k = 0; k < IV_TOPIC_COUNT; k++)
            CHECK_EQ_INT(seen[k], 1);
    }
    // a topic's questions do not depend on which other topics are selected
    iv_plan_drill(9, &mem, 1, 2, t3, s3, o3);
    for (int i = 0; i < N; i++)
        if (t1[i] == IV_MEMORY)
            CHECK(s1[i] == s3[0]);
    // a multiple-choice topic asks every item once before it repeats one
    for (int t = 0; t < IV_TOPIC_COUNT; t++)
        if (check_walk((IvTopic)t) != 0)
            return 1;
    return 0;
}

static int test_grading(void) {
    IvQuestion q;
    char why[400], buf[64];
    memset(&q, 0, sizeof q);
    iv_set_value(&q, 0, "bytes", "", 1048576, 0, 0, 0);
    CHECK(1 == iv_grade(&q, "1048576", why, sizeof why));
    CHECK(1 == iv_grade(&q, "1,048,576", why, sizeof why));
    CHECK(1 == iv_grade(&q, "  1048576 bytes ", why, sizeof why));
    CHECK(1 == iv_grade(&q, "1.048576e6", why, sizeof why));
    CHECK(1 != iv_grade(&q, "1,048,577", why, sizeof why));
    CHECK_STR_CONTAINS(why, "is not 1,048,576 (exactly)");
    CHECK(-1 == iv_grade(&q, "a lot", why, sizeof why));
    CHECK_STR_CONTAINS(why, "read 0 numbers, expected 1 (bytes)");
    CHECK_STR_CONTAINS(iv_expected(&q, buf, sizeof buf), "1,048,576");

    memset(&q, 0, sizeof q);
    iv_set_value(&q, 0, "GB per GPU", "GB", 13.48, 2, 0.02, 0.01);
    CHECK(1 == iv_grade(&q, "13.48", why, sizeof why));
    CHECK(1 == iv_grade(&q, "13.7 GB", why, sizeof why));   // 1.6% off
    CHECK(1 == iv_grade(&q, "13.25", why, sizeof why));     // 1.7% off
    CHECK(1 != iv_grade(&q, "13.2", why, sizeof why));     // 2.1% off
    CHECK(1 != iv_grade(&q, "13.8", why, sizeof why));
    CHECK_STR_CONTAINS(why, "GB per GPU 13.8 is not 13.48 (within 2% or 0.01 GB)");
    iv_set_value(&q, 0, "GB per GPU", "GB", 0.2, 2, 0.02, 0.01); // the absolute floor
    CHECK(1 == iv_grade(&q, "0.21", why, sizeof why));
    CHECK(1 != iv_grade(&q, "0.22", why, sizeof why));

    memset(&q, 0, sizeof q);
    iv_set_value(&q, 0, "steps", "", 14, 0, 0, 0);
    iv_set_value(&q, 1, "MiB sent per rank", "MiB", 1792, 2, 0.02, 0.01);
    CHECK(1 == iv_grade(&q, "14 1792", why, sizeof why));
    CHECK(1 == iv_grade(&q, "14, 1792.0 MiB", why, sizeof why));
    CHECK(1 == iv_grade(&q, "14;1800", why, sizeof why));
    CHECK(1 == iv_grade(&q, "14,1792", why, sizeof why)); // not a thousands comma: 4 digits follow
    CHECK(-1 == iv_grade(&q, "14", why, sizeof why));
    CHECK_STR_CONTAINS(why, "read 1 number, expected 2 (steps, then MiB sent per rank)");
    CHECK(1 != iv_grade(&q, "15 1792", why, sizeof why));
    CHECK(1 != iv_grade(&q, "14 1900", why, sizeof why));
    CHECK(1 != iv_grade(&q, "14 1792 3", why, sizeof why));
    CHECK(strcmp(iv_expected(&q, buf, sizeof buf), "14 1792.00") == 0);

    memset(&q, 0, sizeof q);
    q.nvalues = 0;
    q.correct = 2;
    for (int c = 0; c < IV_NCHOICES; c++)
        snprintf(q.choice[c], sizeof q.choice[c], "choice %d", c);
    CHECK(1 == iv_grade(&q, "c", why, sizeof why));
    CHECK(1 == iv_grade(&q, " C ", why, sizeof why));
    CHECK(1 == iv_grade(&q, "(c)", why, sizeof why));
    CHECK(1 == iv_grade(&q, "c)", why, sizeof why));
    CHECK(0 == iv_grade(&q, "b", why, sizeof why));
    CHECK(-1 == iv_grade(&q, "e", why, sizeof why));
    CHECK(-1 == iv_grade(&q, "cd", why, sizeof why));
    CHECK(strcmp(iv_expected(&q, buf, sizeof buf), "c") == 0);

    // every generated question accepts its own expected answer, and refuses
    // each value moved just past its tolerance
    for (int t = 0; t < IV_TOPIC_COUNT; t++)
        for (uint64_t s = 0; s < 25; s++) {
            IvQuestion g;
            char err[128], ans[128];
            CHECK(iv_generate((IvTopic)t, 5, (int)s, &g, err, sizeof err) == 0);
            CHECK(1 == iv_grade(&g, iv_expected(&g, ans, sizeof ans), why, sizeof why));
            for (int k = 0; k < g.nvalues; k++) {
                double x[IV_MAX_VALUES];
                for (int j = 0; j < g.nvalues; j++)
                    x[j] = g.val[j].value;
                const IvValue *v = &g.val[k];
                double tol = fmax(v->rel_tol * fabs(v->value), v->abs_tol);
                x[k] = v->value + 0.95 * tol;
                snprintf(ans, sizeof ans, "%.15g %.15g", x[0], g.nvalues > 1 ? x[1] : 0.0);
                if (g.nvalues == 1)
                    snprintf(ans, sizeof ans, "%.15g", x[0]);
                CHECK(1 == iv_grade(&g, ans, why, sizeof why));
                x[k] = v->value - 1.05 * tol - (tol == 0);
                snprintf(ans, sizeof ans, "%.15g %.15g", x[0], g.nvalues > 1 ? x[1] : 0.0);
                if (g.nvalues == 1)
                    snprintf(ans, sizeof ans, "%.15g", x[0]);
                CHECK(1 != iv_grade(&g, ans, why, sizeof why));
            }
        }
    return 0;
}

// 1 when the right choice of q is the longest or the shortest of the four
// (ties included): a drill whose right answers stand out by length gives
// them away.
static int right_is_extreme(const IvQuestion *q) {
    size_t len = strlen(q->choice[q->correct]);
    int longest = 1, shortest = 1;
    for (int c = 0; c < IV_NCHOICES; c++)
        if (c != q->correct) {
            longest &= len >= strlen(q->choice[c]);
            shortest &= len <= strlen(q->choice[c]);
        }
    return longest || shortest;
}

// 200 questions of each multiple-choice topic (20 seeds of 10 ordinals):
// every one well formed, the right choice on each of a-d in 15% to 35% of
// them and the longest or shortest in at most 40% (test_choice_lint's
// bound, here per topic), and every item asked.
static int test_choice_spread(void) {
    enum { SEEDS = 20, ORDINALS = 10 };
    for (int t = 0; t < IV_TOPIC_COUNT; t++) {
        int n, letters[IV_NCHOICES] = {0}, asked[64] = {0}, extreme = 0;
        const IvChoiceItem *items = iv_choice_items((IvTopic)t, &n);
        if (items == NULL)
            continue;
        for (int s = 0; s < SEEDS * ORDINALS; s++) {
            IvQuestion q;
            char err[128];
            uint64_t seed = 0xC0FFEEull * (uint64_t)(s / ORDINALS + 1);
            CHECK(iv_generate((IvTopic)t, seed, s % ORDINALS, &q, err, sizeof err) == 0);
            if (check_choice(&q) != 0) {
                fprintf(stderr, "%s, seed %llu, ordinal %d\n", iv_topic_name((IvTopic)t),
                        (unsigned long long)seed, s % ORDINALS);
                return 1;
            }
            letters[q.correct]++;
            extreme += right_is_extreme(&q);
            asked[item_of(&q) - items] = 1;
        }
        if (extreme > 0.40 * SEEDS * ORDINALS) {
            fprintf(stderr, "%s: the right choice is the longest or shortest in %d of %d\n",
                    iv_topic_name((IvTopic)t), extreme, SEEDS * ORDINALS);
            return 1;
        }
        for (int c = 0; c < IV_NCHOICES; c++) {
            double share = (double)letters[c] / (SEEDS * ORDINALS);
            if (share < 0.15 || share > 0.35) {
                fprintf(stderr, "%s: the right choice is %c) in %.0f%% of the questions\n",
                        iv_topic_name((IvTopic)t), 'a' + c, 100 * share);
                return 1;
            }
        }
        for (int i = 0; i < n; i++)
            CHECK_EQ_INT(asked[i], 1);
    }
    return 0;
}

int main(void) {
    int failures = 0;
    RUN(test_grading);
    RUN(test_determinism);
    RUN(test_arithmetic);
    RUN(test_drills);
    RUN(test_choice_spread);
    RUN(test_zero_paper);
    return failures ? 1 : 0;
}
