// sim/cost/cost_file.c: system profiles as JSON files (written by calibration,
// read back by --profile), and the resolution of a --profile argument.
//
// File format, version 1 (alpha in microseconds, bandwidth in GB/s = 1e9 B/s,
// per direction per rank, as in cost.h):
//   {"format": "ddplab-profile", "version": 1, "name": "...",
//    "description": "...", "ranks_per_node": 8, "nics_per_node": 8,
//    "intra": {"name": "...", "alpha_us": 1, "bw_GBps": 370, "source": "..."},
//    "inter": {...},
//    "device": {"name": "...", "description": "...", "fp32_TFLOPS": 67,
//               "lowp_TFLOPS": 989, "mem_bw_GBps": 3350, "mem_GB": 80,
//               "efficiency": 0.8, "launch_us": 5, "coll_on_compute": 0,
//               "source": "..."},
//    "host": {the fields of "device"}}
// "description", "nics_per_node" (default 0: not stated, one NIC carries a
// ring's crossing; cost.h "Rails"), the links' and the device's "source", the device's
// "description" and "coll_on_compute" (default 0) may be omitted, and so
// may the whole "device" (files from before it existed have none: the
// profile then states no device) and "host" (the CPUs' share per GPU where
// CPU offload steps the optimizer; absent, a DGX H100's, sim_sys_host). Every other field is required, and
// unknown or repeated fields are rejected so that a typo cannot silently
// fall back to a default. TFLOPS = 1e12 FLOP/s, GB = 1e9 bytes.
#include "cost/cost.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "base/errbuf.h"
#include "base/outfile.h"
#include "cost/cost_internal.h"

#define PROFILE_FORMAT "ddplab-profile"
#define PROFILE_VERSION 1
#define PROFILE_MAX_BYTES (1 << 20) // a profile is a few hundred bytes
#define MAX_RANKS_PER_NODE (1 << 20)
#define LINK_MAX_ALPHA_US 1e9 // 1000 s per message
#define LINK_MIN_BW_GBPS 1e-9 // 1 byte per second
#define LINK_MAX_BW_GBPS 1e9

// ----------------------------------------------------------------------------
// saving

static int link_valid(const SimLinkProfile *l) {
    return l->name[0] != '\0' && isfinite(l->alpha_s) && l->alpha_s >= 0.0 &&
           isfinite(l->bw_Bps) && l->bw_Bps > 0.0;
}

static void write_link(SimJsonOut *o, const char *key, const SimLinkProfile *l) {
    sim_json_raw(o, "  \"");
    sim_json_raw(o, key);
    sim_json_raw(o, "\": {\"name\": ");
    sim_json_str(o, l->name);
    sim_json_raw(o, ", \"alpha_us\": ");
    sim_json_num(o, l->alpha_s * 1e6);
    sim_json_raw(o, ", \"bw_GBps\": ");
    sim_json_num(o, l->bw_Bps / 1e9);
    sim_json_raw(o, ", \"source\": ");
    sim_json_str(o, l->source);
    sim_json_raw(o, "}");
}

static void write_device(SimJsonOut *o, const char *key, const SimDeviceProfile *d) {
    sim_json_raw(o, "  \"");
    sim_json_raw(o, key);
    sim_json_raw(o, "\": {\"name\": ");
    sim_json_str(o, d->name);
    sim_json_raw(o, ", \"description\": ");
    sim_json_str(o, d->description);
    sim_json_raw(o, ",\n    \"fp32_TFLOPS\": ");
    sim_json_num(o, d->peak_fp32_flops / 1e12);
    sim_json_raw(o, ", \"lowp_TFLOPS\": ");
    sim_json_num(o, d->peak_lowp_flops / 1e12);
    sim_json_raw(o, ", \"mem_bw_GBps\": ");
    sim_json_num(o, d->mem_bw_Bps / 1e9);
    sim_json_raw(o, ", \"mem_GB\": ");
    sim_json_num(o, d->mem_bytes / 1e9);
    sim_json_raw(o, ",\n    \"efficiency\": ");
    sim_json_num(o, d->efficiency);
    if (d->attn_efficiency > 0) { // written only where stated: older files stay as they were
        sim_json_raw(o, ", \"attn_efficiency\": ");
        sim_json_num(o, d->attn_efficiency);
    }
    sim_json_raw(o, ", \"launch_us\": ");
    sim_json_num(o, d->launch_s * 1e6);
    sim_json_raw(o, ", \"coll_on_compute\": ");
    sim_json_i64(o, d->coll_on_compute ? 1 : 0);
    if (d->sm_count > 0 && d->gemm_tile_m > 0 && d->gemm_tile_n > 0) { // only where stated
        sim_json_raw(o, ",\n    \"sm_count\": ");
        sim_json_i64(o, d->sm_count);
        sim_json_raw(o, ", \"gemm_tile_m\": ");
        sim_json_i64(o, d->gemm_tile_m);
        sim_json_raw(o, ", \"gemm_tile_n\": ");
        sim_json_i64(o, d->gemm_tile_n);
    }
    sim_json_raw(o, ",\n    \"source\": ");
    sim_json_str(o, d->source);
    sim_json_raw(o, "}");
}

SimStatus sim_sys_save(const SimSysProfile *p, const char *path) {
    if (p == NULL || path == NULL || p->name[0] == '\0' || p->ranks_per_node < 1 ||
        !link_valid(&p->intra) || !link_valid(&p->inter))
        return SIM_EINVAL;
    // A device is either stated in full or not at all (all zero).
    int has_device = sim_device_valid(&p->device), has_host = sim_device_valid(&p->host);
    if ((!has_device && p->device.name[0] != '\0') || (!has_host && p->host.name[0] != '\0'))
        return SIM_EINVAL;
    SimOutFile f;
    SimStatus st = sim_outfile_open(&f, path);
    if (st != SIM_OK)
        return st;
    SimJsonOut o;
    sim_json_begin(&o, f.f);
    sim_json_raw(&o, "{\n  \"format\": \"" PROFILE_FORMAT "\",\n  \"version\": ");
    sim_json_i64(&o, PROFILE_VERSION);
    sim_json_raw(&o, ",\n  \"name\": ");
    sim_json_str(&o, p->name);
    sim_json_raw(&o, ",\n  \"description\": ");
    sim_json_str(&o, p->description);
    sim_json_raw(&o, ",\n  \"ranks_per_node\": ");
    sim_json_i64(&o, p->ranks_per_node);
    if (p->nics_per_node > 0) { // written only where stated: older files stay as they were
        sim_json_raw(&o, ",\n  \"nics_per_node\": ");
        sim_json_i64(&o, p->nics_per_node);
    }
    sim_json_raw(&o, ",\n");
    write_link(&o, "intra", &p->intra);
    sim_json_raw(&o, ",\n");
    write_link(&o, "inter", &p->inter);
    if (has_device) {
        sim_json_raw(&o, ",\n");
        write_device(&o, "device", &p->device);
    }
    if (has_host) {
        sim_json_raw(&o, ",\n");
        write_device(&o, "host", &p->host);
    }
    sim_json_raw(&o, "\n}\n");
    sim_json_flush(&o);
    return sim_outfile_commit(&f);
}

// ----------------------------------------------------------------------------
// loading

typedef struct {
    const char *path;
    char *err;
    size_t errlen;
} Loader;

// Writes "PATH: <reason>" into the error buffer and returns SIM_EFORMAT.
static SimStatus bad(const Loader *ld, const char *fmt, ...) {
    if (ld->err != NULL && ld->errlen > 0) {
        int n = snprintf(ld->err, ld->errlen, "%s: ", ld->path);
        if (n >= 0 && (size_t)n < ld->errlen) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(ld->err + n, ld->errlen - (size_t)n, fmt, ap);
            va_end(ap);
        }
    }
    return SIM_EFORMAT;
}

// Rejects members of obj not named in allowed (NULL-terminated) and members
// that appear twice. `where` prefixes field names in messages ("" or "intra.").
static SimStatus check_members(const Loader *ld, const cJSON *obj, const char *where,
                               const char *const *allowed) {
    unsigned seen = 0;
    for (const cJSON *it = obj->child; it != NULL; it = it->next) {
        int k = 0;
        while (allowed[k] != NULL && strcmp(allowed[k], it->string) != 0)
            k++;
        if (allowed[k] == NULL)
            return bad(ld, "unknown field \"%s%s\"", where, it->string);
        if (seen & (1u << k))
            return bad(ld, "field \"%s%s\" appears twice", where, it->string);
        seen |= 1u << k;
    }
    return SIM_OK;
}

// Copies string member key of obj into dst[cap]. A missing member is an error
// only when required (dst is then left as "").
static SimStatus get_string(const Loader *ld, const cJSON *obj, const char *where,
                            const char *key, int required, char *dst, size_t cap) {
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
    dst[0] = '\0';
    if (it == NULL)
        return required ? bad(ld, "missing field \"%s%s\"", where, key) : SIM_OK;
    if (!cJSON_IsString(it) || it->valuestring == NULL)
        return bad(ld, "field \"%s%s\" must be a string", where, key);
    size_t n = strlen(it->valuestring);
    if (required && n == 0)
        return bad(ld, "field \"%s%s\" must not be empty", where, key);
    if (n >= cap)
        return bad(ld, "field \"%s%s\" is too long (at most %zu bytes)", where, key, cap - 1);
    memcpy(dst, it->valuestring, n + 1);
    return SIM_OK;
}

// Reads required number member key of obj; it must be finite and >= lo
// (> lo when strict).
static SimStatus get_number(const Loader *ld, const cJSON *obj, const char *where,
                            const char *key, double lo, int strict, double *v) {
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (it == NULL)
        return bad(ld, "missing field \"%s%s\"", where, key);
    if (!cJSON_IsNumber(it))
        return bad(ld, "field \"%s%s\" must be a number", where, key);
    *v = it->valuedouble;
    if (!isfinite(*v) || *v < lo || (strict && *v == lo))
        return bad(ld, "field \"%s%s\" must be a finite number %s %g (got %g)", where, key,
                   strict ? ">" : ">=", lo, *v);
    return SIM_OK;
}

static SimStatus parse_link(const Loader *ld, const cJSON *root, const char *key,
                            SimLinkProfile *l) {
    static const char *const allowed[] = {"name", "alpha_us", "bw_GBps", "source", NULL};
    char where[16];
    snprintf(where, sizeof(where), "%s.", key);
    const cJSON *obj = cJSON_GetObjectItemCaseSensitive(root, key);
    if (obj == NULL)
        return bad(ld, "missing field \"%s\"", key);
    if (!cJSON_IsObject(obj))
        return bad(ld, "field \"%s\" must be an object", key);
    double alpha_us, bw_GBps;
    SIM_CHECK(check_members(ld, obj, where, allowed));
    SIM_CHECK(get_string(ld, obj, where, "name", 1, l->name, sizeof(l->name)));
    SIM_CHECK(get_number(ld, obj, where, "alpha_us", 0.0, 0, &alpha_us));
    SIM_CHECK(get_number(ld, obj, where, "bw_GBps", 0.0, 1, &bw_GBps));
    SIM_CHECK(get_string(ld, obj, where, "source", 0, l->source, sizeof(l->source)));
    // Bounds that keep simulated times finite and printable: 1e307 us or
    // 1e-300 GB/s made a two-step run last 1e300 s.
    if (alpha_us > LINK_MAX_ALPHA_US)
        return bad(ld, "field \"%salpha_us\" is out of range (%g; allowed: 0..%g)", where,
                   alpha_us, LINK_MAX_ALPHA_US);
    if (bw_GBps < LINK_MIN_BW_GBPS || bw_GBps > LINK_MAX_BW_GBPS)
        return bad(ld, "field \"%sbw_GBps\" is out of range (%g; allowed: %g..%g)", where,
                   bw_GBps, LINK_MIN_BW_GBPS, LINK_MAX_BW_GBPS);
    l->alpha_s = alpha_us / 1e6;
    l->bw_Bps = bw_GBps * 1e9;
    return SIM_OK;
}

// Reads number member key of obj in [lo, hi] (lo excluded when strict) and
// multiplies it by `unit`; the product must stay finite and, when strict,
// positive (e.g. 1e-320 TFLOPS or 1e300 GB/s are out of range).
static SimStatus get_scaled(const Loader *ld, const cJSON *obj, const char *where,
                            const char *key, double lo, int strict, double hi, double unit,
                            double *v) {
    double x = 0.0;
    SIM_CHECK(get_number(ld, obj, where, key, lo, strict, &x));
    *v = x * unit;
    if (x > hi || !isfinite(*v) || (strict && !(*v > 0.0)))
        return bad(ld, "field \"%s%s\" is out of range (%g; allowed: %s%g..%g)", where, key,
                   x, strict ? "above " : "", lo, hi);
    return SIM_OK;
}

// The optional "device" or "host" object (absent: *d stays all zero).
// The optional "sm_count", "gemm_tile_m" and "gemm_tile_n" (sim_cost_gemm_on):
// all three or none, whole numbers in [1, 65536].
static SimStatus parse_tiles(const Loader *ld, const cJSON *obj, const char *where,
                             SimDeviceProfile *d) {
    static const char *const keys[] = {"sm_count", "gemm_tile_m", "gemm_tile_n"};
    int *dst[] = {&d->sm_count, &d->gemm_tile_m, &d->gemm_tile_n};
    int present = 0;
    for (int i = 0; i < 3; i++)
        present += cJSON_GetObjectItemCaseSensitive(obj, keys[i]) != NULL;
    if (present == 0)
        return SIM_OK;
    if (present != 3)
        return bad(ld, "fields \"%ssm_count\", \"%sgemm_tile_m\" and \"%sgemm_tile_n\" go "
                   "together", where, where, where);
    for (int i = 0; i < 3; i++) {
        double v;
        SIM_CHECK(get_number(ld, obj, where, keys[i], 1.0, 0, &v));
        if (v != floor(v) || v > 65536)
            return bad(ld, "field \"%s%s\" must be a whole number in [1, 65536]", where,
                       keys[i]);
        *dst[i] = (int)v;
    }
    return SIM_OK;
}

static SimStatus parse_device(const Loader *ld, const cJSON *root, const char *key,
                              SimDeviceProfile *d) {
    static const char *const allowed[] = {"name", "description", "fp32_TFLOPS", "lowp_TFLOPS",
                                          "mem_bw_GBps", "mem_GB", "efficiency",
                                          "attn_efficiency", "launch_us", "coll_on_compute",
                                          "sm_count", "gemm_tile_m", "gemm_tile_n",
                                          "source", NULL};
    char where[16];
    snprintf(where, sizeof where, "%s.", key);
    const cJSON *obj = cJSON_GetObjectItemCaseSensitive(root, key);
    memset(d, 0, sizeof *d);
    if (obj == NULL)
        return SIM_OK;
    if (!cJSON_IsObject(obj))
        return bad(ld, "field \"%s\" must be an object", key);
    SIM_CHECK(check_members(ld, obj, where, allowed));
    SIM_CHECK(get_string(ld, obj, where, "name", 1, d->name, sizeof(d->name)));
    SIM_CHECK(get_string(ld, obj, where, "description", 0, d->description,
                         sizeof(d->description)));
    // rates from 1e-9 (1000 FLOP/s, 1 B/s) and an efficiency from 1e-6 on:
    // smaller ones (1e-300) made simulated times overflow, as for the links
    SIM_CHECK(get_scaled(ld, obj, where, "fp32_TFLOPS", 1e-9, 0, 1e9, 1e12, &d->peak_fp32_flops));
    SIM_CHECK(get_scaled(ld, obj, where, "lowp_TFLOPS", 1e-9, 0, 1e9, 1e12, &d->peak_lowp_flops));
    SIM_CHECK(get_scaled(ld, obj, where, "mem_bw_GBps", 1e-9, 0, 1e9, 1e9, &d->mem_bw_Bps));
    SIM_CHECK(get_scaled(ld, obj, where, "mem_GB", 0.0, 0, 1e9, 1e9, &d->mem_bytes));
    SIM_CHECK(get_scaled(ld, obj, where, "efficiency", 1e-6, 0, 1.0, 1.0, &d->efficiency));
    if (cJSON_GetObjectItemCaseSensitive(obj, "attn_efficiency") != NULL) // optional
        SIM_CHECK(get_scaled(ld, obj, where, "attn_efficiency", 1e-6, 0, 1.0, 1.0,
                             &d->attn_efficiency));
    SIM_CHECK(get_scaled(ld, obj, where, "launch_us", 0.0, 0, 1e9, 1e-6, &d->launch_s));
    const cJSON *coc = cJSON_GetObjectItemCaseSensitive(obj, "coll_on_compute");
    if (coc != NULL) {
        if (!cJSON_IsNumber(coc) || (coc->valuedouble != 0 && coc->valuedouble != 1))
            return bad(ld, "field \"%scoll_on_compute\" must be 0 or 1", where);
        d->coll_on_compute = coc->valuedouble == 1;
    }
    SIM_CHECK(parse_tiles(ld, obj, where, d));
    SIM_CHECK(get_string(ld, obj, where, "source", 0, d->source, sizeof(d->source)));
    return SIM_OK;
}

static SimStatus parse_profile(const Loader *ld, const cJSON *root, SimSysProfile *out) {
    static const char *const allowed[] = {"format", "version", "name", "description",
                                          "ranks_per_node", "nics_per_node", "intra", "inter",
                                          "device", "host", NULL};
    if (!cJSON_IsObject(root))
        return bad(ld, "not a profile: the top level must be a JSON object");
    // The tag and version first: a file of another kind should say so rather
    // than list its fields as unknown.
    const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(root, "format");
    if (fmt == NULL)
        return bad(ld, "missing field \"format\" (expected \"%s\")", PROFILE_FORMAT);
    if (!cJSON_IsString(fmt) || strcmp(fmt->valuestring, PROFILE_FORMAT) != 0)
        return bad(ld, "field \"format\" must be \"%s\"", PROFILE_FORMAT);
    double version, rpn;
    SIM_CHECK(get_number(ld, root, "", "version", 0.0, 0, &version));
    if (version != PROFILE_VERSION)
        return bad(ld, "field \"version\" is %g; this program reads version %d", version,
                   PROFILE_VERSION);
    SIM_CHECK(check_members(ld, root, "", allowed));
    SIM_CHECK(get_string(ld, root, "", "name", 1, out->name, sizeof(out->name)));
    SIM_CHECK(get_string(ld, root, "", "description", 0, out->description,
                         sizeof(out->description)));
    SIM_CHECK(get_number(ld, root, "", "ranks_per_node", 1.0, 0, &rpn));
    if (rpn != floor(rpn) || rpn > MAX_RANKS_PER_NODE)
        return bad(ld, "field \"ranks_per_node\" must be a whole number in [1, %d]",
                   MAX_RANKS_PER_NODE);
    out->ranks_per_node = (int)rpn;
    if (cJSON_GetObjectItemCaseSensitive(root, "nics_per_node") != NULL) { // optional
        double nics;
        SIM_CHECK(get_number(ld, root, "", "nics_per_node", 0.0, 0, &nics));
        if (nics != floor(nics) || nics > MAX_RANKS_PER_NODE)
            return bad(ld, "field \"nics_per_node\" must be a whole number in [0, %d]",
                       MAX_RANKS_PER_NODE);
        out->nics_per_node = (int)nics;
    }
    SIM_CHECK(parse_link(ld, root, "intra", &out->intra));
    SIM_CHECK(parse_link(ld, root, "inter", &out->inter));
    SIM_CHECK(parse_device(ld, root, "device", &out->device));
    SIM_CHECK(parse_device(ld, root, "host", &out->host));
    return SIM_OK;
}

// Reads the whole file into a NUL-terminated heap buffer.
static SimStatus read_file(const Loader *ld, char **buf, size_t *len) {
    *buf = NULL;
    FILE *f = fopen(ld->path, "rb");
    if (f == NULL) {
        snprintf(ld->err, ld->errlen, "cannot read %s: %s", ld->path, strerror(errno));
        return SIM_EIO;
    }
    char *b = malloc(PROFILE_MAX_BYTES + 1);
    if (b == NULL) {
        fclose(f);
        snprintf(ld->err, ld->errlen, "%s: out of memory", ld->path);
        return SIM_ENOMEM;
    }
    size_t n = fread(b, 1, PROFILE_MAX_BYTES + 1, f);
    int failed = ferror(f);
    int e = errno;
    fclose(f);
    if (failed) {
        free(b);
        snprintf(ld->err, ld->errlen, "cannot read %s: %s", ld->path, strerror(e));
        return SIM_EIO;
    }
    if (n > PROFILE_MAX_BYTES) {
        free(b);
        return bad(ld, "too large for a profile (over %d bytes)", PROFILE_MAX_BYTES);
    }
    b[n] = '\0';
    *buf = b;
    *len = n;
    return SIM_OK;
}

SimStatus sim_sys_load(const char *path, SimSysProfile *out, char *err, size_t errlen) {
    char dummy[1]; // where the message goes when the caller gave no room for it
    int room = err != NULL && errlen > 0;
    Loader ld = {path ? path : "(null)", room ? err : dummy, room ? errlen : sizeof(dummy)};
    ld.err[0] = '\0';
    if (path == NULL || out == NULL) {
        snprintf(ld.err, ld.errlen, "no profile path given");
        return SIM_EINVAL;
    }
    char *buf = NULL;
    size_t len = 0;
    SimStatus st = read_file(&ld, &buf, &len);
    if (st != SIM_OK)
        return st;
    SimSysProfile p;
    memset(&p, 0, sizeof(p));
    if (strlen(buf) != len) {
        st = bad(&ld, "not valid JSON (contains a NUL byte)");
    } else {
        const char *end = NULL;
        cJSON *root = cJSON_ParseWithOpts(buf, &end, 1);
        if (root == NULL)
            st = bad(&ld, "not valid JSON (error at byte %ld)",
                     end != NULL ? (long)(end - buf) : 0L);
        else
            st = parse_profile(&ld, root, &p);
        cJSON_Delete(root);
    }
    free(buf);
    if (st == SIM_OK)
        *out = p;
    return st;
}

// ----------------------------------------------------------------------------
// name-or-path resolution: --profile here, --gpu in cost_devices.c

SimStatus sim_cost_name_or_path(const char *name_or_path, const char *what,
                                const void *builtin, void *out, size_t size, SimNamed *named,
                                char *err, size_t errlen) {
    if (err != NULL && errlen > 0)
        err[0] = '\0';
    if (name_or_path == NULL || name_or_path[0] == '\0')
        return sim_errbuf_fail(err, errlen, SIM_EINVAL, "empty %s name", what);
    if (builtin != NULL) {
        memcpy(out, builtin, size);
        *named = SIM_NAMED_BUILTIN;
        return SIM_OK;
    }
    struct stat sb;
    if (stat(name_or_path, &sb) == 0) {
        *named = SIM_NAMED_FILE;
        return SIM_OK;
    }
    if (errno != ENOENT && errno != ENOTDIR)
        return sim_errbuf_fail(err, errlen, SIM_EIO, "cannot read %s: %s", name_or_path,
                               strerror(errno));
    *named = SIM_NAMED_NOTHING;
    return SIM_OK;
}

// Writes "unknown profile "x": not a built-in system (...) nor an existing
// profile file", listing the built-in systems so the user can pick one.
static SimStatus unknown_profile(const char *name, char *err, size_t errlen) {
    if (err == NULL || errlen == 0)
        return SIM_EINVAL;
    int n = snprintf(err, errlen, "unknown profile \"%s\": not a built-in system (", name);
    for (int i = 0; i < sim_sys_count() && n >= 0 && (size_t)n < errlen; i++)
        n += snprintf(err + n, errlen - (size_t)n, "%s%s", i ? ", " : "", sim_sys_at(i)->name);
    if (n >= 0 && (size_t)n < errlen)
        snprintf(err + n, errlen - (size_t)n, ") nor an existing profile file");
    return SIM_EINVAL;
}

SimStatus sim_sys_resolve(const char *name_or_path, SimSysProfile *out, char *err,
                          size_t errlen) {
    SimNamed named;
    SimStatus st = sim_cost_name_or_path(name_or_path, "profile", sim_sys_find(name_or_path),
                                         out, sizeof *out, &named, err, errlen);
    if (st != SIM_OK || named == SIM_NAMED_BUILTIN)
        return st;
    if (named == SIM_NAMED_FILE)
        return sim_sys_load(name_or_path, out, err, errlen);
    return unknown_profile(name_or_path, err, errlen);
}
