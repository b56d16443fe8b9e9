// fuzz/fuzz_npy.c: .npy files (sim/formats/npy.c) and the dataset made of them
// (--data X.npy --labels Y.npy, sim/data/dataset_npy.c). The input is one .npy
// file, used as both features and labels, or two written one after the
// other (the second starts at the second "\x93NUMPY"): features, then
// labels.
#include <string.h>

#include "data/dataset.h" // defines: sim_dataset_load_npy
#include "formats/npy.h"  // defines: sim_npy_read

#include "fuzz_util.h"

static const uint8_t magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

// Where the second file starts: the next magic after offset 0, else size.
static size_t second_start(const uint8_t *data, size_t size) {
    for (size_t i = 1; i + sizeof magic <= size; i++)
        if (memcmp(data + i, magic, sizeof magic) == 0)
            return i;
    return size;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_set_accepted(0);
    size_t cut = second_start(data, size);
    const char *x = fuzz_temp_file(0, data, cut);
    const char *y = cut < size ? fuzz_temp_file(1, data + cut, size - cut) : x;
    if (x == NULL || y == NULL)
        return 0;
    char err[512], sh[256];
    SimNpyArray a;
    int ok = sim_npy_read(x, &a, err, sizeof err) == SIM_OK;
    if (ok)
        sim_npy_shape_str(&a, sh, sizeof sh);
    sim_npy_free(&a);
    SimDataset ds;
    if (sim_dataset_load_npy(&ds, x, y, 0, err, sizeof err) == SIM_OK) {
        sim_dataset_describe(&ds, sh, sizeof sh);
        sim_dataset_free(&ds);
    }
    fuzz_set_accepted(ok);
    return 0;
}
