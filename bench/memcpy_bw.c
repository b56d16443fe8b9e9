// bench/memcpy_bw.c: this machine's memory bandwidth, measured with memcpy,
// the physical limit that a shared-memory collective runs against.
//
// Two buffers of S bytes each (default: 256 MiB, or the last-level cache size
// if that is larger, so that the copy streams through DRAM and not through
// the cache). One run copies src -> dst with 1 thread; another with N threads
// (default: the online cores), thread t copying its own contiguous 1/N of the
// buffers, which it touched first (so its pages are local on NUMA machines).
// Each run is repeated and the best time kept, as memory benchmarks do.
//
// Reported per run, in GB/s (1e9 bytes per second):
//   copy_GBps     S / t: bytes copied per second
//   traffic_GBps  2S / t: memory traffic, every byte read once and written
//                 once. A cache with write-allocate may add a read of the
//                 destination; glibc's memcpy avoids it for large copies with
//                 non-temporal stores, and it is not useful traffic, so it is
//                 not counted.
// Output is CSV, one header line then one row per run:
//   kind,threads,bytes,seconds,copy_GBps,traffic_GBps
//
// Usage: memcpy_bw [-s MiB] [-r reps] [-t threads]
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MIB ((size_t)1 << 20)

typedef struct {
    char *src, *dst;
    size_t bytes;   // this thread's slice
    pthread_barrier_t *start, *stop;
    int reps;
} Slice;

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

// The last-level cache size from sysfs (Linux), or 0 when unknown.
static size_t llc_bytes(void) {
    size_t best = 0;
    for (int i = 0; i < 8; i++) {
        char path[96], buf[32];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        FILE *f = fopen(path, "r");
        if (f == NULL)
            continue;
        if (fgets(buf, sizeof buf, f) != NULL) {
            char *end;
            size_t v = strtoul(buf, &end, 10);
            v *= *end == 'K' ? 1024 : *end == 'M' ? MIB : 1;
            best = v > best ? v : best;
        }
        fclose(f);
    }
    return best;
}

// Each repetition: wait for the start line, copy the slice, wait at the end.
static void *copy_thread(void *p) {
    Slice *s = p;
    memset(s->src, 1, s->bytes); // first touch by the thread that copies
    memset(s->dst, 0, s->bytes);
    for (int k = 0; k < s->reps; k++) {
        pthread_barrier_wait(s->start);
        memcpy(s->dst, s->src, s->bytes);
        pthread_barrier_wait(s->stop);
    }
    return NULL;
}

// Best seconds for copying `bytes` with `nthreads`, over `reps` repetitions
// (a first, untimed one warms page tables and caches). Returns < 0 on error.
static double measure(char *src, char *dst, size_t bytes, int nthreads, int reps) {
    pthread_barrier_t start, stop;
    pthread_barrier_init(&start, NULL, (unsigned)nthreads + 1);
    pthread_barrier_init(&stop, NULL, (unsigned)nthreads + 1);
    Slice *sl = calloc((size_t)nthreads, sizeof *sl);
    pthread_t *tid = calloc((size_t)nthreads, sizeof *tid);
    double best = -1;
    int started = 0;
    if (sl == NULL || tid == NULL)
        goto out;
    for (int t = 0; t < nthreads; t++) {
        size_t b0 = bytes * (size_t)t / (size_t)nthreads;
        size_t b1 = bytes * (size_t)(t + 1) / (size_t)nthreads;
        sl[t] = (Slice){src + b0, dst + b0, b1 - b0, &start, &stop, reps + 1};
    }
    for (; started < nthreads; started++)
        if (pthread_create(&tid[started], NULL, copy_thread, &sl[started]) != 0)
            break;
    if (started == nthreads) {
        for (int k = 0; k <= reps; k++) {
            pthread_barrier_wait(&start);
            double t0 = now_s();
            pthread_barrier_wait(&stop);
            double dt = now_s() - t0;
            if (k > 0 && (best < 0 || dt < best))
                best = dt;
        }
    } else {
        fprintf(stderr, "memcpy_bw: cannot start %d threads\n", nthreads);
        exit(1); // threads already waiting at the barrier cannot be released
    }
    for (int t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
out:
    free(sl);
    free(tid);
    pthread_barrier_destroy(&start);
    pthread_barrier_destroy(&stop);
    return best;
}

static void report(const char *kind, int nthreads, size_t bytes, double secs) {
    printf("%s,%d,%zu,%.6f,%.3f,%.3f\n", kind, nthreads, bytes, secs,
           (double)bytes / secs / 1e9, 2.0 * (double)bytes / secs / 1e9);
}

static int usage(void) {
    fprintf(stderr, "usage: memcpy_bw [-s MiB] [-r reps] [-t threads]\n");
    return 2;
}

int main(int argc, char **argv) {
    size_t bytes = 256 * MIB;
    size_t llc = llc_bytes();
    if (llc > bytes)
        bytes = (llc + MIB - 1) / MIB * MIB;
    int reps = 5;
    long nthreads = sysconf(_SC_NPROCESSORS_ONLN);
    int opt;
    while ((opt = getopt(argc, argv, "s:r:t:h")) != -1) {
        long v = opt == 'h' ? 0 : strtol(optarg, NULL, 10);
        if (opt == 's' && v > 0 && v <= 65536)
            bytes = (size_t)v * MIB;
        else if (opt == 'r' && v > 0 && v <= 1000)
            reps = (int)v;
        else if (opt == 't' && v > 0 && v <= 4096)
            nthreads = v;
        else
            return usage();
    }
    if (nthreads < 1)
        nthreads = 1;
    char *src = malloc(bytes), *dst = malloc(bytes);
    if (src == NULL || dst == NULL) {
        fprintf(stderr, "memcpy_bw: cannot allocate 2 x %zu MiB\n", bytes / MIB);
        free(src);
        free(dst);
        return 1;
    }
    printf("kind,threads,bytes,seconds,copy_GBps,traffic_GBps\n");
    double t1 = measure(src, dst, bytes, 1, reps);
    double tn = measure(src, dst, bytes, (int)nthreads, reps);
    if (t1 > 0)
        report("memcpy", 1, bytes, t1);
    if (tn > 0)
        report("memcpy", (int)nthreads, bytes, tn);
    free(src);
    free(dst);
    return t1 > 0 && tn > 0 ? 0 : 1;
}
