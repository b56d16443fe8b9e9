// tests/test_viz_sdl_util.c: see test_viz_sdl_util.h.
#include "test_viz_sdl_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/comm.h"
#include "strategy/fsdp.h"
#include "test_ddp_util.h"
#include "test_world.h"
#include "train/train.h"

#ifdef DDPLAB_HAVE_PNG
#include <png.h>
#endif

typedef struct {
    int ncoll;
    size_t elements;
} RingArgs;

static SimStatus ring_main(SimRank *r, void *arg) {
    const RingArgs *a = arg;
    float *buf = malloc(a->elements * sizeof *buf);
    if (buf == NULL)
        return SIM_ENOMEM;
    for (size_t i = 0; i < a->elements; i++)
        buf[i] = (float)(r->rank + (int)(i % 7));
    SimStatus st = SIM_OK;
    for (int k = 0; k < a->ncoll && st == SIM_OK; k++)
        st = sim_all_reduce(r, buf, buf, a->elements, SIM_FP32, SIM_SUM, SIM_ALGO_RING);
    free(buf);
    return st;
}

static void set_info(SimWorld *w, const char *strategy, const char *title, int R) {
    SimTraceInfo info;
    memset(&info, 0, sizeof info);
    snprintf(info.title, sizeof info.title, "%s  R=%d (1 node x %d)", title, R, R);
    snprintf(info.strategy, sizeof info.strategy, "%s", strategy);
    info.device_capacity = 1ull << 30;
    info.nodes = 1;
    sim_trace_set_info(w->trace, &info);
}

SimStatus tsdl_ring_trace(VizTrace *t, int R, int ncoll, size_t elements) {
    RingArgs a = {ncoll, elements};
    SimWorld w;
    SimStatus st = tworld_init_cpu(&w, R, 1, 30);
    if (st == SIM_OK) {
        set_info(&w, "bench", "all_reduce ring", R);
        st = sim_world_run(&w, ring_main, &a);
    }
    if (st == SIM_OK)
        st = viz_trace_from_sim(w.trace, t, "ring");
    else
        fprintf(stderr, "ring run: %s\n", sim_world_error(&w));
    sim_world_free(&w);
    return st;
}

typedef struct {
    SimTrainer tr[TDDP_MAX_RANKS];
} FsdpRanks;

static SimStatus fsdp_main(SimRank *r, void *arg) {
    FsdpRanks *x = arg;
    SimStatus st = sim_train_run(r, x->tr);
    if (st != SIM_OK && x->tr[r->rank].error[0])
        fprintf(stderr, "rank %d: %s\n", r->rank, x->tr[r->rank].error);
    sim_train_free(&x->tr[r->rank], r);
    return st;
}

SimStatus tsdl_fsdp_trace(VizTrace *t, int R, int steps) {
    SimDataset ds;
    SimModelSpec spec;
    memset(&ds, 0, sizeof ds);
    SimStatus st = tddp_data_mlp(&ds, 64, "mlp:16,32,4", &spec);
    if (st != SIM_OK) {
        fprintf(stderr, "fsdp data: %s\n", sim_strerror(st));
        return st;
    }
    TddpRun *cfg = calloc(1, sizeof *cfg);
    FsdpRanks *x = calloc(1, sizeof *x);
    SimFsdpOptions *fo = calloc(1, sizeof *fo);
    if (cfg == NULL || x == NULL || fo == NULL) {
        st = SIM_ENOMEM;
        goto out;
    }
    tddp_config(cfg, &ds, &spec, R, 8, steps);
    sim_fsdp_options_default(fo);
    cfg->cfg.strategy = &sim_fsdp_strategy;
    cfg->cfg.strategy_cfg = fo;
    for (int r = 0; r < R; r++)
        x->tr[r].cfg = &cfg->cfg;
    SimWorld w;
    st = tworld_init_cpu(&w, R, 1, 30);
    if (st == SIM_OK) {
        set_info(&w, "fsdp", "fsdp  mlp:16,32,4", R);
        st = sim_world_run(&w, fsdp_main, x);
    }
    if (st == SIM_OK)
        st = viz_trace_from_sim(w.trace, t, "fsdp");
    else
        fprintf(stderr, "fsdp run: %s\n", sim_world_error(&w));
    sim_world_free(&w);
out:
    free(fo);
    free(x);
    free(cfg);
    sim_dataset_free(&ds);
    return st;
}

int tsdl_png_read(const char *path, VizImage *img) {
    memset(img, 0, sizeof *img);
#ifdef DDPLAB_HAVE_PNG
    png_image pi;
    memset(&pi, 0, sizeof pi);
    pi.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&pi, path)) {
        fprintf(stderr, "%s: %s\n", path, pi.message);
        return -1;
    }
    pi.format = PNG_FORMAT_RGB;
    img->w = (int)pi.width;
    img->h = (int)pi.height;
    img->rgb = malloc(PNG_IMAGE_SIZE(pi));
    if (img->rgb == NULL || !png_image_finish_read(&pi, NULL, img->rgb, 0, NULL)) {
        fprintf(stderr, "%s: cannot decode: %s\n", path, pi.message);
        png_image_free(&pi);
        viz_image_free(img);
        return -1;
    }
    return 0;
#else
    fprintf(stderr, "%s: this build cannot decode PNG files\n", path);
    return -1;
#endif
}

static const uint8_t *px(const VizImage *img, int x, int y) {
    return img->rgb + 3 * ((size_t)y * (size_t)img->w + (size_t)x);
}

int tsdl_distinct_colours(const VizImage *img, int cap) {
    uint8_t *seen = calloc((size_t)1 << 21, 1); // one bit per 24-bit colour
    if (seen == NULL)
        return 0;
    int n = 0;
    for (int y = 0; y < img->h && n < cap; y++)
        for (int x = 0; x < img->w && n < cap; x++) {
            const uint8_t *p = px(img, x, y);
            uint32_t c = (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
            if (!(seen[c >> 3] & (1u << (c & 7)))) {
                seen[c >> 3] |= (uint8_t)(1u << (c & 7));
                n++;
            }
        }
    free(seen);
    return n;
}

double tsdl_share_of(const VizImage *img, const uint8_t rgb[3]) {
    size_t same = 0;
    for (int y = 0; y < img->h; y++)
        for (int x = 0; x < img->w; x++)
            same += memcmp(px(img, x, y), rgb, 3) == 0;
    return img->w > 0 && img->h > 0 ? (double)same / ((double)img->w * img->h) : 0;
}

double tsdl_share_not(const VizImage *img, int x0, int y0, int x1, int y1,
                      const uint8_t rgb[3]) {
    x0 = x0 < 0 ? 0 : x0;
    y0 = y0 < 0 ? 0 : y0;
    x1 = x1 > img->w ? img->w : x1;
    y1 = y1 > img->h ? img->h : y1;
    if (x1 <= x0 || y1 <= y0)
        return 0;
    size_t diff = 0;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++)
            diff += memcmp(px(img, x, y), rgb, 3) != 0;
    return (double)diff / ((double)(x1 - x0) * (y1 - y0));
}
