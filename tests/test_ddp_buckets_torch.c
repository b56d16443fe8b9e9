// tests/test_ddp_buckets_torch.c: DDP's bucket plans against PyTorch 1.13
// itself (tests/conformance/ddp_buckets_ref.py).
//  (a) sim_bucket_assign and sim_bucket_assign_in_order against
//      torch.distributed._compute_bucket_assignment_by_size, without and
//      with tensor_indices, on the worked example of semantics.md, exact
//      limit hits and random parameter lists of mixed dtypes and limits.
//  (b) ddplab's models (MLP, MLP with BatchNorm, MLP with an unused head,
//      MiniGPT), for several bucket_cap_mb, with and without
//      find_unused_parameters, static_graph and DDP_SET_LAST_BUCKET_CAP: the
//      sizes and the gradient-ready order come from ddplab's model (a
//      backward with a SimGradHook); torch wraps the same module in a real
//      DistributedDataParallel (gloo, world size 1, loopback) and a comm
//      hook reports the buckets of every iteration. Compared: the ready
//      order, each iteration's plan (names in bucket order and bytes: the
//      initial plan before the rebuild, the rebuilt one from the iteration
//      sim_ddp_rebuild_iteration names), and the rebuilt size limits the
//      reducer logs.
// Exits 77 (skipped) when torch cannot be imported.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "model/model.h"
#include "strategy/ddp_buckets.h"
#include "test_files.h"
#include "test_model_util.h"
#include "torch_ref.h"

// ---------------------------------------------------------------------------
// (a) the assignment itself

#define NRANDOM 60
#define MAXP 32

typedef struct {
    int n, nlimits;
    size_t limits[3];
    SimBucketParam p[MAXP];
    int64_t numel[MAXP];
    int order[MAXP];
} AssignCase;

static uint64_t next_u64(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static int below(uint64_t *s, int n) {
    return (int)(next_u64(s) % (uint64_t)n);
}

static void set_param(AssignCase *c, int i, SimDtype dt, int64_t numel) {
    c->numel[i] = numel;
    c->p[i] = (SimBucketParam){(size_t)numel * sim_dtype_size(dt), dt};
}

// Case 0: the worked example; 1: sizes that hit the limits exactly;
// then random ones (every other one fp32 only, as models are).
static void make_case(AssignCase *c, int k, uint64_t *seed) {
    memset(c, 0, sizeof *c);
    if (k == 0) {
        const int64_t el[6] = {157286, 157286, 7864320, 2621440, 2621440, 2621440};
        c->n = 6;
        c->nlimits = 2;
        c->limits[0] = (size_t)1 << 20;
        c->limits[1] = 26214400;
        for (int i = 0; i < 6; i++) {
            set_param(c, i, SIM_FP32, el[i]);
            c->order[i] = i;
        }
        return;
    }
    if (k == 1) {
        const int64_t el[7] = {25, 30, 20, 50, 1, 24, 25};
        c->n = 7;
        c->nlimits = 2;
        c->limits[0] = 100;
        c->limits[1] = 200;
        for (int i = 0; i < 7; i++) {
            set_param(c, i, SIM_FP32, el[i]);
            c->order[i] = 6 - i;
        }
        return;
    }
    c->n = 1 + below(seed, MAXP);
    c->nlimits = 1 + below(seed, 3);
    for (int l = 0; l < c->nlimits; l++)
        c->limits[l] = 1 + (size_t)below(seed, 20000);
    for (int i = 0; i < c->n; i++) {
        SimDtype dt = k % 2 ? SIM_FP32 : (SimDtype)below(seed, SIM_DTYPE_COUNT);
        set_param(c, i, dt, 1 + below(seed, 3000));
        c->order[i] = i;
    }
    for (int i = c->n - 1; i > 0; i--) { // Fisher-Yates
        int j = below(seed, i + 1), t = c->order[i];
        c->order[i] = c->order[j];
        c->order[j] = t;
    }
}

static int write_assign(const char *dir, const AssignCase *cs, int ncases) {
    char path[600];
    snprintf(path, sizeof path, "%s/assign.txt", dir);
    FILE *f = fopen(path, "w");
    CHECK(f);
    for (int k = 0; k < ncases; k++) {
        const AssignCase *c = &cs[k];
        fprintf(f, "limits");
        for (int l = 0; l < c->nlimits; l++)
            fprintf(f, " %zu", c->limits[l]);
        fprintf(f, " | params");
        for (int i = 0; i < c->n; i++)
            fprintf(f, " %s:%lld", sim_dtype_name(c->p[i].dtype), (long long)c->numel[i]);
        fprintf(f, " | order");
        for (int i = 0; i < c->n; i++)
            fprintf(f, " %d", c->order[i]);
        fprintf(f, "\n");
    }
    CHECK(fclose(f) == 0);
    return 0;
}

// A text file split into lines (the newlines replaced by NULs).
typedef struct {
    char *text;
    char **line;
    int n;
} Lines;

static int lines_read(Lines *l, const char *dir, const char *name) {
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    memset(l, 0, sizeof *l);
    size_t len = 0;
    l->text = tfile_read(path, &len);
    CHECK(l->text);
    int cap = 1;
    for (size_t i = 0; i < len; i++)
        cap += l->text[i] == '\n';
    l->line = malloc((size_t)cap * sizeof *l->line);
    CHECK(l->line);
    char *p = l->text;
    while (*p) {
        char *nl = strchr(p, '\n');
        l->line[l->n++] = p;
        if (!nl)
            break;
        *nl = '\0';
        p = nl + 1;
    }
    return 0;
}

static void lines_free(Lines *l) {
    free(l->text);
    free(l->line);
}

// The next line, or "" past the end.
static const char *take(const Lines *l, int *at) {
    return *at < l->n ? l->line[(*at)++] : "";
}

// Compares one bucket line "LIMIT I I ..." (after its tag) with bucket b.
static int bucket_matches(const char *rest, const SimBucket *b) {
    char *end;
    unsigned long long lim = strtoull(rest, &end, 10);
    CHECK_EQ_INT(lim, b->limit);
    for (int j = 0; j < b->nparams; j++) {
        long v = strtol(end, &end, 10);
        CHECK_EQ_INT(v, b->params[j]);
    }
    while (*end == ' ')
        end++;
    CHECK(*end == '\0'); // no parameter left over
    return 0;
}

// Compares the lines of case k in torch's output, from *at on.
static int compare_assign(const Lines *l, int *at, const AssignCase *c, int k) {
    SimBucketPlan sorted, indexed;
    CHECK(sim_bucket_assign(c->p, c->order, c->n, c->limits, c->nlimits, &sorted) == SIM_OK);
    CHECK(sim_bucket_assign_in_order(c->p, c->order, c->n, c->limits, c->nlimits, &indexed) ==
          SIM_OK);
    char want[32];
    snprintf(want, sizeof want, "case %d", k);
    int rc = strcmp(take(l, at), want) != 0, ns = 0, ni = 0;
    while (rc == 0 && *at < l->n && strncmp(l->line[*at], "case ", 5) != 0) {
        const char *line = take(l, at);
        if (strncmp(line, "sorted ", 7) == 0)
            rc = ns < sorted.nbuckets ? bucket_matches(line + 7, &sorted.buckets[ns++]) : 1;
        else if (strncmp(line, "indexed ", 8) == 0)
            rc = ni < indexed.nbuckets ? bucket_matches(line + 8, &indexed.buckets[ni++]) : 1;
        else
            rc = 1;
        if (rc)
            fprintf(stderr, "assignment case %d: torch's \"%s\" differs\n", k, line);
    }
    if (rc == 0 && (ns != sorted.nbuckets || ni != indexed.nbuckets)) {
        fprintf(stderr, "assignment case %d: torch made %d/%d buckets, ddplab %d/%d\n", k, ns, ni,
                sorted.nbuckets, indexed.nbuckets);
        rc = 1;
    }
    sim_bucket_plan_free(&sorted);
    sim_bucket_plan_free(&indexed);
    return rc;
}

static int test_assign(void) {
    static AssignCase cs[NRANDOM + 2];
    uint64_t seed = 20240613;
    int ncases = NRANDOM + 2;
    for (int k = 0; k < ncases; k++)
        make_case(&cs[k], k, &seed);
    char dir[512];
    CHECK(torchref_tmpdir(dir, sizeof dir) == 0);
    int rc = write_assign(dir, cs, ncases);
    const char *args[] = {"assign", dir, NULL};
    if (rc == 0)
        rc = torchref_run("ddp_buckets_ref.py", args);
    Lines l = {0};
    if (rc == 0)
        rc = lines_read(&l, dir, "assign_out.txt");
    for (int k = 0, at = 0; k < ncases && rc == 0; k++)
        rc = compare_assign(&l, &at, &cs[k], k);
    lines_free(&l);
    torchref_rmdir(dir);
    CHECK_EQ_INT(rc, 0);
    return 0;
}

// ---------------------------------------------------------------------------
// (b) real DDP on ddplab's models

typedef struct {
    const char *spec;
    double cap;          // bucket_cap_mb
    int unused, stat;    // find_unused_parameters, static_graph
    int last;            // DDP_SET_LAST_BUCKET_CAP=1
    int step;            // odd: the extra head of ",unused" gets no gradient
} DdpCase;

#define MLP "mlp:784,1024,1024,10"
#define GPT "gpt:layers=2,embd=128,heads=4,ctx=16,vocab=65"
#define BN "mlp:32,256,256,10,bn"
#define HEAD "mlp:32,256,256,10,unused"

static const DdpCase ddp_cases[] = {
    {MLP, 25, 0, 0, 0, 0},  {MLP, 1, 0, 0, 0, 0},    {MLP, 0.1, 0, 0, 0, 0},
    {MLP, 25, 1, 0, 0, 0},  {MLP, 1, 1, 0, 0, 0},    {MLP, 0.1, 1, 0, 0, 0},
    {MLP, 1, 0, 1, 0, 0},   {MLP, 25, 0, 0, 1, 0},   {MLP, 0.1, 0, 0, 1, 0},
    {GPT, 25, 0, 0, 0, 0},  {GPT, 1, 0, 0, 0, 0},    {GPT, 0.1, 0, 0, 0, 0},
    {GPT, 25, 1, 0, 0, 0},  {GPT, 1, 1, 0, 0, 0},    {GPT, 0.1, 1, 0, 0, 0},
    {GPT, 0.1, 0, 1, 0, 0}, {GPT, 0.1, 0, 0, 1, 0},
    {BN, 25, 0, 0, 0, 0},   {BN, 0.1, 0, 0, 0, 0},   {BN, 25, 1, 0, 0, 0},
    {BN, 0.1, 1, 0, 0, 0},
    {HEAD, 25, 1, 0, 0, 1}, {HEAD, 0.1, 1, 0, 0, 1}, {HEAD, 0.1, 0, 1, 0, 1},
    {HEAD, 0.1, 1, 1, 0, 1},
};
#define NDDP (int)(sizeof ddp_cases / sizeof ddp_cases[0])

// What ddplab makes of a case.
typedef struct {
    int n;
    char (*names)[SIM_NAME_MAX];
    SimBucketParam *params;
    TModelOrder order;        // ddplab's gradient-ready order
    SimBucketPlan initial, rebuilt;
    int rebuild_at, iters;
} DdpResult;

static DdpResult ddp_res[NDDP];

static SimDdpBucketOptions case_options(const DdpCase *c) {
    SimDdpBucketOptions o;
    sim_ddp_bucket_options_default(&o);
    o.bucket_cap_mb = c->cap;
    o.find_unused = c->unused;
    o.static_graph = c->stat;
    o.last_bucket_cap = c->last;
    return o;
}

static int ddp_case_plans(SimRank *r, const DdpCase *c, DdpResult *res) {
    SimModelSpec spec;
    char err[256];
    SimModel *m = NULL;
    TModelData d;
    float loss;
    CHECK(sim_model_parse(c->spec, &spec, err, sizeof err) == SIM_OK);
    CHECK(sim_model_create(r, &spec, 2, 0, &m) == SIM_OK);
    CHECK(sim_model_init(r, m, 7) == SIM_OK);
    CHECK(tmodel_data(&d, m, 2, 0, 11) == 0);
    CHECK(sim_model_forward(r, m, &d.batch, c->step, SIM_FP32, &loss) == SIM_OK);
    CHECK(sim_model_backward(r, m, 1.0f, tmodel_record, &res->order) == SIM_OK);
    tmodel_data_free(&d);
    res->n = m->nparams;
    res->names = malloc((size_t)m->nparams * sizeof *res->names);
    res->params = malloc((size_t)m->nparams * sizeof *res->params);
    CHECK(res->names && res->params);
    for (int i = 0; i < m->nparams; i++) {
        memcpy(res->names[i], m->params[i].name, SIM_NAME_MAX);
        res->params[i] = (SimBucketParam){m->params[i].numel * 4, SIM_FP32};
    }
    sim_model_destroy(r, m);
    SimDdpBucketOptions o = case_options(c);
    CHECK(sim_ddp_initial_plan(res->params, res->n, &o, &res->initial) == SIM_OK);
    CHECK(sim_ddp_rebuilt_plan(res->params, res->n, res->order.idx, res->order.n, &o,
                               &res->rebuilt) == SIM_OK);
    res->rebuild_at = sim_ddp_rebuild_iteration(&o);
    res->iters = res->rebuild_at >= 0 ? res->rebuild_at + 2 : 2;
    return 0;
}

static int ddp_all_plans(SimRank *r) {
    for (int k = 0; k < NDDP; k++) {
        if (ddp_case_plans(r, &ddp_cases[k], &ddp_res[k]) != 0) {
            fprintf(stderr, "case %s failed on the C side\n", ddp_cases[k].spec);
            return 1;
        }
    }
    return 0;
}

static int write_ddp(const char *dir) {
    char path[600];
    snprintf(path, sizeof path, "%s/ddp.txt", dir);
    FILE *f = fopen(path, "w");
    CHECK(f);
    for (int k = 0; k < NDDP; k++) {
        const DdpCase *c = &ddp_cases[k];
        fprintf(f, "spec=%s cap=%.17g unused=%d static=%d last=%d step=%d iters=%d\n", c->spec,
                c->cap, c->unused, c->stat, c->last, c->step, ddp_res[k].iters);
    }
    CHECK(fclose(f) == 0);
    return 0;
}

// Compares one line of torch's output with what ddplab expects; on a
// difference prints both. `want` is built by the caller in a memstream.
static int same_line(int k, const char *got, const char *want) {
    if (strcmp(got, want) == 0)
        return 0;
    fprintf(stderr, "case %d (%s, cap %g, unused %d, static %d, last %d):\n  torch:  %s\n"
                    "  ddplab: %s\n",
            k, ddp_cases[k].spec, ddp_cases[k].cap, ddp_cases[k].unused, ddp_cases[k].stat,
            ddp_cases[k].last, got, want);
    return 1;
}

// The expected text of torch's ddp_K.txt for case k.
static char *expected_ddp(const DdpResult *res) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    for (int it = 0; it < res->iters; it++) {
        fprintf(f, "order %d", it);
        for (int j = 0; j < res->order.n; j++)
            fprintf(f, " %s", res->names[res->order.idx[j]]);
        fprintf(f, "\nplan %d\n", it);
        int rebuilt = res->rebuild_at >= 0 && it >= res->rebuild_at;
        const SimBucketPlan *p = rebuilt ? &res->rebuilt : &res->initial;
        for (int b = 0; b < p->nbuckets; b++) {
            fprintf(f, "bucket %zu", p->buckets[b].bytes);
            for (int j = 0; j < p->buckets[b].nparams; j++)
                fprintf(f, " %s", res->names[p->buckets[b].params[j]]);
            fprintf(f, "\n");
        }
    }
    fprintf(f, "rebuilt");
    if (res->rebuild_at < 0)
        fprintf(f, " none");
    for (int b = 0; res->rebuild_at >= 0 && b < res->rebuilt.nbuckets; b++)
        fprintf(f, " %zu", res->rebuilt.buckets[b].limit);
    fprintf(f, "\n");
    fclose(f);
    return text;
}

static int compare_ddp(const char *dir, int k) {
    char name[32];
    snprintf(name, sizeof name, "ddp_%d.txt", k);
    Lines got;
    CHECK(lines_read(&got, dir, name) == 0);
    char *text = expected_ddp(&ddp_res[k]);
    CHECK(text);
    Lines want = {text, NULL, 0};
    int cap = 1, rc = 0;
    for (char *p = text; *p; p++)
        cap += *p == '\n';
    want.line = malloc((size_t)cap * sizeof *want.line);
    CHECK(want.line);
    for (char *p = text; *p;) {
        char *nl = strchr(p, '\n');
        want.line[want.n++] = p;
        if (!nl)
            break;
        *nl = '\0';
        p = nl + 1;
    }
    for (int i = 0; i < want.n && rc == 0; i++)
        rc = same_line(k, i < got.n ? got.line[i] : "(missing)", want.line[i]);
    if (rc == 0 && got.n != want.n)
        rc = same_line(k, got.line[want.n], "(end)");
    lines_free(&want);
    lines_free(&got);
    return rc;
}

static int test_ddp(void) {
    TModelRun run = {"ddp bucket plans", ddp_all_plans};
    int rc = tmodel_run(&run);
    char dir[512];
    CHECK(torchref_tmpdir(dir, sizeof dir) == 0);
    if (rc == 0)
        rc = write_ddp(dir);
    const char *args[] = {"ddp", dir, NULL};
    if (rc == 0)
        rc = torchref_run("ddp_buckets_ref.py", args);
    for (int k = 0; k < NDDP && rc == 0; k++)
        rc = compare_ddp(dir, k);
    torchref_rmdir(dir);
    for (int k = 0; k < NDDP; k++) {
        free(ddp_res[k].names);
        free(ddp_res[k].params);
        sim_bucket_plan_free(&ddp_res[k].initial);
        sim_bucket_plan_free(&ddp_res[k].rebuilt);
    }
    CHECK_EQ_INT(rc, 0);
    return 0;
}

int main(void) {
    if (!torchref_available())
        return 77;
    int failures = 0;
    RUN(test_assign);
    RUN(test_ddp);
    return failures ? 1 : 0;
}
