// sim/formats/safetensors_write.c: writing a safetensors file (see safetensors.h).
//
// The header is built in memory first, because its length comes before it
// in the file. It carries a placeholder checksum of 64 '0' digits; the
// SHA-256 of the file as it would be written with the placeholder is then
// patched in, and only then is the file written, atomically.
#include "formats/safetensors.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errbuf.h"  // defines: sim_errbuf_fail
#include "base/outfile.h" // defines: SimOutFile, SimJsonOut
#include "base/sha256.h"  // defines: SimSha256

#define PLACEHOLDER "sha256:0000000000000000000000000000000000000000000000000000000000000000"

const char *sim_stfile_dtype_name(SimDtype dt) {
    switch (dt) {
    case SIM_FP32: return "F32";
    case SIM_FP16: return "F16";
    case SIM_BF16: return "BF16";
    case SIM_INT32: return "I32";
    case SIM_INT64: return "I64";
    default: return NULL;
    }
}

int sim_stfile_dtype_parse(const char *s, SimDtype *out) {
    for (int d = 0; d < SIM_DTYPE_COUNT; d++) {
        const char *name = sim_stfile_dtype_name((SimDtype)d);
        if (name && s && strcmp(name, s) == 0) {
            *out = (SimDtype)d;
            return 0;
        }
    }
    return -1;
}

static size_t tensor_bytes(const SimStTensor *t) {
    size_t n = 1;
    for (int d = 0; d < t->ndim; d++)
        n *= (size_t)t->shape[d];
    return n * sim_dtype_size(t->dtype);
}

// Checks what the caller hands in; the reader would reject anything else.
static SimStatus check_args(const char *path, const SimStTensor *t, int nt, const SimStMeta *meta,
                            int nmeta, char *err, size_t errlen) {
    for (int i = 0; i < nt; i++) {
        if (t[i].name == NULL || t[i].name[0] == '\0' || strcmp(t[i].name, "__metadata__") == 0)
            return sim_errbuf_fail(err, errlen, SIM_EINVAL, "%s: tensor %d has no usable name",
                                   path, i);
        if (sim_stfile_dtype_name(t[i].dtype) == NULL)
            return sim_errbuf_fail(err, errlen, SIM_EINVAL,
                                   "%s: tensor '%s': dtype %d cannot be stored", path, t[i].name,
                                   (int)t[i].dtype);
        if (t[i].ndim < 0 || t[i].ndim > SIM_MAX_DIMS)
            return sim_errbuf_fail(err, errlen, SIM_EINVAL, "%s: tensor '%s': %d dimensions", path,
                                   t[i].name, t[i].ndim);
        for (int d = 0; d < t[i].ndim; d++)
            if (t[i].shape[d] < 0)
                return sim_errbuf_fail(err, errlen, SIM_EINVAL,
                                       "%s: tensor '%s': negative dimension", path, t[i].name);
        if (t[i].data == NULL && tensor_bytes(&t[i]) > 0)
            return sim_errbuf_fail(err, errlen, SIM_EINVAL, "%s: tensor '%s' has no data", path,
                                   t[i].name);
        for (int j = 0; j < i; j++)
            if (strcmp(t[i].name, t[j].name) == 0)
                return sim_errbuf_fail(err, errlen, SIM_EINVAL,
                                       "%s: tensor name '%s' appears twice", path, t[i].name);
    }
    for (int i = 0; i < nmeta; i++) {
        if (meta[i].key == NULL || meta[i].value == NULL ||
            strcmp(meta[i].key, SIM_STFILE_CHECKSUM_KEY) == 0)
            return sim_errbuf_fail(err, errlen, SIM_EINVAL, "%s: metadata entry %d is not usable",
                                   path, i);
        for (int j = 0; j < i; j++)
            if (strcmp(meta[i].key, meta[j].key) == 0)
                return sim_errbuf_fail(err, errlen, SIM_EINVAL,
                                       "%s: metadata key '%s' appears twice", path, meta[i].key);
    }
    return SIM_OK;
}

// The header JSON into a heap buffer, padded with spaces to a multiple of 8.
static SimStatus build_header(const SimStTensor *t, int nt, const SimStMeta *meta, int nmeta,
                              char **out, size_t *outlen) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (f == NULL)
        return SIM_ENOMEM;
    SimJsonOut *j = malloc(sizeof *j);
    if (j == NULL) {
        fclose(f);
        free(buf);
        return SIM_ENOMEM;
    }
    sim_json_begin(j, f);
    sim_json_raw(j, "{\"__metadata__\":{");
    for (int i = 0; i < nmeta; i++) {
        sim_json_str(j, meta[i].key);
        sim_json_raw(j, ":");
        sim_json_str(j, meta[i].value);
        sim_json_raw(j, ",");
    }
    sim_json_str(j, SIM_STFILE_CHECKSUM_KEY);
    sim_json_raw(j, ":\"" PLACEHOLDER "\"}");
    uint64_t off = 0;
    for (int i = 0; i < nt; i++) {
        sim_json_raw(j, ",");
        sim_json_str(j, t[i].name);
        sim_json_raw(j, ":{\"dtype\":\"");
        sim_json_raw(j, sim_stfile_dtype_name(t[i].dtype));
        sim_json_raw(j, "\",\"shape\":[");
        for (int d = 0; d < t[i].ndim; d++) {
            if (d > 0)
                sim_json_raw(j, ",");
            sim_json_i64(j, t[i].shape[d]);
        }
        sim_json_raw(j, "],\"data_offsets\":[");
        sim_json_u64(j, off);
        sim_json_raw(j, ",");
        off += tensor_bytes(&t[i]);
        sim_json_u64(j, off);
        sim_json_raw(j, "]}");
    }
    sim_json_raw(j, "}");
    sim_json_flush(j);
    free(j);
    // Data should start 8-byte aligned, as the reference writer keeps it.
    fflush(f);
    for (size_t pad = (8 - len % 8) % 8; pad > 0; pad--)
        fputc(' ', f);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad || buf == NULL) {
        free(buf);
        return SIM_ENOMEM;
    }
    *out = buf;
    *outlen = len;
    return SIM_OK;
}

static void le64(uint8_t out[8], uint64_t v) {
    for (int i = 0; i < 8; i++)
        out[i] = (uint8_t)(v >> (8 * i));
}

// Replaces the placeholder digits with the SHA-256 of the whole file as it
// stands with the placeholder.
static SimStatus patch_checksum(char *header, size_t hlen, const SimStTensor *t, int nt) {
    char *at = strstr(header, PLACEHOLDER);
    if (at == NULL || strstr(at + 1, PLACEHOLDER) != NULL)
        return SIM_EINVAL;
    uint8_t lenbytes[8], digest[32];
    le64(lenbytes, hlen);
    SimSha256 s;
    sim_sha256_init(&s);
    sim_sha256_update(&s, lenbytes, 8);
    sim_sha256_update(&s, header, hlen);
    for (int i = 0; i < nt; i++)
        sim_sha256_update(&s, t[i].data, tensor_bytes(&t[i]));
    sim_sha256_final(&s, digest);
    static const char hex[] = "0123456789abcdef";
    char *digits = at + strlen("sha256:");
    for (int i = 0; i < 32; i++) {
        digits[2 * i] = hex[digest[i] >> 4];
        digits[2 * i + 1] = hex[digest[i] & 15];
    }
    return SIM_OK;
}

static SimStatus save(const char *path, const SimStTensor *tensors, int ntensors,
                      const SimStMeta *meta, int nmeta, int kill_midway, char *err,
                      size_t errlen) {
    if (path == NULL || path[0] == '\0')
        return sim_errbuf_fail(err, errlen, SIM_EINVAL, "no file name given");
    SimStatus st = check_args(path, tensors, ntensors, meta, nmeta, err, errlen);
    if (st != SIM_OK)
        return st;
    char *header = NULL;
    size_t hlen = 0;
    st = build_header(tensors, ntensors, meta, nmeta, &header, &hlen);
    if (st != SIM_OK)
        return sim_errbuf_fail(err, errlen, st, "%s: out of memory for the header", path);
    if (patch_checksum(header, hlen, tensors, ntensors) != SIM_OK) {
        free(header);
        return sim_errbuf_fail(err, errlen, SIM_EINVAL,
                               "%s: a name or value holds the checksum placeholder", path);
    }
    SimOutFile o;
    st = sim_outfile_open(&o, path);
    if (st != SIM_OK) {
        free(header);
        return sim_errbuf_fail(err, errlen, st, "%s: cannot create the file", path);
    }
    if (kill_midway)
        sim_outfile_kill_midway(&o);
    uint8_t lenbytes[8];
    le64(lenbytes, hlen);
    fwrite(lenbytes, 1, 8, o.f);
    fwrite(header, 1, hlen, o.f);
    // Elements go out in host byte order: ddplab runs on little-endian hosts.
    for (int i = 0; i < ntensors; i++) {
        size_t n = tensor_bytes(&tensors[i]);
        if (n > 0)
            fwrite(tensors[i].data, 1, n, o.f);
    }
    free(header);
    st = sim_outfile_commit(&o); // also reports any earlier write error
    if (st != SIM_OK)
        return sim_errbuf_fail(err, errlen, st,
                               "%s: cannot write the file (disk full or not writable?)", path);
    return SIM_OK;
}

SimStatus sim_stfile_save(const char *path, const SimStTensor *tensors, int ntensors,
                          const SimStMeta *meta, int nmeta, char *err, size_t errlen) {
    return save(path, tensors, ntensors, meta, nmeta, 0, err, errlen);
}

SimStatus sim_stfile_save_killed(const char *path, const SimStTensor *tensors, int ntensors,
                                 const SimStMeta *meta, int nmeta, char *err, size_t errlen) {
    return save(path, tensors, ntensors, meta, nmeta, 1, err, errlen);
}
