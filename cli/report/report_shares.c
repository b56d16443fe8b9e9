// cli/report/report_shares.c: the "shares:" lines of `ddplab report`: where
// each rank's time went, in whole percent, one line per group of ranks
// whose shares are alike. The time table holds the same figures, but is
// wider than a terminal of 80 columns; these lines fit one, and a straggler
// stands out as a group of its own.
#include <stdio.h>
#include <string.h>

#include "report/report.h"

// The groups shown; more are summed up in one line (the table has them all).
#define SHARES_MAX_GROUPS 4

// A rank's shares of its total, in whole percent: compute, data wait,
// exposed comm, idle, and of the idle the host's.
typedef struct {
    int pct[5];
} Shares;

static Shares shares_of(const SimReportRank *k) {
    Shares s;
    const double part[5] = {k->compute, k->data_wait, k->exposed, k->idle, k->host_wait};
    for (int j = 0; j < 5; j++)
        s.pct[j] = k->span > 0 ? (int)(100 * part[j] / k->span + 0.5) : 0;
    return s;
}

static int shares_same(const Shares *a, const Shares *b) {
    return memcmp(a->pct, b->pct, sizeof a->pct) == 0;
}

// "rank 2", "ranks 0-1,3" or "all 4 ranks": the ranks r (of n) whose shares
// equal s, as runs of consecutive ranks. Returns how many there are.
static int ranks_text(const SimTraceReport *r, const Shares *s, char *buf, size_t len) {
    int count = 0, n = r->nranks;
    char list[160] = "";
    size_t used = 0;
    for (int i = 0; i < n; i++) {
        Shares si = shares_of(&r->rank[i]);
        if (!shares_same(&si, s))
            continue;
        int j = i;
        while (j + 1 < n) {
            Shares sj = shares_of(&r->rank[j + 1]);
            if (!shares_same(&sj, s))
                break;
            j++;
        }
        count += j - i + 1;
        if (used + 24 < sizeof list) {
            int w = j > i ? snprintf(list + used, sizeof list - used, "%s%d-%d", used ? "," : "",
                                     i, j)
                          : snprintf(list + used, sizeof list - used, "%s%d", used ? "," : "", i);
            used += (size_t)w;
        } else if (used + 4 < sizeof list && list[used - 1] != '.') {
            used += (size_t)snprintf(list + used, sizeof list - used, ",...");
        }
        i = j;
    }
    if (count == n && n > 1)
        snprintf(buf, len, "all %d ranks", n);
    else
        snprintf(buf, len, "rank%s %s", count > 1 ? "s" : "", list);
    return count;
}

void report_print_shares(FILE *out, const SimTraceReport *r) {
    int host = 0;
    for (int i = 0; i < r->nranks; i++)
        host |= r->rank[i].host_wait > 0;
    Shares seen[SHARES_MAX_GROUPS];
    int groups = 0, left = 0;
    for (int i = 0; i < r->nranks; i++) {
        Shares s = shares_of(&r->rank[i]);
        int known = 0;
        for (int g = 0; g < groups && !known; g++)
            known = shares_same(&seen[g], &s);
        if (known)
            continue;
        if (groups == SHARES_MAX_GROUPS) {
            left++;
            continue;
        }
        seen[groups++] = s;
        char who[200];
        ranks_text(r, &s, who, sizeof who);
        fprintf(out, "%s%s: compute %d%%, data wait %d%%, exposed %d%%, idle %d%%",
                groups == 1 ? "shares:   " : "          ", who, s.pct[0], s.pct[1], s.pct[2],
                s.pct[3]);
        if (host)
            fprintf(out, " (host %d%%)", s.pct[4]);
        fputc('\n', out);
    }
    if (left > 0)
        fprintf(out, "          and %d more group%s of ranks alike (the table has every "
                "rank)\n", left, left == 1 ? "" : "s");
}
