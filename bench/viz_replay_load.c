// bench/viz_replay_load.c: how long `ddplab replay` takes to read a trace
// file, and how much memory it needs: loads FILE with viz_trace_load REPEAT
// times and prints the best time, events per second and the process's peak
// RSS (nothing else runs in this process, so the peak is the loader's: the
// event array, the string pool and the read buffer). Used by
// bench/viz_replay.sh.
//
//   viz_replay_load FILE [REPEAT]
//   -> file=run.ddptrace bytes=... events=... ranks=... best_s=... events_per_s=... max_rss_mb=...
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "vtrace.h"

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: viz_replay_load FILE [REPEAT]\n");
        return 2;
    }
    int repeat = argc == 3 ? atoi(argv[2]) : 3;
    if (repeat < 1)
        repeat = 1;
    double best = -1;
    size_t n = 0;
    int nranks = 0;
    for (int k = 0; k < repeat; k++) {
        VizTrace t;
        char err[1024];
        double t0 = now_s();
        SimStatus st = viz_trace_load(argv[1], &t, err, sizeof err);
        double dt = now_s() - t0;
        if (st != SIM_OK) {
            fprintf(stderr, "viz_replay_load: %s\n", err);
            return 1;
        }
        n = t.n;
        nranks = t.nranks;
        viz_trace_free(&t);
        if (best < 0 || dt < best)
            best = dt;
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    struct stat sb;
    long long bytes = stat(argv[1], &sb) == 0 ? (long long)sb.st_size : -1;
    printf("file=%s bytes=%lld events=%zu ranks=%d best_s=%.4f events_per_s=%.0f "
           "max_rss_mb=%.1f\n",
           argv[1], bytes, n, nranks, best, best > 0 ? (double)n / best : 0.0,
           (double)ru.ru_maxrss * 1024.0 / 1e6);
    return 0;
}
