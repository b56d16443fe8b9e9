// tests/test_elastic.c: the rendezvous state machine of sim/strategy/elastic.h
// (joinable -> frozen -> final, freezing at MAX at once or at MIN after the
// last call, ranks in join order, late arrivals waiting for the next
// round), the membership specs, and the fault plan carried into a later
// round (faults follow their participant; fired crashes and departed
// participants drop out).
#include <string.h>

#include "check.h"
#include "engine/fault.h"
#include "strategy/elastic.h"

// MAX joined: frozen at once, ranks in join order; a late one waits.
static int test_full(void) {
    SimRdzv z;
    sim_rdzv_init(&z, 2, 3, 30.0, 0.0);
    CHECK_EQ_INT(z.state, SIM_RDZV_JOINABLE);
    CHECK_EQ_INT(sim_rdzv_join(&z, 7, 1.0), 1);
    CHECK_EQ_INT(sim_rdzv_join(&z, 7, 1.0), -1); // already in
    CHECK_EQ_INT(sim_rdzv_join(&z, 3, 2.0), 1);
    CHECK_EQ_INT(z.state, SIM_RDZV_JOINABLE);    // MIN, but the last call is open
    CHECK_NEAR(z.deadline_s, 32.0, 1e-12);
    CHECK_EQ_INT(sim_rdzv_join(&z, 5, 3.0), 1);
    CHECK_EQ_INT(z.state, SIM_RDZV_FROZEN);      // MAX: no wait
    CHECK_NEAR(z.frozen_s, 3.0, 1e-12);
    CHECK_EQ_INT(sim_rdzv_rank(&z, 7), 0);
    CHECK_EQ_INT(sim_rdzv_rank(&z, 3), 1);
    CHECK_EQ_INT(sim_rdzv_rank(&z, 5), 2);
    CHECK_EQ_INT(sim_rdzv_rank(&z, 9), -1);
    CHECK_EQ_INT(sim_rdzv_join(&z, 9, 4.0), 0);  // frozen: waits for the next round
    CHECK_EQ_INT(sim_rdzv_finish(&z), SIM_OK);
    CHECK_EQ_INT(z.state, SIM_RDZV_FINAL);
    CHECK(strcmp(sim_rdzv_state_name(z.state), "final") == 0);
    CHECK_EQ_INT(sim_rdzv_join(&z, 9, 5.0), -1);
    CHECK_EQ_INT(sim_rdzv_open(&z, 6.0), SIM_EINVAL); // no round after FINAL
    return 0;
}

// MIN joined: the last call runs out, then it freezes; a joiner inside the
// last call still gets in; a new round re-ranks from scratch.
static int test_last_call(void) {
    SimRdzv z;
    sim_rdzv_init(&z, 2, 4, 30.0, 0.0);
    CHECK_EQ_INT(sim_rdzv_join(&z, 0, 0.0), 1);
    CHECK_EQ_INT(sim_rdzv_advance(&z, 100.0), SIM_RDZV_JOINABLE); // below MIN: waits
    CHECK_EQ_INT(sim_rdzv_join(&z, 1, 10.0), 1);
    CHECK_EQ_INT(sim_rdzv_advance(&z, 39.0), SIM_RDZV_JOINABLE);
    CHECK_EQ_INT(sim_rdzv_join(&z, 2, 39.5), 1);                   // inside the last call
    CHECK_EQ_INT(sim_rdzv_join(&z, 3, 41.0), 0);                   // too late
    CHECK_EQ_INT(z.state, SIM_RDZV_FROZEN);
    CHECK_NEAR(z.frozen_s, 40.0, 1e-12);
    CHECK_EQ_INT(z.n, 3);
    // the next round: survivors 2 and 0 (in that order), then the late one
    CHECK_EQ_INT(sim_rdzv_open(&z, 50.0), SIM_OK);
    CHECK_EQ_INT(z.round, 1);
    CHECK_EQ_INT(z.n, 0);
    CHECK_EQ_INT(sim_rdzv_open(&z, 50.0), SIM_EINVAL); // already joinable
    CHECK_EQ_INT(sim_rdzv_join(&z, 2, 50.0), 1);
    CHECK_EQ_INT(sim_rdzv_join(&z, 0, 50.0), 1);
    CHECK_EQ_INT(sim_rdzv_join(&z, 3, 50.0), 1);
    CHECK_EQ_INT(sim_rdzv_settle(&z, 50.0), SIM_OK); // waits out the last call
    CHECK_NEAR(z.frozen_s, 80.0, 1e-12);
    CHECK_EQ_INT(sim_rdzv_rank(&z, 2), 0);
    CHECK_EQ_INT(sim_rdzv_rank(&z, 0), 1);
    CHECK_EQ_INT(sim_rdzv_rank(&z, 3), 2);
    CHECK_EQ_INT(sim_rdzv_rank(&z, 1), -1);
    // fewer than MIN cannot form
    CHECK_EQ_INT(sim_rdzv_open(&z, 90.0), SIM_OK);
    CHECK_EQ_INT(sim_rdzv_join(&z, 2, 90.0), 1);
    CHECK_EQ_INT(sim_rdzv_settle(&z, 90.0), SIM_EINVAL);
    CHECK_EQ_INT(z.state, SIM_RDZV_JOINABLE);
    CHECK_EQ_INT(sim_rdzv_finish(&z), SIM_EINVAL);
    return 0;
}

static int test_member_parse(void) {
    SimMemberEvent ev;
    char err[256];
    CHECK_EQ_INT(sim_member_parse("leave:rank=2,step=7", &ev, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(ev.kind, SIM_MEMBER_LEAVE);
    CHECK_EQ_INT(ev.rank, 2);
    CHECK_EQ_INT(ev.step, 7);
    CHECK_EQ_INT(sim_member_parse("join:step=4", &ev, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(ev.kind, SIM_MEMBER_JOIN);
    CHECK_EQ_INT(ev.step, 4);
    CHECK_EQ_INT(ev.ranks, 1);
    CHECK_EQ_INT(sim_member_parse("join:step=4,ranks=3", &ev, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(ev.ranks, 3);
    CHECK_EQ_INT(sim_member_parse("leave:step=3,rank=1", &ev, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(ev.rank, 1);
    CHECK_EQ_INT(ev.step, 3);
    const char *bad[] = {"", "leave", "leave:rank=1", "leave:rank=1,rank=2,step=3", "join:step=0",
                         "join:step=2,ranks=0", "join:step=2,", "join:step=x", "grow:step=2",
                         "leave:rank=-1,step=2", "join:step=3,ranks=2,extra=1"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = 0;
        CHECK_EQ_INT(sim_member_parse(bad[i], &ev, err, sizeof err), SIM_EINVAL);
        CHECK_STR_CONTAINS(err, "allowed: leave:rank=R,step=S or join:step=S");
    }
    return 0;
}

// First world ranks 0..3; the new round holds participants 3, 0, 5.
static int test_remap(void) {
    SimFaultPlan plan = {0};
    char err[256];
    CHECK_EQ_INT(sim_fault_parse(&plan, "crash:rank=1,step=3", err, sizeof err), SIM_OK);
    CHECK_EQ_INT(sim_fault_parse(&plan, "crash:rank=3,step=8", err, sizeof err), SIM_OK);
    CHECK_EQ_INT(sim_fault_parse(&plan, "slow-rank:rank=0,factor=2", err, sizeof err), SIM_OK);
    CHECK_EQ_INT(sim_fault_parse(&plan, "no-set-epoch", err, sizeof err), SIM_OK);
    CHECK_EQ_INT(sim_fault_parse(&plan, "crash:rank=2,step=9", err, sizeof err), SIM_OK);
    SimRdzv z;
    sim_rdzv_init(&z, 1, 4, 1.0, 0.0);
    sim_rdzv_join(&z, 3, 0.0);
    sim_rdzv_join(&z, 0, 0.0);
    sim_rdzv_join(&z, 5, 0.0);
    CHECK_EQ_INT(sim_rdzv_settle(&z, 0.0), SIM_OK);
    uint8_t fired[SIM_FAULT_MAX] = {1, 0, 0, 0, 0}; // the first crash has fired
    SimFaultPlan out;
    sim_elastic_remap_faults(&plan, fired, &z, &out);
    CHECK_EQ_INT(out.n, 3); // rank 2's crash left with its participant
    CHECK_EQ_INT(out.f[0].kind, SIM_FAULT_CRASH);
    CHECK_EQ_INT(out.f[0].rank, 0); // participant 3 is rank 0 now
    CHECK_EQ_INT(out.f[0].step, 8);
    CHECK_STR_CONTAINS(out.f[0].text, "crash:rank=3,step=8 (first world's rank 3)");
    CHECK_EQ_INT(out.f[1].kind, SIM_FAULT_SLOW_RANK);
    CHECK_EQ_INT(out.f[1].rank, 1);
    CHECK_EQ_INT(out.f[2].kind, SIM_FAULT_NO_SET_EPOCH);
    CHECK_EQ_INT(out.f[2].rank, -1);
    return 0;
}

int main(void) {
    int fails = 0;
    fails += test_full();
    fails += test_last_call();
    fails += test_member_parse();
    fails += test_remap();
    if (fails == 0)
        printf("test_elastic: ok\n");
    return fails != 0;
}
