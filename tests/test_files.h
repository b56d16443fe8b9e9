// tests/test_files.h: the file chores tests share: read a whole file, write
// one, make and remove a scratch directory, count what a directory holds.
// Scratch space lives under $TMPDIR (or /tmp when it is unset or empty).
#ifndef DDPLAB_TESTS_FILES_H
#define DDPLAB_TESTS_FILES_H

#include <stddef.h>

// Everything fd holds, read from offset 0, as a heap string with a NUL
// after the last byte (the content may hold NULs of its own); its length in
// *len when len is not NULL. NULL if reading fails or memory runs out.
char *tfile_read_fd(int fd, size_t *len);
// The same for the file at path; NULL if it cannot be opened or read.
char *tfile_read(const char *path, size_t *len);
// Writes len bytes of data as the whole file at path. 0, or -1 on failure.
int tfile_write(const char *path, const void *data, size_t len);
// 1 if something exists at path.
int tfile_exists(const char *path);
// Entries in dir other than . and ..; -1 if it cannot be read.
int tfile_dir_entries(const char *dir);
// Creates a fresh directory ddplab-<tag>-XXXXXX under the scratch space and
// writes its path into buf (len bytes). 0, or -1 on failure.
int tfile_mkdtemp(char *buf, size_t len, const char *tag);
// A read-write file in the scratch space that is already unlinked, so
// nothing is left behind when it is closed; -1 on failure.
int tfile_temp_fd(const char *tag);
// Removes the files and empty subdirectories directly in dir, then dir.
void tfile_rmtree(const char *dir);

#endif
