// sim/strategy/elastic.c: the rendezvous, membership specs and the fault plan of a
// later round (see elastic.h).
#include "strategy/elastic.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sim_rdzv_init(SimRdzv *z, int min, int max, double last_call_s, double now) {
    memset(z, 0, sizeof *z);
    z->min = min;
    z->max = max > SIM_ELASTIC_MAX ? SIM_ELASTIC_MAX : max;
    z->last_call_s = last_call_s;
    z->state = SIM_RDZV_JOINABLE;
    z->opened_s = now;
    z->deadline_s = -1;
    z->frozen_s = -1;
}

SimStatus sim_rdzv_open(SimRdzv *z, double now) {
    if (z->state != SIM_RDZV_FROZEN)
        return SIM_EINVAL;
    z->state = SIM_RDZV_JOINABLE;
    z->round++;
    z->n = 0;
    z->opened_s = now;
    z->deadline_s = -1;
    z->frozen_s = -1;
    return SIM_OK;
}

int sim_rdzv_rank(const SimRdzv *z, int id) {
    for (int i = 0; i < z->n; i++)
        if (z->id[i] == id)
            return i;
    return -1;
}

int sim_rdzv_join(SimRdzv *z, int id, double now) {
    if (z->state == SIM_RDZV_FINAL || sim_rdzv_rank(z, id) >= 0)
        return -1;
    sim_rdzv_advance(z, now); // a last call that ran out before now froze the round
    if (z->state != SIM_RDZV_JOINABLE || z->n >= z->max)
        return 0;
    z->id[z->n++] = id;
    if (z->n == z->min)
        z->deadline_s = now + z->last_call_s;
    if (z->n == z->max) { // full: no reason to wait for the last call
        z->state = SIM_RDZV_FROZEN;
        z->frozen_s = now;
    }
    return 1;
}

SimRdzvState sim_rdzv_advance(SimRdzv *z, double now) {
    if (z->state == SIM_RDZV_JOINABLE && z->n >= z->min && z->deadline_s >= 0 &&
        now >= z->deadline_s) {
        z->state = SIM_RDZV_FROZEN;
        z->frozen_s = z->deadline_s;
    }
    return z->state;
}

SimStatus sim_rdzv_settle(SimRdzv *z, double now) {
    if (z->state == SIM_RDZV_FROZEN)
        return SIM_OK;
    if (z->state != SIM_RDZV_JOINABLE || z->n < z->min)
        return SIM_EINVAL;
    double at = z->deadline_s > now ? z->deadline_s : now;
    z->state = SIM_RDZV_FROZEN;
    z->frozen_s = at;
    return SIM_OK;
}

SimStatus sim_rdzv_finish(SimRdzv *z) {
    if (z->state != SIM_RDZV_FROZEN)
        return SIM_EINVAL;
    z->state = SIM_RDZV_FINAL;
    return SIM_OK;
}

const char *sim_rdzv_state_name(SimRdzvState s) {
    switch (s) {
    case SIM_RDZV_JOINABLE: return "joinable";
    case SIM_RDZV_FROZEN: return "frozen";
    case SIM_RDZV_FINAL: return "final";
    }
    return "?";
}

// ----------------------------------------------------------------------------
// membership specs

// "key=N" at *p (N a whole number lo..hi); advances *p past it and a ','.
static int take_num(const char **p, const char *key, long long lo, long long hi, long long *out) {
    size_t k = strlen(key);
    if (strncmp(*p, key, k) != 0 || (*p)[k] != '=')
        return -1;
    const char *v = *p + k + 1;
    if (*v < '0' || *v > '9')
        return -1;
    errno = 0;
    char *end;
    long long x = strtoll(v, &end, 10);
    if (errno == ERANGE || x < lo || x > hi || (*end != ',' && *end != '\0'))
        return -1;
    *out = x;
    *p = *end == ',' ? end + 1 : end;
    return 0;
}

SimStatus sim_member_parse(const char *spec, SimMemberEvent *ev, char *err, size_t errlen) {
    memset(ev, 0, sizeof *ev);
    ev->ranks = 1;
    snprintf(ev->text, sizeof ev->text, "%s", spec ? spec : "");
    const char *allowed = "leave:rank=R,step=S or join:step=S[,ranks=K] (R >= 0, S >= 1, "
                          "K >= 1)";
    long long rank = -1, step = 0, k = 1;
    int seen_rank = 0, seen_step = 0, seen_k = 0, ok = 0;
    const char *p = spec ? spec : "";
    if (strncmp(p, "leave:", 6) == 0) {
        p += 6;
        ev->kind = SIM_MEMBER_LEAVE;
    } else if (strncmp(p, "join:", 5) == 0) {
        p += 5;
        ev->kind = SIM_MEMBER_JOIN;
    } else {
        p = NULL;
    }
    // key=value pairs in any order, each once
    while (p && *p) {
        if (!seen_step && take_num(&p, "step", 1, INT32_MAX, &step) == 0)
            seen_step = 1;
        else if (ev->kind == SIM_MEMBER_LEAVE && !seen_rank &&
                 take_num(&p, "rank", 0, SIM_ELASTIC_MAX - 1, &rank) == 0)
            seen_rank = 1;
        else if (ev->kind == SIM_MEMBER_JOIN && !seen_k &&
                 take_num(&p, "ranks", 1, SIM_ELASTIC_MAX, &k) == 0)
            seen_k = 1;
        else
            p = NULL;
        if (p && p > spec && p[-1] == ',' && *p == '\0')
            p = NULL; // a trailing comma
    }
    ok = p != NULL && seen_step && (ev->kind == SIM_MEMBER_JOIN || seen_rank);
    if (!ok) {
        snprintf(err, errlen, "'%s' is not a membership change; allowed: %s", ev->text, allowed);
        return SIM_EINVAL;
    }
    ev->rank = ev->kind == SIM_MEMBER_LEAVE ? (int)rank : -1;
    ev->step = step;
    ev->ranks = ev->kind == SIM_MEMBER_JOIN ? (int)k : 0;
    return SIM_OK;
}

// ----------------------------------------------------------------------------
// faults of a later round

void sim_elastic_remap_faults(const SimFaultPlan *orig, const uint8_t *fired, const SimRdzv *z,
                              SimFaultPlan *out) {
    memset(out, 0, sizeof *out);
    for (int i = 0; orig && i < orig->n; i++) {
        if (fired && fired[i])
            continue;
        SimFault f = orig->f[i];
        if (f.rank >= 0) {
            int id = f.rank;
            f.rank = sim_rdzv_rank(z, id);
            if (f.rank < 0)
                continue; // its participant is gone
            if (f.rank != id) { // messages quote the spec: say whose rank it named
                size_t len = strlen(f.text);
                snprintf(f.text + len, sizeof f.text - len, " (first world's rank %d)", id);
            }
        }
        out->f[out->n++] = f;
    }
}
