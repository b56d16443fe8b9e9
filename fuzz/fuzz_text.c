// fuzz/fuzz_text.c: a text file as `ddplab run --text FILE` reads it
// (sim_dataset_load_text: bytes as tokens, the vocabulary the distinct bytes
// sorted). The first input byte picks the context length (1..32), the rest
// is the file. A loaded dataset must hold every byte of the file as a token
// in 0..V-1, its vocabulary ascending and complete, and decode back to the
// file's bytes exactly; the file encodes to the same ids.
#include <stdlib.h>
#include <string.h>

#include "data/dataset.h" // defines: SimDataset, sim_dataset_load_text

#include "fuzz_util.h"

static void check(const SimDataset *ds, const uint8_t *text, size_t len) {
    int present[256] = {0};
    for (size_t i = 0; i < len; i++)
        present[text[i]] = 1;
    int v = 0;
    for (int b = 0; b < 256; b++)
        v += present[b];
    if (ds->vocab != v || ds->ntokens != (int64_t)len) {
        fprintf(stderr, "fuzz_text: vocab %d (want %d), %lld tokens (want %zu)\n", ds->vocab, v,
                (long long)ds->ntokens, len);
        abort();
    }
    for (int i = 1; i < ds->vocab; i++)
        if (ds->vocab_bytes[i - 1] >= ds->vocab_bytes[i]) {
            fprintf(stderr, "fuzz_text: vocabulary not ascending at %d\n", i);
            abort();
        }
    char *back = malloc(len + 1);
    int32_t *ids = malloc((len ? len : 1) * sizeof *ids);
    if (back && ids) {
        if (sim_dataset_decode(ds, ds->tokens, len, back, len + 1) != len ||
            memcmp(back, text, len) != 0 ||
            sim_dataset_encode(ds, (const char *)text, len, ids, NULL) != 0 ||
            memcmp(ids, ds->tokens, len * sizeof *ids) != 0) {
            fprintf(stderr, "fuzz_text: tokens do not round-trip the text\n");
            abort();
        }
        for (size_t i = 0; i < len; i++)
            if (ds->tokens[i] < 0 || ds->tokens[i] >= ds->vocab) {
                fprintf(stderr, "fuzz_text: token %zu = %d outside 0..%d\n", i, ds->tokens[i],
                        ds->vocab - 1);
                abort();
            }
    }
    free(back);
    free(ids);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_set_accepted(0);
    if (size == 0)
        return 0;
    int ctx = 1 + data[0] % 32;
    const char *path = fuzz_temp_file(0, data + 1, size - 1);
    if (path == NULL)
        return 0;
    SimDataset ds;
    char err[512];
    int ok = sim_dataset_load_text(&ds, path, ctx, err, sizeof err) == SIM_OK;
    fuzz_set_accepted(ok);
    if (ok) {
        check(&ds, data + 1, size - 1);
        sim_dataset_free(&ds);
    }
    return 0;
}
