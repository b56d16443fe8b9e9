// viz/view_sdl_look.c: the SDL2 view's colours. A dark background; every
// semantic style (canvas.h) gets a glyph colour and a cell background, so
// timeline lanes and phases read as coloured bands and the status line as
// reverse video. The memory categories take the same hues as the memory
// plots' legend order would suggest: parameters blue, gradients orange,
// optimizer state violet, activations green.
#include "view_sdl_internal.h"

#define BG {22, 24, 30}

static const VizSdlLook looks[VIZ_SDL_STYLE_COUNT] = {
    [VIZ_STYLE_NORMAL] = {{214, 218, 226}, BG, 0},
    [VIZ_STYLE_DIM] = {{104, 112, 128}, BG, 0},
    [VIZ_STYLE_TITLE] = {{120, 196, 255}, BG, 1},
    [VIZ_STYLE_SELECTED] = {{255, 216, 110}, {46, 42, 28}, 1},
    [VIZ_STYLE_CURSOR] = {{255, 236, 120}, {82, 74, 30}, 1},
    [VIZ_STYLE_STATUS] = {{20, 22, 28}, {168, 178, 198}, 0},
    [VIZ_STYLE_CAPTION] = {{236, 232, 196}, BG, 0},
    [VIZ_STYLE_WARN] = {{255, 112, 100}, {64, 26, 26}, 1},
    [VIZ_STYLE_FORWARD] = {{96, 172, 255}, {30, 52, 84}, 0},
    [VIZ_STYLE_BACKWARD] = {{255, 156, 76}, {84, 48, 24}, 0},
    [VIZ_STYLE_OPTIMIZER] = {{186, 136, 255}, {56, 40, 84}, 0},
    [VIZ_STYLE_OTHER] = {{170, 170, 176}, {48, 50, 56}, 0},
    [VIZ_STYLE_COMM] = {{84, 214, 144}, {24, 66, 46}, 0},
    [VIZ_STYLE_EXPOSED] = {{255, 92, 92}, {84, 28, 30}, 0},
    [VIZ_STYLE_HOST] = {{232, 204, 92}, {70, 60, 26}, 0},
    [VIZ_STYLE_WAIT] = {{150, 152, 176}, {42, 44, 58}, 0},
    [VIZ_STYLE_FILLING] = {{240, 200, 84}, BG, 0},
    [VIZ_STYLE_REDUCING] = {{84, 200, 255}, BG, 0},
    [VIZ_STYLE_DONE] = {{112, 220, 124}, BG, 0},
    [VIZ_STYLE_GATHERED] = {{204, 144, 255}, BG, 0},
    [VIZ_STYLE_CHUNK] = {{255, 124, 204}, BG, 1},
    [VIZ_STYLE_MEM_FIRST + SIM_MEM_OTHER] = {{150, 156, 168}, BG, 0},
    [VIZ_STYLE_MEM_FIRST + SIM_MEM_PARAM] = {{76, 140, 255}, BG, 0},
    [VIZ_STYLE_MEM_FIRST + SIM_MEM_PARAM_SHARD] = {{64, 208, 232}, BG, 0},
    [VIZ_STYLE_MEM_FIRST + SIM_MEM_PARAM_LOWP] = {{150, 190, 255}, BG, 0},
    [VIZ_STYLE_MEM_FIRST + SIM_MEM_GRAD] = {{255, 140, 60}, BG, 0},
    [VIZ_STYLE_MEM_FIRST + SIM_MEM_GRAD_SHARD] = {{255, 200, 90}, BG, 0},
    [VIZ_STYLE_MEM_FIRST + SIM_MEM_OPTIM] = {{176, 112, 255}, BG, 0},
    [VIZ_STYLE_MEM_FIRST + SIM_MEM_ACT] = {{96, 212, 110}, BG, 0},
    [VIZ_STYLE_MEM_FIRST + SIM_MEM_COMM] = {{255, 110, 180}, BG, 0},
    [VIZ_STYLE_MEM_FIRST + SIM_MEM_BACKING] = {{90, 96, 108}, BG, 0},
    [VIZ_SDL_STYLE_ON_CHUNK] = {{16, 18, 24}, BG, 1},
};

const VizSdlLook *viz_sdl_look(int st) {
    if (st < 0 || st >= VIZ_SDL_STYLE_COUNT)
        st = VIZ_STYLE_NORMAL;
    return &looks[st];
}

VizSdlRgb viz_sdl_background(void) {
    return looks[VIZ_STYLE_NORMAL].bg;
}

VizSdlRgb viz_sdl_chunk_colour(int c) {
    static const VizSdlRgb chunk[8] = {
        {255, 120, 200}, {255, 196, 64}, {96, 224, 255}, {140, 240, 120},
        {255, 128, 96},  {184, 148, 255}, {255, 240, 150}, {120, 176, 255},
    };
    return chunk[(c % 8 + 8) % 8];
}
