// cli/core/optable.h: a command's options as a table of rows, one row per
// option (its names, the kind of value it takes, the range or words it
// allows, its default and help), and what is made from such a table: the
// parser of the command line, its --help, its part of the man page and of
// the bash completion (docs/options.md tells how to add an option).
//
// A command (run, plan, bench) keeps its own table and its own checks of the
// options together; the parser here only walks argv, turns each value into
// what its kind says (a number, a word's index, a size) and hands it to the
// row: stored into a field of the command's options, passed to the row's
// apply callback, or both. Every message has one wording, whichever the
// command:
//   ddplab CMD: --OPT: 'VALUE' WHAT; allowed: ALLOWED
//   ddplab CMD: 'ARG' is not an option; allowed: see 'ddplab CMD --help'
//   ddplab CMD: --OPT: missing value; allowed: METAVAR (see 'ddplab CMD --help')
//   ddplab CMD: --OPT: takes no value (got 'VALUE'); allowed: --OPT alone
#ifndef DDPLAB_CLI_OPTABLE_H
#define DDPLAB_CLI_OPTABLE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

// What an option's value is. The kind decides how the parser checks and
// converts the text, how help and the man page show it, and what the
// completion offers for it.
typedef enum {
    CLI_OPT_FLAG,   // no value (--phantom)
    CLI_OPT_INT,    // a whole number from lo to hi
    CLI_OPT_REAL,   // a finite number; the row's apply checks its range
    CLI_OPT_SIZE,   // bytes: digits with an optional K, M or G (KiB, MiB, GiB), at most hi
    CLI_OPT_ENUM,   // exactly one of words
    CLI_OPT_NAME,   // a name the row's apply resolves (it may take other spellings
                    // too); words, when given, are the spellings shown and completed
    CLI_OPT_LIST,   // a comma-separated list: of words when the row has them, else
                    // checked by the row's apply
    CLI_OPT_STRING, // free text the row's apply checks: a spec, a size with units
    CLI_OPT_PATH,   // a file name (the completion offers files)
} CliOptKind;

// What of an option's value names a file or directory the command reads or
// writes. Whoever must keep a command's files in one place finds them by
// this (cli_optab_files below: the lesson player keeps a lesson's files in
// its scratch directory), so a row says it where it is written and no list
// elsewhere can forget it; tests/test_lesson_confine.c fails for a row whose
// placeholder or help speaks of a file and that says nothing here.
typedef enum {
    CLI_FILE_NONE = 0, // no file: every kind but CLI_OPT_PATH, unless the row says
    CLI_FILE_VALUE,    // the whole value, or else a built-in name (NAME|FILE); every
                       // CLI_OPT_PATH row, whatever it says
    CLI_FILE_SPEC,     // a part of a spec (file:PATH): the row's file_in finds it
    CLI_FILE_OPTIONS,  // more options of the same command, split at blanks
                       // (--compare-with 'OPTIONS')
} CliOptFile;

// Where a parsed value goes in the command's options (at the row's offset).
typedef enum {
    CLI_STORE_NONE,  // nowhere: the row's apply does what the option means
    CLI_STORE_TEXT,  // const char *: the text as given (it points into argv)
    CLI_STORE_INT,   // int: INT's number, ENUM's word index, 1 for a FLAG
    CLI_STORE_FALSE, // int: 0 (a FLAG that turns something off)
    CLI_STORE_I64,   // int64_t: INT's number
    CLI_STORE_U64,   // uint64_t: INT's number or SIZE's bytes
    CLI_STORE_REAL,  // double: REAL's number
    CLI_STORE_SIZE,  // size_t: SIZE's bytes
} CliOptStore;

// One value, as its kind turned it.
typedef struct {
    const char *text; // as given ("" for a flag)
    long long i;      // INT: the number; ENUM: the word's index; FLAG: 1
    double x;         // REAL: the number
    uint64_t bytes;   // SIZE: the byte count
} CliOptValue;

// What the parser carries through one command line.
typedef struct {
    const char *prog;   // "ddplab run": what messages begin with, and whose --help
                        // they point to
    void *dest;         // the command's options, which stores and applies fill
    const char **given; // NULL, or [the command's option ids]: the text each option
                        // was last given with (a flag's is ""), NULL when not given
} CliOptCtx;

typedef struct CliOptRow CliOptRow;

// A row's own part: checks the kind cannot make, values stored elsewhere,
// other options remembered. dest is the section's part of the command's
// options (CliOptSection.dest_offset). Returns 0, or -1 after one line on
// stderr (cli_optab_fail, cli_optab_reject, cli_optab_error).
typedef int (*CliOptApply)(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v,
                           void *dest);

struct CliOptRow {
    const char *name;          // the long name, without "--"
    char shortname;            // -x; 0: none
    CliOptKind kind;
    const char *metavar;       // the value's placeholder in help ("N", "auto|bar|lines");
                               // NULL for a flag
    const char *deflt;         // the default as help shows it; NULL: none shown
    const char *help;          // lines separated by '\n' (longer ones are wrapped)
    const char *const *words;  // ENUM, NAME, LIST: NULL-terminated
    long long lo, hi;          // INT: the range; SIZE: hi is the largest size
    const char *what;          // "is not WHAT" for a value the kind rejects ("a
                               // strategy"); for INT and REAL it replaces every
                               // message of the kind, with `allowed`
    const char *allowed;       // the message's allowed part; NULL: made from the range
                               // (INT) or the words (ENUM, NAME, LIST)
    int id;                    // the command's own number for the option, from 1: its
                               // index in CliOptCtx.given; 0: none (not recorded)
    CliOptStore store;
    size_t offset;             // of the stored field in the section's dest
    CliOptApply apply;         // NULL: the store is all there is
    CliOptFile file;           // what of the value names a file (see CliOptFile)
    const char *(*file_in)(const char *value); // CLI_FILE_SPEC: the file the value
                               // names (a pointer into it), or NULL when it names none
};

// A part of --help: a heading, its rows, then text of its own. Sections
// without a title continue the one before them (one list made of rows kept in
// several files).
typedef struct {
    const char *title;                     // "options" CLI_OPTAB_IN_BRACKETS ":"; NULL: none
    const CliOptRow *rows;                 // with nrows; or rows_of (rows made at run time)
    int nrows;
    const CliOptRow *(*rows_of)(int *n);
    void (*text)(FILE *out);               // printed after the rows (NULL: none)
    size_t dest_offset;                    // where the rows' fields are in CliOptCtx.dest
} CliOptSection;

typedef struct {
    const char *name;                // the command ("run")
    const char *synopsis;            // "ddplab run [options]"
    const char *about;               // what the command does, lines separated by '\n'
    const CliOptSection *sections;
    int nsections;
    const char *after;               // help's text after the options: columns, examples
} CliOptTable;

// The note of a title whose rows' defaults --help shows in brackets (the man
// page says "Default:" instead, and leaves the note out).
#define CLI_OPTAB_IN_BRACKETS " (default in brackets)"

enum { CLI_OPTAB_OK = 0, CLI_OPTAB_HELP = 1, CLI_OPTAB_ERROR = -1 };

// Parses argv[1..argc) (argv[0] is the command) against t, in order: each
// option, its value (after '=', attached to a short name, or the next
// argument), its kind's check, its apply, its store. Returns CLI_OPTAB_HELP
// at once when -h or --help is anywhere, CLI_OPTAB_ERROR after the first bad
// word (one line on stderr), else CLI_OPTAB_OK.
int cli_optab_parse(const CliOptTable *t, int argc, char **argv, CliOptCtx *cx);
// Sets one option of the rows from its text, as the parser would (a flag's
// text is ignored): 0, or -1 after one line on stderr (also for a name that
// is not a row).
int cli_optab_set(const CliOptRow *rows, int n, const CliOptCtx *cx, const char *name,
                  const char *text);
// What of the row's value names a file: its own file, or CLI_FILE_VALUE for
// every CLI_OPT_PATH row.
CliOptFile cli_optab_row_file(const CliOptRow *row);

// Called by cli_optab_files for each file named: the row, the value as given
// and the file in it. A nonzero return stops the walk and is returned.
typedef int (*CliOptFileVisit)(void *arg, const CliOptRow *row, const char *value,
                               const char *file);
// Walks argv[1..argc) as cli_optab_parse does (the same options, the same
// values, the same attached forms), without checking or storing anything,
// and calls visit for every file a value names (CliOptFile); the options in
// a CLI_FILE_OPTIONS value are walked the same way. The walk ends at the
// first word the parser would refuse (an unknown option, a missing value),
// since the command stops there before it opens a file. Returns 0, visit's
// nonzero, or -1 when memory ran out.
int cli_optab_files(const CliOptTable *t, int argc, char **argv, CliOptFileVisit visit,
                    void *arg);

// The row called --name (the first len characters of name), or NULL; the
// section it is in, when sec is not NULL.
const CliOptRow *cli_optab_find(const CliOptTable *t, const char *name, size_t len,
                                const CliOptSection **sec);
// A section's rows (*n of them).
const CliOptRow *cli_optab_rows(const CliOptSection *s, int *n);

// The one wording of a bad value (see above); returns -1. val is shown
// printable and cut short.
int cli_optab_fail(const CliOptCtx *cx, const char *opt, const char *val, const char *what,
                   const char *allowed);
// A value the row does not take: "is not WHAT" with the row's allowed text
// (or its words); returns -1.
int cli_optab_reject(const CliOptCtx *cx, const CliOptRow *row, const char *val);
// "PROG: <fmt>" as one line on stderr (PROG: "ddplab run").
void cli_optab_error(const char *prog, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cli_optab_verror(const char *prog, const char *fmt, va_list ap);
// The placeholder of the row's value in buf: its metavar, else made from its
// kind (the words joined by '|', "N", "SIZE", "FILE", "VALUE"); "" for a flag.
const char *cli_optab_metavar(const CliOptRow *row, char *buf, size_t len);

// --help of the command: the synopsis, about, every section, the text after
// and the exit codes.
void cli_optab_help(FILE *out, const CliOptTable *t);
// One section as --help shows it: its title, its rows, its text.
void cli_optab_help_section(FILE *out, const CliOptSection *s);

#endif
