// viz/paint_palette.c: the colours of the painted scene. The hues follow
// the terminal view's styles (view_curses_colors.c), so a learner who moves
// from one view to the other reads the same colour as the same thing.
#include "paint.h"

#include "trace/mem_cat.h" // defines: SIM_MEM_*

VizRgba viz_ink(VizInk k) {
    static const unsigned hex[VIZ_INK_COUNT] = {
        [VIZ_INK_BACKGROUND] = 0x16181e, [VIZ_INK_PANEL] = 0x1e2129,
        [VIZ_INK_FRAME] = 0x3a3f4c,      [VIZ_INK_TEXT] = 0xd6dae2,
        [VIZ_INK_DIM] = 0x8890a0,        [VIZ_INK_TITLE] = 0x78c4ff,
        [VIZ_INK_SELECTED] = 0xffd86e,   [VIZ_INK_CURSOR] = 0xffec78,
        [VIZ_INK_CAPTION] = 0xece8c4,    [VIZ_INK_WARN] = 0xff7064,
    };
    return viz_rgb(k >= 0 && k < VIZ_INK_COUNT ? hex[k] : hex[VIZ_INK_TEXT]);
}

VizRgba viz_phase_colour(VizPhase p) {
    static const unsigned hex[VIZ_PHASE_COUNT] = {
        [VIZ_PHASE_IDLE] = 0x4a4f5c,     [VIZ_PHASE_FORWARD] = 0x60acff,
        [VIZ_PHASE_BACKWARD] = 0xff9c4c, [VIZ_PHASE_OPTIMIZER] = 0xba88ff,
        [VIZ_PHASE_EVAL] = 0xaaaab0,     [VIZ_PHASE_COMM] = 0x54d690,
        [VIZ_PHASE_WAIT] = 0x9698b0,
    };
    return viz_rgb(p >= 0 && p < VIZ_PHASE_COUNT ? hex[p] : hex[VIZ_PHASE_IDLE]);
}

VizRgba viz_cell_colour(VizCellKind k) {
    static const unsigned hex[VIZ_CELL_KIND_COUNT] = {
        [VIZ_CELL_IDLE] = 0x262a33,     [VIZ_CELL_FORWARD] = 0x60acff,
        [VIZ_CELL_BACKWARD] = 0xff9c4c, [VIZ_CELL_OPTIMIZER] = 0xba88ff,
        [VIZ_CELL_OTHER] = 0xaaaab0,    [VIZ_CELL_COMM] = 0x54d690,
        [VIZ_CELL_EXPOSED] = 0xff5c5c,  [VIZ_CELL_HOST] = 0xe8cc5c,
    };
    return viz_rgb(k >= 0 && k < VIZ_CELL_KIND_COUNT ? hex[k] : hex[VIZ_CELL_IDLE]);
}

VizRgba viz_bucket_colour(VizBucketState s) {
    static const unsigned hex[VIZ_BUCKET_STATE_COUNT] = {
        [VIZ_BUCKET_EMPTY] = 0x3a3f4c,    [VIZ_BUCKET_FILLING] = 0xf0c854,
        [VIZ_BUCKET_WAITING] = 0xff9c4c,  [VIZ_BUCKET_REDUCING] = 0x54c8ff,
        [VIZ_BUCKET_DONE] = 0x70dc7c,
    };
    return viz_rgb(s >= 0 && s < VIZ_BUCKET_STATE_COUNT ? hex[s] : hex[VIZ_BUCKET_EMPTY]);
}

VizRgba viz_shard_colour(VizShardState s) {
    static const unsigned hex[VIZ_SHARD_STATE_COUNT] = {
        [VIZ_SHARD_SHARDED] = 0x4a4f5c,   [VIZ_SHARD_GATHERING] = 0x54c8ff,
        [VIZ_SHARD_GATHERED] = 0xcc90ff,  [VIZ_SHARD_REDUCING] = 0xff9c4c,
        [VIZ_SHARD_REDUCED] = 0x70dc7c,
    };
    return viz_rgb(s >= 0 && s < VIZ_SHARD_STATE_COUNT ? hex[s] : hex[VIZ_SHARD_SHARDED]);
}

VizRgba viz_mem_colour(int c) {
    static const unsigned hex[SIM_MEM_CAT_COUNT] = {
        [SIM_MEM_OTHER] = 0x969ca8,      [SIM_MEM_PARAM] = 0x4c8cff,
        [SIM_MEM_PARAM_SHARD] = 0x40d0e8, [SIM_MEM_PARAM_LOWP] = 0x96beff,
        [SIM_MEM_GRAD] = 0xff8c3c,       [SIM_MEM_GRAD_SHARD] = 0xffc85a,
        [SIM_MEM_OPTIM] = 0xb070ff,      [SIM_MEM_ACT] = 0x60d46e,
        [SIM_MEM_COMM] = 0xff6eb4,       [SIM_MEM_BACKING] = 0x5a606c,
    };
    return viz_rgb(c >= 0 && c < SIM_MEM_CAT_COUNT ? hex[c] : hex[SIM_MEM_OTHER]);
}

VizRgba viz_rank_colour(int r) {
    // twelve hues, far apart, each legible on the dark panel and on white
    static const unsigned hex[12] = {
        0x4e9cff, 0xff8a3d, 0x4fd18b, 0xe85a8f, 0xb48cff, 0xf2c94c,
        0x3cc8d8, 0xd9734e, 0x9ccc4a, 0xc66ad9, 0x7f8cff, 0xe0a070,
    };
    return viz_rgb(hex[(r < 0 ? -r : r) % 12]);
}

VizRgba viz_chunk_colour(int c) {
    static const unsigned hex[8] = {
        0xff78c8, 0xffc440, 0x60e0ff, 0x8cf078, 0xff8060, 0xb894ff, 0xfff096, 0x78b0ff,
    };
    return viz_rgb(hex[(c < 0 ? -c : c) % 8]);
}
