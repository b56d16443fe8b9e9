// tests/test_viz_golden.c: the text view of real runs against golden files.
// A short DDP run and a short FSDP run train on the engine (4 CPU ranks,
// the trace kept), viz_text_run renders them at width 100 in ASCII, and the
// output must equal tests/golden/viz_text_<name>.txt byte for byte. The
// simulated clock is deterministic and the text view prints nothing of the
// wall clock, so the frames are the same on every machine.
//
//   test_viz_golden ddp | fsdp
//   test_viz_golden live    the DDP run followed live (the tap, the run on
//                           its own thread): the same output as the replay
//
// On a mismatch it prints the first differing line with its neighbours.
// DDPLAB_UPDATE_GOLDEN=1 rewrites the golden file instead (inspect the
// result before keeping it).
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_backend.h"
#include "layout.h"
#include "strategy/ddp.h"
#include "strategy/fsdp.h"
#include "test_ddp_util.h"
#include "views.h"
#include "vtrace.h"

#ifndef DDPLAB_GOLDEN_DIR
#error "DDPLAB_GOLDEN_DIR must name tests/golden"
#endif

typedef struct {
    SimTrainer tr[TDDP_MAX_RANKS];
} Run;

static SimStatus rank_main(SimRank *r, void *arg) {
    Run *d = arg;
    SimStatus st = sim_train_run(r, d->tr);
    sim_train_free(&d->tr[r->rank], r);
    return st;
}

static void text_opts(int fsdp, VizViewOpts *o) {
    viz_view_opts_default(o);
    o->width = 100;
    o->unicode = 0;
    // Iterations and phases (forward, backward, optimizer), and each
    // bucket's launch (DDP) or unit's all-gather and reduction (FSDP).
    o->stop_mask = 1u << VIZ_JUMP_ITERATION | 1u << VIZ_JUMP_PHASE |
                   (fsdp ? 1u << VIZ_JUMP_GATHER | 1u << VIZ_JUMP_REDUCE
                         : 1u << VIZ_JUMP_BUCKET_LAUNCH);
}

// A live run: the world trains on a thread of its own while the text view
// follows it here through the trace's tap.
typedef struct {
    SimWorld *w;
    void *d;
    VizLive *live;
    SimStatus st;
} Bg;

static void *bg_main(void *p) {
    Bg *b = p;
    b->st = sim_world_run(b->w, rank_main, b->d);
    viz_live_finish(b->live, b->st);
    return NULL;
}

static SimStatus follow_live(SimWorld *w, void *d, int fsdp, const SimTraceInfo *info,
                             char **text, size_t *n) {
    VizLive *live = viz_live_new();
    VizTrace lt;
    if (!live || viz_trace_init(&lt, w->cfg.nranks, info, "live") != SIM_OK) {
        viz_live_free(live);
        return SIM_ENOMEM;
    }
    sim_trace_set_tap(w->trace, viz_live_tap, live);
    Bg bg = {w, d, live, SIM_OK};
    pthread_t th;
    if (pthread_create(&th, NULL, bg_main, &bg) != 0) {
        viz_trace_free(&lt);
        viz_live_free(live);
        return SIM_ENOMEM;
    }
    VizSource src = {.trace = &lt, .live = live};
    VizViewOpts o;
    text_opts(fsdp, &o);
    char err[256] = "";
    FILE *f = open_memstream(text, n);
    SimStatus st = f ? viz_text_run(&src, &o, f, err, sizeof err) : SIM_ENOMEM;
    if (f)
        fclose(f);
    if (st != SIM_OK) {
        fprintf(stderr, "live viz_text_run: %s\n", err);
        viz_live_detach(live); // the engine stops waiting for the view
    }
    pthread_join(th, NULL);
    if (st == SIM_OK)
        st = bg.st;
    if (src.model)
        viz_model_free(src.model);
    viz_trace_free(&lt);
    viz_live_free(live);
    return st;
}

// Trains 4 ranks for 2 steps (an mlp on blobs) with DDP or FSDP and copies
// the world's whole trace into out; with live_text, renders the text view
// of the run as it goes into *live_text instead.
static SimStatus traced_run(int fsdp, VizTrace *out, char **live_text, size_t *live_n) {
    enum { R = 4 };
    SimDataset ds;
    SimModelSpec spec;
    memset(&ds, 0, sizeof ds);
    const char *model = "mlp:16,32,32,4";
    SIM_CHECK(tddp_data_mlp(&ds, 64, model, &spec));
    TddpRun cfg; // for its training configuration
    tddp_config(&cfg, &ds, &spec, R, 8, 2);
    SimFsdpOptions fo;
    sim_fsdp_options_default(&fo);
    if (fsdp) {
        cfg.cfg.strategy = &sim_fsdp_strategy;
        cfg.cfg.strategy_cfg = &fo;
    } else {
        // Iteration 0 has DDP's one initial bucket; the plan rebuilt for
        // iteration 1 has a few small ones.
        cfg.ddp.buckets.bucket_cap_mb = 0.002;
        cfg.ddp.buckets.first_bucket_is_cap = 1;
        cfg.cfg.strategy = &sim_ddp_strategy;
        cfg.cfg.strategy_cfg = &cfg.ddp;
    }
    Run *d = calloc(1, sizeof *d);
    if (d == NULL) {
        sim_dataset_free(&ds);
        return SIM_ENOMEM;
    }
    for (int i = 0; i < R; i++)
        d->tr[i].cfg = &cfg.cfg;
    // A 64 KiB device, so the boxes show a share of capacity (the run
    // peaks near 30 KiB).
    SimWorld w;
    SimWorldConfig wc;
    sim_world_config_default(&wc);
    wc.nranks = R;
    wc.trace = 1;
    wc.watchdog_s = 30;
    wc.device_memory = 64 * 1024;
    wc.algo = SIM_ALGO_RING; // the ring's chunks are what the diagram shows
    SimStatus st = sim_world_init(&w, &wc, &cpu_backend_ops);
    if (st == SIM_OK) {
        SimTraceInfo info;
        memset(&info, 0, sizeof info);
        snprintf(info.title, sizeof info.title, "%s  %s  R=%d (1 node x %d)%s",
                 fsdp ? "fsdp" : "ddp", model, R, R,
                 fsdp ? "  FULL_SHARD" : "  bucket_cap 0.002 MiB");
        snprintf(info.strategy, sizeof info.strategy, "%s", fsdp ? "fsdp" : "ddp");
        snprintf(info.profile, sizeof info.profile, "dgx-h100");
        info.device_capacity = wc.device_memory;
        info.nodes = 1;
        sim_trace_set_info(w.trace, &info);
        if (live_text)
            st = follow_live(&w, d, fsdp, &info, live_text, live_n);
        else
            st = sim_world_run(&w, rank_main, d);
    }
    if (st != SIM_OK)
        fprintf(stderr, "the run failed: %s\n", sim_world_error(&w));
    else if (!live_text)
        st = viz_trace_from_sim(w.trace, out, "run");
    sim_world_free(&w);
    free(d);
    sim_dataset_free(&ds);
    return st;
}

static char *read_file(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t cap = 0, len = 0;
    for (;;) {
        if (len + 4096 + 1 > cap) {
            cap = cap ? 2 * cap : 65536;
            char *b = realloc(buf, cap);
            if (!b) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = b;
        }
        size_t k = fread(buf + len, 1, 4096, f);
        len += k;
        if (k < 4096)
            break;
    }
    fclose(f);
    buf[len] = '\0';
    *n = len;
    return buf;
}

// Line `k` (from 0) of s, into buf; returns 0 when s has fewer lines.
static int line_of(const char *s, int k, char *buf, size_t len) {
    for (int i = 0; i < k; i++) {
        s = strchr(s, '\n');
        if (!s)
            return 0;
        s++;
    }
    if (!*s)
        return 0;
    size_t n = strcspn(s, "\n");
    if (n >= len)
        n = len - 1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    return 1;
}

// A diff-like report of the first difference between want and got.
static void report(const char *path, const char *want, const char *got) {
    int first = 0;
    for (;; first++) {
        char a[512], b[512];
        int ha = line_of(want, first, a, sizeof a), hb = line_of(got, first, b, sizeof b);
        if (!ha && !hb)
            break;
        if (ha != hb || strcmp(a, b) != 0)
            break;
    }
    fprintf(stderr, "--- %s (golden)\n+++ text view output\n@@ first difference at line %d @@\n",
            path, first + 1);
    int from = first > 3 ? first - 3 : 0;
    for (int k = from; k < first; k++) {
        char a[512];
        if (line_of(want, k, a, sizeof a))
            fprintf(stderr, " %s\n", a);
    }
    for (int k = first; k < first + 6; k++) {
        char a[512];
        if (line_of(want, k, a, sizeof a))
            fprintf(stderr, "-%s\n", a);
    }
    for (int k = first; k < first + 6; k++) {
        char b[512];
        if (line_of(got, k, b, sizeof b))
            fprintf(stderr, "+%s\n", b);
    }
    fprintf(stderr, "(run with DDPLAB_UPDATE_GOLDEN=1 to rewrite the golden file after "
                    "checking the new output)\n");
}

// The same run on fixed screens (the terminal views' way): event i at
// 80x24 and 120x40 lays out and shows every rank of the 4 and the status
// line. DDPLAB_TEST_SHOW=1 prints the frames.
static int screens(VizModel *m, size_t i) {
    static const int sizes[][2] = {{80, 24}, {120, 40}};
    VizScene *s = viz_scene_new(m);
    if (!s)
        return 1;
    int rc = 0;
    for (int k = 0; k < 2 && !rc; k++) {
        int W = sizes[k][0], H = sizes[k][1];
        VizSceneOpts so = viz_scene_opts_default();
        VizLayout l;
        // Lay out once to learn the lanes' width, then build the scene for it.
        so.timeline_cols = W - 11;
        rc |= viz_scene_at(m, i, &so, s) != SIM_OK;
        rc |= !viz_layout(s, W, H, 0, &l);
        so.timeline_cols = l.timeline_cols;
        rc |= viz_scene_at(m, i, &so, s) != SIM_OK;
        rc |= !viz_layout(s, W, H, 0, &l);
        VizCanvas c;
        if (rc || viz_canvas_init(&c, W, H, 0) != SIM_OK) {
            fprintf(stderr, "%dx%d: no layout: %s\n", W, H, l.why);
            rc = 1;
            break;
        }
        VizDrawOpts d = {.selected_rank = 0};
        viz_draw(&c, &l, s, &d);
        char *txt = NULL;
        size_t n = 0;
        FILE *f = open_memstream(&txt, &n);
        if (f) {
            viz_canvas_write(&c, f);
            fclose(f);
        }
        if (!txt || l.nboxes != 4 || !strstr(txt, "rank 3") || !strstr(txt, "q quit") ||
            l.timeline.h < 3 || l.status.y != H - 1) {
            fprintf(stderr, "%dx%d frame lacks what it must show:\n%s", W, H, txt ? txt : "");
            rc = 1;
        } else if (getenv("DDPLAB_TEST_SHOW")) {
            printf("%dx%d, event %zu:\n%s", W, H, i, txt);
        }
        free(txt);
        viz_canvas_free(&c);
    }
    viz_scene_free(s);
    return rc;
}

static int golden(const char *name) {
    int fsdp = strcmp(name, "fsdp") == 0;
    VizTrace t;
    memset(&t, 0, sizeof t);
    if (traced_run(fsdp, &t, NULL, NULL) != SIM_OK) {
        viz_trace_free(&t);
        return 1;
    }
    char err[512] = "";
    VizSource src = {.trace = &t, .model = viz_model_new(&t, err, sizeof err)};
    if (!src.model) {
        fprintf(stderr, "model: %s\n", err);
        viz_trace_free(&t);
        return 1;
    }
    src.settled = t.n;
    size_t at = viz_model_next(src.model, SIZE_MAX,
                               fsdp ? VIZ_JUMP_GATHER : VIZ_JUMP_BUCKET_LAUNCH, 1);
    if (at == SIZE_MAX || screens(src.model, at)) {
        fprintf(stderr, "the fixed-size frames failed\n");
        viz_model_free(src.model);
        viz_trace_free(&t);
        return 1;
    }
    VizViewOpts o;
    text_opts(fsdp, &o);
    char *out = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&out, &n);
    SimStatus st = f ? viz_text_run(&src, &o, f, err, sizeof err) : SIM_ENOMEM;
    if (f)
        fclose(f);
    // viz_text_frame alone draws the run's last frame as viz_text_run did.
    char *last = NULL;
    size_t ln = 0;
    FILE *lf = st == SIM_OK ? open_memstream(&last, &ln) : NULL;
    if (lf) {
        SimStatus fs = viz_text_frame(src.model, viz_model_count(src.model) - 1, 100, 0, NULL, lf);
        fclose(lf);
        // The last frame starts after the last rule line.
        const char *p = out ? strstr(out, "\n-----") : NULL;
        while (p && strstr(p + 1, "\n-----"))
            p = strstr(p + 1, "\n-----");
        const char *tail = p ? strchr(p + 1, '\n') + 1 : out;
        if (fs != SIM_OK || !tail || strcmp(tail, last) != 0) {
            fprintf(stderr, "viz_text_frame's last frame differs from viz_text_run's:\n%s",
                    last ? last : "");
            st = SIM_EINVAL;
            snprintf(err, sizeof err, "viz_text_frame");
        }
    }
    free(last);
    viz_model_free(src.model);
    viz_trace_free(&t);
    if (st != SIM_OK) {
        fprintf(stderr, "viz_text_run: %s\n", err);
        free(out);
        return 1;
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/viz_text_%s.txt", DDPLAB_GOLDEN_DIR, name);
    const char *upd = getenv("DDPLAB_UPDATE_GOLDEN");
    if (upd && strcmp(upd, "1") == 0) {
        FILE *g = fopen(path, "wb");
        int ok = g && fwrite(out, 1, n, g) == n;
        if (g && fclose(g) != 0)
            ok = 0;
        fprintf(stderr, "%s %s (%zu bytes)\n", ok ? "wrote" : "could not write", path, n);
        free(out);
        return ok ? 0 : 1;
    }
    size_t wn = 0;
    char *want = read_file(path, &wn);
    int rc = 0;
    if (!want) {
        fprintf(stderr, "%s: cannot read the golden file (DDPLAB_UPDATE_GOLDEN=1 writes it)\n",
                path);
        rc = 1;
    } else if (wn != n || memcmp(want, out, n) != 0) {
        report(path, want, out);
        rc = 1;
    }
    // The output must also be plain ASCII lines of at most 100 columns.
    for (const char *p = out, *ls = out; !rc && p < out + n; p++) {
        if ((unsigned char)*p >= 0x80) {
            fprintf(stderr, "non-ASCII byte in the ASCII text view\n");
            rc = 1;
        }
        if (*p == '\n') {
            if (p - ls > 100) {
                fprintf(stderr, "a line of %d columns\n", (int)(p - ls));
                rc = 1;
            }
            ls = p + 1;
        }
    }
    free(want);
    free(out);
    return rc;
}

// Frames in a text view's output: rule lines + 1.
static int frames_of(const char *s) {
    int n = 1;
    for (const char *p = s; (p = strstr(p, "\n-----")) != NULL; p++)
        n++;
    return n;
}

// The DDP run followed live: the text view drains the run to its end, so
// its frames are the replay's, golden file and all.
static int live(void) {
    char *text = NULL;
    size_t n = 0;
    if (traced_run(0, NULL, &text, &n) != SIM_OK) {
        free(text);
        return 1;
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/viz_text_ddp.txt", DDPLAB_GOLDEN_DIR);
    size_t wn = 0;
    char *want = read_file(path, &wn);
    int rc = 0;
    if (!want || !text) {
        fprintf(stderr, "%s: cannot read the golden file\n", path);
        rc = 1;
    } else if (strcmp(text, want) != 0) {
        report(path, want, text);
        fprintf(stderr, "live: %d frames (replay: %d)\n", frames_of(text), frames_of(want));
        // Which events each drew a frame at.
        for (int k = 0; k < 2; k++) {
            fprintf(stderr, "%s frames at:", k ? "replay" : "live");
            for (const char *p = k ? want : text; (p = strstr(p, " event ")) != NULL; p++)
                fprintf(stderr, " %d", atoi(p + 7));
            fprintf(stderr, "\n");
        }
        rc = 1;
    }
    free(want);
    free(text);
    return rc;
}

int main(int argc, char **argv) {
    if (argc < 2 || (strcmp(argv[1], "ddp") != 0 && strcmp(argv[1], "fsdp") != 0 &&
                     strcmp(argv[1], "live") != 0)) {
        fprintf(stderr, "usage: %s ddp|fsdp|live\n", argv[0]);
        return 2;
    }
    int rc = strcmp(argv[1], "live") == 0 ? live() : golden(argv[1]);
    printf("%s golden_%s\n", rc ? "FAILED" : "ok    ", argv[1]);
    return rc;
}
