// bench/mpi_allreduce.c: OpenMPI's MPI_Allreduce, measured the way
// nccl-tests (and `ddplab bench`) measure a collective, so that the two can
// be compared row by row.
//
// For each size S (bytes, fp32 elements, sum) from -b to -e, multiplied by -f:
//   warmup:   -w untimed calls;
//   timing:   MPI_Barrier, then n calls, then time per op = the largest
//             (over ranks) of elapsed / n;
//   algbw   = S / time;  busbw = algbw * 2(R-1)/R (nccl-tests' all_reduce
//             factor: the bytes every rank must send and receive);
//   wrong   = elements of the result, summed over ranks, that differ from the
//             expected sum. Inputs are small integers (rank r, element i:
//             ((i * 7 + r * 13) % 23) - 11), so the sum is exact in fp32 in
//             any order and is checked with ==.
// n is -n when given, else chosen per size so that each size moves about
// 1 GiB per rank (between 5 and 1000 calls), which keeps small sizes from
// being timed over a few microseconds only.
//
// Output, from rank 0, CSV:
//   peer,ranks,bytes,time_us,algbw_GBps,busbw_GBps,wrong
// Exit status 1 if any element was wrong.
//
// Usage: mpirun -np R mpi_allreduce [-b 4K] [-e 64M] [-f 2] [-w 5] [-n iters]
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    size_t minbytes, maxbytes;
    double factor;
    int warmup, iters; // iters 0: chosen per size
} Options;

// "4K", "64M", "1G", "4096" -> bytes; 0 when malformed.
static size_t parse_size(const char *s) {
    char *end;
    double v = strtod(s, &end);
    double mult = 1;
    if (*end == 'K' || *end == 'k')
        mult = 1024.0, end++;
    else if (*end == 'M' || *end == 'm')
        mult = 1024.0 * 1024.0, end++;
    else if (*end == 'G' || *end == 'g')
        mult = 1024.0 * 1024.0 * 1024.0, end++;
    if (*end != '\0' || !(v > 0) || v * mult > 8.0 * 1024 * 1024 * 1024) // MPI counts are int
        return 0;
    return (size_t)(v * mult);
}

static int parse_options(int argc, char **argv, Options *o) {
    *o = (Options){4096, (size_t)64 << 20, 2.0, 5, 0};
    int opt;
    while ((opt = getopt(argc, argv, "b:e:f:w:n:")) != -1) {
        switch (opt) {
        case 'b': o->minbytes = parse_size(optarg); break;
        case 'e': o->maxbytes = parse_size(optarg); break;
        case 'f': o->factor = strtod(optarg, NULL); break;
        case 'w': o->warmup = atoi(optarg); break;
        case 'n': o->iters = atoi(optarg); break;
        default: return -1;
        }
    }
    if (o->minbytes < 4 || o->maxbytes < o->minbytes || !(o->factor > 1.0) ||
        o->warmup < 0 || o->iters < 0)
        return -1;
    return 0;
}

static float pattern(size_t i, int rank) {
    return (float)((int)((i * 7 + (size_t)rank * 13) % 23) - 11);
}

static long count_wrong(const float *recv, size_t count, int nranks) {
    long wrong = 0;
    for (size_t i = 0; i < count; i++) {
        float want = 0;
        for (int q = 0; q < nranks; q++)
            want += pattern(i, q);
        wrong += recv[i] != want;
    }
    return wrong;
}

static int iters_for(const Options *o, size_t bytes) {
    if (o->iters > 0)
        return o->iters;
    size_t n = ((size_t)1 << 30) / bytes;
    return n < 5 ? 5 : n > 1000 ? 1000 : (int)n;
}

// One size: returns the number of wrong elements over all ranks.
static long run_size(const Options *o, size_t bytes, float *send, float *recv, int rank,
                     int nranks) {
    size_t count = bytes / sizeof(float);
    for (size_t i = 0; i < count; i++)
        send[i] = pattern(i, rank);
    memset(recv, 0, count * sizeof(float));
    for (int k = 0; k < o->warmup; k++)
        MPI_Allreduce(send, recv, (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    int iters = iters_for(o, bytes);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int k = 0; k < iters; k++)
        MPI_Allreduce(send, recv, (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    double mine = (MPI_Wtime() - t0) / iters, t = 0;
    MPI_Reduce(&mine, &t, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);

    long wrong_here = count_wrong(recv, count, nranks), wrong = 0;
    MPI_Allreduce(&wrong_here, &wrong, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        double algbw = (double)(count * sizeof(float)) / t / 1e9;
        printf("openmpi,%d,%zu,%.3f,%.3f,%.3f,%ld\n", nranks, count * sizeof(float), t * 1e6,
               algbw, algbw * 2.0 * (nranks - 1) / nranks, wrong);
        fflush(stdout);
    }
    return wrong;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    Options o;
    if (parse_options(argc, argv, &o) != 0) {
        if (rank == 0)
            fprintf(stderr, "usage: mpirun -np R mpi_allreduce [-b 4K] [-e 64M] [-f 2] "
                            "[-w warmup] [-n iters]\n");
        MPI_Finalize();
        return 2;
    }
    float *send = malloc(o.maxbytes), *recv = malloc(o.maxbytes);
    int ok = send != NULL && recv != NULL, all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    long wrong = 0;
    if (!all_ok) {
        if (rank == 0)
            fprintf(stderr, "mpi_allreduce: cannot allocate 2 x %zu bytes\n", o.maxbytes);
        wrong = -1;
    } else {
        if (rank == 0)
            printf("peer,ranks,bytes,time_us,algbw_GBps,busbw_GBps,wrong\n");
        for (double b = (double)o.minbytes; b <= (double)o.maxbytes * 1.0000001; b *= o.factor) {
            size_t bytes = (size_t)b / sizeof(float) * sizeof(float);
            wrong += run_size(&o, bytes, send, recv, rank, nranks);
        }
    }
    free(send);
    free(recv);
    MPI_Finalize();
    return wrong != 0;
}
