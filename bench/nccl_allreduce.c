// bench/nccl_allreduce.c: NCCL's own ncclAllReduce, the peer of `ddplab
// bench --backend cuda -c all_reduce` (bench/allreduce_vs_nccl.sh). One
// process drives G GPUs through one communicator each (ncclCommInitAll, as
// nccl-tests' all_reduce_perf -g G does), fp32 sum, sizes swept like
// nccl-tests, each size timed with CUDA events on every GPU's stream and
// each result checked element by element.
//
// usage: nccl_allreduce [-g G] [-b SIZE] [-e SIZE] [-f F] [-w N] [-i N]
//                       [--inplace 0|1] [--count]
//   -g G        GPUs (default: every visible one)
//   -b, -e      smallest and largest size in bytes (K, M, G suffixes) [8M, 256M]
//   -f F        size multiplier between rows [2]
//   -w, -i      untimed and timed calls per size [5, 20]
//   --inplace   1: recvbuf = sendbuf (default), 0: separate buffers
//   --count     print the number of visible GPUs and exit
//
// Output, CSV with nccl-tests' definitions (time: the largest over the GPUs
// of elapsed / iterations; algbw = bytes / time; busbw = algbw x 2(G-1)/G;
// wrong: elements that differ from the exact sum of the small-integer
// inputs, which any order of addition gives exactly):
//   bytes,count,inplace,time_us,algbw_GBps,busbw_GBps,wrong
// Exit status: 0; 1 when a call failed or a result was wrong; 77 (the test
// suite's skip) when there is no GPU.
#include <cuda_runtime_api.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK_CUDA(call)                                                                      \
    do {                                                                                   \
        cudaError_t e_ = (call);                                                           \
        if (e_ != cudaSuccess) {                                                           \
            fprintf(stderr, "nccl_allreduce: %s: %s (%s:%d)\n", #call,                    \
                    cudaGetErrorString(e_), __FILE__, __LINE__);                           \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

#define CK_NCCL(call)                                                                      \
    do {                                                                                   \
        ncclResult_t r_ = (call);                                                          \
        if (r_ != ncclSuccess) {                                                           \
            fprintf(stderr, "nccl_allreduce: %s: %s (%s:%d)\n", #call,                    \
                    ncclGetErrorString(r_), __FILE__, __LINE__);                           \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

typedef struct {
    int gpus;
    size_t minb, maxb;
    double factor;
    int warmup, iters, inplace, count_only;
} Opts;

// One GPU: its communicator, stream, buffers [maxb / 4] and timing events.
typedef struct {
    ncclComm_t comm;
    cudaStream_t stream;
    float *send, *recv;
    cudaEvent_t t0, t1;
} Gpu;

static size_t parse_size(const char *s) {
    char *end;
    double v = strtod(s, &end);
    double m = *end == 'K' ? 1024.0 : *end == 'M' ? 1048576.0 : *end == 'G' ? 1073741824.0 : 1;
    if (v <= 0 || (m == 1 && *end != '\0')) {
        fprintf(stderr, "nccl_allreduce: bad size '%s' (bytes, with K, M or G)\n", s);
        exit(2);
    }
    return (size_t)(v * m);
}

static void parse(int argc, char **argv, Opts *o) {
    *o = (Opts){0, 8u << 20, 256u << 20, 2.0, 5, 20, 1, 0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--count") == 0) {
            o->count_only = 1;
            continue;
        }
        if (v == NULL) {
            fprintf(stderr, "nccl_allreduce: %s needs a value (see the top of "
                    "bench/nccl_allreduce.c)\n", a);
            exit(2);
        }
        i++;
        if (strcmp(a, "-g") == 0)
            o->gpus = atoi(v);
        else if (strcmp(a, "-b") == 0)
            o->minb = parse_size(v);
        else if (strcmp(a, "-e") == 0)
            o->maxb = parse_size(v);
        else if (strcmp(a, "-f") == 0)
            o->factor = atof(v);
        else if (strcmp(a, "-w") == 0)
            o->warmup = atoi(v);
        else if (strcmp(a, "-i") == 0)
            o->iters = atoi(v);
        else if (strcmp(a, "--inplace") == 0)
            o->inplace = atoi(v) != 0;
        else {
            fprintf(stderr, "nccl_allreduce: unknown option '%s'\n", a);
            exit(2);
        }
    }
    if (o->minb < 4 || o->maxb < o->minb || !(o->factor > 1) || o->warmup < 0 || o->iters < 1) {
        fprintf(stderr, "nccl_allreduce: need 4 <= -b <= -e, -f > 1, -w >= 0, -i >= 1\n");
        exit(2);
    }
}

// Rank g's input element i: a small integer, so every sum is exact.
static float input(int g, size_t i) {
    return (float)((i + (size_t)g) % 7 + 1);
}

static void fill(Gpu *gpu, int G, size_t n, float *host) {
    for (int g = 0; g < G; g++) {
        for (size_t i = 0; i < n; i++)
            host[i] = input(g, i);
        CK_CUDA(cudaSetDevice(g));
        CK_CUDA(cudaMemcpy(gpu[g].send, host, n * sizeof *host, cudaMemcpyHostToDevice));
    }
}

// One all_reduce of n floats on every GPU, launched as one NCCL group.
static void all_reduce(Gpu *gpu, int G, size_t n, int inplace) {
    CK_NCCL(ncclGroupStart());
    for (int g = 0; g < G; g++)
        CK_NCCL(ncclAllReduce(gpu[g].send, inplace ? gpu[g].send : gpu[g].recv, n, ncclFloat,
                              ncclSum, gpu[g].comm, gpu[g].stream));
    CK_NCCL(ncclGroupEnd());
}

static void sync_all(Gpu *gpu, int G) {
    for (int g = 0; g < G; g++) {
        CK_CUDA(cudaSetDevice(g));
        CK_CUDA(cudaStreamSynchronize(gpu[g].stream));
    }
}

// The largest over the GPUs of the timed loop's time per call, in seconds.
static double time_size(Gpu *gpu, const Opts *o, int G, size_t n) {
    for (int k = 0; k < o->warmup; k++)
        all_reduce(gpu, G, n, o->inplace);
    sync_all(gpu, G);
    for (int g = 0; g < G; g++) {
        CK_CUDA(cudaSetDevice(g));
        CK_CUDA(cudaEventRecord(gpu[g].t0, gpu[g].stream));
    }
    for (int k = 0; k < o->iters; k++)
        all_reduce(gpu, G, n, o->inplace);
    double worst = 0;
    for (int g = 0; g < G; g++) {
        CK_CUDA(cudaSetDevice(g));
        CK_CUDA(cudaEventRecord(gpu[g].t1, gpu[g].stream));
    }
    for (int g = 0; g < G; g++) {
        float ms = 0;
        CK_CUDA(cudaSetDevice(g));
        CK_CUDA(cudaEventSynchronize(gpu[g].t1));
        CK_CUDA(cudaEventElapsedTime(&ms, gpu[g].t0, gpu[g].t1));
        worst = ms > worst ? ms : worst;
    }
    return worst * 1e-3 / o->iters;
}

// Fresh inputs, one all_reduce, every element of every GPU's result
// against the exact sum.
static long long check_size(Gpu *gpu, const Opts *o, int G, size_t n, float *host) {
    fill(gpu, G, n, host);
    all_reduce(gpu, G, n, o->inplace);
    sync_all(gpu, G);
    long long wrong = 0;
    for (int g = 0; g < G; g++) {
        CK_CUDA(cudaSetDevice(g));
        CK_CUDA(cudaMemcpy(host, o->inplace ? gpu[g].send : gpu[g].recv, n * sizeof *host,
                           cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < n; i++) {
            float want = 0;
            for (int q = 0; q < G; q++)
                want += input(q, i);
            wrong += host[i] != want;
        }
    }
    return wrong;
}

int main(int argc, char **argv) {
    Opts o;
    parse(argc, argv, &o);
    int visible = 0;
    if (cudaGetDeviceCount(&visible) != cudaSuccess || visible < 1) {
        fprintf(stderr, "nccl_allreduce: no CUDA device\n");
        return 77;
    }
    if (o.count_only) {
        printf("%d\n", visible);
        return 0;
    }
    int G = o.gpus > 0 ? o.gpus : visible;
    if (G > visible) {
        fprintf(stderr, "nccl_allreduce: -g %d but %d GPU%s visible\n", G, visible,
                visible == 1 ? "" : "s");
        return 2;
    }
    size_t maxn = o.maxb / sizeof(float);
    Gpu *gpu = calloc((size_t)G, sizeof *gpu);
    ncclComm_t *comms = calloc((size_t)G, sizeof *comms);
    int *devs = calloc((size_t)G, sizeof *devs);
    float *host = malloc(maxn * sizeof *host);
    if (!gpu || !comms || !devs || !host) {
        fprintf(stderr, "nccl_allreduce: out of memory\n");
        return 1;
    }
    for (int g = 0; g < G; g++)
        devs[g] = g;
    CK_NCCL(ncclCommInitAll(comms, G, devs));
    for (int g = 0; g < G; g++) {
        gpu[g].comm = comms[g];
        CK_CUDA(cudaSetDevice(g));
        CK_CUDA(cudaStreamCreateWithFlags(&gpu[g].stream, cudaStreamNonBlocking));
        CK_CUDA(cudaMalloc((void **)&gpu[g].send, maxn * sizeof(float)));
        if (!o.inplace)
            CK_CUDA(cudaMalloc((void **)&gpu[g].recv, maxn * sizeof(float)));
        CK_CUDA(cudaEventCreate(&gpu[g].t0));
        CK_CUDA(cudaEventCreate(&gpu[g].t1));
    }
    printf("bytes,count,inplace,time_us,algbw_GBps,busbw_GBps,wrong\n");
    int bad = 0;
    for (double b = (double)o.minb; b <= (double)o.maxb * 1.000001; b *= o.factor) {
        size_t n = (size_t)b / sizeof(float);
        fill(gpu, G, n, host);
        double t = time_size(gpu, &o, G, n);
        long long wrong = check_size(gpu, &o, G, n, host);
        double algbw = t > 0 ? (double)(n * sizeof(float)) / t / 1e9 : 0;
        printf("%zu,%zu,%d,%.3f,%.4f,%.4f,%lld\n", n * sizeof(float), n, o.inplace, t * 1e6,
               algbw, algbw * 2.0 * (G - 1) / G, wrong);
        fflush(stdout);
        bad |= wrong != 0;
    }
    for (int g = 0; g < G; g++) {
        CK_CUDA(cudaSetDevice(g));
        CK_CUDA(cudaEventDestroy(gpu[g].t0));
        CK_CUDA(cudaEventDestroy(gpu[g].t1));
        CK_CUDA(cudaFree(gpu[g].send));
        if (gpu[g].recv)
            CK_CUDA(cudaFree(gpu[g].recv));
        CK_CUDA(cudaStreamDestroy(gpu[g].stream));
        ncclCommDestroy(comms[g]);
    }
    free(gpu);
    free(comms);
    free(devs);
    free(host);
    return bad;
}
