// fuzz/fuzz_shards.c: the index of a sharded FSDP checkpoint (--state-dict
// sharded), as `ddplab run --strategy fsdp --resume INDEX` reads it: its
// safetensors container and metadata (format, world size, sharding, units,
// the shard files it names, the step they must repeat, the optimizer and
// scaler state), the "fsdp/ranges" table that says which file holds which
// elements of each parameter, then the shard files themselves, read into
// the shards of a 2-rank run (sim/strategy/fsdp_shards_load.c).
//
// Once, a real 2-rank sharded save of FUZZ_RUN writes the two shard files
// and their index into a private directory; each input then replaces that
// index and the run resumes from it. The index's "checksum" is sealed
// first (recomputed over the input as the writer computes it), or nearly
// every mutation would stop at the hash, which fuzz_ckpt covers. Accepted
// (fuzz_util.h): the run resumes and trains its step.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/sha256.h" // defines: sim_sha256_hex
#include "core/cli.h"    // defines: CLI_EXIT_*
#include "run/run.h"     // defines: run_main

#include "fuzz_util.h"

#define FUZZ_RUN "--strategy", "fsdp", "-n", "2", "--model", "mlp:4,8,4", "--data", \
                 "blobs:features=4,n=64", "--batch", "8", "--log-every", "0"

static char dir[512];    // the private directory, "" until made
static char index_path[600];
static int ready;        // 1: the shard files exist; -1: making them failed

static void cleanup(void) {
    for (int k = 0; k < 2; k++) {
        char p[700];
        snprintf(p, sizeof p, "%s.step2.shard%d-of-2.safetensors", index_path, k);
        unlink(p);
    }
    unlink(index_path);
    rmdir(dir);
}

static int setup(void) {
    if (ready != 0)
        return ready > 0;
    ready = -1;
    const char *tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(dir, sizeof dir, "%s/ddplab-fuzz-shards-XXXXXX", tmp);
    if (mkdtemp(dir) == NULL) {
        perror("fuzz_shards: mkdtemp");
        return 0;
    }
    snprintf(index_path, sizeof index_path, "%s/ck.st", dir);
    atexit(cleanup);
    char *argv[] = {"run", FUZZ_RUN, "--steps", "2", "--save", index_path,
                    "--state-dict", "sharded", NULL};
    if (run_main((int)(sizeof argv / sizeof argv[0]) - 1, argv) != 0) {
        fprintf(stderr, "fuzz_shards: the sharded save failed\n");
        return 0;
    }
    ready = 1;
    return 1;
}

// Rewrites the one "sha256:" followed by 64 hex digits in buf, if there is
// exactly one, to the hash of buf with those digits zeroed (what
// sim/formats/safetensors_read.c checks).
static void seal(uint8_t *buf, size_t n) {
    uint8_t *at = NULL;
    for (size_t i = 0; i + 71 <= n; i++) {
        if (memcmp(buf + i, "sha256:", 7) != 0 ||
            strspn((const char *)buf + i + 7, "0123456789abcdef") < 64)
            continue;
        if (at != NULL)
            return; // twice: the reader refuses it anyway
        at = buf + i;
    }
    if (at == NULL)
        return;
    char hex[65];
    memset(at + 7, '0', 64);
    sim_sha256_hex(buf, n, hex);
    memcpy(at + 7, hex, 64);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!setup())
        return 0;
    // NUL-terminated, so that strspn stops at the end of the input
    uint8_t *buf = (uint8_t *)fuzz_strndup(data, size);
    if (buf == NULL)
        return 0;
    seal(buf, size);
    FILE *f = fopen(index_path, "wb");
    int written = f != NULL && fwrite(buf, 1, size, f) == size;
    if (f != NULL && fclose(f) != 0)
        written = 0;
    free(buf);
    if (!written) {
        perror("fuzz_shards: the index");
        return 0;
    }
    char *argv[] = {"run", FUZZ_RUN, "--steps", "3", "--resume", index_path, NULL};
    fuzz_set_accepted(run_main((int)(sizeof argv / sizeof argv[0]) - 1, argv) == 0);
    return 0;
}
