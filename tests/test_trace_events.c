// tests/test_trace_events.c: see test_trace_events.h.
#include "test_trace_events.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_cli_run.h" // defines: tcli_lines
#include "test_files.h"   // defines: tfile_read

static int field_is(const cJSON *e, const char *key, const char *want) {
    const cJSON *v = cJSON_GetObjectItem(e, key);
    return !want || (cJSON_IsString(v) && strcmp(v->valuestring, want) == 0);
}

cJSON **tev_read(const char *path, const char *kind, const char *label, int rank, int *n) {
    char *text = tfile_read(path, NULL);
    *n = 0;
    if (text == NULL)
        return NULL;
    cJSON **out = calloc((size_t)tcli_lines(text) + 1, sizeof *out);
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line && out;
         line = strtok_r(NULL, "\n", &save)) {
        cJSON *e = cJSON_Parse(line);
        const cJSON *r = cJSON_GetObjectItem(e, "rank");
        int keep = e && field_is(e, "kind", kind) && field_is(e, "label", label) &&
                   (rank < 0 || (cJSON_IsNumber(r) && (int)r->valuedouble == rank));
        if (keep)
            out[(*n)++] = e;
        else
            cJSON_Delete(e);
    }
    free(text);
    return out;
}

void tev_free(cJSON **e, int n) {
    for (int i = 0; i < n; i++)
        cJSON_Delete(e[i]);
    free(e);
}

double tev_num(const cJSON *e, const char *key) {
    const cJSON *v = cJSON_GetObjectItem(e, key);
    return cJSON_IsNumber(v) ? v->valuedouble : -1e300;
}

const char *tev_str(const cJSON *e, const char *key) {
    const cJSON *v = cJSON_GetObjectItem(e, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

int tev_one_injected(const char *trace, int rank, const char *want) {
    int n = 0;
    cJSON **ev = tev_read(trace, "fault", "injected", -1, &n);
    int ok = n == 1 && (int)tev_num(ev[0], "rank") == rank && strstr(tev_str(ev[0], "name"), want);
    if (!ok)
        fprintf(stderr, "%s: %d injected events (want 1 on rank %d naming '%s')%s%s\n", trace, n,
                rank, want, n ? ": " : "", n ? tev_str(ev[0], "name") : "");
    tev_free(ev, n);
    return ok ? 0 : 1;
}
