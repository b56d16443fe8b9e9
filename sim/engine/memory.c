// sim/engine/memory.c: the per-rank memory ledger (sim/engine/memory.h): charges and
// releases by category and space, the capacity check with its itemised
// out-of-memory report, the memory events in the trace, and the sizes a
// person types and reads ("80GB", "1.50 GiB").
//
// A ledger belongs to one rank and only that rank's thread touches it while
// the world runs, so nothing here locks.
#include "engine/memory.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cost/cost.h"    // defines: sim_device_find
#include "engine/world.h" // defines: SimRank, SimWorld

void sim_mem_ledger_init(SimMemLedger *l, uint64_t capacity) {
    memset(l, 0, sizeof *l);
    l->capacity = capacity;
}

void sim_mem_reset_peak(SimMemLedger *l, double now) {
    for (int s = 0; s < SIM_MEM_SPACE_COUNT; s++) {
        l->peak[s] = l->total[s];
        memcpy(l->at_peak[s], l->cur[s], sizeof l->at_peak[s]);
    }
    l->peak_sim = now;
}

// ----------------------------------------------------------------------------
// charges

static int counted(SimMemCat c) {
    return c != SIM_MEM_BACKING;
}

// A memory event for a change of `delta` bytes to category c of space s,
// with the space's total after it in `count` (see trace.h).
static void trace_charge(SimRank *r, SimMemSpace s, SimMemCat c, int64_t delta,
                         const char *name) {
    if (r->world == NULL || r->world->trace == NULL)
        return;
    SimEvent ev;
    sim_rank_event(&ev, r, SIM_EV_MEMORY, SIM_STREAM_COMPUTE, NULL,
                   delta > 0 ? "alloc" : "free", r->clock[SIM_STREAM_COMPUTE]);
    ev.name = name ? name : ev.label;
    ev.bytes = (uint64_t)(delta > 0 ? delta : -delta);
    ev.count = (uint64_t)(r->mem.total[s] > 0 ? r->mem.total[s] : 0);
    ev.mem_cat = (int16_t)c;
    ev.mem_space = (int16_t)s;
    sim_rank_trace(r, &ev);
}

void sim_rank_mem_reset_peak(SimRank *r) {
    sim_mem_reset_peak(&r->mem, r->clock[SIM_STREAM_COMPUTE]);
    if (r->world == NULL || r->world->trace == NULL)
        return;
    SimEvent ev;
    sim_rank_event(&ev, r, SIM_EV_MEMORY, SIM_STREAM_COMPUTE, "peak-reset", "peak-reset",
                   r->clock[SIM_STREAM_COMPUTE]);
    ev.count = (uint64_t)(r->mem.total[SIM_MEM_DEVICE] > 0 ? r->mem.total[SIM_MEM_DEVICE] : 0);
    ev.mem_cat = SIM_MEM_OTHER;
    ev.mem_space = SIM_MEM_DEVICE;
    sim_rank_trace(r, &ev);
}

static void note_peak(SimRank *r, SimMemSpace s) {
    SimMemLedger *l = &r->mem;
    if (l->total[s] <= l->peak[s])
        return;
    l->peak[s] = l->total[s];
    memcpy(l->at_peak[s], l->cur[s], sizeof l->at_peak[s]);
    if (s == SIM_MEM_DEVICE)
        l->peak_sim = r->clock[SIM_STREAM_COMPUTE];
}

static SimStatus bad_args(SimRank *r, SimMemSpace s, SimMemCat c) {
    snprintf(r->error, sizeof r->error, "memory ledger: space %d / category %d out of range",
             (int)s, (int)c);
    return SIM_EINVAL;
}

// Refuses a charge that takes the device over its capacity: keeps the
// first refusal in the ledger and writes the report into r->error.
static SimStatus refuse(SimRank *r, SimMemSpace s, SimMemCat c, int64_t bytes,
                        const char *what) {
    SimMemLedger *l = &r->mem;
    if (!l->oom) {
        l->oom = 1;
        l->oom_cat = (int16_t)c;
        l->oom_space = (int16_t)s;
        l->oom_bytes = bytes;
        l->oom_sim = r->clock[SIM_STREAM_COMPUTE];
        memcpy(l->oom_cur, l->cur[SIM_MEM_DEVICE], sizeof l->oom_cur);
        snprintf(l->oom_what, sizeof l->oom_what, "%s", what ? what : "tensor");
    }
    sim_mem_format_oom(l, r->rank, s, c, bytes, what, r->error, sizeof r->error);
    return SIM_ENOMEM;
}

// The one path every change goes through. `what` names the item in
// messages; `event` names the trace event (NULL: "alloc" / "free").
static SimStatus apply(SimRank *r, SimMemSpace s, SimMemCat c, int64_t delta, const char *what,
                       const char *event) {
    if (s < 0 || s >= SIM_MEM_SPACE_COUNT || c < 0 || c >= SIM_MEM_CAT_COUNT)
        return bad_args(r, s, c);
    if (delta == 0)
        return SIM_OK;
    SimMemLedger *l = &r->mem;
    if (delta < 0 && l->cur[s][c] + delta < 0) {
        snprintf(r->error, sizeof r->error,
                 "memory ledger: releasing %lld bytes of %s (%s) on the %s, but %lld are "
                 "charged", (long long)-delta, sim_mem_cat_name(c), what ? what : "tensor",
                 sim_mem_space_name(s), (long long)l->cur[s][c]);
        return SIM_EINVAL;
    }
    if (delta > 0 && counted(c) && s == SIM_MEM_DEVICE && l->capacity > 0 &&
        (uint64_t)l->total[s] + (uint64_t)delta > l->capacity)
        return refuse(r, s, c, delta, what);
    l->cur[s][c] += delta;
    if (counted(c)) {
        l->total[s] += delta;
        note_peak(r, s);
    }
    trace_charge(r, s, c, delta, event);
    return SIM_OK;
}

SimStatus sim_mem_charge(SimRank *r, SimMemSpace s, SimMemCat c, int64_t delta,
                         const char *what) {
    return apply(r, s, c, delta, what, what);
}

SimStatus sim_mem_charge_item(SimRank *r, SimMemSpace s, SimMemCat c, int64_t delta,
                              const char *what) {
    return apply(r, s, c, delta, what, NULL);
}

SimStatus sim_mem_move(SimRank *r, SimMemSpace s, SimMemCat from, SimMemCat to, int64_t bytes,
                       const char *what) {
    if (s < 0 || s >= SIM_MEM_SPACE_COUNT || from < 0 || from >= SIM_MEM_CAT_COUNT || to < 0 ||
        to >= SIM_MEM_CAT_COUNT)
        return bad_args(r, s, from);
    if (bytes == 0 || from == to)
        return SIM_OK;
    SimMemLedger *l = &r->mem;
    if (bytes < 0 || l->cur[s][from] < bytes) {
        snprintf(r->error, sizeof r->error,
                 "memory ledger: moving %lld bytes of %s (%s) to %s on the %s, but %lld are "
                 "charged", (long long)bytes, sim_mem_cat_name(from), what ? what : "item",
                 sim_mem_cat_name(to), sim_mem_space_name(s), (long long)l->cur[s][from]);
        return SIM_EINVAL;
    }
    int64_t grow = (counted(to) ? bytes : 0) - (counted(from) ? bytes : 0);
    if (grow > 0 && s == SIM_MEM_DEVICE && l->capacity > 0 &&
        (uint64_t)l->total[s] + (uint64_t)grow > l->capacity)
        return refuse(r, s, to, bytes, what);
    l->cur[s][from] -= bytes;
    l->cur[s][to] += bytes;
    l->total[s] += grow;
    note_peak(r, s);
    trace_charge(r, s, from, -bytes, what);
    trace_charge(r, s, to, bytes, what);
    return SIM_OK;
}

int64_t sim_mem_model_states(const SimMemLedger *l, SimMemSpace s, int peak) {
    if (s < 0 || s >= SIM_MEM_SPACE_COUNT)
        return 0;
    const int64_t *v = peak ? l->at_peak[s] : l->cur[s];
    return v[SIM_MEM_PARAM] + v[SIM_MEM_PARAM_SHARD] + v[SIM_MEM_PARAM_LOWP] + v[SIM_MEM_GRAD] +
           v[SIM_MEM_GRAD_SHARD] + v[SIM_MEM_OPTIM];
}

// ----------------------------------------------------------------------------
// text

const char *sim_mem_human(int64_t bytes, char *buf, size_t len) {
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
    const char *sign = bytes < 0 ? "-" : "";
    double v = bytes < 0 ? -(double)bytes : (double)bytes;
    if (v < 1024) {
        snprintf(buf, len, "%s%.0f B", sign, v);
        return buf;
    }
    int u = -1;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        u++;
    }
    // Three significant digits: "1.50 GiB", "12.0 MiB", "512 MiB".
    const char *fmt = v < 9.995 ? "%s%.2f %s" : v < 99.95 ? "%s%.1f %s" : "%s%.0f %s";
    snprintf(buf, len, fmt, sign, v, units[u]);
    return buf;
}

const char *sim_mem_format(const SimMemLedger *l, SimMemSpace s, int peak, char *buf,
                           size_t len) {
    if (len == 0)
        return buf;
    buf[0] = '\0';
    if (s < 0 || s >= SIM_MEM_SPACE_COUNT)
        return buf;
    const int64_t *v = peak ? l->at_peak[s] : l->cur[s];
    size_t n = 0;
    char h[32];
    for (int c = 0; c < SIM_MEM_CAT_COUNT && n < len; c++) {
        if (v[c] == 0)
            continue;
        n += (size_t)snprintf(buf + n, len - n, "  %-24s %12s%s\n", sim_mem_cat_name(c),
                              sim_mem_human(v[c], h, sizeof h),
                              counted(c) ? "" : "  (not counted)");
    }
    if (n < len)
        snprintf(buf + n, len - n, "  %-24s %12s\n", peak ? "total at the peak" : "total",
                 sim_mem_human(peak ? l->peak[s] : l->total[s], h, sizeof h));
    return buf;
}

const char *sim_mem_format_oom(const SimMemLedger *l, int rank, SimMemSpace s, SimMemCat c,
                               int64_t bytes, const char *what, char *buf, size_t len) {
    char a[32], b[32], cap[32], v[32];
    if (len == 0)
        return buf;
    int64_t total = l->total[SIM_MEM_DEVICE];
    size_t n = (size_t)snprintf(
        buf, len,
        "out of device memory on rank %d: allocating %s of %s (%s) would bring the device to "
        "%s, over its capacity of %s; in use:",
        rank, sim_mem_human(bytes, a, sizeof a), sim_mem_cat_name(c), what ? what : "tensor",
        sim_mem_human(total + bytes, b, sizeof b), sim_mem_human((int64_t)l->capacity, cap,
                                                                  sizeof cap));
    (void)s;
    int any = 0;
    for (int k = 0; k < SIM_MEM_CAT_COUNT && n < len; k++) {
        int64_t x = l->cur[SIM_MEM_DEVICE][k];
        if (x == 0 || !counted(k))
            continue;
        n += (size_t)snprintf(buf + n, len - n, "%s %s %s", any ? "," : "", sim_mem_cat_name(k),
                              sim_mem_human(x, v, sizeof v));
        any = 1;
    }
    if (!any && n < len)
        snprintf(buf + n, len - n, " nothing");
    return buf;
}

// ----------------------------------------------------------------------------
// sizes

int sim_mem_parse_size(const char *s, uint64_t *out) {
    static const struct {
        const char *unit;
        double mult;
    } units[] = {
        {"", 1},         {"b", 1},          {"kb", 1e3},         {"mb", 1e6},
        {"gb", 1e9},     {"tb", 1e12},      {"kib", 1024.0},     {"mib", 1048576.0},
        {"gib", 1073741824.0}, {"tib", 1099511627776.0},
    };
    if (s == NULL || !(isdigit((unsigned char)s[0]) || s[0] == '.'))
        return -1;
    char *end;
    double x = strtod(s, &end);
    if (end == s || !isfinite(x) || x < 0)
        return -1;
    if (*end == ' ')
        end++;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcasecmp(end, units[i].unit) != 0)
            continue;
        double bytes = round(x * units[i].mult);
        if (!(bytes < 9.2e18)) // fits an int64_t, which the ledger counts in
            return -1;
        *out = (uint64_t)bytes;
        return 0;
    }
    return -1;
}

// Device memory as the vendors' datasheets state it, in decimal GB (1e9
// bytes), from the one table of devices (sim/cost/cost_devices.c, with its
// sources), so that --device-memory h100 and --gpu h100 are the same part.
// What a program can allocate is somewhat less (the CUDA context alone
// takes one or two GB).
int sim_mem_device_capacity(const char *name, uint64_t *out) {
    const SimDeviceProfile *d = sim_device_find(name);
    if (d == NULL || !(d->mem_bytes > 0))
        return -1;
    *out = (uint64_t)d->mem_bytes;
    return 0;
}

const char *sim_mem_device_names(char *buf, size_t len) {
    return sim_device_names(buf, len);
}
