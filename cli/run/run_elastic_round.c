// cli/run/run_elastic_round.c: what one elastic round adds to run_once
// (cli/run/run.c): stopping the world before a membership change, recording how
// far it got and who crashed, and moving its events into the run's one
// trace on the combined clock (cli/run/run_elastic.h).
#include "run/run.h"

#include <stdlib.h>
#include <string.h>

#include "core/cli.h"          // defines: CLI_EXIT_*
#include "run/run_elastic.h"   // defines: RunElasticRound
#include "trace/trace_merge.h" // defines: sim_trace_absorb

static void el_on_step(void *arg, int rank, const SimStepStats *s) {
    RunElasticRound *er = arg;
    if (er->prev_on_step)
        er->prev_on_step(er->prev_on_step_arg, rank, s);
    if (rank != 0)
        return;
    er->last_step = s->step;
    if (s->step >= 0 && s->step <= er->nsteps)
        er->step_sim[s->step] = s->sim_s;
    // the joiners arrive during this step: every rank stops before the next
    if (er->stop_before > 0 && s->step + 1 >= er->stop_before)
        atomic_store(&er->stop, 1);
}

static int el_should_stop(void *arg) {
    RunElasticRound *er = arg;
    if (er->prev_should_stop && er->prev_should_stop(er->prev_should_stop_arg))
        return 1;
    return atomic_load(&er->stop);
}

void run_elastic_round_begin(RunElasticRound *er, SimTrainConfig *c) {
    er->prev_on_step = c->hooks.on_step;
    er->prev_on_step_arg = c->hooks.on_step_arg;
    er->prev_should_stop = c->hooks.should_stop;
    er->prev_should_stop_arg = c->hooks.should_stop_arg;
    c->hooks.on_step = el_on_step;
    c->hooks.on_step_arg = er;
    c->hooks.should_stop = el_should_stop;
    c->hooks.should_stop_arg = er;
}

SimStatus run_elastic_round_end(RunElasticRound *er, const SimWorld *w, const SimTrainer *t,
                                SimStatus st) {
    int n = w->cfg.nranks;
    er->nranks = n;
    er->end_sim = 0;
    int all_stopped = 1;
    for (int r = 0; r < n && r < SIM_ELASTIC_MAX; r++) {
        double now = sim_rank_now(&w->ranks[r]);
        if (now > er->end_sim)
            er->end_sim = now;
        er->crashed[r] = strstr(t[r].error, "crashed (injected fault") != NULL;
        if (t[r].step + 1 < er->stop_before)
            all_stopped = 0;
    }
    er->stopped = atomic_load(&er->stop) && all_stopped && st != SIM_OK;
    // The agent decides whether it becomes the run's --diagnosis file: only
    // if the run fails in the end, since a restart recovers from it.
    const char *d = sim_world_diagnosis(w);
    if (!er->stopped && run_diag_is_diagnosed(st) && d[0] != '\0') {
        size_t len = strlen(d) + 1;
        er->diagnosis = malloc(len);
        if (er->diagnosis)
            memcpy(er->diagnosis, d, len);
    }
    return er->stopped ? SIM_OK : st;
}

int run_elastic_round_trace(RunElasticRound *er, const SimWorld *w) {
    if (er->combined == NULL || w->trace == NULL)
        return CLI_EXIT_OK;
    SimTraceInfo info = *sim_trace_info(w->trace);
    char title[sizeof info.title];
    snprintf(title, sizeof title, "elastic (last world) %.130s", info.title);
    memcpy(info.title, title, sizeof title);
    sim_trace_set_info(er->combined, &info);
    er->start_sim = -1;
    for (int r = 0; r < sim_trace_nranks(w->trace); r++) {
        size_t k = sim_trace_rank_count(w->trace, r);
        const SimEvent *src = sim_trace_rank_events(w->trace, r);
        SimEvent *ev = malloc((k ? k : 1) * sizeof *ev);
        if (ev == NULL)
            return CLI_EXIT_INTERNAL;
        for (size_t i = 0; i < k; i++) {
            ev[i] = src[i];
            if (er->start_sim < 0 || ev[i].sim_start < er->start_sim)
                er->start_sim = ev[i].sim_start;
            ev[i].sim_start += er->offset_s;
            ev[i].sim_end += er->offset_s;
            if (ev[i].wall_end > er->wall_end)
                er->wall_end = ev[i].wall_end;
            ev[i].wall_start += er->wall_offset_s;
            ev[i].wall_end += er->wall_offset_s;
        }
        SimStatus st = sim_trace_absorb(er->combined, ev, k);
        free(ev);
        if (st != SIM_OK) {
            run_error("--trace: cannot keep the round's events: %s", sim_strerror(st));
            return CLI_EXIT_INTERNAL;
        }
        er->events += k;
    }
    if (sim_trace_dropped(w->trace) > 0)
        sim_trace_add_dropped(er->combined, 0, sim_trace_dropped(w->trace));
    return CLI_EXIT_OK;
}
