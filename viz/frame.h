// viz/frame.h: one frame of an interactive view without a terminal: the
// scene at a player's cursor, laid out on w x h cells and drawn onto a
// canvas. The ncurses view shows it full screen; the lesson player draws
// it embedded in a part of its own screen (viz_frame_draw_embed), beside
// the narrative and the questions, and copies it in with viz_canvas_blit.
//
//   VizFrame f;
//   viz_frame_init(&f);
//   viz_frame_draw(&f, model, &player, 120, 40, 1, NULL);   // f.canvas: 120 x 40
//   ...
//   viz_frame_free(&f);
#ifndef DDPLAB_VIZ_FRAME_H
#define DDPLAB_VIZ_FRAME_H

#include "base/status.h" // defines: SimStatus
#include "canvas.h"      // defines: VizCanvas
#include "layout.h"      // defines: VizLayout
#include "player.h"      // defines: VizPlayer
#include "scene.h"       // defines: VizModel, VizScene

typedef struct {
    VizScene *scene;     // for the model it was made for (NULL until then)
    const VizModel *scene_model;
    VizCanvas canvas;    // w x h of the last frame
    VizLayout layout;
    int timeline_cols;   // the lane width the last layout chose (the next
                         // scene is built for it; 0 until the first layout)
    int ok;              // 0: the last frame was too small (layout.why says so)
    char status[256];    // the player's status line of the last frame
} VizFrame;

void viz_frame_init(VizFrame *f);
void viz_frame_free(VizFrame *f);
// Draws the frame for p's cursor on m (m NULL: a live run before its
// first event, drawn as a waiting message) at w x h, with the status line
// and the narrative panel (lesson text, may be NULL). On a grid under
// VIZ_MIN_W x VIZ_MIN_H the canvas holds only the centred "needs at least
// 80x24" message and f->ok is 0. SIM_ENOMEM; SIM_EINVAL for w or h < 1.
SimStatus viz_frame_draw(VizFrame *f, VizModel *m, const VizPlayer *p, int w, int h,
                         int unicode, const char *lesson);
// The same for a view embedded in a host's screen: no status line and no
// narrative (the host draws its own), laid out by viz_layout_embed down to
// VIZ_EMBED_MIN_W x VIZ_EMBED_MIN_H.
SimStatus viz_frame_draw_embed(VizFrame *f, VizModel *m, const VizPlayer *p, int w, int h,
                               int unicode);
// Centres one line of text (cut to the width) on a blank canvas.
void viz_frame_message(VizCanvas *c, const char *text);

#endif
