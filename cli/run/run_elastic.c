// cli/run/run_elastic.c: `ddplab run --elastic MIN:MAX`, elastic training with
// restarts from the last checkpoint, in torchrun's vocabulary. The agent:
//
//   round 0: the -n ranks join the rendezvous (sim/strategy/elastic.h); it freezes
//   loop:
//     run one world (run_once, cli/run/run_once.c) at the round's size, from the
//       last checkpoint (--resume of the rank-0 file, or FSDP's sharded
//       index, resharded on load), with the fault plan carried over
//     it ends: training finished -> FINAL, done
//       a rank crashed or left (--fault crash, --membership leave): the
//         others' watchdog diagnosed it (exit 3 from the world); every
//         worker stopped; the dead rank's participant is gone; a restart
//         (counted against --max-restarts)
//       ranks asked to join (--membership join): the world stopped before
//         that step, as torchrun's agent stops its workers when nodes wait
//         (a membership change, not counted as a restart)
//     next round: survivors in their old rank order, then waiting joiners,
//       up to MAX; fewer than MIN: the run stops
//
// A crashed rank is taken as its node lost (torchrun would also restart a
// crashed worker on a healthy node; ddplab's simulated ranks are one per
// node, so the crash stands for the node going away).
//
// Simulated time: the worlds' traces become one, each round shifted so
// that it starts where the last one ended plus the rendezvous (which waits
// out the last call, 30 simulated seconds, as torch's dynamic rendezvous
// does by default, unless MAX ranks are in).
#include "run/run.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/cli.h"            // defines: CLI_EXIT_*
#include "formats/safetensors.h" // defines: SimStFile
#include "model/lr_schedule.h"   // defines: sim_lr_scaled
#include "run/run_elastic.h"     // defines: RunElasticRound
#include "run/run_opts.h"        // defines: run_elastic_rows
#include "strategy/elastic.h"    // defines: SimRdzv, SimMemberEvent
#include "trace/trace_merge.h"   // defines: sim_trace_absorb

#define EL_LAST_CALL_S 30.0  // torch's dynamic rendezvous last_call_timeout default
#define EL_TRACE_CAP 1000000 // events kept per rank in the combined trace

// ----------------------------------------------------------------------------
// options

#define AT(field) .offset = offsetof(RunOptions, field)

// --elastic MIN:MAX with 1 <= MIN <= MAX <= SIM_ELASTIC_MAX.
static int set_elastic(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v,
                       void *dest) {
    RunOptions *o = dest;
    const char *t = v->text, *allowed = "MIN:MAX, whole numbers with 1 <= MIN <= MAX <= 256 "
                                        "(e.g. 2:4)";
    char *end;
    errno = 0;
    long lo = strtol(t, &end, 10), hi = 0;
    if (end == t || *end != ':' || t[0] < '0' || t[0] > '9')
        return cli_optab_fail(cx, row->name, t, "is not MIN:MAX", allowed);
    const char *p = end + 1;
    hi = strtol(p, &end, 10);
    if (end == p || *end != '\0' || p[0] < '0' || p[0] > '9' || errno == ERANGE)
        return cli_optab_fail(cx, row->name, t, "is not MIN:MAX", allowed);
    if (lo < 1)
        return cli_optab_fail(cx, row->name, t, "has MIN below 1", allowed);
    if (lo > hi)
        return cli_optab_fail(cx, row->name, t, "has MIN above MAX", allowed);
    if (hi > SIM_ELASTIC_MAX)
        return cli_optab_fail(cx, row->name, t, "has MAX above 256", allowed);
    o->elastic_min = (int)lo;
    o->elastic_max = (int)hi;
    return 0;
}

// The first --max-restarts or --membership given, and its value: they need
// --elastic (run_elastic_check).
static int note_elastic(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v,
                        void *dest) {
    (void)cx;
    RunOptions *o = dest;
    if (o->elastic_flag == NULL) {
        o->elastic_flag = row->name;
        o->elastic_value = v->text;
    }
    return 0;
}

// --membership SPEC, repeatable.
static int add_membership(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v,
                          void *dest) {
    RunOptions *o = dest;
    char err[256];
    note_elastic(cx, row, v, dest);
    SimMemberEvent ev;
    if (sim_member_parse(v->text, &ev, err, sizeof err) != SIM_OK) {
        run_error("--membership: %s", err);
        return -1;
    }
    if (o->nmembership >= SIM_ELASTIC_EVENTS)
        return cli_optab_fail(cx, row->name, v->text, "is one too many",
                              "at most 16 --membership changes");
    o->membership[o->nmembership++] = v->text;
    return 0;
}

static const CliOptRow rows[] = {
    {.name = "elastic", .kind = CLI_OPT_STRING, .metavar = "MIN:MAX", .apply = set_elastic,
     .help = "elastic training (torchrun --nnodes MIN:MAX):\n"
             "after a crashed or departed rank the others\n"
             "stop, re-form the world at the surviving size\n"
             "(at least MIN, at most MAX ranks) and resume\n"
             "from the last checkpoint (--save, --save-every)"},
    {.name = "max-restarts", .kind = CLI_OPT_INT, .metavar = "N", .lo = 0, .hi = 1000,
     .deflt = "3", .apply = note_elastic, .store = CLI_STORE_INT, AT(max_restarts),
     .help = "--elastic: restarts allowed before the run\n"
             "gives up (torchrun --max-restarts); crashes\n"
             "and leaves count, joins do not"},
    {.name = "membership", .kind = CLI_OPT_STRING, .metavar = "SPEC", .apply = add_membership,
     .help = "--elastic: a change of the world at a step,\n"
             "repeatable: leave:rank=R,step=S (a node goes\n"
             "away) or join:step=S[,ranks=K] (K ranks ask\n"
             "to join; they enter at the next rendezvous)"},
};

const CliOptRow *run_elastic_rows(int *n) {
    *n = (int)(sizeof rows / sizeof rows[0]);
    return rows;
}

RunParse run_elastic_check(RunOptions *o) {
    char buf[160];
    if (o->elastic_max == 0) {
        if (o->elastic_flag)
            return run_opt_fail(o->elastic_flag, o->elastic_value, "needs --elastic MIN:MAX",
                           "with --elastic, or leave it out");
        return RUN_PARSE_OK;
    }
    snprintf(buf, sizeof buf, "%d:%d", o->elastic_min, o->elastic_max);
    if (o->nranks < o->elastic_min || o->nranks > o->elastic_max) {
        char n[32], allowed[96];
        snprintf(n, sizeof n, "%d", o->nranks);
        snprintf(allowed, sizeof allowed, "-n from %d to %d (the --elastic range)",
                 o->elastic_min, o->elastic_max);
        return run_opt_fail("ranks", n, "is outside --elastic MIN:MAX", allowed);
    }
    if (strcmp(o->strategy, "ddp") != 0 && !run_fsdp_is_strategy(o->strategy))
        return run_opt_fail("strategy", o->strategy,
                       "cannot be combined with --elastic (single and dp are one process: no "
                       "world to re-form)",
                       "ddp, fsdp, zero1, zero2, zero3");
    if (run_fsdp_is_strategy(o->strategy) && o->fsdp.state_dict == SIM_FSDP_SD_LOCAL)
        return run_opt_fail("state-dict", "local",
                       "cannot be combined with --elastic (a local state dict loads only at "
                       "the world size that wrote it)",
                       "sharded (resharded at the new size) or full");
    if (o->save == NULL)
        return run_opt_fail("elastic", buf,
                       "needs checkpoints: a restart resumes from the last one",
                       "--elastic with --save FILE (and --save-every M)");
    if (o->nodes != 1) {
        char n[32];
        snprintf(n, sizeof n, "%d", o->nodes);
        return run_opt_fail("nodes", n, "cannot be combined with --elastic (each rank is a node)",
                       "1 (leave it out)");
    }
    if (o->rendezvous)
        return run_opt_fail("rendezvous", o->rendezvous,
                       "cannot be combined with --elastic (one process runs the rounds)",
                       "leave it out");
    if (cli_viz_wanted(&o->viz))
        return run_opt_fail("elastic", buf,
                       "cannot be combined with a view (a world per round)",
                       "--trace FILE, then 'ddplab replay FILE'");
    int faults = o->faults.n;
    for (int i = 0; i < o->nmembership; i++) {
        SimMemberEvent ev;
        char err[256];
        sim_member_parse(o->membership[i], &ev, err, sizeof err);
        if (ev.kind == SIM_MEMBER_LEAVE && ev.rank >= o->nranks) {
            char allowed[64];
            snprintf(allowed, sizeof allowed, "a rank of the first world, 0 to %d",
                     o->nranks - 1);
            return run_opt_fail("membership", o->membership[i], "names a rank outside -n", allowed);
        }
        faults += ev.kind == SIM_MEMBER_LEAVE;
    }
    if (faults > SIM_FAULT_MAX)
        return run_opt_fail("membership", o->membership[o->nmembership - 1],
                       "makes more than 16 faults and leaves together",
                       "at most 16 --fault and --membership leave specs in all");
    return RUN_PARSE_OK;
}

// ----------------------------------------------------------------------------
// the agent

typedef struct {
    RunOptions *o;
    SimTrainConfig *c;
    SimRdzv z;
    SimMemberEvent ev[SIM_ELASTIC_EVENTS];
    int nev;
    uint8_t ev_done[SIM_ELASTIC_EVENTS];
    uint8_t fired[SIM_FAULT_MAX];   // o->faults.f[i] has fired (crash faults)
    int members[SIM_ELASTIC_MAX];   // the last round's participants, in rank order
    int nmembers;
    int pending[SIM_ELASTIC_MAX];   // joiners waiting, in arrival order
    int npending;
    int next_id;
    SimTrace *trace;                // combined (NULL without --trace)
    double now;                     // simulated time on the combined clock
    double wall;                    // wall time of the rounds before, in the trace
    const char *resume;             // the checkpoint the next round starts from
    int64_t resume_step;
    double resume_sim;              // its simulated time (the round's own clock)
    int restarts;
    char *diagnosis;                // the last failed round's diagnosis (heap; NULL: none)
} ElAgent;

// Adds one "elastic" marker on rank r of the combined trace.
static void el_marker(ElAgent *a, int r, const char *label, double t0, double t1, int64_t step,
                      int world) {
    if (a->trace == NULL || r < 0 || r >= sim_trace_nranks(a->trace))
        return;
    SimEvent ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = SIM_EV_MARKER;
    ev.stream = SIM_STREAM_COMPUTE;
    ev.name = "elastic";
    ev.label = label;
    ev.rank = r;
    ev.sim_start = t0;
    ev.sim_end = t1;
    ev.step = (int32_t)step;
    ev.nsteps = -1;
    ev.chunk = ev.src = ev.dst = -1;
    ev.value = world;
    sim_trace_absorb(a->trace, &ev, 1);
}

// The checkpoint at path: its step and simulated time. 0, or -1 when it
// cannot be read.
static int el_ckpt_step(const char *path, int64_t *step, double *sim) {
    SimStFile f;
    char err[600];
    if (sim_stfile_load(&f, path, err, sizeof err) != SIM_OK)
        return -1;
    const char *s = sim_stfile_meta(&f, "step"), *t = sim_stfile_meta(&f, "sim_time_s");
    int ok = f.checked && s != NULL;
    if (ok) {
        *step = strtoll(s, NULL, 10);
        *sim = t ? strtod(t, NULL) : 0;
    }
    sim_stfile_free(&f);
    return ok ? 0 : -1;
}

static double el_lr(const ElAgent *a, int world) {
    return sim_lr_scaled(&a->c->opt.lr, a->c->opt.optim.lr, world, a->c->loop.accum);
}

// What changes with the new world: effective batch and learning rate.
static void el_report_world(const ElAgent *a, int old_n, int n) {
    const SimTrainConfig *c = a->c;
    printf("elastic: effective batch %d x %d ranks x %d accum = %d samples per step (was %d)\n",
           c->data.batch, n, c->loop.accum, c->data.batch * n * c->loop.accum, c->data.batch * old_n * c->loop.accum);
    double base = c->opt.optim.lr, rule = el_lr(a, old_n) * n / old_n;
    if (c->opt.lr.scale_linear)
        printf("elastic: lr %.6g = %.6g x %d ranks x %d accum (--lr-scale linear, applied: "
               "ddplab recomputes it from the world size at each start, as a script that reads "
               "WORLD_SIZE does; torchrun itself rescales nothing); it was %.6g, x %d/%d\n",
               el_lr(a, n), base, n, c->loop.accum, el_lr(a, old_n), n, old_n);
    else
        printf("elastic: lr %.6g unchanged (torchrun does not rescale, nor does ddplab without "
               "--lr-scale linear); the linear scaling rule would make it %.6g x %d/%d = %.6g\n",
               base, base, n, old_n, rule);
}

// Forms the next round at a->now: survivors (a->members) first, then the
// waiting joiners up to MAX. CLI_EXIT_OK or CLI_EXIT_DIST (fewer than MIN).
static int el_rendezvous(ElAgent *a) {
    SimRdzv *z = &a->z;
    if (z->state == SIM_RDZV_FROZEN)
        sim_rdzv_open(z, a->now);
    for (int i = 0; i < a->nmembers; i++)
        sim_rdzv_join(z, a->members[i], a->now);
    int k = 0;
    while (k < a->npending && sim_rdzv_join(z, a->pending[k], a->now) == 1)
        k++;
    memmove(a->pending, a->pending + k, (size_t)(a->npending - k) * sizeof *a->pending);
    a->npending -= k;
    if (sim_rdzv_settle(z, a->now) != SIM_OK) {
        run_error("--elastic %d:%d: %d rank%s left after round %d, fewer than MIN %d: the run "
                  "stops (the last checkpoint, %s at step %" PRId64 ", resumes it with "
                  "--resume)",
                  z->min, z->max, z->n, z->n == 1 ? "" : "s", z->round - 1, z->min,
                  a->resume ? a->resume : "none", a->resume_step);
        return CLI_EXIT_DIST;
    }
    printf("elastic: rendezvous round %d: joinable -> frozen with %d rank%s (MIN %d, MAX %d%s)"
           "%s\n",
           z->round, z->n, z->n == 1 ? "" : "s", z->min, z->max,
           z->n < z->max ? "; the last call waited 30 s simulated" : "; full",
           a->npending ? "; more wait for the next round" : "");
    for (int r = 0; r < z->n; r++)
        el_marker(a, r, "rendezvous", a->now, z->frozen_s, a->resume_step, z->n);
    a->now = z->frozen_s;
    a->nmembers = z->n;
    memcpy(a->members, z->id, (size_t)z->n * sizeof *z->id);
    return CLI_EXIT_OK;
}

// The round's fault plan: the given faults carried over, and each pending
// leave as a crash of its participant's rank. leave_of[f] = the membership
// event a fault stands for, or -1.
static void el_plan(ElAgent *a, SimFaultPlan *plan, int *leave_of) {
    sim_elastic_remap_faults(&a->o->faults, a->fired, &a->z, plan);
    int orig_of[SIM_FAULT_MAX], m = 0;
    for (int i = 0; i < a->o->faults.n; i++) {
        if (a->fired[i])
            continue;
        const SimFault *f = &a->o->faults.f[i];
        if (f->rank < 0 || sim_rdzv_rank(&a->z, f->rank) >= 0)
            orig_of[m++] = i;
    }
    for (int i = 0; i < plan->n; i++)
        leave_of[i] = -1 - orig_of[i]; // <= -1: a given fault (-1 - its index)
    for (int e = 0; e < a->nev && plan->n < SIM_FAULT_MAX; e++) {
        const SimMemberEvent *ev = &a->ev[e];
        int r = sim_rdzv_rank(&a->z, ev->rank);
        if (a->ev_done[e] || ev->kind != SIM_MEMBER_LEAVE || r < 0)
            continue;
        SimFault *f = &plan->f[plan->n];
        memset(f, 0, sizeof *f);
        f->kind = SIM_FAULT_CRASH;
        f->rank = r;
        f->step = ev->step;
        snprintf(f->text, sizeof f->text, "%s", ev->text);
        leave_of[plan->n++] = e;
    }
    // a fault aimed at a collective of a step the checkpoint already holds
    // belonged to an earlier round: this one never runs that step, and its
    // trainer would refuse the fault as one that cannot fire
    int kept = 0;
    for (int i = 0; i < plan->n; i++) {
        if (sim_fault_at_one_coll(&plan->f[i]) && plan->f[i].step <= a->resume_step)
            continue;
        plan->f[kept] = plan->f[i];
        leave_of[kept++] = leave_of[i];
    }
    plan->n = kept;
}

// The step before which the next join stops the world (0: none): the first
// join not yet seen whose step is still ahead. A join while the world is
// full stops nothing: its ranks wait for a later round.
static int64_t el_next_join(ElAgent *a, int *which) {
    int64_t best = 0;
    *which = -1;
    for (int e = 0; e < a->nev; e++)
        if (!a->ev_done[e] && a->ev[e].kind == SIM_MEMBER_JOIN && a->ev[e].step > a->resume_step &&
            (best == 0 || a->ev[e].step < best)) {
            best = a->ev[e].step;
            *which = e;
        }
    return best;
}

static void el_add_joiners(ElAgent *a, int e) {
    for (int k = 0; k < a->ev[e].ranks && a->npending < SIM_ELASTIC_MAX; k++)
        a->pending[a->npending++] = a->next_id++;
    a->ev_done[e] = 1;
}

static int el_write_trace(ElAgent *a) {
    if (a->trace == NULL)
        return CLI_EXIT_OK;
    SimStatus st = sim_trace_write_auto(a->trace, a->o->trace);
    if (st != SIM_OK) {
        run_error("--trace: cannot write '%s': %s", a->o->trace, sim_strerror(st));
        return CLI_EXIT_INTERNAL;
    }
    size_t events = 0;
    for (int r = 0; r < sim_trace_nranks(a->trace); r++)
        events += sim_trace_rank_count(a->trace, r);
    printf("trace: %s (%zu events of %d round%s on one simulated clock)\n", a->o->trace, events,
           a->z.round + 1, a->z.round ? "s" : "");
    return CLI_EXIT_OK;
}

static int el_run(ElAgent *a) {
    RunOptions *o = a->o;
    int rc = el_rendezvous(a);
    while (rc == CLI_EXIT_OK) {
        int n = a->z.n;
        SimFaultPlan plan;
        int leave_of[SIM_FAULT_MAX];
        el_plan(a, &plan, leave_of);
        int join_ev;
        int64_t stop_before = el_next_join(a, &join_ev);
        if (stop_before > 0 && n >= a->z.max) {
            printf("elastic: %d rank%s will ask to join at step %" PRId64 " while the world is "
                   "full (MAX %d): they wait for a later round\n", a->ev[join_ev].ranks,
                   a->ev[join_ev].ranks == 1 ? "" : "s", stop_before, a->z.max);
            el_add_joiners(a, join_ev);
            continue; // the same round, with the next join (if any)
        }
        RunOptions ro = *o;
        // A round's diagnosis goes to stderr as it happens, but to the
        // --diagnosis file only if the run fails in the end: a run the
        // restarts recover writes none, as any run that succeeds.
        ro.diagnosis = NULL;
        ro.nranks = n;
        ro.nodes = 1;
        ro.faults = plan;
        ro.resume = a->resume;
        SimTrainConfig rc_cfg = *a->c;
        rc_cfg.faults = &ro.faults;
        rc_cfg.ckpt.resume_path = a->resume;
        if (a->resume)
            rc_cfg.ckpt.init_path = NULL;
        RunElasticRound er;
        memset(&er, 0, sizeof er);
        atomic_init(&er.stop, stop_before > 0 && stop_before <= a->resume_step + 1);
        er.stop_before = stop_before;
        er.combined = a->trace;
        er.offset_s = a->now - a->resume_sim;
        er.wall_offset_s = a->wall;
        er.last_step = a->resume_step;
        er.nsteps = a->c->loop.steps;
        er.step_sim = calloc((size_t)a->c->loop.steps + 1, sizeof *er.step_sim);
        if (er.step_sim == NULL)
            return CLI_EXIT_INTERNAL;
        ro.elastic_round = &er;
        for (int r = 0; a->z.round > 0 && r < n; r++)
            el_marker(a, r, "resume", a->now, a->now, a->resume_step, n);
        int code = run_once(&ro, &rc_cfg);
        if (er.diagnosis) {
            free(a->diagnosis);
            a->diagnosis = er.diagnosis;
            er.diagnosis = NULL;
        }
        double end = er.end_sim + er.offset_s;
        a->wall += er.wall_end;
        if (code == CLI_EXIT_OK && !er.stopped) {
            sim_rdzv_finish(&a->z);
            printf("elastic: training finished in round %d at %d rank%s after %d restart%s "
                   "(rendezvous %s)\n", a->z.round, n, n == 1 ? "" : "s", a->restarts,
                   a->restarts == 1 ? "" : "s", sim_rdzv_state_name(a->z.state));
            free(er.step_sim);
            return el_write_trace(a);
        }
        if (code != CLI_EXIT_OK && code != CLI_EXIT_DIST) {
            free(er.step_sim);
            if (code == CLI_EXIT_USAGE && a->z.round > 0) // e.g. a sampler position the new
                                                          // size cannot take
                run_error("--elastic: round %d could not start at %d ranks from %s (above); "
                          "no restart", a->z.round, n, a->resume ? a->resume : "the start");
            return code; // bad input, an interrupt, an internal error: no restart
        }
        // who is left, and why the world stopped
        int old_n = n, nsurv = 0, restart = code == CLI_EXIT_DIST;
        char why[256] = "";
        size_t wl = 0;
        uint8_t left[SIM_ELASTIC_MAX] = {0};
        for (int r = 0; r < n; r++) {
            int gone = er.crashed[r];
            for (int f = 0; gone && f < plan.n; f++) {
                if (plan.f[f].kind != SIM_FAULT_CRASH || plan.f[f].rank != r)
                    continue;
                int is_leave = leave_of[f] >= 0;
                if (is_leave) {
                    a->ev_done[leave_of[f]] = 1;
                    left[r] = 1;
                } else {
                    a->fired[-1 - leave_of[f]] = 1;
                }
                if (wl < sizeof why)
                    wl += (size_t)snprintf(why + wl, sizeof why - wl,
                                           "%srank %d (participant %d) %s at step %" PRId64,
                                           wl ? ", " : "", r, a->z.id[r],
                                           is_leave ? "left" : "crashed", plan.f[f].step);
                break;
            }
            if (!gone)
                a->members[nsurv++] = a->z.id[r];
        }
        a->nmembers = nsurv;
        if (er.stopped) {
            el_add_joiners(a, join_ev);
            snprintf(why, sizeof why, "%d rank%s asked to join at step %" PRId64,
                     a->ev[join_ev].ranks, a->ev[join_ev].ranks == 1 ? "" : "s", stop_before);
        } else if (!why[0]) {
            snprintf(why, sizeof why, "a rank failed (exit 3; see the diagnosis above)");
        }
        // the last checkpoint: this round's latest save, else where it began
        int64_t ck_step = a->resume_step;
        double ck_sim = a->resume_sim;
        int saved = a->c->ckpt.save_every > 0 &&
                    er.last_step / a->c->ckpt.save_every * a->c->ckpt.save_every > a->resume_step;
        int64_t fstep;
        double fsim;
        if (saved && el_ckpt_step(o->save, &fstep, &fsim) == 0 && fstep > a->resume_step &&
            fstep <= er.last_step) {
            ck_step = fstep;
            ck_sim = fsim;
            a->resume = o->save;
        }
        int64_t lost = er.last_step - ck_step;
        double lost_sim = er.end_sim - ck_sim;
        a->resume_step = ck_step;
        a->resume_sim = ck_sim;
        int new_n = nsurv + a->npending < a->z.max ? nsurv + a->npending : a->z.max;
        for (int r = 0; r < old_n; r++)
            el_marker(a, r, er.crashed[r] && left[r] ? "leave" : er.stopped ? "join" : "restart",
                      end, end, ck_step, new_n);
        if (restart) {
            a->restarts++;
            if (a->restarts > o->max_restarts) {
                run_error("--max-restarts %d: %s; that is restart %d, more than %d allowed: "
                          "the run stops (the last checkpoint, %s at step %" PRId64 ", resumes "
                          "it with --resume)",
                          o->max_restarts, why, a->restarts, o->max_restarts,
                          a->resume ? a->resume : "none", ck_step);
                free(er.step_sim);
                el_write_trace(a);
                return CLI_EXIT_DIST;
            }
        }
        a->now = end;
        rc = el_rendezvous(a);
        if (rc != CLI_EXIT_OK) {
            free(er.step_sim);
            el_write_trace(a);
            return rc;
        }
        n = a->z.n;
        printf("elastic: round %d: %s; world %d -> %d ranks%s", a->z.round, why, old_n, n,
               restart ? "" : " (a membership change: not counted as a restart)");
        if (restart)
            printf("; restart %d of --max-restarts %d", a->restarts, o->max_restarts);
        printf("\n");
        printf("elastic: resume from %s at step %" PRId64 "; work lost since it: %" PRId64
               " step%s, %" PRId64 " samples, %.6g s simulated\n",
               a->resume ? a->resume : "the start (no checkpoint yet)", ck_step, lost,
               lost == 1 ? "" : "s", lost * (int64_t)a->c->data.batch * a->c->loop.accum * old_n,
               lost_sim > 0 ? lost_sim : 0.0);
        el_report_world(a, old_n, n);
        fflush(stdout);
        free(er.step_sim);
    }
    el_write_trace(a);
    return rc;
}

int run_elastic_train(RunOptions *o, SimTrainConfig *c) {
    ElAgent *a = calloc(1, sizeof *a);
    if (a == NULL)
        return CLI_EXIT_INTERNAL;
    a->o = o;
    a->c = c;
    sim_rdzv_init(&a->z, o->elastic_min, o->elastic_max, EL_LAST_CALL_S, 0);
    for (int i = 0; i < o->nmembership; i++) {
        char err[256];
        sim_member_parse(o->membership[i], &a->ev[a->nev++], err, sizeof err);
    }
    for (int r = 0; r < o->nranks; r++)
        a->members[r] = r;
    a->nmembers = o->nranks;
    a->next_id = o->nranks;
    a->resume = o->resume;
    if (o->resume && el_ckpt_step(o->resume, &a->resume_step, &a->resume_sim) != 0)
        a->resume_step = 0, a->resume_sim = 0; // the first round reports what is wrong
    if (o->trace) {
        a->trace = sim_trace_new(o->elastic_max, EL_TRACE_CAP);
        if (a->trace == NULL) {
            free(a);
            run_error("out of memory for the trace");
            return CLI_EXIT_INTERNAL;
        }
    }
    int rc = el_run(a);
    // the run failed: its last diagnosis is the file's (not when a signal
    // stopped it, which writes no file but the checkpoint it names)
    if (rc != CLI_EXIT_OK && rc < 128)
        run_diag_write(o, a->diagnosis);
    free(a->diagnosis);
    sim_trace_free(a->trace);
    free(a);
    return rc;
}
