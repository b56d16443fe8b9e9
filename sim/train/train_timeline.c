// sim/train/train_timeline.c: every rank's place on the simulated timeline,
// carried by a checkpoint so that a resumed run's clock goes on exactly where
// the saved run's was.
//
// The tensors and the loop's counters make a resumed run compute the same
// numbers; what makes it take the same simulated time, and leave the same
// trace and metrics, is state no tensor holds, on every rank:
//   the engine's      each stream's clock, the end of the last host step,
//                     the collectives' and messages' sequence numbers, the
//                     memory ledger's peaks, the injected faults that have
//                     shown their event (sim/engine/timeline.h)
//   the trainer's     its own faults that have shown theirs
//   the loader's      the DataLoader iterator: its workers' progress and the
//                     prefetches in flight (sim/data/data_stage.h)
//   the strategy's    SimStrategyOps.timeline_write (DDP: its bucket rebuild
//                     and iteration count)
// Each rank writes its record as one line of named numbers
// (sim/base/record.h) just before a save; rank 0 gathers them off the
// clock (sim_gather_untimed) and the checkpoint keeps them in its metadata:
//   "timeline"      "version=1 ranks=R strategy=NAME"
//   "timeline.<k>"  rank k's record
// Metadata rather than a tensor: `ddplab compare` compares tensors, and two
// runs on other hardware or algorithms have other clocks but may well hold
// the same weights.
//
// The record is taken before the save does anything: it is the end of the
// checkpoint's step as the run that was never stopped saw it. A save that
// works on the simulated clock (FSDP and ZeRO gather or agree, layer-owner
// sends modules to rank 0) is part of the run that made it; a resumed run
// whose --save-every would have saved at that very step replays the save's
// simulated work, files aside (the strategy's save with path NULL), so
// that it goes on where the uninterrupted run went on after saving.
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/comm.h"     // defines: sim_gather_untimed
#include "engine/timeline.h" // defines: SimRankTimeline
#include "train/train_internal.h"

#define TIMELINE_VERSION 1

static const char *strategy_name(const SimTrainConfig *c) {
    return c->strategy ? c->strategy->name : "single";
}

void train_timeline_free(SimTrainer *t) {
    for (int k = 0; t->timeline && k < t->timeline_n; k++)
        free(t->timeline[k]);
    free(t->timeline);
    free(t->resume_timeline);
    t->timeline = NULL;
    t->timeline_n = 0;
    t->resume_timeline = NULL;
}

// This rank's record now.
static char *record(SimTrainer *t, SimRank *r) {
    const SimTrainConfig *c = t->cfg;
    SimRecOut o;
    sim_rec_out_init(&o);
    sim_rank_timeline_write(r, &o);
    sim_rec_i64(&o, "train_faults_shown", t->faults_shown);
    sim_data_stage_write(&t->data_stage, &c->data.stage, &o);
    if (c->strategy && c->strategy->timeline_write)
        c->strategy->timeline_write(t->strategy, r, &o);
    return sim_rec_take(&o);
}

SimStatus train_timeline_collect(SimTrainer *t, SimRank *r) {
    int R = r->world->cfg.nranks;
    train_timeline_free(t);
    t->timeline_sim = r->clock[SIM_STREAM_COMPUTE];
    char *mine = record(t, r);
    if (mine == NULL)
        return sim_train_fail(t, 0, SIM_ENOMEM, "--save: out of memory");
    // the longest record sizes the gather, which every rank must agree on
    int64_t len = (int64_t)strlen(mine) + 1, *lens = calloc((size_t)R, sizeof *lens);
    SimStatus st = lens ? sim_all_gather_untimed(r, &len, lens, sizeof len) : SIM_ENOMEM;
    size_t most = 0;
    for (int k = 0; st == SIM_OK && k < R; k++)
        if (lens[k] > 0 && (size_t)lens[k] > most)
            most = (size_t)lens[k];
    char *mine_padded = st == SIM_OK ? calloc(most + 1, 1) : NULL;
    char *all = st == SIM_OK && r->rank == 0 ? calloc((size_t)R, most + 1) : NULL;
    if (st == SIM_OK && (!mine_padded || (r->rank == 0 && !all)))
        st = SIM_ENOMEM;
    if (st == SIM_OK) {
        memcpy(mine_padded, mine, (size_t)len);
        st = sim_gather_untimed(r, mine_padded, all, most);
    }
    if (st == SIM_OK && r->rank == 0) {
        t->timeline = calloc((size_t)R, sizeof *t->timeline);
        for (int k = 0; t->timeline && k < R; k++) {
            const char *rec = all + (size_t)k * most;
            t->timeline[k] = strndup(rec, most);
            if (t->timeline[k] == NULL)
                st = SIM_ENOMEM;
        }
        if (t->timeline == NULL)
            st = SIM_ENOMEM;
        t->timeline_n = R;
    }
    free(mine);
    free(mine_padded);
    free(all);
    free(lens);
    if (st != SIM_OK) {
        train_timeline_free(t);
        return st == SIM_ENOMEM ? sim_train_fail(t, 0, st, "--save: out of memory")
                                : sim_train_fail(t, 0, st, "--save: %s", r->error);
    }
    return SIM_OK;
}

// ----------------------------------------------------------------------------
// in the checkpoint

int train_timeline_meta_count(const SimTrainer *t) {
    return t->timeline ? t->timeline_n + 1 : 0;
}

void train_timeline_meta(const SimTrainer *t, SimStMeta *meta, char (*keys)[32], char *header,
                         size_t header_len) {
    snprintf(header, header_len, "version=%d ranks=%d strategy=%s", TIMELINE_VERSION,
             t->timeline_n, strategy_name(t->cfg));
    meta[0] = (SimStMeta){"timeline", header};
    for (int k = 0; k < t->timeline_n; k++) {
        snprintf(keys[k], sizeof keys[k], "timeline.%d", k);
        meta[k + 1] = (SimStMeta){keys[k], t->timeline[k]};
    }
}

double train_timeline_sim_time(const SimTrainer *t, const SimRank *r) {
    return t->timeline ? t->timeline_sim : r->clock[SIM_STREAM_COMPUTE];
}

void train_timeline_read(const SimTrainer *t, const SimCkpt *c, SimTrainScalars *s) {
    const SimRank *r = t->rank;
    int R = r->world->cfg.nranks;
    const char *hdr = sim_ckpt_meta(c, "timeline");
    const char *name = strategy_name(t->cfg);
    int version = 0, ranks = 0;
    char saved[32] = "";
    if (hdr == NULL) {
        snprintf(s->timeline_note, sizeof s->timeline_note,
                 "%.200s holds no timeline (an older ddplab wrote it, or async-ps's "
                 "servers): every rank's clock "
                 "resumes at the saved %.9g s; the memory peak, the collectives' numbering, "
                 "DDP's bucket rebuild and the loader's warm-up start afresh, so sim_s, "
                 "mem_peak_bytes and the trace may differ a little from the uninterrupted "
                 "run's (losses and weights do not)", c->path, s->sim_time);
        return;
    }
    if (sscanf(hdr, "version=%d ranks=%d strategy=%31s", &version, &ranks, saved) != 3 ||
        version != TIMELINE_VERSION || ranks != R || strcmp(saved, name) != 0) {
        snprintf(s->timeline_note, sizeof s->timeline_note,
                 "%.200s holds the timeline of %s (version %d) on %d rank%s; this run is %s "
                 "(version %d) on %d: every rank's clock resumes at the saved %.9g s and the "
                 "rest of the timeline starts afresh, so sim_s, mem_peak_bytes and the trace "
                 "are not those of an uninterrupted run", c->path, saved[0] ? saved : "?",
                 version, ranks, ranks == 1 ? "" : "s", name, TIMELINE_VERSION, R, s->sim_time);
        return;
    }
    char key[32];
    snprintf(key, sizeof key, "timeline.%d", r->rank);
    const char *rec = sim_ckpt_meta(c, key);
    s->timeline = rec ? strdup(rec) : NULL;
    s->timeline_missing = rec == NULL ? 1 : s->timeline == NULL ? 2 : 0; // 2: out of memory
}

// ----------------------------------------------------------------------------
// resuming

// A save the uninterrupted run made at this step (--save-every), replayed
// for its simulated work alone.
static SimStatus replay_save(SimTrainer *t, SimRank *r) {
    const SimTrainConfig *c = t->cfg;
    const SimTrainCkpt *k = &c->ckpt;
    if (!(k->save_path && k->save_every > 0 && t->step > 0 && t->step % k->save_every == 0 &&
          t->step < train_end_step(c) && c->strategy && c->strategy->save))
        return SIM_OK; // rank 0's write of a replicated model takes no simulated time
    SimStatus st = c->strategy->save(t->strategy, r, t, NULL);
    if (st != SIM_OK && !t->error[0])
        return sim_train_fail(t, 0, st, "--resume: replaying the save of step %" PRId64 ": %s",
                              t->step, r->error);
    return st;
}

static SimStatus corrupt(SimTrainer *t, int rank) {
    return sim_train_fail(t, 1, SIM_EFORMAT, "--resume: %s: corrupt metadata: rank %d's "
                          "timeline does not read back", t->cfg->ckpt.resume_path, rank);
}

// This rank's record, read: the engine's and the loader's parts into tl and
// ds, the strategy's onto the strategy (it makes no collective call, so the
// rank's numbering is still set-up's). SIM_OK; SIM_EFORMAT when it does not
// read back; another status, with r->error, when the strategy cannot
// rebuild what it describes.
static SimStatus read_record(SimTrainer *t, SimRank *r, SimRankTimeline *tl,
                             SimDataStageState *ds, uint32_t *shown) {
    const SimTrainConfig *c = t->cfg;
    SimRecIn in;
    sim_rec_in_init(&in, t->resume_timeline);
    if (sim_rank_timeline_read(tl, &in, r->world->cfg.nranks) != 0)
        return SIM_EFORMAT;
    int64_t faults = sim_rec_get_i64(&in, "train_faults_shown");
    if (faults < 0 || faults > (int64_t)UINT32_MAX)
        in.bad = 1;
    *shown = (uint32_t)faults;
    if (in.bad || sim_data_stage_read(ds, &c->data.stage, &in) != 0)
        return SIM_EFORMAT;
    // The strategy's part before the clocks move on: what it rebuilds
    // (DDP's buckets) is allocated and traced at set-up time.
    SimStatus st = SIM_OK;
    if (c->strategy && c->strategy->timeline_read)
        st = c->strategy->timeline_read(t->strategy, r, &in);
    if (st == SIM_OK && sim_rec_end(&in) != 0)
        st = SIM_EFORMAT;
    return st;
}

SimStatus train_timeline_resume(SimTrainer *t, SimRank *r) {
    int R = r->world->cfg.nranks;
    if (!t->resumed)
        return SIM_OK;
    if (t->resume_timeline == NULL && !t->resume_timeline_missing) {
        // nothing exact to go on (the same on every rank: one header)
        for (int k = 0; k < SIM_STREAM_COUNT; k++)
            r->clock[k] = t->resume_sim;
        return SIM_OK;
    }
    SimRankTimeline tl;
    SimDataStageState ds;
    uint32_t shown = 0;
    memset(&tl, 0, sizeof tl);
    memset(&ds, 0, sizeof ds);
    int64_t mine = t->resume_timeline           ? read_record(t, r, &tl, &ds, &shown)
                   : t->resume_timeline_missing == 2 ? SIM_ENOMEM
                                                     : SIM_EFORMAT;
    free(t->resume_timeline);
    t->resume_timeline = NULL;
    // Every rank learns how the others fared, off the clock and before any
    // rank's numbering moves on, so that a record that fails on one rank
    // fails them all here rather than leave the others waiting for it in
    // their first collective.
    int64_t *all = calloc((size_t)R, sizeof *all);
    SimStatus st = all ? sim_all_gather_untimed(r, &mine, all, sizeof mine) : SIM_ENOMEM;
    int failed = -1;
    for (int k = 0; st == SIM_OK && k < R && failed < 0; k++)
        if (all[k] != SIM_OK)
            failed = k;
    SimStatus why = failed >= 0 ? (SimStatus)all[failed] : SIM_OK;
    free(all);
    if (st != SIM_OK || failed >= 0) {
        sim_rank_timeline_free(&tl);
        sim_data_stage_free(&ds);
    }
    if (st != SIM_OK)
        return sim_train_fail(t, 0, st, "--resume: %s", r->error);
    if (why == SIM_EFORMAT)
        return corrupt(t, failed);
    if (failed == r->rank)
        return sim_train_fail(t, 0, why, "--resume: %s", r->error);
    if (failed >= 0)
        return sim_train_fail(t, 0, why, "--resume: rank %d could not take up its timeline: %s",
                              failed, sim_strerror(why));
    sim_rank_timeline_apply(r, &tl);
    t->faults_shown = shown;
    sim_data_stage_free(&t->data_stage);
    t->data_stage = ds;
    return replay_save(t, r);
}
