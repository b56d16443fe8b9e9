// sim/formats/safetensors_read.c: reading and validating a safetensors file (see
// safetensors.h). The whole file is read into memory; the header is parsed
// with cJSON; every tensor entry, the packing of the data section and the
// checksum are checked before the caller sees anything.
//
// Truncation is told apart from corruption, because the remedy differs (an
// interrupted copy versus a damaged or foreign file): a file too short for
// its own header, or for the data its header describes, is "truncated".
#include "formats/safetensors.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errbuf.h" // defines: sim_errbuf_fail
#include "base/sha256.h" // defines: SimSha256

// The reference implementation refuses headers above 100 MB as well.
#define MAX_HEADER ((uint64_t)100 << 20)

static SimStatus read_all(const char *path, uint8_t **out, size_t *len, char *err, size_t errlen) {
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return sim_errbuf_fail(err, errlen, SIM_EIO, "%s: cannot open: %s", path, strerror(errno));
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    while (buf != NULL) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        uint8_t *bigger = realloc(buf, cap * 2);
        if (bigger == NULL) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = bigger;
        cap *= 2;
    }
    int bad = ferror(f);
    fclose(f);
    if (buf == NULL)
        return sim_errbuf_fail(err, errlen, SIM_ENOMEM, "%s: out of memory reading the file", path);
    if (bad) {
        free(buf);
        return sim_errbuf_fail(err, errlen, SIM_EIO, "%s: read error (is it a directory?)", path);
    }
    *out = buf;
    *len = n;
    return SIM_OK;
}

// A JSON number that is a whole number in [0, 2^53].
static int json_count(const cJSON *j, uint64_t *out) {
    if (!cJSON_IsNumber(j))
        return -1;
    double v = j->valuedouble;
    if (!(v >= 0 && v <= 9007199254740992.0) || floor(v) != v)
        return -1;
    *out = (uint64_t)v;
    return 0;
}

typedef struct {
    uint64_t begin, end;
    int index;
} Span;

static int span_cmp(const void *a, const void *b) {
    const Span *x = a, *y = b;
    if (x->begin != y->begin)
        return x->begin < y->begin ? -1 : 1;
    return x->end < y->end ? -1 : x->end > y->end;
}

// Fills t from one header entry; writes the reason into why on failure.
static int parse_entry(const cJSON *e, SimStTensor *t, Span *sp, char *why, size_t wlen) {
    if (!cJSON_IsObject(e))
        return snprintf(why, wlen, "is not an object"), -1;
    const cJSON *dt = cJSON_GetObjectItemCaseSensitive(e, "dtype");
    const cJSON *shape = cJSON_GetObjectItemCaseSensitive(e, "shape");
    const cJSON *offs = cJSON_GetObjectItemCaseSensitive(e, "data_offsets");
    if (!cJSON_IsString(dt) || !cJSON_IsArray(shape) || !cJSON_IsArray(offs))
        return snprintf(why, wlen, "lacks dtype, shape or data_offsets"), -1;
    if (sim_stfile_dtype_parse(dt->valuestring, &t->dtype) != 0)
        return snprintf(why, wlen, "has dtype '%.16s'; ddplab reads F32, F16, BF16, I32, I64",
                        dt->valuestring), -1;
    int nd = cJSON_GetArraySize(shape);
    if (nd > SIM_MAX_DIMS)
        return snprintf(why, wlen, "has %d dimensions; at most %d are supported", nd,
                        SIM_MAX_DIMS), -1;
    t->ndim = nd;
    uint64_t numel = 1;
    for (int d = 0; d < nd; d++) {
        uint64_t v;
        if (json_count(cJSON_GetArrayItem(shape, d), &v) != 0 || v > ((uint64_t)1 << 40))
            return snprintf(why, wlen, "has a bad shape"), -1;
        t->shape[d] = (int64_t)v;
        // checked before multiplying: [2^40, 2^24] must not wrap to 0 elements
        if (v != 0 && numel > ((uint64_t)1 << 40) / v)
            return snprintf(why, wlen, "has an absurd shape (over 2^40 elements)"), -1;
        numel *= v;
    }
    if (cJSON_GetArraySize(offs) != 2 || json_count(cJSON_GetArrayItem(offs, 0), &sp->begin) ||
        json_count(cJSON_GetArrayItem(offs, 1), &sp->end) || sp->end < sp->begin)
        return snprintf(why, wlen, "has bad data_offsets"), -1;
    uint64_t want = numel * sim_dtype_size(t->dtype);
    if (sp->end - sp->begin != want)
        return snprintf(why, wlen, "spans %llu bytes but its shape and dtype need %llu",
                        (unsigned long long)(sp->end - sp->begin), (unsigned long long)want), -1;
    return 0;
}

static SimStatus parse_meta(SimStFile *f, const cJSON *m, const char *path, char *err,
                            size_t errlen) {
    if (!cJSON_IsObject(m))
        return sim_errbuf_fail(err, errlen, SIM_EFORMAT,
                               "%s: corrupt header: __metadata__ is not an object", path);
    int n = cJSON_GetArraySize(m);
    f->meta = calloc((size_t)n + 1, sizeof *f->meta);
    if (f->meta == NULL)
        return sim_errbuf_fail(err, errlen, SIM_ENOMEM, "%s: out of memory", path);
    for (const cJSON *kv = m->child; kv; kv = kv->next) {
        if (!cJSON_IsString(kv))
            return sim_errbuf_fail(err, errlen, SIM_EFORMAT,
                                   "%s: corrupt header: metadata '%.60s' is not a string", path,
                                   kv->string);
        SimStMeta *e = &f->meta[f->nmeta++];
        e->key = strdup(kv->string);
        e->value = strdup(kv->valuestring);
        if (e->key == NULL || e->value == NULL)
            return sim_errbuf_fail(err, errlen, SIM_ENOMEM, "%s: out of memory", path);
    }
    return SIM_OK;
}

// Tensors must tile [0, datalen) exactly, as the reference reader demands.
static SimStatus check_packing(SimStFile *f, Span *sp, size_t datalen, const char *path, char *err,
                               size_t errlen) {
    qsort(sp, (size_t)f->ntensors, sizeof *sp, span_cmp);
    uint64_t at = 0;
    for (int i = 0; i < f->ntensors; i++) {
        if (sp[i].begin != at)
            return sim_errbuf_fail(
                err, errlen, SIM_EFORMAT,
                "%s: corrupt header: tensor '%.80s' starts at byte %llu of the data, "
                "expected %llu (tensors overlap or leave a hole)",
                path, f->tensors[sp[i].index].name, (unsigned long long)sp[i].begin,
                (unsigned long long)at);
        at = sp[i].end;
    }
    if (at > datalen)
        return sim_errbuf_fail(
            err, errlen, SIM_EFORMAT,
            "%s: truncated: the header describes %llu bytes of tensor data, the file "
            "holds %zu",
            path, (unsigned long long)at, datalen);
    if (at < datalen)
        return sim_errbuf_fail(err, errlen, SIM_EFORMAT,
                               "%s: corrupt: %zu bytes follow the last tensor's data", path,
                               datalen - (size_t)at);
    return SIM_OK;
}

static SimStatus parse_tensors(SimStFile *f, const cJSON *root, const uint8_t *data,
                               size_t datalen, const char *path, char *err, size_t errlen) {
    int n = cJSON_GetArraySize(root);
    f->tensors = calloc((size_t)n + 1, sizeof *f->tensors);
    Span *sp = calloc((size_t)n + 1, sizeof *sp);
    if (f->tensors == NULL || sp == NULL) {
        free(sp);
        return sim_errbuf_fail(err, errlen, SIM_ENOMEM, "%s: out of memory", path);
    }
    SimStatus st = SIM_OK;
    for (const cJSON *e = root->child; e && st == SIM_OK; e = e->next) {
        if (strcmp(e->string, "__metadata__") == 0) {
            st = f->meta ? sim_errbuf_fail(err, errlen, SIM_EFORMAT,
                                           "%s: corrupt header: two "
                                           "__metadata__ entries",
                                           path)
                         : parse_meta(f, e, path, err, errlen);
            continue;
        }
        if (sim_stfile_find(f, e->string) != NULL) {
            st = sim_errbuf_fail(err, errlen, SIM_EFORMAT,
                                 "%s: corrupt header: tensor '%.80s' appears "
                                 "twice",
                                 path, e->string);
            break;
        }
        SimStTensor *t = &f->tensors[f->ntensors];
        char why[160];
        if (parse_entry(e, t, &sp[f->ntensors], why, sizeof why) != 0) {
            st = sim_errbuf_fail(err, errlen, SIM_EFORMAT, "%s: corrupt header: tensor '%.80s' %s",
                                 path, e->string, why);
            break;
        }
        t->name = strdup(e->string);
        if (t->name == NULL) {
            st = sim_errbuf_fail(err, errlen, SIM_ENOMEM, "%s: out of memory", path);
            break;
        }
        sp[f->ntensors].index = f->ntensors;
        f->ntensors++;
    }
    if (st == SIM_OK)
        st = check_packing(f, sp, datalen, path, err, errlen);
    if (st == SIM_OK)
        for (int i = 0; i < f->ntensors; i++)
            f->tensors[sp[i].index].data = data + sp[i].begin;
    free(sp);
    return st;
}

// Verifies "sha256:<hex>": the hash of the file with the digits zeroed.
static SimStatus check_sum(SimStFile *f, char *header, size_t hlen, const char *path, char *err,
                           size_t errlen) {
    const char *sum = sim_stfile_meta(f, SIM_STFILE_CHECKSUM_KEY);
    if (sum == NULL)
        return SIM_OK;
    size_t ok = strncmp(sum, "sha256:", 7) == 0 ? strspn(sum + 7, "0123456789abcdef") : 0;
    if (ok != 64 || sum[71] != '\0')
        return sim_errbuf_fail(err, errlen, SIM_EFORMAT,
                               "%s: corrupt header: checksum '%.80s' is not "
                               "sha256: and 64 hex digits",
                               path, sum);
    char *at = NULL;
    for (size_t i = 0; i + 71 <= hlen; i++) {
        if (memcmp(header + i, sum, 71) == 0) {
            if (at != NULL)
                return sim_errbuf_fail(err, errlen, SIM_EFORMAT,
                                       "%s: corrupt header: the checksum value "
                                       "appears twice",
                                       path);
            at = header + i;
        }
    }
    if (at == NULL)
        return sim_errbuf_fail(err, errlen, SIM_EFORMAT,
                               "%s: corrupt header: the checksum is not "
                               "written plainly",
                               path);
    char saved[64], hex[65];
    memcpy(saved, at + 7, 64);
    memset(at + 7, '0', 64);
    sim_sha256_hex(f->bytes, f->len, hex);
    memcpy(at + 7, saved, 64);
    if (memcmp(hex, sum + 7, 64) != 0)
        return sim_errbuf_fail(
            err, errlen, SIM_EFORMAT,
            "%s: checksum mismatch: the file says sha256:%.12s..., its content hashes "
            "to sha256:%.12s...: the file is damaged",
            path, sum + 7, hex);
    f->checked = 1;
    return SIM_OK;
}

static SimStatus parse_file(SimStFile *f, const char *path, char *err, size_t errlen) {
    if (f->len < 8)
        return sim_errbuf_fail(err, errlen, SIM_EFORMAT,
                               "%s: truncated: %zu bytes, shorter than the "
                               "8-byte header length of a safetensors file",
                               path, f->len);
    uint64_t hlen = 0;
    for (int i = 0; i < 8; i++)
        hlen |= (uint64_t)f->bytes[i] << (8 * i);
    if (hlen > MAX_HEADER)
        return sim_errbuf_fail(err, errlen, SIM_EFORMAT,
                               "%s: corrupt header: a header length of %llu "
                               "bytes (not a safetensors file?)",
                               path, (unsigned long long)hlen);
    if (hlen > f->len - 8)
        return sim_errbuf_fail(err, errlen, SIM_EFORMAT,
                               "%s: truncated: the header needs %llu bytes, "
                               "only %zu follow the length",
                               path, (unsigned long long)hlen, f->len - 8);
    char *header = (char *)f->bytes + 8;
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(header, (size_t)hlen, &end, 0);
    if (root == NULL || !cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return sim_errbuf_fail(err, errlen, SIM_EFORMAT,
                               "%s: corrupt header: not a JSON object "
                               "(not a safetensors file?)",
                               path);
    }
    for (; end && end < header + hlen; end++) {
        if (*end != ' ' && *end != '\n' && *end != '\t' && *end != '\r') {
            cJSON_Delete(root);
            return sim_errbuf_fail(err, errlen, SIM_EFORMAT,
                                   "%s: corrupt header: text after the JSON "
                                   "object",
                                   path);
        }
    }
    SimStatus st = parse_tensors(f, root, f->bytes + 8 + hlen, f->len - 8 - (size_t)hlen, path,
                                 err, errlen);
    cJSON_Delete(root);
    if (st == SIM_OK)
        st = check_sum(f, header, (size_t)hlen, path, err, errlen);
    return st;
}

SimStatus sim_stfile_load(SimStFile *f, const char *path, char *err, size_t errlen) {
    memset(f, 0, sizeof *f);
    SimStatus st = read_all(path, &f->bytes, &f->len, err, errlen);
    if (st == SIM_OK)
        st = parse_file(f, path, err, errlen);
    if (st != SIM_OK)
        sim_stfile_free(f);
    return st;
}

const SimStTensor *sim_stfile_find(const SimStFile *f, const char *name) {
    for (int i = 0; i < f->ntensors; i++)
        if (strcmp(f->tensors[i].name, name) == 0)
            return &f->tensors[i];
    return NULL;
}

const char *sim_stfile_meta(const SimStFile *f, const char *key) {
    for (int i = 0; i < f->nmeta; i++)
        if (strcmp(f->meta[i].key, key) == 0)
            return f->meta[i].value;
    return NULL;
}

void sim_stfile_free(SimStFile *f) {
    for (int i = 0; i < f->ntensors; i++)
        free((char *)f->tensors[i].name);
    for (int i = 0; i < f->nmeta; i++) {
        free((char *)f->meta[i].key);
        free((char *)f->meta[i].value);
    }
    free(f->tensors);
    free(f->meta);
    free(f->bytes);
    memset(f, 0, sizeof *f);
}
