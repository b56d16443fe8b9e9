// backend_cpu/cpu_stream.c: copies whose stores bypass the caches, for
// results that nobody reads again soon (the direct pass's outputs, the ring
// all_reduce's steps on buffers that outgrow the caches).
//
// A normal store to a line that is not in the cache first reads the line
// (read for ownership), only to overwrite it: for buffers far larger than
// the caches, a third of a copy's memory traffic. Non-temporal stores write
// whole lines straight to memory instead. They are weakly ordered, so the
// writer fences (cpu_stream_fence) before it publishes that it is done.
//
// When to stream is a matter of the last-level cache's size, not of a fixed
// number of bytes: on a 2-core VM with an 8 MiB L3, streaming from 8 MiB of
// buffers in all (where a fixed 64 MiB, right for a larger cache, left it
// out) took the direct all_reduce of 2 ranks from 3.2 to 6.3 GB/s of bus
// bandwidth at 4 MiB and the ring's from 4.0 to 5.4 GB/s (medians of 6
// alternating runs).
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "cpu_internal.h"

void cpu_stream_copy(void *dst, const void *src, size_t n, int stream) {
    char *d = dst;
    const char *s = src;
#if defined(__SSE2__)
    if (stream) {
        size_t head = (16 - ((uintptr_t)d & 15)) & 15;
        head = head < n ? head : n;
        memcpy(d, s, head);
        d += head, s += head, n -= head;
        for (; n >= 64; n -= 64, d += 64, s += 64) {
            __m128i a = _mm_loadu_si128((const __m128i *)s);
            __m128i b = _mm_loadu_si128((const __m128i *)(s + 16));
            __m128i c = _mm_loadu_si128((const __m128i *)(s + 32));
            __m128i e = _mm_loadu_si128((const __m128i *)(s + 48));
            _mm_stream_si128((__m128i *)d, a);
            _mm_stream_si128((__m128i *)(d + 16), b);
            _mm_stream_si128((__m128i *)(d + 32), c);
            _mm_stream_si128((__m128i *)(d + 48), e);
        }
    }
#else
    (void)stream;
#endif
    memcpy(d, s, n);
}

void cpu_stream_fence(int stream) {
#if defined(__SSE2__)
    if (stream)
        _mm_sfence();
#else
    (void)stream;
#endif
}

// "8192K", "32M", "1G" or "1048576" (sysfs's cache sizes, or the
// environment's) in bytes; 0 if it is none of these.
static double parse_size(const char *s) {
    char unit = 0, rest = 0;
    double v = 0;
    int n = sscanf(s, "%lf%c%c", &v, &unit, &rest);
    if (n < 1 || v <= 0 || (n == 3 && rest != '\n'))
        return 0;
    if (n == 1 || unit == '\n')
        return v;
    return unit == 'K' ? v * 1024 : unit == 'M' ? v * 1024 * 1024
           : unit == 'G' ? v * 1024 * 1024 * 1024 : 0;
}

// Reads one line of /sys/devices/system/cpu/cpu0/cache/index<i>/<name>.
static int read_cache_attr(int i, const char *name, char *buf, int len) {
    char path[96];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/%s", i, name);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 0;
    int ok = fgets(buf, len, f) != NULL;
    fclose(f);
    return ok;
}

double cpu_stream_llc_bytes(void) {
    // DDPLAB_CPU_LLC_BYTES overrides what the machine says: to tune for a
    // machine whose figure is wrong, or for a test to take the streamed
    // paths with small buffers.
    const char *env = getenv("DDPLAB_CPU_LLC_BYTES");
    if (env != NULL && *env != '\0') {
        double v = parse_size(env);
        if (v > 0)
            return v;
        fprintf(stderr, "ddplab: ignoring DDPLAB_CPU_LLC_BYTES=%s (want a size such as 8M)\n",
                env);
    }
    // The data or unified cache of the highest level. sysfs rather than
    // sysconf: glibc's _SC_LEVEL3_CACHE_SIZE reads the host's figure on some
    // virtual machines (64 MiB where the guest's L3 is 8 MiB).
    int best_level = 0;
    double best = 0;
    for (int i = 0; i < 16; i++) {
        char level[16], type[32], size[32];
        if (!read_cache_attr(i, "level", level, sizeof level))
            break;
        if (!read_cache_attr(i, "type", type, sizeof type) || type[0] == 'I' ||
            !read_cache_attr(i, "size", size, sizeof size))
            continue;
        int lv = atoi(level);
        double bytes = parse_size(size);
        if (lv > best_level && bytes > 0)
            best_level = lv, best = bytes;
    }
    if (best > 0)
        return best;
#ifdef _SC_LEVEL3_CACHE_SIZE
    long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (l3 > 0)
        return (double)l3;
#endif
    return 32.0 * 1024 * 1024;
}
