// cli/bench/bench_report.c: what `ddplab bench` prints: a header with the
// configuration, one row per size with the measured out-of-place and in-place
// columns and the simulated ones, and the nccl-tests footer; or CSV rows.
//
// Bandwidths follow nccl-tests (GB = 1e9 bytes):
//   algbw = size / time, with size from sim_coll_algbw_bytes
//   busbw = algbw * sim_coll_busbw_factor (2(R-1)/R for all_reduce, ...)
// The simulated columns price the same collective and algorithm with the cost
// model under --profile and the run's topology: they say what the call would
// take on that hardware, next to what it took on this machine.
#include "bench/bench.h"

#include <string.h>

// ----------------------------------------------------------------------------
// numbers

double bench_sim_time(const BenchOptions *o, size_t count) {
    SimCost c;
    int R = o->nranks;
    size_t esize = sim_dtype_size(o->dtype);
    sim_cost_init(&c, &o->sys, R, R / o->nodes);
    if (o->coll == BENCH_SENDRECV) {
        // Every rank sends one message and receives one at the same time; the
        // slowest link decides.
        double t = 0;
        for (int r = 0; r < R; r++) {
            double v = sim_cost_p2p(&c, r, (r + 1) % R, count * esize);
            t = v > t ? v : t;
        }
        return t;
    }
    SimSched s;
    if (sim_sched_init(&s, o->coll, bench_algo_resolved(o), R, count, o->root) != 0)
        return 0;
    return sim_cost_coll(&c, &s, esize);
}

static double size_bytes(const BenchOptions *o, size_t count) {
    return sim_coll_algbw_bytes(o->coll, count, o->dtype, o->nranks);
}

static double gbps(double bytes, double secs) {
    return secs > 0 ? bytes / secs / 1e9 : 0;
}

static const char *algo_label(const BenchOptions *o) {
    SimAlgo a = bench_algo_resolved(o);
    return a == SIM_ALGO_AUTO ? "none" : sim_algo_name(a); // sendrecv, barrier
}

static const char *redop_label(const BenchOptions *o) {
    return sim_coll_is_reduction(o->coll) ? sim_redop_name(o->op) : "none";
}

static int root_label(const BenchOptions *o) {
    return sim_coll_has_root(o->coll) ? o->root : -1;
}

// Microseconds in 8 columns, with fewer decimals as they grow (nccl-tests).
static const char *fmt_us(char *buf, size_t len, double secs) {
    double us = secs * 1e6;
    snprintf(buf, len, "%8.*f", us < 1e4 ? 2 : us < 1e6 ? 1 : 0, us);
    return buf;
}

// "32 MiB", "8 B": sizes for the header.
static const char *fmt_size(char *buf, size_t len, size_t bytes) {
    static const char *const units[] = {"B", "KiB", "MiB", "GiB"};
    int u = 0;
    while (u < 3 && bytes >= 1024 && bytes % 1024 == 0)
        bytes /= 1024, u++;
    snprintf(buf, len, "%zu %s", bytes, units[u]);
    return buf;
}

// ----------------------------------------------------------------------------
// table

void bench_report_header(FILE *out, const BenchOptions *o, const char *backend_desc) {
    char lo[32], hi[32];
    const SimSysProfile *p = &o->sys;
    const char *modes = o->modes == (BENCH_IN_PLACE | BENCH_OUT_OF_PLACE)
                            ? "out-of-place and in-place"
                        : o->modes == BENCH_IN_PLACE ? "in-place only"
                                                     : "out-of-place only";
    fprintf(out, "# ddplab bench: %s, ", bench_coll_name(o->coll));
    if (bench_algo_resolved(o) != SIM_ALGO_AUTO) // sendrecv and barrier have no choice
        fprintf(out, "algorithm %s%s, ", algo_label(o), o->algo == SIM_ALGO_AUTO ? " (auto)" : "");
    fprintf(out, "%d ranks on %d node%s, backend %s\n", o->nranks, o->nodes,
            o->nodes > 1 ? "s" : "", o->backend);
    if (backend_desc && backend_desc[0])
        fprintf(out, "#   backend: %s\n", backend_desc);
    fprintf(out, "#  ");
    if (o->coll == SIM_COLL_BARRIER)
        fprintf(out, " no data,");
    else
        fprintf(out, " dtype %s, sizes %s .. %s (x%g),", sim_dtype_name(o->dtype),
                fmt_size(lo, sizeof lo, o->minbytes), fmt_size(hi, sizeof hi, o->maxbytes),
                o->stepfactor);
    if (sim_coll_is_reduction(o->coll))
        fprintf(out, " op %s,", sim_redop_name(o->op));
    if (sim_coll_has_root(o->coll))
        fprintf(out, " root %d,", o->root);
    fprintf(out, " warmup %d, iters %d, %s, check %s\n", o->warmup, o->iters, modes,
            o->check ? "on" : "off");
    fprintf(out, "#   simulated on %s: %s\n", p->name, p->description);
    fprintf(out, "#     intra-node: %s, %.2f us, %.1f GB/s;  inter-node: %s, %.2f us, %.1f GB/s\n",
            p->intra.name, p->intra.alpha_s * 1e6, p->intra.bw_Bps / 1e9, p->inter.name,
            p->inter.alpha_s * 1e6, p->inter.bw_Bps / 1e9);
    if (o->gpu) // collectives are priced by the links alone; the device only when asked
        fprintf(out, "#     device (--gpu): %s, %s\n", o->device.name, o->device.description);
    fprintf(out, "#\n");
    // Group labels over the three blocks of columns (43 + 2 x 33 + 18 wide).
    fprintf(out, "# %43s  %-31s  %-31s  %s\n", "", "---- out-of-place, measured ----",
            "----- in-place, measured ------", "--- simulated ---");
    fprintf(out, "# %11s %11s %6s %6s %5s  %8s %7s %7s %6s  %8s %7s %7s %6s  %8s %7s\n", "size",
            "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw",
            "busbw", "#wrong", "time", "busbw");
    fprintf(out, "# %11s %11s %6s %6s %5s  %8s %7s %7s %6s  %8s %7s %7s %6s  %8s %7s\n", "(B)",
            "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)",
            "", "(us)", "(GB/s)");
}

static void print_mode(FILE *out, const BenchRun *run, int pt, int mode, double bytes,
                       double factor) {
    const BenchOptions *o = run->opt;
    char t[32], w[32];
    if (!(o->modes & (mode ? BENCH_IN_PLACE : BENCH_OUT_OF_PLACE))) {
        fprintf(out, "  %8s %7s %7s %6s", "-", "-", "-", "-");
        return;
    }
    double secs = bench_time(run, pt, mode), algbw = gbps(bytes, secs);
    if (o->check)
        snprintf(w, sizeof w, "%llu", (unsigned long long)bench_wrong(run, pt, mode));
    else
        snprintf(w, sizeof w, "N/A");
    fprintf(out, "  %s %7.2f %7.2f %6s", fmt_us(t, sizeof t, secs), algbw, algbw * factor, w);
}

static void print_table_row(FILE *out, const BenchRun *run, int pt) {
    const BenchOptions *o = run->opt;
    size_t count = run->counts[pt];
    double bytes = size_bytes(o, count), factor = sim_coll_busbw_factor(o->coll, o->nranks);
    double sim = bench_sim_time(o, count);
    char t[32];
    fprintf(out, "  %11.0f %11zu %6s %6s %5d", bytes, count, sim_dtype_name(o->dtype),
            redop_label(o), root_label(o));
    print_mode(out, run, pt, 0, bytes, factor);
    print_mode(out, run, pt, 1, bytes, factor);
    fprintf(out, "  %s %7.2f\n", fmt_us(t, sizeof t, sim), gbps(bytes, sim) * factor);
}

static void print_csv_rows(FILE *out, const BenchRun *run, int pt) {
    const BenchOptions *o = run->opt;
    size_t count = run->counts[pt];
    double bytes = size_bytes(o, count), factor = sim_coll_busbw_factor(o->coll, o->nranks);
    double sim = bench_sim_time(o, count);
    for (int mode = 0; mode < 2; mode++) {
        if (!(o->modes & (mode ? BENCH_IN_PLACE : BENCH_OUT_OF_PLACE)))
            continue;
        double secs = bench_time(run, pt, mode), algbw = gbps(bytes, secs);
        long long wrong = o->check ? (long long)bench_wrong(run, pt, mode) : -1;
        fprintf(out, "%s,%s,%d,%.0f,%zu,%s,%s,%d,%d,%.3f,%.4f,%.4f,%lld,%.3f,%.4f\n",
                bench_coll_name(o->coll), algo_label(o), o->nranks, bytes, count,
                sim_dtype_name(o->dtype), redop_label(o), root_label(o), mode, secs * 1e6, algbw,
                algbw * factor, wrong, sim * 1e6, gbps(bytes, sim) * factor);
    }
}

uint64_t bench_report_rows(FILE *out, const BenchRun *run) {
    const BenchOptions *o = run->opt;
    uint64_t wrong = 0;
    double busbw_sum = 0;
    int nbw = 0;
    if (o->csv)
        fprintf(out, "collective,algo,ranks,bytes,count,dtype,redop,root,inplace,time_us,"
                     "algbw_GBps,busbw_GBps,wrong,sim_time_us,sim_busbw_GBps\n");
    for (int pt = 0; pt < run->nsizes; pt++) {
        if (o->csv)
            print_csv_rows(out, run, pt);
        else
            print_table_row(out, run, pt);
        double bytes = size_bytes(o, run->counts[pt]);
        for (int mode = 0; mode < 2; mode++) {
            if (!(o->modes & (mode ? BENCH_IN_PLACE : BENCH_OUT_OF_PLACE)))
                continue;
            wrong += bench_wrong(run, pt, mode);
            busbw_sum += gbps(bytes, bench_time(run, pt, mode)) *
                         sim_coll_busbw_factor(o->coll, o->nranks);
            nbw++;
        }
    }
    if (!o->csv) {
        fprintf(out, "# Out of bounds values : %llu %s\n", (unsigned long long)wrong,
                !o->check ? "(not checked)" : wrong ? "FAILED" : "OK");
        fprintf(out, "# Avg bus bandwidth    : %g\n", nbw ? busbw_sum / nbw : 0.0);
        fprintf(out, "#\n");
    }
    return wrong;
}
