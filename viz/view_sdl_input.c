// viz/view_sdl_input.c: the SDL2 window's input. Keys reach the player
// (player.h): printable ones as text, so the keyboard layout decides what
// '+' or '?' is; arrows, Home, End, Enter, Backspace and Escape as key
// presses, mapped to the player's codes (Page Up / Page Down step by
// iteration); s saves the frame. The mouse selects a rank (its box, or its
// node in the collective diagram), scrubs the timeline (click or drag: the
// cursor goes to the first event of the instant nearest that column's
// time), and its wheel steps events.
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

// The first event of the instant nearest time t (seconds on the scene's
// clock) among the first n events.
static size_t nearest_event(const VizTrace *tr, size_t n, double t, int use_wall) {
    const SimEvent *ev = tr->ev;
    if (use_wall) { // wall times are not sorted: look at every event
        size_t best = 0;
        double bd = INFINITY;
        for (size_t k = 0; k < n; k++) {
            double d = fabs(ev[k].wall_start - t);
            if (d < bd) {
                bd = d;
                best = k;
            }
        }
        return best;
    }
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ev[mid].sim_start < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == n || (lo > 0 && t - ev[lo - 1].sim_start < ev[lo].sim_start - t)) {
        // The earlier instant is nearer: go to its first event.
        double te = ev[lo - 1].sim_start;
        for (lo = lo - 1; lo > 0 && ev[lo - 1].sim_start == te; lo--)
            ;
    }
    return lo;
}

static void scrub(VizSdlApp *a, int col) {
    const VizScene *s = a->view.scene;
    if (s == NULL || !a->player_ready)
        return;
    const VizTimeline *tl = &s->timeline;
    if (tl->ncols <= 0 || !(tl->t1 > tl->t0))
        return;
    col = col < 0 ? 0 : col >= tl->ncols ? tl->ncols - 1 : col;
    double t = tl->t0 + (col + 0.5) * (tl->t1 - tl->t0) / tl->ncols;
    size_t n = a->player.available;
    size_t count = viz_model_count(a->src->model);
    n = n < count ? n : count;
    if (n == 0)
        return;
    a->player.pos = (double)nearest_event(viz_model_trace(a->src->model), n, t,
                                          a->player.use_wall);
    a->player.playing = 0;
    a->dirty = 1;
}

static void click(VizSdlApp *a, int wx, int wy, int drag) {
    const VizSdlView *v = &a->view;
    int cx, cy;
    if (!a->player_ready || !v->have_frame || !v->layout.ok)
        return;
    int px = (int)lroundf(wx * a->scale), py = (int)lroundf(wy * a->scale);
    if (!viz_sdl_view_cell_at(v, px, py, &cx, &cy)) {
        if (!drag)
            return;
        cx = px < 0 ? 0 : v->cols - 1;
    }
    const VizLayout *l = &v->layout;
    if (drag) {
        scrub(a, cx - l->timeline_x);
        return;
    }
    if (in_rect(l->timeline, cx, cy) && cx >= l->timeline_x) {
        a->dragging = 1;
        scrub(a, cx - l->timeline_x);
        return;
    }
    int rank = -1;
    for (int k = 0; k < l->nboxes && rank < 0; k++)
        if (in_rect(l->box[k], cx, cy))
            rank = l->first_box + k;
    for (int k = 0; k < l->nnodes && rank < 0; k++)
        if (in_rect(l->node[k], cx, cy))
            rank = l->first_node + k;
    if (rank >= 0 && rank < a->player.nranks) {
        a->player.selected_rank = rank;
        a->dirty = 1;
    }
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
        a->view.cells_ok = 0;
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
            click(a, e->button.x, e->button.y, 0);
        break;
    case SDL_MOUSEMOTION:
        if (a->dragging && (e->motion.state & SDL_BUTTON_LMASK))
            click(a, e->motion.x, e->motion.y, 1);
        break;
    case SDL_MOUSEBUTTONUP:
        if (e->button.button == SDL_BUTTON_LEFT)
            a->dragging = 0;
        break;
    case SDL_MOUSEWHEEL:
        if (e->wheel.y != 0)
            player_key(a, e->wheel.y < 0 ? 'n' : 'p');
        break;
    default:
        break;
    }
}
