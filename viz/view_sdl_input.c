// viz/view_sdl_input.c: the SDL2 window's input. Keys reach the player
// (player.h): printable ones as text, so the keyboard layout decides what
// '+' or '?' is; arrows, Home, End, Enter, Backspace and Escape as key
// presses, mapped to the player's codes (Page Up / Page Down step by
// iteration); s saves the frame. The mouse selects a rank (its box, or its
// node in the collective diagram); a click on the timeline moves the cursor
// to the event at that time on that lane, a drag pans the timeline, and the
// wheel zooms it (elsewhere the wheel steps events).
#include "view_sdl_internal.h"

#include <math.h>

int viz_sdl_key(SDL_Keycode sym) {
    switch (sym) {
    case SDLK_LEFT: return VIZ_KEY_LEFT;
    case SDLK_RIGHT: return VIZ_KEY_RIGHT;
    case SDLK_UP: return VIZ_KEY_UP;
    case SDLK_DOWN: return VIZ_KEY_DOWN;
    case SDLK_HOME: return VIZ_KEY_HOME;
    case SDLK_END: return VIZ_KEY_END;
    case SDLK_RETURN:
    case SDLK_KP_ENTER: return VIZ_KEY_ENTER;
    case SDLK_BACKSPACE: return VIZ_KEY_BACKSPACE;
    case SDLK_ESCAPE: return VIZ_KEY_ESCAPE;
    case SDLK_PAGEDOWN: return 'N';
    case SDLK_PAGEUP: return 'P';
    default: return 0;
    }
}

static void player_key(VizSdlApp *a, int key) {
    if (!a->player_ready)
        return;
    viz_player_key(&a->player, a->src->model, key);
    if (a->player.quit)
        a->quit = 1;
    a->dirty = 1;
}

static int in_rect(VizRect r, int x, int y) {
    return r.w > 0 && r.h > 0 && x >= r.x && x < r.x + r.w && y >= r.y && y < r.y + r.h;
}

static int in_box(VizBox b, double x, double y) {
    return b.w > 0 && b.h > 0 && x >= b.x && x < b.x + b.w && y >= b.y && y < b.y + b.h;
}

// The first event of the instant at or before event k (events of one
// instant share their start).
static size_t instant_start(const SimEvent *ev, size_t k, int use_wall) {
    if (use_wall)
        return k;
    while (k > 0 && ev[k - 1].sim_start == ev[k].sim_start)
        k--;
    return k;
}

size_t viz_sdl_event_near(const VizTrace *tr, size_t n, double t, int rank, int use_wall) {
    const SimEvent *ev = tr->ev;
    n = n < tr->n ? n : tr->n;
    if (n == 0)
        return 0;
    size_t best = SIZE_MAX;
    double bd = INFINITY;
    if (!use_wall && rank < 0) { // sorted by start: a binary search
        size_t lo = 0, hi = n;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (ev[mid].sim_start < t)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo == n || (lo > 0 && t - ev[lo - 1].sim_start < ev[lo].sim_start - t))
            lo--;
        return instant_start(ev, lo, 0);
    }
    // a lane: the event of that rank whose span holds t, else the nearest start
    for (size_t k = 0; k < n; k++) {
        if (rank >= 0 && ev[k].rank != rank)
            continue;
        double t0 = use_wall ? ev[k].wall_start : ev[k].sim_start;
        double t1 = use_wall ? ev[k].wall_end : ev[k].sim_end;
        double d = t >= t0 && t <= t1 ? 0 : fabs(t0 - t);
        if (d < bd) { // the first of equals: the earliest event there
            bd = d;
            best = k;
        }
    }
    if (best == SIZE_MAX)
        return viz_sdl_event_near(tr, n, t, -1, use_wall);
    return best;
}

static size_t shown_events(const VizSdlApp *a) {
    size_t n = a->player.available, count = viz_model_count(a->src->model);
    return n < count ? n : count;
}

// The output pixel under window coordinates (HiDPI: scaled).
static void to_px(const VizSdlApp *a, int wx, int wy, double *x, double *y) {
    *x = wx * a->scale;
    *y = wy * a->scale;
}

static VizBox timeline_box(const VizSdlApp *a) {
    return viz_paint_box(&a->view.paint, a->view.layout.timeline);
}

// A click on the timeline: the cursor goes to the event on that lane at
// that time (any rank's event between lanes, on the axis).
static int timeline_click(VizSdlApp *a, double x, double y) {
    const VizSdlView *v = &a->view;
    double t;
    int rank;
    if (!viz_paint_timeline_at(&v->paint, v->scene, timeline_box(a), x, y, &t, &rank))
        return 0;
    size_t n = shown_events(a);
    if (n == 0)
        return 1;
    a->player.pos = (double)viz_sdl_event_near(viz_model_trace(a->src->model), n, t, rank,
                                              a->player.use_wall);
    a->player.playing = 0;
    if (rank >= 0)
        a->player.selected_rank = rank;
    a->dirty = 1;
    return 1;
}

// Dragging the timeline pans it: the window stays centred on the cursor,
// so the cursor moves the other way by the time the mouse covered.
static void timeline_drag(VizSdlApp *a, double x) {
    const VizSdlView *v = &a->view;
    const VizTimeline *tl = &v->scene->timeline;
    VizBox l = viz_paint_timeline_lanes(&v->paint, v->scene, timeline_box(a));
    double dx = x - a->drag_x;
    if (l.w <= 0 || !(tl->t1 > tl->t0) || fabs(dx) < 1)
        return;
    a->drag_x = x;
    size_t n = shown_events(a);
    if (n == 0)
        return;
    const VizTrace *tr = viz_model_trace(a->src->model);
    size_t i = viz_player_index(&a->player);
    double now = i < n ? (a->player.use_wall ? tr->ev[i].wall_start : tr->ev[i].sim_start) : 0;
    double t = now - dx / l.w * (tl->t1 - tl->t0);
    size_t k = viz_sdl_event_near(tr, n, t, -1, a->player.use_wall);
    if (k == i) // too small a move to reach another instant: step towards it
        k = dx < 0 ? (i + 1 < n ? i + 1 : i) : (i > 0 ? i - 1 : 0);
    a->player.pos = (double)k;
    a->player.playing = 0;
    a->dirty = 1;
}

static void click(VizSdlApp *a, int wx, int wy) {
    const VizSdlView *v = &a->view;
    if (!a->player_ready || !v->have_frame || !v->layout.ok)
        return;
    double x, y;
    to_px(a, wx, wy, &x, &y);
    if (in_box(timeline_box(a), x, y)) {
        a->dragging = 1;
        a->drag_x = x;
        timeline_click(a, x, y);
        return;
    }
    int cx, cy;
    const VizLayout *l = &v->layout;
    int rank = -1;
    if (viz_sdl_view_cell_at(v, (int)x, (int)y, &cx, &cy))
        for (int k = 0; k < l->nboxes && rank < 0; k++)
            if (in_rect(l->box[k], cx, cy))
                rank = l->first_box + k;
    if (rank < 0 && in_box(viz_paint_box(&v->paint, l->coll), x, y)) {
        VizBox node[VIZ_LAYOUT_MAX_BOXES];
        VizBox in = viz_paint_coll_area(&v->paint, v->scene, viz_paint_box(&v->paint, l->coll));
        int n = viz_paint_coll_nodes(v->scene, in, node, VIZ_LAYOUT_MAX_BOXES);
        for (int k = 0; k < n && rank < 0; k++)
            if (in_box(node[k], x, y))
                rank = k;
    }
    if (rank >= 0 && rank < a->player.nranks) {
        a->player.selected_rank = rank;
        a->dirty = 1;
    }
}

// The wheel over the timeline zooms it (up: in, a half of the window per
// notch); elsewhere it steps events.
static void wheel(VizSdlApp *a, const SDL_MouseWheelEvent *e) {
    int dy = e->direction == SDL_MOUSEWHEEL_FLIPPED ? -e->y : e->y;
    if (!a->player_ready || dy == 0)
        return;
    int mx = 0, my = 0;
#if SDL_VERSION_ATLEAST(2, 26, 0)
    mx = e->mouseX; // where the wheel turned, not where the mouse is now
    my = e->mouseY;
#else
    SDL_GetMouseState(&mx, &my);
#endif
    double x, y;
    to_px(a, mx, my, &x, &y);
    if (a->view.have_frame && a->view.layout.ok && in_box(timeline_box(a), x, y)) {
        int z = a->player.zoom + (dy > 0 ? 1 : -1);
        a->player.zoom = z < 0 ? 0 : z >= VIZ_ZOOM_LEVELS ? VIZ_ZOOM_LEVELS - 1 : z;
        a->dirty = 1;
        return;
    }
    player_key(a, dy < 0 ? 'n' : 'p');
}

void viz_sdl_app_event(VizSdlApp *a, const SDL_Event *e) {
    switch (e->type) {
    case SDL_QUIT:
        a->quit = 1;
        break;
    case SDL_WINDOWEVENT:
        if (e->window.event == SDL_WINDOWEVENT_SIZE_CHANGED ||
            e->window.event == SDL_WINDOWEVENT_RESIZED)
            viz_sdl_app_resize(a);
        else if (e->window.event == SDL_WINDOWEVENT_EXPOSED ||
                 e->window.event == SDL_WINDOWEVENT_RESTORED)
            a->dirty = 1;
        break;
    case SDL_RENDER_TARGETS_RESET:
    case SDL_RENDER_DEVICE_RESET:
        a->view.uploads = 0; // the texture's pixels are gone: upload again
        a->dirty = 1;
        break;
    case SDL_TEXTINPUT:
        for (const char *c = e->text.text; *c; c++) {
            if ((unsigned char)*c >= 0x80)
                continue;
            if (*c == 's' && !(a->player_ready && a->player.goto_mode)) {
                a->save = 1;
                a->dirty = 1;
            } else {
                player_key(a, *c);
            }
        }
        break;
    case SDL_KEYDOWN: {
        SDL_Keycode sym = e->key.keysym.sym;
        if ((e->key.keysym.mod & KMOD_CTRL) && (sym == SDLK_q || sym == SDLK_w || sym == SDLK_c)) {
            a->quit = 1;
            break;
        }
        int k = viz_sdl_key(sym);
        if (k != 0)
            player_key(a, k);
        break;
    }
    case SDL_MOUSEBUTTONDOWN:
        if (e->button.button == SDL_BUTTON_LEFT)
            click(a, e->button.x, e->button.y);
        break;
    case SDL_MOUSEMOTION:
        if (a->dragging && (e->motion.state & SDL_BUTTON_LMASK) && a->view.have_frame) {
            double x, y;
            to_px(a, e->motion.x, e->motion.y, &x, &y);
            timeline_drag(a, x);
        }
        break;
    case SDL_MOUSEBUTTONUP:
        if (e->button.button == SDL_BUTTON_LEFT)
            a->dragging = 0;
        break;
    case SDL_MOUSEWHEEL:
        wheel(a, &e->wheel);
        break;
    default:
        break;
    }
}
