// backend_cuda/cuda_rdzv.c: who this process is (the launcher's variables;
// the shared secret in cuda_rdzv_secret.c), the `--rendezvous` spec, and the
// dispatch of the blob exchange to its channel (cuda_rdzv_file.c,
// cuda_rdzv_tcp.c, and cuda_rdzv_mpi.c in a build with MPI). See
// cuda_rdzv.h.
#include "cuda_rdzv.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cuda_rdzv_hmac.h"     // defines: cuda_rdzv_random_bytes
#include "cuda_rdzv_internal.h" // defines: cuda_rdzv_file_bcast, ...

#define RDZV_MAX_WORLD (1 << 20) // ranks a launcher may announce at most

const char *cuda_rdzv_getenv(void *arg, const char *name) {
    (void)arg;
    return getenv(name);
}

// ----------------------------------------------------------------------------
// Small shared helpers

double cuda_rdzv_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

void cuda_rdzv_sleep(double s) {
    if (!(s > 0))
        return;
    struct timespec t;
    t.tv_sec = (time_t)s;
    t.tv_nsec = (long)((s - (double)t.tv_sec) * 1e9);
    nanosleep(&t, NULL);
}

// splitmix64's finaliser: spreads the fallback's few varying bits.
static uint64_t mix64(uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

uint64_t cuda_rdzv_random(void) {
    uint64_t v = 0;
    if (cuda_rdzv_random_bytes(&v, sizeof v) != 0)
        v = 0;
    if (v == 0) {
        struct timespec t;
        clock_gettime(CLOCK_REALTIME, &t);
        v = mix64(((uint64_t)t.tv_sec << 32) ^ (uint64_t)t.tv_nsec ^
                  ((uint64_t)getpid() << 16) ^ (uint64_t)(uintptr_t)&t);
    }
    return v ? v : 1;
}

// ----------------------------------------------------------------------------
// Identity

typedef struct {
    const char *name;       // the launcher, for messages
    const char *rank;       // variables; NULL: this launcher has none
    const char *size;
    const char *size_alt;   // read when `size` is not set
    const char *local_rank;
    const char *local_size;
    int local_size_loose;   // 1: a local size that is not a plain number is
                            // "not said" (Slurm's "4(x2)" forms), not an error
} Launcher;

static const Launcher launchers[] = {
    {"torchrun", "RANK", "WORLD_SIZE", NULL, "LOCAL_RANK", "LOCAL_WORLD_SIZE", 0},
    {"Open MPI", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", NULL,
     "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE", 0},
    {"MPICH (PMI)", "PMI_RANK", "PMI_SIZE", NULL, "MPI_LOCALRANKID", "MPI_LOCALNRANKS", 0},
    {"Slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_NPROCS", "SLURM_LOCALID",
     "SLURM_NTASKS_PER_NODE", 1},
};
#define NLAUNCHERS (int)(sizeof launchers / sizeof launchers[0])

// A whole number 0 .. max written with digits only. NULL when it is one,
// else what is wrong with it.
static const char *parse_count(const char *v, long long max, long long *out) {
    if (v[0] == '-' && isdigit((unsigned char)v[1])) {
        for (const char *p = v + 1; *p; p++)
            if (!isdigit((unsigned char)*p))
                return "is not a whole number";
        return "is negative";
    }
    if (v[0] == '\0')
        return "is empty";
    long long x = 0;
    for (const char *p = v; *p; p++) {
        if (!isdigit((unsigned char)*p))
            return "is not a whole number";
        if (x > (max - (*p - '0')) / 10)
            return "is too large";
        x = x * 10 + (*p - '0');
    }
    *out = x;
    return NULL;
}

static const char *lookup(CudaRdzvLookup get, void *arg, const char *name) {
    return name ? get(arg, name) : NULL;
}

// Keeps the characters of a job id that are safe in a file and a message.
static void set_job(char *dst, size_t n, const char *a, const char *sep, const char *b) {
    char raw[256];
    snprintf(raw, sizeof raw, "%s%s%s", a ? a : "", a && b ? sep : "", b ? b : "");
    size_t k = 0;
    for (const char *p = raw; *p && k + 1 < n; p++)
        dst[k++] = isalnum((unsigned char)*p) || strchr("._:-", *p) ? *p : '_';
    dst[k] = '\0';
}

static void find_job(CudaRdzvLookup get, void *arg, const Launcher *l, CudaRdzvIdentity *id) {
    if (strcmp(l->name, "torchrun") == 0) {
        const char *run = get(arg, "TORCHELASTIC_RUN_ID");
        set_job(id->job, sizeof id->job, run, ".r",
                run ? get(arg, "TORCHELASTIC_RESTART_COUNT") : NULL);
    } else if (strcmp(l->name, "Open MPI") == 0) {
        const char *ns = get(arg, "PMIX_NAMESPACE");
        set_job(id->job, sizeof id->job, ns ? ns : get(arg, "OMPI_MCA_ess_base_jobid"), "",
                NULL);
    } else if (strcmp(l->name, "Slurm") == 0) {
        const char *job = get(arg, "SLURM_JOB_ID");
        set_job(id->job, sizeof id->job, job, ".", job ? get(arg, "SLURM_STEP_ID") : NULL);
    }
}

static SimStatus bad(char *err, size_t errlen, const char *var, const char *val,
                     const char *what, const char *launcher, const char *allowed) {
    snprintf(err, errlen, "%s='%.64s' %s (%s); allowed: %s", var, val, what, launcher, allowed);
    return SIM_EINVAL;
}

// The rank and the world size of launcher l, both set.
static SimStatus read_world(CudaRdzvLookup get, void *arg, const Launcher *l,
                            CudaRdzvIdentity *id, char *err, size_t errlen) {
    const char *rv = get(arg, l->rank), *sname = l->size, *sv = lookup(get, arg, l->size);
    if (sv == NULL && l->size_alt) {
        sname = l->size_alt;
        sv = get(arg, l->size_alt);
    }
    if (sv == NULL) {
        snprintf(err, errlen, "%s is set (%s) but %s is not; allowed: both, as the launcher sets "
                 "them", l->rank, l->name, l->size);
        return SIM_EINVAL;
    }
    long long size = 0, rank = 0;
    const char *why = parse_count(sv, RDZV_MAX_WORLD, &size);
    if (why == NULL && size < 1)
        why = "is not a world";
    if (why)
        return bad(err, errlen, sname, sv, why, l->name, "1 or more processes");
    char allowed[64];
    snprintf(allowed, sizeof allowed, "0 .. %lld (%s=%lld)", size - 1, sname, size);
    why = parse_count(rv, RDZV_MAX_WORLD, &rank);
    if (why == NULL && rank >= size)
        why = "is not below the world size";
    if (why)
        return bad(err, errlen, l->rank, rv, why, l->name, allowed);
    id->rank = (int)rank;
    id->world_size = (int)size;
    return SIM_OK;
}

// The local rank and size, each optional.
static SimStatus read_local(CudaRdzvLookup get, void *arg, const Launcher *l,
                            CudaRdzvIdentity *id, char *err, size_t errlen) {
    const char *lr = lookup(get, arg, l->local_rank), *ls = lookup(get, arg, l->local_size);
    long long v = 0;
    const char *why;
    char allowed[64];
    id->local_rank = id->local_world_size = -1;
    if (ls) {
        why = parse_count(ls, RDZV_MAX_WORLD, &v);
        if (why == NULL && (v < 1 || v > id->world_size))
            why = v < 1 ? "is not a world" : "is above the world size";
        if (why && !l->local_size_loose) {
            snprintf(allowed, sizeof allowed, "1 .. %d (the world size)", id->world_size);
            return bad(err, errlen, l->local_size, ls, why, l->name, allowed);
        }
        if (why == NULL)
            id->local_world_size = (int)v;
    }
    if (lr) {
        why = parse_count(lr, RDZV_MAX_WORLD, &v);
        int below = id->local_world_size > 0 ? id->local_world_size : id->world_size;
        if (why == NULL && v >= below)
            why = id->local_world_size > 0 ? "is not below the local world size"
                                           : "is not below the world size";
        if (why) {
            snprintf(allowed, sizeof allowed, "0 .. %d", below - 1);
            return bad(err, errlen, l->local_rank, lr, why, l->name, allowed);
        }
        id->local_rank = (int)v;
    }
    return SIM_OK;
}

static int host_char_ok(char c, int bracketed) {
    return isalnum((unsigned char)c) || c == '.' || c == '-' || c == '_' ||
           (bracketed && (c == ':' || c == '%'));
}

// DDPLAB_RENDEZVOUS_BIND: a host name or address, an IPv6 one with or
// without its brackets.
static SimStatus read_bind(CudaRdzvLookup get, void *arg, CudaRdzvIdentity *id, char *err,
                           size_t errlen) {
    const char *v = get(arg, "DDPLAB_RENDEZVOUS_BIND");
    if (v == NULL)
        return SIM_OK;
    size_t n = strlen(v);
    int bracketed = n >= 2 && v[0] == '[' && v[n - 1] == ']';
    const char *h = v + bracketed;
    size_t hlen = n - 2 * (size_t)bracketed;
    int ok = hlen > 0 && hlen < sizeof id->bind;
    for (size_t i = 0; ok && i < hlen; i++)
        ok = host_char_ok(h[i], 1);
    if (!ok)
        return bad(err, errlen, "DDPLAB_RENDEZVOUS_BIND", v, "is not a host", "ddplab",
                   "an address or name of rank 0's machine, or 0.0.0.0 or :: (every interface)");
    memcpy(id->bind, h, hlen);
    id->bind[hlen] = '\0';
    return SIM_OK;
}

// MASTER_ADDR, MASTER_PORT, the agent's store, the timeout and where rank 0
// listens: read whatever the launcher.
static SimStatus read_common(CudaRdzvLookup get, void *arg, CudaRdzvIdentity *id, char *err,
                             size_t errlen) {
    const char *addr = get(arg, "MASTER_ADDR"), *port = get(arg, "MASTER_PORT");
    if (addr) {
        if (strlen(addr) >= sizeof id->master_addr)
            return bad(err, errlen, "MASTER_ADDR", addr, "is too long", id->launcher,
                       "a host name or address");
        snprintf(id->master_addr, sizeof id->master_addr, "%s", addr);
    }
    if (port) {
        long long p = 0;
        const char *why = parse_count(port, 65535, &p);
        if (why == NULL && p < 1)
            why = "is not a port";
        if (why)
            return bad(err, errlen, "MASTER_PORT", port, why, id->launcher, "1 .. 65535");
        id->master_port = (int)p;
    }
    SIM_CHECK(read_bind(get, arg, id, err, errlen));
    const char *store = get(arg, "TORCHELASTIC_USE_AGENT_STORE");
    id->agent_store = store && strcmp(store, "True") == 0;
    id->timeout_s = CUDA_RDZV_DEFAULT_TIMEOUT;
    const char *t = get(arg, "DDPLAB_RENDEZVOUS_TIMEOUT");
    if (t) {
        char *end = NULL;
        errno = 0;
        double x = strtod(t, &end);
        if (end == t || *end != '\0' || errno == ERANGE || !(x > 0) || x > 604800)
            return bad(err, errlen, "DDPLAB_RENDEZVOUS_TIMEOUT", t,
                       "is not a number of seconds", "ddplab", "a number above 0, at most 604800");
        id->timeout_s = x;
    }
    return SIM_OK;
}

SimStatus cuda_rdzv_identity(CudaRdzvLookup get, void *arg, CudaRdzvIdentity *id, char *err,
                             size_t errlen) {
    memset(id, 0, sizeof *id);
    id->local_rank = id->local_world_size = -1;
    const Launcher *l = NULL;
    for (int i = 0; i < NLAUNCHERS && l == NULL; i++)
        if (get(arg, launchers[i].rank) != NULL)
            l = &launchers[i];
    if (l == NULL) {
        const char *ws = get(arg, "WORLD_SIZE");
        snprintf(err, errlen, "%sno launcher's rank is set (RANK for torchrun, "
                 "OMPI_COMM_WORLD_RANK for mpirun, PMI_RANK, SLURM_PROCID for srun); allowed: "
                 "start every process under torchrun, mpirun or srun, or set RANK, WORLD_SIZE "
                 "and LOCAL_RANK yourself", ws ? "WORLD_SIZE is set but RANK is not: " : "");
        return SIM_EINVAL;
    }
    snprintf(id->launcher, sizeof id->launcher, "%s", l->name);
    SIM_CHECK(read_world(get, arg, l, id, err, errlen));
    SIM_CHECK(read_local(get, arg, l, id, err, errlen));
    find_job(get, arg, l, id);
    SIM_CHECK(read_common(get, arg, id, err, errlen));
    return cuda_rdzv_read_secret(get, arg, id, err, errlen);
}

// ----------------------------------------------------------------------------
// The spec

// `mpi` is offered only where it works: a build without MPI would refuse it.
#if DDPLAB_RDZV_MPI
#define SPEC_ALLOWED "file:PATH (a file every rank sees), tcp:HOST:PORT, env " \
                     "(tcp at MASTER_ADDR:MASTER_PORT), or mpi (MPI_Bcast under mpirun or srun)"
#else
#define SPEC_ALLOWED "file:PATH (a file every rank sees), tcp:HOST:PORT, or env " \
                     "(tcp at MASTER_ADDR:MASTER_PORT)"
// What `mpi` says in a build without MPI: why, and the way to get it.
#define NO_MPI "needs MPI, and this build of ddplab has none (CMake did not find it)"
#define NO_MPI_ALLOWED "apt-get install openmpi-bin libopenmpi-dev, then reconfigure (cmake " \
                       "-S . -B build) and rebuild; or file:PATH, tcp:HOST:PORT or env"
#endif

static SimStatus spec_bad(char *err, size_t errlen, const char *text, const char *what) {
    snprintf(err, errlen, "'%.200s' %s; allowed: %s", text, what, SPEC_ALLOWED);
    return SIM_EINVAL;
}

static SimStatus parse_tcp(const char *text, const char *rest, CudaRdzvSpec *s, char *err,
                           size_t errlen) {
    int bracketed = rest[0] == '[';
    const char *h = rest + bracketed, *hend, *colon;
    if (bracketed) { // tcp:[IPv6]:PORT
        hend = strchr(rest, ']');
        if (hend == NULL)
            return spec_bad(err, errlen, text, "has an unclosed '[' in its host");
        colon = hend + 1;
        if (*colon != ':')
            return spec_bad(err, errlen, text, "has no ':PORT' after its host's ']'");
    } else {
        colon = strrchr(rest, ':');
        if (colon == NULL)
            return spec_bad(err, errlen, text, "has no port (tcp:HOST:PORT)");
        hend = colon;
    }
    size_t hlen = (size_t)(hend - h);
    if (hlen == 0)
        return spec_bad(err, errlen, text, "has no host (tcp:HOST:PORT)");
    if (hlen >= sizeof s->host)
        return spec_bad(err, errlen, text, "has a host name that is too long");
    for (const char *p = h; p < hend; p++) {
        if (*p == ':' && !bracketed)
            return spec_bad(err, errlen, text,
                            "has ':' in its host: an IPv6 address goes in brackets, "
                            "as in tcp:[::1]:29500");
        if (!host_char_ok(*p, bracketed))
            return spec_bad(err, errlen, text, "has a character a host name cannot hold");
    }
    long long port = 0;
    const char *why = parse_count(colon + 1, 65535, &port);
    if (why || port < 1)
        return spec_bad(err, errlen, text, "has no port from 1 to 65535 after the last ':'");
    memcpy(s->host, h, hlen);
    s->host[hlen] = '\0';
    s->port = (int)port;
    s->kind = CUDA_RDZV_TCP;
    return SIM_OK;
}

SimStatus cuda_rdzv_parse(const char *text, CudaRdzvSpec *s, char *err, size_t errlen) {
    memset(s, 0, sizeof *s);
    if (text == NULL || text[0] == '\0')
        return spec_bad(err, errlen, "", "is empty");
    if (strcmp(text, "env") == 0) {
        s->kind = CUDA_RDZV_ENV;
        return SIM_OK;
    }
    if (strcmp(text, "mpi") == 0) {
#if DDPLAB_RDZV_MPI
        s->kind = CUDA_RDZV_MPI;
        return SIM_OK;
#else
        snprintf(err, errlen, "'mpi' %s; allowed: %s", NO_MPI, NO_MPI_ALLOWED);
        return SIM_EINVAL;
#endif
    }
    if (strncmp(text, "tcp:", 4) == 0)
        return parse_tcp(text, text + 4, s, err, errlen);
    if (strncmp(text, "file:", 5) == 0) {
        const char *path = text + 5;
        size_t n = strlen(path);
        if (n == 0)
            return spec_bad(err, errlen, text, "names no file (file:PATH)");
        if (n >= sizeof s->path - 64) // room for the suffixes of cuda_rdzv_file.c
            return spec_bad(err, errlen, text, "has a path that is too long");
        if (path[n - 1] == '/')
            return spec_bad(err, errlen, text, "names a directory, not a file");
        for (const char *p = path; *p; p++)
            if (iscntrl((unsigned char)*p))
                return spec_bad(err, errlen, text, "has a control character in its path");
        memcpy(s->path, path, n + 1);
        s->kind = CUDA_RDZV_FILE;
        return SIM_OK;
    }
    return spec_bad(err, errlen, text, "is not a rendezvous");
}

// `env` as tcp at MASTER_ADDR:MASTER_PORT (+ 1 under the agent's store).
static SimStatus resolve_env(CudaRdzvSpec *s, const CudaRdzvIdentity *id, char *err,
                             size_t errlen) {
    const char *missing = id->master_addr[0] == '\0' ? "MASTER_ADDR"
                          : id->master_port == 0     ? "MASTER_PORT"
                                                     : NULL;
    if (missing) {
        snprintf(err, errlen, "'env' needs %s, which is not set (%s); allowed: export "
                 "MASTER_ADDR and MASTER_PORT (rank 0's host and a free port), or use "
                 "file:PATH or tcp:HOST:PORT", missing, id->launcher[0] ? id->launcher : "");
        return SIM_EINVAL;
    }
    int port = id->master_port + (id->agent_store ? 1 : 0);
    if (port > 65535) {
        snprintf(err, errlen, "'env' would listen on MASTER_PORT + 1 = %d (torchrun's agent "
                 "holds MASTER_PORT), which is not a port; allowed: tcp:HOST:PORT", port);
        return SIM_EINVAL;
    }
    snprintf(s->host, sizeof s->host, "%s", id->master_addr);
    s->port = port;
    s->kind = CUDA_RDZV_TCP;
    return SIM_OK;
}

SimStatus cuda_rdzv_resolve(CudaRdzvSpec *s, const CudaRdzvIdentity *id, char *err,
                            size_t errlen) {
    if (s->kind == CUDA_RDZV_ENV)
        SIM_CHECK(resolve_env(s, id, err, errlen));
    if (s->kind != CUDA_RDZV_TCP)
        return SIM_OK;
    char where[300];
    return cuda_rdzv_need_secret(cuda_rdzv_describe(s, where, sizeof where), id, err, errlen);
}

const char *cuda_rdzv_describe(const CudaRdzvSpec *s, char *buf, size_t len) {
    switch (s->kind) {
    case CUDA_RDZV_FILE: snprintf(buf, len, "file:%s", s->path); break;
    case CUDA_RDZV_TCP:
        snprintf(buf, len, strchr(s->host, ':') ? "tcp:[%s]:%d" : "tcp:%s:%d", s->host, s->port);
        break;
    case CUDA_RDZV_ENV: snprintf(buf, len, "env"); break;
    case CUDA_RDZV_MPI: snprintf(buf, len, "mpi"); break;
    default: snprintf(buf, len, "(none)"); break;
    }
    return buf;
}

// ----------------------------------------------------------------------------
// The exchange

#if !DDPLAB_RDZV_MPI
// The MPI channel of a build without MPI: cuda_rdzv_parse never makes an
// `mpi` spec here, so only a spec built by hand arrives.
SimStatus cuda_rdzv_mpi_bcast(const CudaRdzvSpec *s, const CudaRdzvIdentity *id, void *blob,
                              size_t len, char *err, size_t errlen) {
    (void)s, (void)id, (void)blob, (void)len;
    snprintf(err, errlen, "rendezvous 'mpi' %s; allowed: %s", NO_MPI, NO_MPI_ALLOWED);
    return SIM_EINVAL;
}
#endif

SimStatus cuda_rdzv_bcast(const CudaRdzvSpec *s, const CudaRdzvIdentity *id, void *blob,
                          size_t len, double timeout_s, char *err, size_t errlen) {
    if (len == 0 || len > CUDA_RDZV_MAX_BLOB || blob == NULL) {
        snprintf(err, errlen, "rendezvous: a blob of %zu bytes; allowed: 1 .. %d", len,
                 CUDA_RDZV_MAX_BLOB);
        return SIM_EINVAL;
    }
    if (id->world_size < 1 || id->rank < 0 || id->rank >= id->world_size) {
        snprintf(err, errlen, "rendezvous: rank %d of a world of %d", id->rank, id->world_size);
        return SIM_EINVAL;
    }
    if (!(timeout_s > 0))
        timeout_s = CUDA_RDZV_DEFAULT_TIMEOUT;
    switch (s->kind) {
    case CUDA_RDZV_FILE: return cuda_rdzv_file_bcast(s, id, blob, len, timeout_s, err, errlen);
    case CUDA_RDZV_TCP: return cuda_rdzv_tcp_bcast(s, id, blob, len, timeout_s, err, errlen);
    case CUDA_RDZV_MPI: return cuda_rdzv_mpi_bcast(s, id, blob, len, err, errlen);
    default:
        snprintf(err, errlen, "rendezvous: 'env' is resolved to tcp:HOST:PORT before use "
                 "(cuda_rdzv_resolve)");
        return SIM_EINVAL;
    }
}

void cuda_rdzv_finish(const CudaRdzvSpec *s, const CudaRdzvIdentity *id) {
    if (s->kind == CUDA_RDZV_FILE && id->rank == 0)
        cuda_rdzv_file_finish(s, id);
}
