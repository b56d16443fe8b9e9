// backend_cpu/cpu_stream.c: copies whose stores bypass the caches, for
// results that nobody reads again soon (the direct pass's outputs, the ring
// all_reduce's last all-gather step).
//
// A normal store to a line that is not in the cache first reads the line
// (read for ownership), only to overwrite it: for buffers far larger than
// the caches, a third of a copy's memory traffic. Non-temporal stores write
// whole lines straight to memory instead. They are weakly ordered, so the
// writer fences (cpu_stream_fence) before it publishes that it is done.
#include <stdint.h>
#include <string.h>
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
