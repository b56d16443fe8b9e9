// cli/learn/lesson_internal.h: the pieces the lesson parser's files share (not
// for other modules; the API is lesson.h): a growable string, one-line
// error messages "PATH:LINE: problem", line lookup by offset, the header
// and block-body parsers, and the checks of ids, numbers and positions.
#ifndef DDPLAB_CLI_LESSON_INTERNAL_H
#define DDPLAB_CLI_LESSON_INTERNAL_H

#include <stddef.h>

#include "learn/lesson.h"

// The largest lesson or index file read (a lesson is a short text).
#define LESSON_MAX_BYTES ((size_t)16 << 20)

// ---------------------------------------------------------------------------
// A growable string: s[n] plus a NUL; oom is set once an allocation failed
// (later additions are then dropped, so callers check once at the end).
typedef struct {
    char *s;
    size_t n, cap;
    int oom;
} LessonBuf;

void lesson_buf_add(LessonBuf *b, const char *s, size_t n);
void lesson_buf_adds(LessonBuf *b, const char *s);
void lesson_buf_addc(LessonBuf *b, char c);
// Drops trailing blanks and newlines.
void lesson_buf_rtrim(LessonBuf *b);
// The string (never NULL unless memory ran out) handed to the caller; b is
// emptied and may be reused.
char *lesson_buf_take(LessonBuf *b);
void lesson_buf_free(LessonBuf *b);

// ---------------------------------------------------------------------------
// err[errlen] = "PATH:LINE: " + the formatted problem, on one line ("PATH: "
// when line <= 0). Returns -1, so that `return lesson_fail(...)` reads well.
int lesson_fail(char *err, size_t errlen, const char *path, int line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
// The value as a message shows it: at most 60 printable characters
// ('?' for others), "..." when longer; buf needs 80 bytes.
const char *lesson_shown(const char *s, size_t n, char *buf);

// Copies s[n] into a fresh NUL-terminated string (NULL when out of memory).
char *lesson_strndup(const char *s, size_t n);
// The blanks (space, tab, CR) at both ends of s[*n] trimmed: returns the new
// start, *n the new length.
const char *lesson_trim(const char *s, size_t *n);
// A blank within a line: space, tab or carriage return.
int lesson_blank(char c);
// The line at *off in text[len]: its start and length without the line
// end in *s, *n; *off moves past it. 0 when there is no more text.
int lesson_next_line(const char *text, size_t len, size_t *off, const char **s, size_t *n);
// The array arr of elem-byte elements (capacity *cap), grown when needed to
// hold n + 1: the array to use from now on, or NULL (out of memory; arr is
// then untouched).
void *lesson_grow(void *arr, int *cap, int n, size_t elem);

// A copy of text[len] followed by LESSON_PAD zero bytes (NULL when out of
// memory). md4c is only handed such copies: md4c 0.4.8 reads the byte just
// past the text it is given (an unclosed link destination at the very end
// runs on while that byte is a ')'), so what follows must be known.
#define LESSON_PAD 16
char *lesson_padded(const char *text, size_t len);
// A question's text (ask, a choice, explain) as the narrative shows its
// markdown: code spans and emphasis without their marks, entities decoded
// (lesson_narrative.c). A heap string; NULL when out of memory. Without
// md4c, a copy.
char *lesson_md_plain(const char *md);

// Reads the whole file into a heap buffer (NUL after the last byte).
// Returns it, or NULL with err = "PATH: cannot read: ..." .
char *lesson_read_file(const char *path, size_t *len, char *err, size_t errlen);

// ---------------------------------------------------------------------------
// Lines of a text: starts[i] is the offset where line i + 1 begins.
typedef struct {
    const char *text;
    size_t len;
    size_t *starts;
    int n;
} LessonLines;

int lesson_lines_init(LessonLines *ln, const char *text, size_t len); // 0 or -1 (memory)
void lesson_lines_free(LessonLines *ln);
// The 1-based line of the byte at p, or 0 when p is not inside the text.
int lesson_line_of(const LessonLines *ln, const char *p);

// ---------------------------------------------------------------------------
// Checks of values.

// An id: 1 to 64 lower-case letters, digits and '-', not starting with '-'.
int lesson_id_ok(const char *s, size_t n);
// A decimal number: [+-]digits[.digits][e[+-]digits], finite; *v gets it.
int lesson_number_ok(const char *s, double *v);
// A position as `ddplab replay --at` takes it: N, iN, KIND or KIND:K with
// the kinds of viz_jump_parse (the form cli/core/viz_cli.c checks for --at).
int lesson_pos_ok(const char *s);
// A number question's fact name (lessons/FORMAT.md, "Facts of a run"). 0
// when well formed, with *trace = 1 when the fact needs a trace (all but
// exit and out:REGEX); otherwise -1 with *why saying what is wrong.
int lesson_fact_ok(const char *s, int *trace, const char **why);

// The facts, for messages.
#define LESSON_FACTS                                                                               \
    "exit, iterations, buckets, bucket_params:K, units, collectives:NAME, coll_bytes:NAME, "       \
    "peak_bytes:R, loss, loss:I, sim_us, exposed_us, out:REGEX"

// ---------------------------------------------------------------------------
// The parts of a lesson.

// The header at the start of text[len] into l's id, title, difficulty,
// prerequisites, minutes and track. *body gets the offset just past the
// closing '---' line. 0, or -1 with err set (l may hold some keys: free it).
int lesson_header_parse(const char *path, const char *text, size_t len, Lesson *l, size_t *body,
                        char *err, size_t errlen);

// The body of a ```ddplab block (text[len], its lines numbered from
// first_line) into *r (zeroed by the caller; r->line set). 0 or -1 with err.
int lesson_run_parse(const char *path, const char *text, size_t len, int first_line, LessonRun *r,
                     char *err, size_t errlen);
// The body of a ```question block into *q (zeroed; q->line and q->run set);
// runs[nruns] are the lesson's runs so far (the latest is the one checked).
int lesson_question_parse(const char *path, const char *text, size_t len, int first_line,
                          const LessonRun *runs, int nruns, LessonQuestion *q, char *err,
                          size_t errlen);
void lesson_run_free(LessonRun *r);
void lesson_question_free(LessonQuestion *q);

// Splits a command into words on blanks; '...' and "..." group words (in
// "...", \" and \\ stand for " and \; outside quotes \X stands for X).
// Returns the word count with *argv = [count + 1] NULL-terminated, or -1
// with *why set (an unclosed quote, or memory).
int lesson_split_argv(const char *cmd, char ***argv, const char **why);

// ---------------------------------------------------------------------------
// The narrative: md4c's blocks and text turned into plain text (lesson.h,
// LessonItem.text): blocks separated by a blank line (list items by a
// newline), list items led by "- " (numbered lists: "1. "), nested lists and
// block quotes indented by two blanks, code blocks by four, tables as rows
// of columns padded to their widest cell with a rule under the header row.
#if DDPLAB_HAVE_MD4C
#include <md4c.h>

#define LESSON_NARR_DEPTH 32 // containers that indent; deeper ones do not

typedef struct {
    char kind;     // 'l' a list item, 'q' a block quote
    char mark[16]; // what leads the item's first line ("- ", "3. "; a quote: "  ")
    int done;      // the mark was written: later lines get as many blanks
} LessonNarrBox;

typedef struct {
    LessonBuf out;
    LessonNarrBox box[LESSON_NARR_DEPTH];
    int depth;                        // containers open (the first LESSON_NARR_DEPTH kept)
    LessonNarrBox deep;               // the innermost one when deeper (its mark, no indent)
    unsigned next[LESSON_NARR_DEPTH]; // each open list's next number (0: bullets)
    int lists;                        // lists open
    int pending;                      // a block began: its first output is preceded by a separator
    int heading;                      // ... which is a blank line whatever the lists say
    int bol;                          // at the start of a line: prefixes come first
    int prev_in_list;                 // the latest block was inside a list
    int code;                         // inside a code block
    int html;                         // inside an HTML block (dropped)
    // A table: its cells row by row (ncols a row), drawn when it ends.
    int table, cell;
    unsigned ncols;
    int head_rows, row_start;
    LessonBuf cur;
    char **cells;
    int ncells, cap_cells;
} LessonNarr;

void lesson_narr_block(LessonNarr *t, int enter, MD_BLOCKTYPE type, void *detail);
void lesson_narr_text(LessonNarr *t, MD_TEXTTYPE type, const char *s, size_t n);
// The text written so far into *text (NULL when there is none) and the
// output emptied; the open lists and quotes stay. 0, or -1 (out of memory).
int lesson_narr_take(LessonNarr *t, char **text);
void lesson_narr_free(LessonNarr *t);
#endif

#endif
