// tests/test_fault_parse.c: --fault specs (sim/engine/fault.h): every kind parses
// with its keys and defaults, every malformed spec is refused with a message
// naming the spec and what is allowed, and the queries answer as documented.
#include <string.h>

#include "check.h"
#include "engine/fault.h"

static int parses(SimFaultPlan *p, const char *spec) {
    char err[256] = "";
    SimStatus st = sim_fault_parse(p, spec, err, sizeof err);
    if (st != SIM_OK)
        fprintf(stderr, "unexpected: %s\n", err);
    return st == SIM_OK;
}

// The spec is refused, and the message holds `needle`.
static int refused(const char *spec, const char *needle) {
    SimFaultPlan p = {0};
    char err[256] = "";
    if (sim_fault_parse(&p, spec, err, sizeof err) != SIM_EINVAL || p.n != 0) {
        fprintf(stderr, "accepted: '%s'\n", spec);
        return 0;
    }
    if (strstr(err, needle) == NULL) {
        fprintf(stderr, "'%s': message '%s' lacks '%s'\n", spec, err, needle);
        return 0;
    }
    return 1;
}

static int test_kinds(void) {
    SimFaultPlan p = {0};
    CHECK(parses(&p, "skip:rank=1,step=2"));
    CHECK_EQ_INT(p.f[0].kind, SIM_FAULT_SKIP);
    CHECK_EQ_INT(p.f[0].rank, 1);
    CHECK_EQ_INT(p.f[0].step, 2);
    CHECK_EQ_INT(p.f[0].coll, 0);
    CHECK(parses(&p, "mismatch:rank=0,step=1,coll=3,as=op"));
    CHECK_EQ_INT(p.f[1].as, SIM_FAULT_AS_OP);
    CHECK_EQ_INT(p.f[1].coll, 3);
    CHECK(parses(&p, "reorder:step=4,rank=2"));
    CHECK(parses(&p, "crash:rank=3,step=5,coll=1"));
    CHECK(parses(&p, "slow-rank:rank=1,factor=2.5"));
    CHECK_NEAR(p.f[4].factor, 2.5, 0);
    CHECK(parses(&p, "slow-link:rank=0,factor=4"));
    CHECK(parses(&p, "unused:rank=1,param=2.bias,step=3"));
    CHECK(strcmp(p.f[6].param, "2.bias") == 0);
    CHECK(parses(&p, "no-set-epoch"));
    CHECK(parses(&p, "no-sampler"));
    CHECK(parses(&p, "loss-not-divided"));
    CHECK(parses(&p, "seeds"));
    CHECK(parses(&p, "save-crash"));
    CHECK_EQ_INT(p.f[11].step, 0);
    CHECK_EQ_INT(p.f[11].rank, -1);
    CHECK(parses(&p, "save-crash:step=4"));
    CHECK_EQ_INT(p.n, 13);
    CHECK(strcmp(p.f[3].text, "crash:rank=3,step=5,coll=1") == 0);
    // the second save-crash would never fire: the first kills the process
    char err[300];
    CHECK(sim_fault_check(&p, 4, err, sizeof err) == SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "--fault 'save-crash:step=4': a second save-crash fault (the first "
                            "is 'save-crash')");
    p.n--;
    CHECK(sim_fault_check(&p, 4, NULL, 0) == SIM_OK);
    for (int k = 0; k < SIM_FAULT_KIND_COUNT; k++)
        CHECK(strcmp(sim_fault_kind_name((SimFaultKind)k), "?") != 0);
    return 0;
}

static int test_refused(void) {
    CHECK(refused("", "kinds: skip"));
    CHECK(refused("bogus", "unknown kind 'bogus'"));
    CHECK(refused("skip", "needs keys"));
    CHECK(refused("skip:", "nothing after ':'"));
    CHECK(refused("skip:rank=1", "needs step="));
    CHECK(refused("skip:step=1", "needs rank="));
    CHECK(refused("slow-rank:rank=1", "needs factor="));
    CHECK(refused("skip:rank=-1,step=1", "rank: 0 or more"));
    CHECK(refused("skip:rank=1,step=0", "step: 1 or more"));
    CHECK(refused("skip:rank=1,step=1x", "step: 1 or more"));
    CHECK(refused("skip:rank=1,step=1,rank=2", "given twice"));
    CHECK(refused("skip:rank=1,step=1,factor=2", "takes no 'factor'"));
    CHECK(refused("skip:rank=1,step=1,colour=2", "unknown key 'colour'"));
    CHECK(refused("skip:rank", "is not key=value"));
    CHECK(refused("slow-rank:rank=1,factor=1", "a number above 1"));
    CHECK(refused("slow-rank:rank=1,factor=nan", "a number above 1"));
    CHECK(refused("slow-link:rank=1,factor=1e9", "at most 1e6"));
    CHECK(refused("mismatch:rank=1,step=1,as=size", "as: count or op"));
    CHECK(refused("no-sampler:rank=1", "takes no 'rank'"));
    char big[400];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    memcpy(big, "unused:rank=0,param=", 20);
    CHECK(refused(big, "too long"));
    SimFaultPlan p = {0};
    for (int i = 0; i < SIM_FAULT_MAX; i++)
        CHECK(parses(&p, "seeds"));
    char err[200];
    CHECK(sim_fault_parse(&p, "seeds", err, sizeof err) == SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "at most 16");
    return 0;
}

static int test_check_and_queries(void) {
    SimFaultPlan p = {0};
    char err[400];
    CHECK(parses(&p, "skip:rank=4,step=1"));
    CHECK(sim_fault_check(&p, 4, err, sizeof err) == SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "rank 4 does not exist; this run has ranks 0 to 3 (-n 4)");
    SimFaultPlan one = {0};
    CHECK(parses(&one, "no-sampler"));
    CHECK(sim_fault_check(&one, 1, err, sizeof err) == SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "needs 2 or more ranks");
    SimFaultPlan alone = {0};
    CHECK(parses(&alone, "slow-rank:rank=0,factor=3"));
    CHECK(parses(&alone, "loss-not-divided"));
    CHECK(sim_fault_check(&alone, 1, err, sizeof err) == SIM_OK);

    // two faults on one collective: the launch answers to the first only
    const char *clash[][2] = {
        {"skip:rank=1,step=2", "crash:rank=1,step=2,coll=0"},
        {"reorder:rank=1,step=2,coll=3", "mismatch:rank=1,step=2,coll=4"},
        {"mismatch:rank=1,step=2,coll=4", "reorder:rank=1,step=2,coll=3"},
        {"reorder:rank=1,step=2,coll=3", "reorder:rank=1,step=2,coll=4"},
        {"seeds", "seeds"},
        {"no-sampler", "no-sampler"},
        {"no-set-epoch", "no-set-epoch"},
        {"loss-not-divided", "loss-not-divided"},
    };
    for (size_t i = 0; i < sizeof clash / sizeof clash[0]; i++) {
        SimFaultPlan two = {0};
        CHECK(parses(&two, clash[i][0]) && parses(&two, clash[i][1]));
        CHECK(sim_fault_check(&two, 4, err, sizeof err) == SIM_EINVAL);
        CHECK_STR_CONTAINS(err, clash[i][1]);
        CHECK(strstr(err, "never") != NULL);
    }
    SimFaultPlan apart = {0}; // other collectives, steps or ranks: both fire
    CHECK(parses(&apart, "reorder:rank=1,step=2,coll=3"));
    CHECK(parses(&apart, "skip:rank=1,step=2,coll=5"));
    CHECK(parses(&apart, "skip:rank=1,step=3,coll=3"));
    CHECK(parses(&apart, "crash:rank=2,step=2,coll=3"));
    CHECK(parses(&apart, "slow-rank:rank=1,factor=2"));
    CHECK(parses(&apart, "slow-rank:rank=1,factor=3,step=2"));
    CHECK(sim_fault_check(&apart, 4, err, sizeof err) == SIM_OK);

    SimFaultPlan q = {0};
    CHECK(parses(&q, "reorder:rank=1,step=2,coll=3"));
    CHECK(parses(&q, "slow-rank:rank=2,factor=2,step=3"));
    CHECK(parses(&q, "slow-rank:rank=2,factor=1.5"));
    CHECK(parses(&q, "slow-link:rank=0,factor=3"));
    CHECK(parses(&q, "slow-link:rank=3,factor=5"));
    // reorder answers for collectives K and K+1 of its step only
    CHECK(sim_fault_at_coll(&q, 1, 2, 3) == &q.f[0]);
    CHECK(sim_fault_at_coll(&q, 1, 2, 4) == &q.f[0]);
    CHECK(sim_fault_at_coll(&q, 1, 2, 5) == NULL);
    CHECK(sim_fault_at_coll(&q, 1, 3, 3) == NULL);
    CHECK(sim_fault_at_coll(&q, 0, 2, 3) == NULL);
    CHECK(sim_fault_at_coll(NULL, 1, 2, 3) == NULL);
    // slow-rank factors multiply, each from its step on
    CHECK_NEAR(sim_fault_compute_factor(&q, 2, 1), 1.5, 1e-12);
    CHECK_NEAR(sim_fault_compute_factor(&q, 2, 3), 3.0, 1e-12);
    CHECK_NEAR(sim_fault_compute_factor(&q, 1, 3), 1.0, 0);
    CHECK_NEAR(sim_fault_compute_factor(NULL, 1, 3), 1.0, 0);
    // a link is as slow as the slower of its two ends
    CHECK_NEAR(sim_fault_link_factor(&q, 0, 1), 3.0, 0);
    CHECK_NEAR(sim_fault_link_factor(&q, 3, 0), 5.0, 0);
    CHECK_NEAR(sim_fault_link_factor(&q, 1, 2), 1.0, 0);
    CHECK(sim_fault_find(&q, SIM_FAULT_SLOW_LINK, 3) == &q.f[4]);
    CHECK(sim_fault_find(&q, SIM_FAULT_SLOW_LINK, -1) == &q.f[3]);
    CHECK(sim_fault_find(&q, SIM_FAULT_SEEDS, -1) == NULL);
    return 0;
}

int main(void) {
    if (test_kinds() || test_refused() || test_check_and_queries())
        return 1;
    printf("test_fault_parse: ok\n");
    return 0;
}
