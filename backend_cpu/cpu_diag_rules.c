// backend_cpu/cpu_diag_rules.c: where the ranks' histories first disagree
// ("diverge at #N: ...") and the probable cause, chosen by small rules from
// what the recorders show. Every rule reads only the plain copies of the
// recorders (cpu_diagnosis.h), so tests build the states by hand.
//
// The watchdog's rules compare every other rank with the call the
// diagnosing rank waits in; the first class below that some rank falls in
// names the cause (and every rank of that class):
//   crashed         exited == CPU_EXITED_CRASHED: an injected fault killed it
//   returned        its rank function returned: it left the loop early, or,
//                   when fewer ranks wait than have returned, the waiting
//                   ranks made a call the others never make
//   other call      in a collective of the same sequence number, but another
//                   collective, count or dtype
//   elsewhere       in a send/recv while the others wait in a collective, or
//                   in anything but the matching send/recv
//   ahead           at a higher sequence number: it skipped collectives
//   behind (in)     waiting in a lower sequence number
//   behind (out)    in no collective, not yet at the sequence number
// and when every rank is in the call, none is missing: the call is slow.
// The protocol check's rules compare each rank's call with the largest group
// of equal calls: another collective or size, other arguments (op, root,
// algorithm), ahead, behind.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_diag_internal.h"

// ----------------------------------------------------------------------------
// the divergence

static const CpuHistEntry *hist_find(const CpuFrView *v, uint64_t s) {
    for (int k = v->nhist - 1; k >= 0; k--)
        if (v->hist[k].seq == s)
            return &v->hist[k];
    return NULL;
}

// What one rank did at sequence number s: its call, or (e == NULL) the
// sequence number it went on to instead (> s: it skipped s) or the newest
// it entered (< s: it never got to s; -1: it entered none).
typedef struct {
    const CpuHistEntry *e;
    int64_t other;
} AtSeq;

static AtSeq at_seq(const CpuFrView *v, uint64_t s) {
    AtSeq a = {hist_find(v, s), cpu_diag_newest(v)};
    for (int k = 0; a.e == NULL && k < v->nhist; k++)
        if (v->hist[k].seq > s && (a.other <= (int64_t)s || (int64_t)v->hist[k].seq < a.other))
            a.other = (int64_t)v->hist[k].seq;
    return a;
}

static int at_same(AtSeq a, AtSeq b) {
    if (a.e && b.e)
        return cpu_diag_entry_diff(a.e, b.e) == 0;
    return !a.e && !b.e && a.other == b.other;
}

// Groups the ranks by what they did at s (at most CPU_DIAG_GROUPS_MAX
// groups, in order of their first rank): grp[r] is rank r's group or -1
// (a rank beyond the groups), first[g] a member of group g. Returns the
// number of groups.
static int group_at(const CpuFrView *v, int R, uint64_t s, int *grp, int *first) {
    int ng = 0;
    for (int r = 0; r < R; r++) {
        AtSeq a = at_seq(&v[r], s);
        grp[r] = -1;
        for (int g = 0; g < ng && grp[r] < 0; g++)
            if (at_same(a, at_seq(&v[first[g]], s)))
                grp[r] = g;
        if (grp[r] < 0 && ng < CPU_DIAG_GROUPS_MAX) {
            first[ng] = r;
            grp[r] = ng++;
        }
    }
    return ng;
}

static void write_diverge(const CpuFrView *v, int R, uint64_t s, CpuText *t) {
    unsigned long long ss = (unsigned long long)s;
    cpu_text_add(t, "diverge at #%llu", ss);
    int *grp = malloc(2 * (size_t)R * sizeof *grp);
    if (grp == NULL)
        return;
    int *rk = grp + R, first[CPU_DIAG_GROUPS_MAX];
    int ng = group_at(v, R, s, grp, first);
    // the arguments worth naming: those in which the calls differ
    const CpuHistEntry *e0 = NULL;
    int extra = 0;
    for (int g = 0; g < ng; g++) {
        const CpuHistEntry *e = hist_find(&v[first[g]], s);
        if (e && e0)
            extra |= cpu_diag_entry_diff(e0, e);
        else if (e)
            e0 = e;
    }
    extra &= CPU_DIFF_OP | CPU_DIFF_ROOT | CPU_DIFF_ALGO;
    cpu_text_add(t, ": ");
    int rest = 0;
    for (int r = 0; r < R; r++)
        rest += grp[r] < 0;
    // the calls first, then the ranks that made none at s
    int order[CPU_DIAG_GROUPS_MAX], no = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int g = 0; g < ng; g++)
            if ((hist_find(&v[first[g]], s) != NULL) == (pass == 0))
                order[no++] = g;
    for (int i = 0; i < no; i++) {
        int g = order[i], n = 0;
        for (int r = 0; r < R; r++)
            if (grp[r] == g)
                rk[n++] = r;
        if (i > 0)
            cpu_text_add(t, ", ");
        cpu_text_ranks(t, rk, n);
        AtSeq a = at_seq(&v[first[g]], s);
        char d[128];
        if (a.e) {
            cpu_diag_entry_desc(a.e, extra, d, sizeof d);
            cpu_text_add(t, " called %s", d);
        } else if (a.other > (int64_t)s) {
            cpu_text_add(t, " skipped #%llu (went on to #%lld)", ss, (long long)a.other);
        } else if (a.other >= 0) {
            cpu_text_add(t, " never called #%llu (last entered #%lld)", ss, (long long)a.other);
        } else {
            cpu_text_add(t, " never called #%llu (entered no collective)", ss);
        }
    }
    if (rest > 0)
        cpu_text_add(t, ", and %d more rank%s otherwise", rest, rest == 1 ? "" : "s");
    free(grp);
}

// At most this many sequence numbers are compared (the histories are
// CPU_FR_HISTORY long; gaps come only from skipped numbers).
#define DIVERGE_SPAN 64

int cpu_diag_diverge(const CpuFrView *v, int R, char *out, size_t cap) {
    CpuText t = cpu_text_on(out, cap);
    // From the oldest number every full history still holds (older ones
    // are forgotten by some rank) to the newest any rank entered.
    int64_t lo = 0, hi = -1;
    for (int r = 0; r < R; r++) {
        if (v[r].nhist == 0)
            continue;
        if ((int64_t)v[r].hist[v[r].nhist - 1].seq > hi)
            hi = (int64_t)v[r].hist[v[r].nhist - 1].seq;
        if (v[r].nhist == CPU_FR_HISTORY && (int64_t)v[r].hist[0].seq > lo)
            lo = (int64_t)v[r].hist[0].seq;
    }
    if (hi - lo > DIVERGE_SPAN)
        lo = hi - DIVERGE_SPAN;
    for (int64_t s = lo; s <= hi; s++) {
        AtSeq a0 = at_seq(&v[0], (uint64_t)s);
        int present = a0.e != NULL, differ = 0;
        for (int r = 1; r < R; r++) {
            AtSeq a = at_seq(&v[r], (uint64_t)s);
            present |= a.e != NULL;
            differ |= !at_same(a, a0);
        }
        if (present && differ) {
            write_diverge(v, R, (uint64_t)s, &t);
            return 1;
        }
    }
    return 0;
}

// ----------------------------------------------------------------------------
// the probable cause

typedef enum {
    K_SAME = 0,   // in the call compared with (or in the reference group)
    K_FINISHED,   // done with that call already
    K_SKIP,       // nothing known (no history)
    K_CRASHED,
    K_RETURNED,
    K_OTHER,      // another collective or size at the same number
    K_ARGS,       // the same collective and size, other op / root / algorithm
    K_ELSEWHERE,  // a send/recv against a collective, or the wrong send/recv
    K_AHEAD,
    K_BEHIND_IN,
    K_BEHIND_OUT,
} Klass;

// The classes that name a cause, strongest first.
static const Klass cause_order[] = {K_CRASHED, K_RETURNED, K_OTHER,     K_ARGS,
                                    K_ELSEWHERE, K_AHEAD,  K_BEHIND_IN, K_BEHIND_OUT};

// The rank's live call as a history entry (op and root unknown).
static CpuHistEntry live_entry(const CpuFrView *v) {
    CpuHistEntry e = {v->seq, v->count, v->kind, v->dtype, v->algo, SIM_SUM, 0, 0};
    return e;
}

static int same_live_call(const CpuFrView *a, const CpuFrView *d) {
    if (!cpu_diag_in_coll(a) || a->kind != d->kind || a->seq != d->seq)
        return 0;
    if (cpu_diag_is_p2p(d->kind))
        return a->peer == d->peer;
    return d->kind == SIM_COLL_BARRIER || (a->count == d->count && a->dtype == d->dtype);
}

// Rank v against d, the call the watchdog's rank waits in; *at: the
// sequence number that places it (ahead / behind).
static Klass classify_watch(const CpuFrView *v, const CpuFrView *d, int64_t *at) {
    *at = (int64_t)v->seq;
    if (same_live_call(v, d))
        return K_SAME;
    if (v->exited == CPU_EXITED_CRASHED)
        return K_CRASHED;
    if (v->exited != CPU_EXITED_NO)
        return K_RETURNED;
    int in = cpu_diag_in_coll(v);
    if (cpu_diag_is_p2p(d->kind))
        return in ? K_ELSEWHERE : K_BEHIND_OUT;
    if (in && cpu_diag_is_p2p(v->kind))
        return K_ELSEWHERE;
    if (in)
        return v->seq == d->seq ? K_OTHER : v->seq > d->seq ? K_AHEAD : K_BEHIND_IN;
    *at = cpu_diag_newest(v);
    if (*at == (int64_t)d->seq)
        return K_FINISHED;
    return *at > (int64_t)d->seq ? K_AHEAD : K_BEHIND_OUT;
}

// Rank v's call against ref, the protocol check's largest group.
static Klass classify_proto(const CpuHistEntry *e, const CpuHistEntry *ref, int64_t *at) {
    *at = e ? (int64_t)e->seq : -1;
    if (e == NULL)
        return K_SKIP;
    int d = cpu_diag_entry_diff(e, ref);
    if (d == 0)
        return K_SAME;
    if (d & CPU_DIFF_SEQ)
        return e->seq > ref->seq ? K_AHEAD : K_BEHIND_IN;
    return d & (CPU_DIFF_KIND | CPU_DIFF_SHAPE) ? K_OTHER : K_ARGS;
}

static const CpuHistEntry *newest_entry(const CpuFrView *v) {
    return v->nhist > 0 ? &v->hist[v->nhist - 1] : NULL;
}

// The protocol check's reference: the first of the largest groups of equal
// calls (ties: the group of the lowest rank).
static const CpuHistEntry *proto_reference(const CpuFrView *v, int R, int *grp) {
    const CpuHistEntry *rep[CPU_DIAG_GROUPS_MAX];
    int size[CPU_DIAG_GROUPS_MAX], ng = 0;
    for (int r = 0; r < R; r++) {
        const CpuHistEntry *e = newest_entry(&v[r]);
        grp[r] = -1;
        for (int g = 0; e && g < ng && grp[r] < 0; g++)
            if (cpu_diag_entry_diff(e, rep[g]) == 0)
                grp[r] = g, size[g]++;
        if (e && grp[r] < 0 && ng < CPU_DIAG_GROUPS_MAX) {
            rep[ng] = e;
            size[ng] = 1;
            grp[r] = ng++;
        }
    }
    int best = 0;
    for (int g = 1; g < ng; g++)
        if (size[g] > size[best])
            best = g;
    return ng > 0 ? rep[best] : NULL;
}

// The sentence for the chosen class: odd = the ranks it names, wait = the
// ranks that waited (watchdog) or called the reference (protocol).
typedef struct {
    const int *odd, *wait;
    int nodd, nwait, others; // others: `wait` is everyone but `odd`
    int pair;                // the reference is a send/recv
    const CpuFrView *first;  // the first odd rank's view
    int64_t at;              // its placing sequence number
    uint64_t s;              // the reference's sequence number
    char call[160];          // the reference call: "AllReduce #30"
    char ref_desc[128], odd_desc[128]; // other call / args: the two calls
} Cause;

static void put_wait(CpuText *t, const Cause *c) {
    if (c->others)
        cpu_text_add(t, "the others");
    else
        cpu_text_ranks(t, c->wait, c->nwait);
}

static void write_cause(CpuText *t, Klass k, const Cause *c) {
    int one = c->nodd == 1, wone = !c->others && c->nwait == 1;
    const char *it = one ? "it" : "them", *they = one ? "it" : "they", *is = one ? "is" : "are";
    const char *wis = wone ? "is" : "are";
    long long gap = c->at > (int64_t)c->s ? c->at - (long long)c->s : (long long)c->s - c->at;
    cpu_text_add(t, "probable cause: ");
    if (k == K_RETURNED && c->nwait < c->nodd) {
        cpu_text_ranks(t, c->wait, c->nwait);
        cpu_text_add(t, " called %s after ", c->call);
        cpu_text_ranks(t, c->odd, c->nodd);
        cpu_text_add(t, " had finished: a collective the other ranks never call (inside a "
                        "rank-dependent branch, e.g. an evaluation or a state_dict() on rank 0 "
                        "only)");
        return;
    }
    cpu_text_ranks(t, c->odd, c->nodd);
    switch (k) {
    case K_CRASHED:
    case K_RETURNED:
        cpu_text_add(t, k == K_CRASHED ? " crashed (the process died)"
                                       : " left the training loop early (fewer batches, a "
                                         "return inside a rank-dependent branch)");
        cpu_text_add(t, " while ");
        put_wait(t, c);
        cpu_text_add(t, " waited for %s in %s", it, c->call);
        break;
    case K_OTHER:
        cpu_text_add(t, " called a different collective at #%llu (%s instead of %s): a "
                        "collective skipped or added in a rank-dependent branch, or buckets "
                        "in a different order", (unsigned long long)c->s, c->odd_desc,
                     c->ref_desc);
        break;
    case K_ARGS:
        cpu_text_add(t, " called %s with other arguments (%s instead of %s): an argument that "
                        "depends on the rank", c->call, c->odd_desc, c->ref_desc);
        break;
    case K_ELSEWHERE: {
        char name[160];
        cpu_diag_call_name(c->first, name, sizeof name);
        if (one)
            cpu_text_add(t, " is in %s while ", name);
        else
            cpu_text_add(t, " are in other calls (rank %d in %s) while ", c->odd[0], name);
        put_wait(t, c);
        cpu_text_add(t, " waited in %s: the ranks issue their collectives and sends/receives "
                        "in different orders", c->call);
        break;
    }
    case K_AHEAD:
    case K_BEHIND_IN:
        cpu_text_add(t, " %s ", is);
        if (gap == 1)
            cpu_text_add(t, "one collective");
        else
            cpu_text_add(t, "%lld collectives", gap);
        cpu_text_add(t, " %s (at #%lld while ", k == K_AHEAD ? "ahead" : "behind",
                     (long long)c->at);
        put_wait(t, c);
        cpu_text_add(t, " %s at #%llu): ", wis, (unsigned long long)c->s);
        if (k == K_AHEAD && gap == 1)
            cpu_text_add(t, "%s skipped one", they);
        else if (k == K_AHEAD)
            cpu_text_add(t, "%s skipped %lld", they, gap);
        else
            cpu_text_add(t, "the ranks made different numbers of collective calls (a "
                            "collective skipped by the others, or an extra one on %s)", it);
        break;
    case K_BEHIND_OUT:
        if (c->pair)
            cpu_text_add(t, " %s not reached the matching call of %s: ", one ? "has" : "have",
                         c->call);
        else
            cpu_text_add(t, " %s not reached #%llu: ", one ? "has" : "have",
                         (unsigned long long)c->s);
        cpu_text_add(t, "%s %s still computing (a straggler, or stuck outside collectives) or "
                        "skipped a collective earlier", they, is);
        break;
    default: break;
    }
}

// Picks the strongest class present and fills c->odd with its ranks (those
// that share the first one's placing); returns the class, or K_SAME.
static Klass pick(const Klass *cls, const int64_t *at, int R, int *odd, Cause *c) {
    for (size_t i = 0; i < sizeof cause_order / sizeof cause_order[0]; i++) {
        Klass k = cause_order[i];
        int first = -1;
        c->nodd = 0;
        for (int r = 0; r < R; r++) {
            if (cls[r] != k)
                continue;
            if (first < 0)
                first = r;
            int placed = k == K_AHEAD || k == K_BEHIND_IN;
            if (!placed || at[r] == at[first])
                odd[c->nodd++] = r;
        }
        if (first >= 0) {
            c->at = at[first];
            return k;
        }
    }
    return K_SAME;
}

void cpu_diag_cause(const CpuFrView *v, int R, int me, char *out, size_t cap) {
    CpuText t = cpu_text_on(out, cap);
    int *buf = malloc(3 * (size_t)R * sizeof *buf);
    int64_t *at = malloc((size_t)R * sizeof *at);
    Klass *cls = malloc((size_t)R * sizeof *cls);
    if (!buf || !at || !cls) {
        cpu_text_add(&t, "probable cause: unknown (out of memory)");
        free(buf), free(at), free(cls);
        return;
    }
    int *odd = buf, *wait = buf + R, *grp = buf + 2 * R;
    Cause c;
    memset(&c, 0, sizeof c);
    c.odd = odd;
    c.wait = wait;
    const CpuHistEntry *ref = NULL;
    if (me >= 0) {
        const CpuFrView *d = &v[me];
        int pair = cpu_diag_is_p2p(d->kind);
        for (int r = 0; r < R; r++) {
            cls[r] = r == me ? K_SAME : pair && r != d->peer ? K_SKIP
                                                             : classify_watch(&v[r], d, &at[r]);
            if (r == me)
                at[r] = (int64_t)d->seq;
        }
        c.s = d->seq;
        c.pair = pair;
        cpu_diag_call_short(d, c.call, sizeof c.call);
        CpuHistEntry re = live_entry(d);
        cpu_diag_entry_desc(&re, 0, c.ref_desc, sizeof c.ref_desc);
    } else {
        ref = proto_reference(v, R, grp);
        if (ref == NULL) {
            cpu_text_add(&t, "probable cause: unknown (no rank's history was readable)");
            free(buf), free(at), free(cls);
            return;
        }
        for (int r = 0; r < R; r++)
            cls[r] = classify_proto(newest_entry(&v[r]), ref, &at[r]);
        c.s = ref->seq;
        snprintf(c.call, sizeof c.call, "%s #%llu", sim_coll_title(ref->kind),
                 (unsigned long long)ref->seq);
    }
    for (int r = 0; r < R; r++)
        if (cls[r] == K_SAME)
            wait[c.nwait++] = r;
    Klass k = pick(cls, at, R, odd, &c);
    if (k == K_SAME) {
        cpu_text_add(&t, "probable cause: every rank is in %s, none is missing: the collective "
                         "itself is slow or stuck (a slow link or a slow rank), or the "
                         "watchdog's limit is too short for this run", c.call);
    } else {
        c.first = &v[odd[0]];
        int considered = 0;
        for (int r = 0; r < R; r++)
            considered += cls[r] != K_SKIP;
        if (k == K_OTHER || k == K_ARGS) { // only the ranks that made the first one's call
            CpuHistEntry e0 = me >= 0 ? live_entry(c.first) : *newest_entry(c.first);
            int n = 0;
            for (int i = 0; i < c.nodd; i++) {
                const CpuFrView *o = &v[odd[i]];
                CpuHistEntry e = me >= 0 ? live_entry(o) : *newest_entry(o);
                if (cpu_diag_entry_diff(&e, &e0) == 0)
                    odd[n++] = odd[i];
            }
            c.nodd = n;
        }
        c.others = considered > 2 && c.nwait + c.nodd == considered;
        if (k == K_OTHER || k == K_ARGS) {
            CpuHistEntry oe = me >= 0 ? live_entry(c.first) : *newest_entry(c.first);
            int extra = k == K_ARGS && ref ? cpu_diag_entry_diff(&oe, ref) : 0;
            cpu_diag_entry_desc(&oe, extra, c.odd_desc, sizeof c.odd_desc);
            if (ref)
                cpu_diag_entry_desc(ref, extra, c.ref_desc, sizeof c.ref_desc);
        }
        write_cause(&t, k, &c);
    }
    free(buf), free(at), free(cls);
}
