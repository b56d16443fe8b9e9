// sim/data/dataset_text.c: token datasets for language modelling, from a text
// file (--text FILE) or from text generated in memory (the arith task).
//
// Tokens are bytes (see dataset.h for why): the vocabulary is a sorted set
// of byte values, token id v stands for vocab_bytes[v], and the stream of
// L ids yields N = L - T - 1 windows of T + 1 tokens.
#include "data/dataset.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/errbuf.h" // defines: sim_errbuf_fail

SimStatus sim_dataset_from_bytes(SimDataset *ds, const char *name, const unsigned char *text,
                                 size_t len, int ctx, const unsigned char *alphabet,
                                 int nalpha, char *err, size_t errlen) {
    if (ds == NULL || name == NULL || (text == NULL && len > 0))
        return sim_errbuf_fail(err, errlen, SIM_EINVAL, "dataset: no text");
    memset(ds, 0, sizeof *ds);
    if (ctx < 1)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL, "%s: context length %d must be at least 1",
                               name, ctx);
    if (len == 0)
        return sim_errbuf_fail(err, errlen, SIM_EFORMAT, "%s: empty text: no tokens to train on",
                               name);
    if ((unsigned long long)len < (unsigned long long)ctx + 2)
        return sim_errbuf_fail(
            err, errlen, SIM_EFORMAT,
            "%s: %zu bytes of text are too short for one window of %d + 1 tokens "
            "(need at least %lld bytes)",
            name, len, ctx, (long long)ctx + 2);
    if (len > (size_t)INT64_MAX || len > SIZE_MAX / sizeof(int32_t))
        return sim_errbuf_fail(err, errlen, SIM_EFORMAT, "%s: text too large", name);
    unsigned char used[256] = {0};
    if (alphabet != NULL) {
        if (nalpha < 1 || nalpha > 256)
            return sim_errbuf_fail(err, errlen, SIM_EINVAL, "%s: alphabet of %d bytes", name,
                                   nalpha);
        for (int k = 0; k < nalpha; k++) {
            if (used[alphabet[k]])
                return sim_errbuf_fail(err, errlen, SIM_EINVAL,
                                       "%s: byte 0x%02x twice in the alphabet", name, alphabet[k]);
            used[alphabet[k]] = 1;
        }
        for (size_t k = 0; k < len; k++)
            if (!used[text[k]])
                return sim_errbuf_fail(err, errlen, SIM_EFORMAT,
                                       "%s: byte 0x%02x at offset %zu is not in the vocabulary",
                                       name, text[k], k);
    } else {
        for (size_t k = 0; k < len; k++)
            used[text[k]] = 1;
    }
    int32_t id_of[256];
    for (int b = 0; b < 256; b++)
        if (used[b]) {
            id_of[b] = ds->vocab;
            ds->vocab_bytes[ds->vocab++] = (unsigned char)b;
        }
    ds->tokens = malloc(len * sizeof(int32_t));
    if (ds->tokens == NULL) {
        memset(ds, 0, sizeof *ds);
        return sim_errbuf_fail(err, errlen, SIM_ENOMEM, "%s: out of memory for %zu tokens", name,
                               len);
    }
    for (size_t k = 0; k < len; k++)
        ds->tokens[k] = id_of[text[k]];
    ds->kind = SIM_DATA_TOKENS;
    snprintf(ds->name, sizeof ds->name, "%s", name);
    ds->ctx = ctx;
    ds->ntokens = (int64_t)len;
    ds->n = (int64_t)len - ctx - 1; // the guide's TokenStreamDataset length
    return SIM_OK;
}

// Reads the whole file into a heap buffer (*len bytes).
static SimStatus slurp(const char *path, unsigned char **buf, size_t *len, char *err,
                       size_t errlen) {
    *buf = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return sim_errbuf_fail(err, errlen, SIM_EIO, "%s: cannot open: %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
        fclose(f);
        return sim_errbuf_fail(err, errlen, SIM_EIO, "%s: cannot read: it is a directory", path);
    }
    size_t cap = 1 << 16, n = 0;
    unsigned char *b = malloc(cap);
    SimStatus st = SIM_OK;
    while (b != NULL) {
        n += fread(b + n, 1, cap - n, f);
        if (n < cap)
            break;
        unsigned char *nb = cap <= SIZE_MAX / 2 ? realloc(b, cap * 2) : NULL;
        if (nb == NULL) {
            free(b);
            b = NULL;
            break;
        }
        b = nb;
        cap *= 2;
    }
    if (b == NULL)
        st = sim_errbuf_fail(err, errlen, SIM_ENOMEM, "%s: out of memory reading the file", path);
    else if (ferror(f))
        st = sim_errbuf_fail(err, errlen, SIM_EIO, "%s: read error: %s", path, strerror(errno));
    fclose(f);
    if (st != SIM_OK) {
        free(b);
        return st;
    }
    *buf = b;
    *len = n;
    return SIM_OK;
}

SimStatus sim_dataset_load_text(SimDataset *ds, const char *path, int ctx, char *err,
                                size_t errlen) {
    if (ds == NULL || path == NULL)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL, "dataset: no text file");
    memset(ds, 0, sizeof *ds);
    unsigned char *text;
    size_t len;
    SIM_CHECK(slurp(path, &text, &len, err, errlen));
    SimStatus st = sim_dataset_from_bytes(ds, path, text, len, ctx, NULL, 0, err, errlen);
    free(text);
    if (st == SIM_OK) {
        const char *slash = strrchr(path, '/');
        snprintf(ds->name, sizeof ds->name, "%s", slash ? slash + 1 : path);
    }
    return st;
}
