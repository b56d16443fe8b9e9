// sim/data/dataset.h: the data a run trains on, all in host memory, and the
// loader that copies a list of samples into one contiguous SimBatch.
//
// Three kinds of dataset (legend: N samples, D features, K targets, C
// classes, T context length, V vocabulary):
// - classification: features x [N, D] float32 and labels [N] in 0..C-1;
// - regression:     features x [N, D] and targets [N, K] float32;
// - tokens:         a stream of L token ids for language modelling. Sample i
//                   is the window x = t[i .. i+T), y = t[i+1 .. i+T] (the
//                   next token at every position).
//
// The number of token samples is N = L - T - 1, the formula of the guide's
// TokenStreamDataset (`len(data) - block_size - 1`). It is one less than the
// number of complete windows: window i needs t[i+T], so i may go up to
// L - T - 1 and L - T windows exist. The formula leaves out the last one, so
// the last token of the stream is never a target. ddplab keeps the guide's
// count so that a run and the guide's PyTorch code see the same dataset
// length and hence the same sampler, batches and epochs.
//
// Where datasets come from:
// - .npy files (sim_dataset_load_npy): --data X.npy --labels Y.npy;
// - seeded synthetic sets (sim_dataset_synth): "blobs" (Gaussian clusters,
//   classification), "teacher" (regression targets from a fixed random MLP
//   plus noise), "arith" (character-level sums "12+35=47\n" for MiniGPT),
//   "tokens" (uniformly random token ids, to size a run of any model);
// - any text file (sim_dataset_load_text). Text is tokenised by bytes, not
//   by Unicode characters: every file is valid input, with no decoding
//   errors to handle; a UTF-8 character outside ASCII becomes 2 to 4 tokens.
//   The vocabulary is the set of distinct bytes of the text, sorted (for
//   ASCII text exactly the guide's sorted(set(text)) character vocabulary).
#ifndef DDPLAB_SIM_DATASET_H
#define DDPLAB_SIM_DATASET_H

#include <stddef.h>
#include <stdint.h>

#include "base/batch.h"  // defines: SimBatch
#include "base/status.h" // defines: SimStatus

typedef enum { SIM_DATA_CLASSES = 0, SIM_DATA_TARGETS, SIM_DATA_TOKENS } SimDataKind;

typedef struct {
    SimDataKind kind;
    char name[128];      // "blobs", "arith", or the file name (for messages)
    int64_t n;           // N samples
    // Features (classification and regression).
    int features;        // D
    float *x;            // [N, D]
    int classes;         // C (classification)
    int32_t *labels;     // [N] in 0..C-1 (classification)
    int target_dim;      // K (regression)
    float *targets;      // [N, K] (regression)
    // Tokens.
    int ctx;             // T
    int64_t ntokens;     // L
    int32_t *tokens;     // [L] ids in 0..V-1
    int vocab;           // V
    unsigned char vocab_bytes[256]; // [V] id -> byte, ascending
} SimDataset;

// Releases what the dataset owns and zeroes it; safe on a zeroed dataset.
void sim_dataset_free(SimDataset *ds);
// One line such as "blobs: 2048 samples x 16 features, 4 classes".
const char *sim_dataset_describe(const SimDataset *ds, char *buf, size_t len);

// ----------------------------------------------------------------------------
// loading

// Features from data_path (float32 or float64 [N, D...]; trailing dimensions
// are flattened into D) and labels from labels_path: integer [N] (int64 or
// int32) gives classification with C = classes, or the largest label + 1
// when classes is 0; float [N] or [N, K] gives regression. Rejected with
// SIM_EFORMAT and a message naming the file and the index: a mismatch in
// N, an empty dataset, a negative or out-of-range label, a NaN or infinite
// feature or target. Unreadable files give SIM_EIO. On failure ds holds
// nothing to release.
SimStatus sim_dataset_load_npy(SimDataset *ds, const char *data_path, const char *labels_path,
                               int classes, char *err, size_t errlen);

// A token dataset from a text file, windows of ctx tokens (ctx >= 1). An
// empty file, or one too short for a single window (fewer than ctx + 2
// bytes), is SIM_EFORMAT; an unreadable one SIM_EIO.
SimStatus sim_dataset_load_text(SimDataset *ds, const char *path, int ctx, char *err,
                                size_t errlen);

// A token dataset from len bytes of text in memory, named `name`. The
// vocabulary is alphabet[nalpha] (distinct bytes, any order; every byte of
// the text must be among them) or, when alphabet is NULL, the distinct bytes
// of the text.
SimStatus sim_dataset_from_bytes(SimDataset *ds, const char *name, const unsigned char *text,
                                 size_t len, int ctx, const unsigned char *alphabet,
                                 int nalpha, char *err, size_t errlen);

// Token ids back to bytes: writes at most cap-1 bytes and a NUL into out;
// returns the number of ids decoded. Ids outside the vocabulary become '?'.
size_t sim_dataset_decode(const SimDataset *ds, const int32_t *ids, size_t n, char *out,
                          size_t cap);
// Bytes to token ids (ids[len]); -1 if a byte is not in the vocabulary (its
// position in *bad when bad is not NULL), else 0.
int sim_dataset_encode(const SimDataset *ds, const char *text, size_t len, int32_t *ids,
                       size_t *bad);

// ----------------------------------------------------------------------------
// synthetic datasets

typedef struct {
    char name[16];   // "blobs", "teacher", "arith" or "tokens"
    int64_t n;       // blobs, teacher, tokens: samples; arith: lines of text
    int features;    // D (blobs, teacher)
    int classes;     // C (blobs)
    int target_dim;  // K (teacher)
    int hidden;      // teacher's hidden width
    float noise;     // blobs: cluster standard deviation; teacher: target noise std
    float spread;    // blobs: standard deviation of the cluster centres
    int digits;      // arith: operands have 1..digits digits
    int ctx;         // arith: window length T (ctx=), tokens: T (seq=); 0 = not set
                     // yet (taken from the model)
    int vocab;       // tokens: ids are drawn from 0..vocab-1
    uint64_t seed;
    int seed_given;  // 1 if the spec text set seed= (otherwise the caller may)
} SimSynthSpec;

// Defaults for a set: blobs n=2048 features=16 classes=4 noise=1 spread=3;
// teacher n=2048 features=16 targets=4 hidden=32 noise=0.01; arith lines=4000
// digits=2; tokens n=1024 vocab=256; seed 0, ctx 0. SIM_EINVAL for an
// unknown name.
SimStatus sim_dataset_synth_defaults(const char *name, SimSynthSpec *out);
// Parses "blobs", "blobs:n=1024,features=8,classes=3,seed=7",
// "teacher:n=512,features=8,targets=2,hidden=16,noise=0.05",
// "arith:lines=2000,digits=3,ctx=32", "tokens:n=64,seq=4096,vocab=32000,seed=1"
// (n windows of seq uniformly random ids). Keys that do not belong to the set
// are refused. On failure writes a one-line reason naming the key into err
// and returns SIM_EINVAL.
SimStatus sim_dataset_synth_parse(const char *text, SimSynthSpec *out, char *err,
                                  size_t errlen);
// Generates the set; the same spec (seed included) gives the same bytes.
SimStatus sim_dataset_synth(SimDataset *ds, const SimSynthSpec *spec, char *err,
                            size_t errlen);

// ----------------------------------------------------------------------------
// batches

// Owns the buffers of one batch of up to max_batch samples, sized for ds.
typedef struct {
    const SimDataset *ds;
    int max_batch;
    float *x;          // [max_batch, D]
    float *targets;    // [max_batch, K]
    int32_t *tokens;   // [max_batch, T]
    int32_t *labels;   // [max_batch] (classes) or [max_batch, T] (tokens)
    int64_t *indices;  // [max_batch]
} SimLoader;

// SIM_EINVAL if max_batch < 1, SIM_ENOMEM. On failure ld holds nothing.
SimStatus sim_loader_init(SimLoader *ld, const SimDataset *ds, int max_batch);
// Copies samples idx[0..n) into the loader's buffers and points *out at
// them (valid until the next fill or free). SIM_EINVAL if n is outside
// 1..max_batch or an index is outside 0..N-1.
SimStatus sim_loader_fill(SimLoader *ld, const int64_t *idx, int n, SimBatch *out);
void sim_loader_free(SimLoader *ld);

#endif
