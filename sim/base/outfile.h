// sim/base/outfile.h: output files written atomically, and the JSON primitives the
// streaming writers (trace export, profile files) share.
//
// A file is written to a temporary name in the same directory, flushed and
// fsync'ed, then renamed over the destination: a reader sees the old file or
// the complete new one, never a prefix. On any failure the temporary is
// removed and nothing is left behind. A destination that exists and is not
// a regular file (/dev/stdout, a pipe, a terminal) is written in place
// instead: renaming over it would replace the device with a file.
//
// While a SimOutFile is open, the calling thread formats numbers in the "C"
// locale, so a program that switched LC_NUMERIC (e.g. for a UI) still writes
// "1.5" and never "1,5".
#ifndef DDPLAB_SIM_OUTFILE_H
#define DDPLAB_SIM_OUTFILE_H

#include <locale.h>
#include <stdint.h>
#include <stdio.h>

#include "base/status.h" // defines: SimStatus

typedef struct {
    FILE *f;            // the temporary file; write with stdio
    char *tmp;          // its path (heap); NULL when writing in place
    char *path;         // the destination (heap)
    locale_t c_locale;  // "C" numeric locale used while open ((locale_t)0 if none)
    locale_t saved;     // the thread's locale before open
    int kill_midway;    // set by sim_outfile_kill_midway
} SimOutFile;

// Creates the temporary file next to path. SIM_EIO if it cannot be created,
// SIM_ENOMEM if memory runs out; on failure o holds nothing to release.
SimStatus sim_outfile_open(SimOutFile *o, const char *path);
// Flushes, fsyncs, closes and renames into place. On any failure (including
// an earlier write error on o->f) removes the temporary and returns SIM_EIO.
// Always releases o.
SimStatus sim_outfile_commit(SimOutFile *o);
// Closes and removes the temporary; the destination is untouched.
void sim_outfile_abort(SimOutFile *o);
// Arms the save-crash fault (sim/engine/fault.h) for this file: its commit keeps
// the first half of what was written in the temporary, fsyncs it, and kills
// the whole process with SIGKILL before the rename, as a kill -9 in the
// middle of the write would. The destination keeps its previous contents;
// the half-written temporary (PATH.tmp.XXXXXX, six random characters) stays
// beside it, as after any kill -9 during a write. Nothing reads such names:
// a later write to PATH picks a fresh temporary and renames over PATH as
// usual, and stale temporaries are left for the user to delete.
void sim_outfile_kill_midway(SimOutFile *o);

// A buffered JSON writer: fragments are appended to buf and written to f in
// large blocks, so a trace of millions of events costs few stdio calls.
typedef struct {
    FILE *f;
    size_t n;        // bytes pending in buf
    char buf[8192];
} SimJsonOut;

void sim_json_begin(SimJsonOut *o, FILE *f);
// Writes what is pending to the file (errors surface at sim_outfile_commit).
void sim_json_flush(SimJsonOut *o);
// Raw text, copied as is (keys, punctuation).
void sim_json_raw(SimJsonOut *o, const char *s);
// An object's key and its colon, after a comma unless first: ", \"k\": ".
// k is copied as is, so it must be a plain identifier.
void sim_json_key(SimJsonOut *o, const char *k, int first);
// s as a JSON string literal with its quotes: ", \ and control characters
// are escaped, invalid UTF-8 bytes become U+FFFD. NULL -> null.
void sim_json_str(SimJsonOut *o, const char *s);
// v with the fewest digits that read back to the same double; NaN and the
// infinities (which JSON cannot hold) are written as null.
void sim_json_num(SimJsonOut *o, double v);
void sim_json_i64(SimJsonOut *o, int64_t v);
void sim_json_u64(SimJsonOut *o, uint64_t v);
// v / 1000 in plain decimal with at most three decimals ("1.5", "-0.002"):
// exact and fast for times kept in whole nanoseconds and shown in us.
void sim_json_milli(SimJsonOut *o, int64_t v);

#endif
