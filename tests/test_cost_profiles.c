// tests/test_cost_profiles.c: the built-in hardware profiles are sane data
// with sources; profile files round-trip through save and load; every kind of
// corrupt file is rejected with a message naming the problem; --profile
// resolution finds built-ins and files and lists the built-ins when it fails;
// a failed save leaves nothing behind.
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "check.h"
#include "cost/cost.h"
#include "test_files.h"

static char tmpdir[256];

static void path_in_tmp(char *out, size_t n, const char *name) {
    snprintf(out, n, "%s/%s", tmpdir, name);
}

static int link_ok(const SimLinkProfile *l) {
    return l->name[0] != '\0' && l->source[0] != '\0' && isfinite(l->alpha_s) &&
           l->alpha_s > 0 && l->alpha_s < 1e-3 && isfinite(l->bw_Bps) && l->bw_Bps > 1e8 &&
           l->bw_Bps < 1e13;
}

static int test_builtins(void) {
    CHECK(sim_link_count() >= 8);
    for (int i = 0; i < sim_link_count(); i++) {
        const SimLinkProfile *l = sim_link_at(i);
        CHECK(l != NULL && link_ok(l));
        CHECK(sim_link_find(l->name) == l);
    }
    CHECK(sim_link_at(-1) == NULL && sim_link_at(sim_link_count()) == NULL);
    CHECK(sim_sys_count() >= 5);
    for (int i = 0; i < sim_sys_count(); i++) {
        const SimSysProfile *p = sim_sys_at(i);
        CHECK(p != NULL && p->name[0] != '\0' && p->description[0] != '\0');
        CHECK(p->ranks_per_node >= 1);
        CHECK(link_ok(&p->intra) && link_ok(&p->inter));
        CHECK(sim_sys_find(p->name) == p);
        // Systems copy the link table: the numbers must be the same.
        const SimLinkProfile *li = sim_link_find(p->intra.name), *le = sim_link_find(p->inter.name);
        CHECK(li != NULL && le != NULL);
        CHECK(memcmp(li, &p->intra, sizeof(*li)) == 0 && memcmp(le, &p->inter, sizeof(*le)) == 0);
    }
    // The default system comes first; the documented ones exist.
    CHECK(sim_sys_find("dgx-h100") == sim_sys_at(0));
    const char *names[] = {"dgx-a100", "dgx-h100", "pcie-ib200", "pcie-eth25", "eth25"};
    for (int i = 0; i < 5; i++)
        CHECK(sim_sys_find(names[i]) != NULL);
    CHECK(sim_sys_find("eth25")->ranks_per_node == 1);
    CHECK(sim_sys_find("nope") == NULL && sim_sys_find(NULL) == NULL);
    // Effective figures as documented in cost_profiles.c (GB/s).
    CHECK_NEAR(sim_link_find("nvlink-h100")->bw_Bps, 370e9, 1);
    CHECK_NEAR(sim_link_find("nvlink-a100")->bw_Bps, 230e9, 1);
    CHECK(sim_link_find("ib-hdr200")->bw_Bps <= 25e9);
    CHECK(sim_link_find("ib-ndr400")->bw_Bps <= 50e9);
    CHECK(sim_link_find("eth25")->bw_Bps <= 3.125e9);
    CHECK(sim_link_find("eth25")->alpha_s >= 10e-6); // tens of us over TCP
    return 0;
}

static int same_link(const SimLinkProfile *a, const SimLinkProfile *b) {
    return strcmp(a->name, b->name) == 0 && strcmp(a->source, b->source) == 0 &&
           fabs(a->alpha_s - b->alpha_s) <= 1e-15 * a->alpha_s &&
           fabs(a->bw_Bps - b->bw_Bps) <= 1e-15 * a->bw_Bps;
}

static int test_round_trip(void) {
    char path[512], err[512];
    path_in_tmp(path, sizeof(path), "p.json");
    for (int i = 0; i < sim_sys_count(); i++) {
        const SimSysProfile *p = sim_sys_at(i);
        CHECK_EQ_INT(sim_sys_save(p, path), SIM_OK);
        SimSysProfile q;
        memset(&q, 0x5a, sizeof(q));
        CHECK_EQ_INT(sim_sys_load(path, &q, err, sizeof(err)), SIM_OK);
        CHECK(strcmp(p->name, q.name) == 0 && strcmp(p->description, q.description) == 0);
        CHECK_EQ_INT(p->ranks_per_node, q.ranks_per_node);
        CHECK(same_link(&p->intra, &q.intra) && same_link(&p->inter, &q.inter));
        // the host CPUs (CPU offload's optimizer step) when the system states them
        CHECK_EQ_INT(sim_device_valid(&q.host), sim_device_valid(&p->host));
        CHECK(strcmp(sim_sys_host(&q)->description, sim_sys_host(p)->description) == 0);
        CHECK(sim_sys_host(&q)->mem_bw_Bps == sim_sys_host(p)->mem_bw_Bps);
    }
    // The file is the documented JSON.
    char *text = tfile_read(path, NULL);
    CHECK(text != NULL);
    cJSON *root = cJSON_Parse(text);
    free(text);
    CHECK(root != NULL);
    CHECK(strcmp(cJSON_GetObjectItem(root, "format")->valuestring, "ddplab-profile") == 0);
    CHECK(cJSON_GetObjectItem(root, "version")->valuedouble == 1);
    const cJSON *inter = cJSON_GetObjectItem(root, "inter");
    CHECK(inter != NULL && cJSON_GetObjectItem(inter, "alpha_us") != NULL &&
          cJSON_GetObjectItem(inter, "bw_GBps") != NULL);
    cJSON_Delete(root);

    // Awkward strings survive: quotes, backslashes, newlines, UTF-8.
    SimSysProfile p = *sim_sys_at(0), q;
    strcpy(p.name, "my \"box\"\\2");
    strcpy(p.description, "line1\nline2\t\xc3\xa9");
    strcpy(p.intra.source, "measured by ddplab bench");
    p.intra.alpha_s = 1.234567890123e-6;
    p.inter.bw_Bps = 3.3333333333e9;
    CHECK_EQ_INT(sim_sys_save(&p, path), SIM_OK);
    CHECK_EQ_INT(sim_sys_load(path, &q, err, sizeof(err)), SIM_OK);
    CHECK(strcmp(p.name, q.name) == 0 && strcmp(p.description, q.description) == 0);
    CHECK(same_link(&p.intra, &q.intra) && same_link(&p.inter, &q.inter));
    // Only the file itself is in the directory: no temporary left over.
    CHECK_EQ_INT(tfile_dir_entries(tmpdir), 1);
    unlink(path);
    return 0;
}

// Replaces the first occurrence of `from` in a saved profile by `to`.
static const char *mutate(const char *text, const char *from, const char *to) {
    static char out[1 << 16];
    const char *at = strstr(text, from);
    if (at == NULL)
        return NULL;
    size_t pre = (size_t)(at - text);
    snprintf(out, sizeof(out), "%.*s%s%s", (int)pre, text, to, at + strlen(from));
    return out;
}

static int expect_format_error(const char *text, size_t len, const char *needle) {
    char path[512], err[512];
    path_in_tmp(path, sizeof(path), "bad.json");
    CHECK(text != NULL);
    CHECK_EQ_INT(tfile_write(path, text, len), 0);
    SimSysProfile q;
    memset(&q, 0, sizeof(q));
    SimStatus st = sim_sys_load(path, &q, err, sizeof(err));
    if (st != SIM_EFORMAT)
        fprintf(stderr, "for %s: got %s (%s)\n", needle, sim_status_name(st), err);
    CHECK_EQ_INT(st, SIM_EFORMAT);
    CHECK_STR_CONTAINS(err, needle);
    CHECK_STR_CONTAINS(err, path); // names the file
    CHECK(strchr(err, '\n') == NULL); // one line
    CHECK(q.name[0] == '\0');        // out untouched on failure
    // resolve reports the same problem for a path.
    CHECK_EQ_INT(sim_sys_resolve(path, &q, err, sizeof(err)), SIM_EFORMAT);
    CHECK_STR_CONTAINS(err, needle);
    unlink(path);
    return 0;
}

#define EXPECT_BAD(text, needle)                                               \
    do {                                                                       \
        const char *t_ = (text);                                               \
        if (expect_format_error(t_, t_ ? strlen(t_) : 0, needle) != 0)         \
            return 1;                                                          \
    } while (0)

// A saved host is read back and priced with; a bad one is refused by name.
static int test_host_section(void) {
    char path[512], err[512];
    path_in_tmp(path, sizeof(path), "host.json");
    const SimSysProfile *a100 = sim_sys_find("dgx-a100");
    CHECK(a100 != NULL && sim_device_valid(&a100->host));
    CHECK_EQ_INT(sim_sys_save(a100, path), SIM_OK);
    char *text = tfile_read(path, NULL);
    CHECK(text != NULL);
    CHECK(strstr(text, "\"host\": {\"name\": ") != NULL);
    SimSysProfile q;
    CHECK_EQ_INT(sim_sys_load(path, &q, err, sizeof(err)), SIM_OK);
    CHECK(sim_sys_host(&q)->mem_bw_Bps == a100->host.mem_bw_Bps);
    CHECK(sim_sys_host(&q) != sim_device_host()); // not the default's
    const char *at = strstr(text, "\"host\"");
    CHECK(at != NULL);
    // the host's efficiency out of range: the field is named with its object
    char bad[1 << 16];
    const char *eff = strstr(at, "\"efficiency\": ");
    CHECK(eff != NULL);
    snprintf(bad, sizeof bad, "%.*s\"efficiency\": 7%s", (int)(eff - text), text,
             strchr(eff + 14, ','));
    free(text);
    EXPECT_BAD(bad, "host.efficiency");
    // without the section, the DGX H100's host stands in
    SimSysProfile none = *a100;
    memset(&none.host, 0, sizeof none.host);
    CHECK_EQ_INT(sim_sys_save(&none, path), SIM_OK);
    CHECK_EQ_INT(sim_sys_load(path, &q, err, sizeof(err)), SIM_OK);
    CHECK(sim_sys_host(&q) == sim_device_host());
    unlink(path);
    return 0;
}

static int test_corrupt_files(void) {
    char path[512];
    path_in_tmp(path, sizeof(path), "good.json");
    CHECK_EQ_INT(sim_sys_save(sim_sys_find("dgx-a100"), path), SIM_OK);
    char good[1 << 16];
    char *saved = tfile_read(path, NULL);
    CHECK(saved != NULL && strlen(saved) < sizeof(good));
    strcpy(good, saved);
    free(saved);
    unlink(path);
    size_t len = strlen(good);

    EXPECT_BAD("hello", "not valid JSON");
    EXPECT_BAD("", "not valid JSON");
    CHECK_EQ_INT(expect_format_error(good, len / 2, "not valid JSON"), 0); // truncated
    CHECK_EQ_INT(expect_format_error(good, len - 3, "not valid JSON"), 0);
    EXPECT_BAD("[1, 2]", "JSON object");
    EXPECT_BAD(mutate(good, "ddplab-profile", "ddplab-trace"), "\"format\"");
    EXPECT_BAD(mutate(good, "\"format\": \"ddplab-profile\",", ""), "missing field \"format\"");
    EXPECT_BAD(mutate(good, "\"version\": 1", "\"version\": 2"), "\"version\"");
    EXPECT_BAD(mutate(good, "\"bw_GBps\": 230", "\"bw_GBps\": -230"), "\"intra.bw_GBps\"");
    EXPECT_BAD(mutate(good, "\"bw_GBps\": 230", "\"bw_GBps\": 0"), "\"intra.bw_GBps\"");
    EXPECT_BAD(mutate(good, "\"bw_GBps\": 230", "\"bw_GBps\": 1e999"), "\"intra.bw_GBps\"");
    EXPECT_BAD(mutate(good, "\"bw_GBps\": 230", "\"bw_GBps\": \"fast\""), "\"intra.bw_GBps\"");
    EXPECT_BAD(mutate(good, "\"alpha_us\": 5", "\"alpha_us\": -5"), "\"inter.alpha_us\"");
    EXPECT_BAD(mutate(good, ", \"bw_GBps\": 24", ""), "missing field \"inter.bw_GBps\"");
    EXPECT_BAD(mutate(good, "\"ranks_per_node\": 8", "\"ranks_per_node\": 0"), "\"ranks_per_node\"");
    EXPECT_BAD(mutate(good, "\"ranks_per_node\": 8", "\"ranks_per_node\": 2.5"), "\"ranks_per_node\"");
    EXPECT_BAD(mutate(good, "\"ranks_per_node\": 8,", ""), "missing field \"ranks_per_node\"");
    EXPECT_BAD(mutate(good, "\"name\": \"dgx-a100\"", "\"name\": \"\""), "\"name\"");
    EXPECT_BAD(mutate(good, "\"ranks_per_node\"", "\"ranks_per_nod\""), "unknown field \"ranks_per_nod\"");
    EXPECT_BAD(mutate(good, "\"version\": 1,", "\"version\": 1, \"version\": 1,"), "appears twice");
    EXPECT_BAD("{\"format\": \"ddplab-profile\", \"version\": 1, \"name\": \"n\", "
               "\"ranks_per_node\": 1, \"intra\": {\"name\": \"a\", \"alpha_us\": 1, "
               "\"bw_GBps\": 1}, \"inter\": 3}",
               "field \"inter\" must be an object");
    EXPECT_BAD("{\"format\": \"ddplab-profile\", \"version\": 1, \"name\": \"n\", "
               "\"ranks_per_node\": 1, \"intra\": {\"name\": \"a\", \"alpha_us\": 1, "
               "\"bw_GBps\": 1}}",
               "missing field \"inter\"");
    char longname[200];
    memset(longname, 'x', sizeof(longname));
    longname[sizeof(longname) - 1] = '\0';
    char repl[256];
    snprintf(repl, sizeof(repl), "\"name\": \"%s\"", longname);
    EXPECT_BAD(mutate(good, "\"name\": \"dgx-a100\"", repl), "too long");
    // A NUL byte in the middle of an otherwise valid file.
    char nul[1 << 16];
    memcpy(nul, good, len);
    nul[10] = '\0';
    CHECK_EQ_INT(expect_format_error(nul, len, "NUL"), 0);
    return 0;
}

static int test_unreadable_and_resolve(void) {
    char err[1024], path[512];
    SimSysProfile q;
    path_in_tmp(path, sizeof(path), "missing.json");
    CHECK_EQ_INT(sim_sys_load(path, &q, err, sizeof(err)), SIM_EIO);
    CHECK_STR_CONTAINS(err, "cannot read");
    CHECK_EQ_INT(sim_sys_load(tmpdir, &q, err, sizeof(err)), SIM_EIO); // a directory

    CHECK_EQ_INT(sim_sys_resolve("dgx-h100", &q, err, sizeof(err)), SIM_OK);
    CHECK(strcmp(q.name, "dgx-h100") == 0 && q.ranks_per_node == 8);
    CHECK_EQ_INT(sim_sys_resolve("no-such-system", &q, err, sizeof(err)), SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "no-such-system");
    for (int i = 0; i < sim_sys_count(); i++)
        CHECK_STR_CONTAINS(err, sim_sys_at(i)->name);
    CHECK(strchr(err, '\n') == NULL);
    CHECK_EQ_INT(sim_sys_resolve("", &q, err, sizeof(err)), SIM_EINVAL);
    CHECK_EQ_INT(sim_sys_resolve(path, &q, err, sizeof(err)), SIM_EINVAL); // no such file
    // A small error buffer truncates without overflowing.
    char small[16];
    CHECK_EQ_INT(sim_sys_resolve("no-such-system", &q, small, sizeof(small)), SIM_EINVAL);
    CHECK(strlen(small) < sizeof(small));

    // A saved file resolves by path, with its own name.
    SimSysProfile mine = *sim_sys_find("pcie-eth25");
    strcpy(mine.name, "my-cluster");
    path_in_tmp(path, sizeof(path), "mine.json");
    CHECK_EQ_INT(sim_sys_save(&mine, path), SIM_OK);
    CHECK_EQ_INT(sim_sys_resolve(path, &q, err, sizeof(err)), SIM_OK);
    CHECK(strcmp(q.name, "my-cluster") == 0);
    unlink(path);
    return 0;
}

static int test_failed_save_leaves_nothing(void) {
    const SimSysProfile *p = sim_sys_at(0);
    CHECK_EQ_INT(sim_sys_save(p, "/nonexistent-ddplab-dir/p.json"), SIM_EIO);
    // The destination is a directory: the rename fails, the temporary goes.
    char sub[512];
    path_in_tmp(sub, sizeof(sub), "adir");
    CHECK_EQ_INT(mkdir(sub, 0755), 0);
    CHECK_EQ_INT(sim_sys_save(p, sub), SIM_EIO);
    CHECK_EQ_INT(tfile_dir_entries(tmpdir), 1); // only adir itself
    rmdir(sub);
    // An invalid profile is refused before any file is created.
    SimSysProfile bad = *p;
    bad.inter.bw_Bps = 0;
    char path[512];
    path_in_tmp(path, sizeof(path), "bad.json");
    CHECK_EQ_INT(sim_sys_save(&bad, path), SIM_EINVAL);
    bad = *p;
    bad.intra.alpha_s = NAN;
    CHECK_EQ_INT(sim_sys_save(&bad, path), SIM_EINVAL);
    CHECK_EQ_INT(tfile_dir_entries(tmpdir), 0);
    return 0;
}

int main(void) {
    if (tfile_mkdtemp(tmpdir, sizeof(tmpdir), "test-profiles") != 0) {
        perror("mkdtemp");
        return 1;
    }
    int failures = 0;
    RUN(test_builtins);
    RUN(test_round_trip);
    RUN(test_host_section);
    RUN(test_corrupt_files);
    RUN(test_unreadable_and_resolve);
    RUN(test_failed_save_leaves_nothing);
    tfile_rmtree(tmpdir);
    return failures != 0;
}
