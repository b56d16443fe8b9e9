// viz/draw_fmt.c: numbers and names as the panels print them, and the
// glyph / style tables of memory categories and timeline cells. The names
// are the drawers' own (not the scene model's), so drawing needs nothing
// but the scene's plain data.
#include "draw_internal.h"

#include <math.h>
#include <stdio.h>

void viz_fmt_bytes(uint64_t b, char *buf, size_t len) {
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    if (b < 1024) {
        snprintf(buf, len, "%u B", (unsigned)b);
        return;
    }
    double v = (double)b;
    int u = 0;
    while (v >= 1024 && u < 5) {
        v /= 1024;
        u++;
    }
    // Three significant digits; 1023.5 KiB would print as "1024 KiB".
    if (v >= 999.5 && u < 5) {
        v /= 1024;
        u++;
    }
    if (v < 9.995)
        snprintf(buf, len, "%.2f %s", v, unit[u]);
    else if (v < 99.95)
        snprintf(buf, len, "%.1f %s", v, unit[u]);
    else
        snprintf(buf, len, "%.0f %s", v, unit[u]);
}

void viz_fmt_bytes_short(uint64_t b, char *buf, size_t len) {
    static const char unit[] = "BKMGTP";
    double v = (double)b;
    int u = 0;
    while (v >= 999.5 && u < 5) {
        v /= 1024;
        u++;
    }
    if (u > 0 && v < 9.95)
        snprintf(buf, len, "%.1f%c", v, unit[u]);
    else
        snprintf(buf, len, "%.0f%c", v, unit[u]);
}

void viz_fmt_time(double s, char *buf, size_t len) {
    double a = fabs(s);
    const char *u;
    double v;
    if (a >= 1) {
        u = "s";
        v = s;
    } else if (a >= 1e-3) {
        u = "ms";
        v = s * 1e3;
    } else {
        u = "us";
        v = s * 1e6;
    }
    double av = fabs(v);
    if (av < 9.995)
        snprintf(buf, len, "%.2f %s", v, u);
    else if (av < 99.95)
        snprintf(buf, len, "%.1f %s", v, u);
    else
        snprintf(buf, len, "%.0f %s", v, u);
}

const char *viz_draw_phase_name(VizPhase p) {
    static const char *const n[VIZ_PHASE_COUNT] = {
        "idle", "forward", "backward", "optimizer", "eval", "comm", "waiting",
    };
    return (unsigned)p < VIZ_PHASE_COUNT ? n[p] : "?";
}

VizStyle viz_draw_phase_style(VizPhase p) {
    switch (p) {
    case VIZ_PHASE_FORWARD: return VIZ_STYLE_FORWARD;
    case VIZ_PHASE_BACKWARD: return VIZ_STYLE_BACKWARD;
    case VIZ_PHASE_OPTIMIZER: return VIZ_STYLE_OPTIMIZER;
    case VIZ_PHASE_EVAL: return VIZ_STYLE_OTHER;
    case VIZ_PHASE_COMM: return VIZ_STYLE_COMM;
    case VIZ_PHASE_WAIT: return VIZ_STYLE_WAIT;
    default: return VIZ_STYLE_DIM;
    }
}

const char *viz_draw_bucket_name(VizBucketState st) {
    static const char *const n[VIZ_BUCKET_STATE_COUNT] = {
        "empty", "filling", "waiting", "reducing", "done",
    };
    return (unsigned)st < VIZ_BUCKET_STATE_COUNT ? n[st] : "?";
}

// Upper case: the model's full copies (params, grads); lower case: their
// sharded or low-precision forms.
char viz_mem_letter(int cat) {
    switch (cat) {
    case SIM_MEM_OTHER: return 'x';
    case SIM_MEM_PARAM: return 'P';
    case SIM_MEM_PARAM_SHARD: return 'p';
    case SIM_MEM_PARAM_LOWP: return 'l';
    case SIM_MEM_GRAD: return 'G';
    case SIM_MEM_GRAD_SHARD: return 'g';
    case SIM_MEM_OPTIM: return 'O';
    case SIM_MEM_ACT: return 'A';
    case SIM_MEM_COMM: return 'C';
    default: return '?';
    }
}

const char *viz_mem_short(int cat) {
    switch (cat) {
    case SIM_MEM_OTHER: return "other";
    case SIM_MEM_PARAM: return "params";
    case SIM_MEM_PARAM_SHARD: return "param shards";
    case SIM_MEM_PARAM_LOWP: return "low-prec params";
    case SIM_MEM_GRAD: return "grads";
    case SIM_MEM_GRAD_SHARD: return "grad shards";
    case SIM_MEM_OPTIM: return "optimizer";
    case SIM_MEM_ACT: return "activations";
    case SIM_MEM_COMM: return "comm";
    default: return "?";
    }
}

char viz_cell_glyph(int kind) {
    switch (kind) {
    case VIZ_CELL_FORWARD: return 'F';
    case VIZ_CELL_BACKWARD: return 'B';
    case VIZ_CELL_OPTIMIZER: return 'O';
    case VIZ_CELL_OTHER: return 'x';
    case VIZ_CELL_COMM: return '=';
    case VIZ_CELL_EXPOSED: return '!';
    case VIZ_CELL_HOST: return 'h';
    default: return ' ';
    }
}

VizStyle viz_cell_style(int kind) {
    switch (kind) {
    case VIZ_CELL_FORWARD: return VIZ_STYLE_FORWARD;
    case VIZ_CELL_BACKWARD: return VIZ_STYLE_BACKWARD;
    case VIZ_CELL_OPTIMIZER: return VIZ_STYLE_OPTIMIZER;
    case VIZ_CELL_OTHER: return VIZ_STYLE_OTHER;
    case VIZ_CELL_COMM: return VIZ_STYLE_COMM;
    case VIZ_CELL_EXPOSED: return VIZ_STYLE_EXPOSED;
    case VIZ_CELL_HOST: return VIZ_STYLE_HOST;
    default: return VIZ_STYLE_NORMAL;
    }
}

const char *viz_cell_name(int kind) {
    switch (kind) {
    case VIZ_CELL_FORWARD: return "forward";
    case VIZ_CELL_BACKWARD: return "backward";
    case VIZ_CELL_OPTIMIZER: return "optimizer";
    case VIZ_CELL_OTHER: return "other";
    case VIZ_CELL_COMM: return "comm (overlapped)";
    case VIZ_CELL_EXPOSED: return "comm (exposed)";
    case VIZ_CELL_HOST: return "host copy";
    default: return "idle";
    }
}
