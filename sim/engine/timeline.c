// sim/engine/timeline.c: a rank's timeline as a record (see timeline.h).
#include "engine/timeline.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void sim_rank_timeline_write(const SimRank *r, SimRecOut *o) {
    int R = r->world->cfg.nranks;
    sim_rec_f64s(o, "clock", r->clock, SIM_STREAM_COUNT);
    sim_rec_f64(o, "host_step_end", r->host_step_end);
    sim_rec_i64(o, "coll_seq", (int64_t)r->coll_seq);
    // Sparse: a rank talks to few peers (its group's neighbours, the
    // controller of DataParallel), and 2R counters a rank would make the
    // record grow with the square of the world.
    int64_t *pairs = r->p2p_seq ? malloc(4 * (size_t)R * sizeof *pairs) : NULL;
    size_t n = 0;
    if (r->p2p_seq && pairs == NULL)
        o->oom = 1;
    for (int i = 0; pairs && i < 2 * R; i++)
        if (r->p2p_seq[i] != 0) {
            pairs[n++] = i;
            pairs[n++] = (int64_t)r->p2p_seq[i];
        }
    sim_rec_i64s(o, "p2p", pairs, n);
    free(pairs);
    sim_rec_i64s(o, "mem_peak", r->mem.peak, SIM_MEM_SPACE_COUNT);
    sim_rec_i64s(o, "mem_at_peak", &r->mem.at_peak[0][0],
                 (size_t)SIM_MEM_SPACE_COUNT * SIM_MEM_CAT_COUNT);
    sim_rec_f64(o, "mem_peak_sim", r->mem.peak_sim);
    sim_rec_i64(o, "fault_shown", r->fault_shown);
}

int sim_rank_timeline_read(SimRankTimeline *tl, SimRecIn *in, int nranks) {
    memset(tl, 0, sizeof *tl);
    sim_rec_get_f64s(in, "clock", tl->clock, SIM_STREAM_COUNT);
    tl->host_step_end = sim_rec_get_f64(in, "host_step_end");
    int64_t seq = sim_rec_get_i64(in, "coll_seq");
    int64_t *pairs = malloc(4 * (size_t)nranks * sizeof *pairs);
    if (pairs == NULL) {
        in->bad = 1;
        return -1;
    }
    size_t n = sim_rec_get_i64s_upto(in, "p2p", pairs, 4 * (size_t)nranks);
    if (n % 2 != 0 || seq < 0)
        in->bad = 1;
    if (!in->bad && n > 0)
        tl->p2p_seq = calloc(2 * (size_t)nranks, sizeof *tl->p2p_seq);
    if (!in->bad && n > 0 && tl->p2p_seq == NULL)
        in->bad = 1;
    for (size_t k = 0; !in->bad && k < n; k += 2) {
        if (pairs[k] < 0 || pairs[k] >= 2 * (int64_t)nranks || pairs[k + 1] < 0)
            in->bad = 1;
        else
            tl->p2p_seq[pairs[k]] = (uint64_t)pairs[k + 1];
    }
    free(pairs);
    tl->coll_seq = (uint64_t)seq;
    sim_rec_get_i64s(in, "mem_peak", tl->peak, SIM_MEM_SPACE_COUNT);
    sim_rec_get_i64s(in, "mem_at_peak", &tl->at_peak[0][0],
                     (size_t)SIM_MEM_SPACE_COUNT * SIM_MEM_CAT_COUNT);
    tl->peak_sim = sim_rec_get_f64(in, "mem_peak_sim");
    int64_t shown = sim_rec_get_i64(in, "fault_shown");
    if (shown < 0 || shown > (int64_t)UINT32_MAX)
        in->bad = 1;
    tl->fault_shown = (uint32_t)shown;
    for (int s = 0; s < SIM_STREAM_COUNT; s++)
        if (!(tl->clock[s] >= 0))
            in->bad = 1; // negative or NaN: no clock a run reaches
    if (in->bad) {
        sim_rank_timeline_free(tl);
        return -1;
    }
    return 0;
}

void sim_rank_timeline_apply(SimRank *r, SimRankTimeline *tl) {
    memcpy(r->clock, tl->clock, sizeof r->clock);
    r->host_step_end = tl->host_step_end;
    r->coll_seq = tl->coll_seq;
    free(r->p2p_seq);
    r->p2p_seq = tl->p2p_seq; // NULL: allocated at the first message, as in a new run
    tl->p2p_seq = NULL;
    memcpy(r->mem.peak, tl->peak, sizeof r->mem.peak);
    memcpy(r->mem.at_peak, tl->at_peak, sizeof r->mem.at_peak);
    r->mem.peak_sim = tl->peak_sim;
    r->fault_shown = tl->fault_shown;
}

void sim_rank_timeline_free(SimRankTimeline *tl) {
    free(tl->p2p_seq);
    tl->p2p_seq = NULL;
}
