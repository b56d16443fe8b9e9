// tests/test_trace_events.h: reading a JSON-lines trace (`--trace t.jsonl`)
// back as cJSON events, for tests that check what a run recorded.
#ifndef DDPLAB_TESTS_TRACE_EVENTS_H
#define DDPLAB_TESTS_TRACE_EVENTS_H

#include <cjson/cJSON.h>

// The events of path that match kind and label (NULL: any) and rank (< 0:
// any), in file order; *n of them. NULL (and *n = 0) if the file is
// unreadable. Free with tev_free.
cJSON **tev_read(const char *path, const char *kind, const char *label, int rank, int *n);
void tev_free(cJSON **e, int n);
// A field as a number (-1e300 when absent) or a string ("" when absent).
double tev_num(const cJSON *e, const char *key);
const char *tev_str(const cJSON *e, const char *key);
// 0 if the trace holds exactly one "injected" fault event, on `rank`, whose
// name contains `want`; else 1 after saying why on stderr.
int tev_one_injected(const char *trace, int rank, const char *want);

#endif
