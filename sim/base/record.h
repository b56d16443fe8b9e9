// sim/base/record.h: a flat record of named numbers as one line of text,
// "name=value name=v1,v2,v3 ...", written in a fixed order and read back in
// the same order. Doubles are written with "%.17g", so that they read back
// bit for bit; whole numbers in decimal. A checkpoint keeps each rank's
// place on the simulated timeline this way (sim/train/train_timeline.c), in
// its metadata: readable in the file, and left out of `ddplab compare`'s
// tensors, which two runs on different hardware would make differ.
//
// The reader is strict: a field must come with the name the writer gave
// it, in the writer's order, with a well-formed value (and, for a list,
// the count the reader expects or at most the room it has). The first
// mismatch marks the reader bad; every later read returns 0 and the record
// counts as unreadable (sim_rec_end).
#ifndef DDPLAB_SIM_RECORD_H
#define DDPLAB_SIM_RECORD_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    char *buf;  // NUL-terminated text so far (NULL before the first field)
    size_t len, cap;
    int oom;    // 1: memory ran out; the text is incomplete
} SimRecOut;

void sim_rec_out_init(SimRecOut *o);
void sim_rec_i64(SimRecOut *o, const char *name, int64_t v);
void sim_rec_f64(SimRecOut *o, const char *name, double v);
void sim_rec_i64s(SimRecOut *o, const char *name, const int64_t *v, size_t n);
void sim_rec_f64s(SimRecOut *o, const char *name, const double *v, size_t n);
// The text (heap; the caller frees it), or NULL when memory ran out. o is
// empty afterwards.
char *sim_rec_take(SimRecOut *o);
void sim_rec_out_free(SimRecOut *o);

typedef struct {
    const char *p;  // the next field
    int bad;        // 1: a field did not match; everything after reads 0
} SimRecIn;

void sim_rec_in_init(SimRecIn *in, const char *text);
int64_t sim_rec_get_i64(SimRecIn *in, const char *name);
double sim_rec_get_f64(SimRecIn *in, const char *name);
// A list of exactly n values (n may be 0) into out.
void sim_rec_get_i64s(SimRecIn *in, const char *name, int64_t *out, size_t n);
void sim_rec_get_f64s(SimRecIn *in, const char *name, double *out, size_t n);
// A list of any length up to max into out; returns its length (0 when bad).
size_t sim_rec_get_i64s_upto(SimRecIn *in, const char *name, int64_t *out, size_t max);
// 0 when every field read matched and nothing is left over; -1 otherwise.
int sim_rec_end(const SimRecIn *in);

#endif
