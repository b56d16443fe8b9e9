// tests/test_train_ref.h: what the end-to-end training conformance tests
// against PyTorch (test_cli_run_torch.c, test_ddp_torch.c) share: the MLP
// data set they train on, the optimizer options they give both sides, the
// losses of a --metrics file, the start of their main(), and the comparison
// of ddplab's final checkpoint with the parameters the torch script wrote.
#ifndef DDPLAB_TESTS_TRAIN_REF_H
#define DDPLAB_TESTS_TRAIN_REF_H

#include <stddef.h>
#include <stdint.h>

// SGD with momentum: ddplab's options, and the same as key=value lines for
// the torch scripts' case.txt (no final newline).
#define TTRAIN_SGD_OPTS "--lr", "0.1", "--momentum", "0.9"
#define TTRAIN_SGD_CASE "optimizer=sgd\nlr=0.1\nmomentum=0.9\nnesterov=0\nweight_decay=0\n" \
                        "schedule=constant\nwarmup=0\nmin_lr=0\nclip=0"
// AdamW + weight decay + clip_grad_norm_ + warmup-cosine; lr and warmup are
// string literals.
#define TTRAIN_ADAMW_OPTS(lr, warmup)                                                    \
    "--optimizer", "adamw", "--lr", lr, "--weight-decay", "0.1", "--clip-grad-norm", "0.5", \
        "--lr-schedule", "cosine", "--warmup", warmup, "--min-lr", "0.0005"
#define TTRAIN_ADAMW_CASE(lr, warmup)                                                  \
    "optimizer=adamw\nlr=" lr "\nweight_decay=0.1\nbetas=0.9,0.999\neps=1e-8\n"        \
    "schedule=cosine\nwarmup=" warmup "\nmin_lr=0.0005\nclip=0.5"

// Relative tolerances for the final parameters: each tensor within `norm`
// in the 2-norm of the difference, each element within `elem` (|value|
// below `floor` compared at floor's scale).
typedef struct {
    double elem, norm, floor;
} TtrainTol;

// The start of a conformance test's main(): the program from argv (*exe),
// and a fresh scratch directory in dir. -1 to go on; otherwise the exit
// status to return at once (2 usage, 77 skipped without torch, 1 failure).
int ttrain_start(int argc, char **argv, const char **exe, char *dir, size_t len);

// n samples of d features with structure (4 classes from the signs of two
// linear forms), from a generator seeded with seed, as dir/X.npy (fp32,
// n x d) and dir/y.npy (int64, n). 0, or non-zero on failure.
int ttrain_write_mlp_data(const char *dir, int n, int d, uint64_t seed);

// The losses of a --metrics file (fp32 losses, written as doubles), up to
// max lines: `loss` into avg[] (-1 where missing), and when rank0 is not
// NULL rank 0's own (`loss_rank0`, present when it differs) into rank0[].
// Returns the number of lines read.
int ttrain_read_losses(const char *path, float *avg, float *rank0, int max);

// ||a - b|| / ||b|| over n floats (||a - b|| when b is all zero).
double ttrain_norm_rel(const float *a, const float *b, size_t n);

// Every fp32 parameter of the checkpoint at final_path against the
// ref.<name>.f32 the torch script wrote into ref_dir, within tol; the
// largest element and tensor differences are raised into *worst and
// *worst_norm, and with summary set a line reports them and the count.
// 0 when all agree, non-zero otherwise (the offending element on stderr).
int ttrain_compare_params(const char *final_path, const char *ref_dir, const TtrainTol *tol,
                          int summary, double *worst, double *worst_norm);

#endif
