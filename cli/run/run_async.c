// cli/run/run_async.c: `ddplab run --strategy async-ps`, asynchronous data
// parallel with parameter servers (the schedule and math: sim/strategy/async_ps.h).
// Options: --ps-servers S (1), --max-staleness K (unbounded), --compare-ddp.
// -n R ranks: 0..S-1 servers, S..R-1 the W = R - S workers; --steps N is
// the pushes of each worker.
#include "run/run.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/backends.h"     // defines: cli_backend_find
#include "core/cli.h"          // defines: CLI_EXIT_*
#include "core/viz_cli.h"      // defines: cli_viz_wanted, cli_viz_interactive
#include "run/run_opts.h"      // defines: run_async_rows
#include "strategy/async_ps.h" // defines: SimPsConfig, sim_ps_run

#define PS_MAX_STALENESS 1000000
#define PS_HIST_MAX 16 // histogram bins shown: 0..15 and ">= 16"
#define PS_TRACE_CAP 1000000

int run_async_is_strategy(const char *name) {
    return strcmp(name, "async-ps") == 0;
}

#define AT(field) .offset = offsetof(RunOptions, field)

// The first async-ps option given, for the check that the strategy is async-ps.
static int note_async(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v,
                      void *dest) {
    (void)cx, (void)v;
    RunOptions *o = dest;
    if (o->async_flag == NULL)
        o->async_flag = row->name;
    return 0;
}

static const CliOptRow rows[] = {
    {.name = "ps-servers", .kind = CLI_OPT_INT, .metavar = "S", .lo = 1, .hi = 1 << 20,
     .deflt = "1", .apply = note_async, .store = CLI_STORE_INT, AT(ps_servers),
     .help = "--strategy async-ps: ranks 0..S-1 are parameter\n"
             "servers (parameters round robin over them), the\n"
             "other -n minus S ranks are workers; --steps N:\n"
             "pushes per worker"},
    {.name = "max-staleness", .kind = CLI_OPT_INT, .metavar = "S", .lo = 0,
     .hi = PS_MAX_STALENESS, .deflt = "unbounded", .apply = note_async,
     .store = CLI_STORE_INT, AT(max_staleness),
     .help = "--strategy async-ps: stale-synchronous\n"
             "parallel: a worker more than S pushes ahead\n"
             "of the slowest waits (0: fully synchronous,\n"
             "the mean of each round as one update)"},
    {.name = "compare-ddp", .kind = CLI_OPT_FLAG, .apply = note_async,
     .store = CLI_STORE_INT, AT(ps_compare),
     .help = "--strategy async-ps: also run DDP on the same\n"
             "data and workers, and compare throughput and\n"
             "loss against simulated time"},
};

const CliOptRow *run_async_rows(int *n) {
    *n = (int)(sizeof rows / sizeof rows[0]);
    return rows;
}

// One option async-ps does not take: its name, value and why.
static RunParse refuse(const char *opt, const char *v, const char *allowed) {
    run_error("--%s: '%s' is not supported with --strategy async-ps; allowed: %s", opt, v,
              allowed);
    return RUN_PARSE_ERROR;
}

RunParse run_async_check(RunOptions *o) {
    if (!run_async_is_strategy(o->strategy)) {
        if (o->async_flag) {
            run_error("--%s: only with --strategy async-ps (the strategy is '%s'); allowed: "
                      "--strategy async-ps", o->async_flag, o->strategy);
            return RUN_PARSE_ERROR;
        }
        return RUN_PARSE_OK;
    }
    char buf[64];
    if (o->ps_servers >= o->nranks) {
        char allowed[96];
        snprintf(buf, sizeof buf, "%d", o->ps_servers);
        snprintf(allowed, sizeof allowed, "1 to %d servers with -n %d (at least one worker)",
                 o->nranks - 1, o->nranks);
        return run_opt_fail("ps-servers", buf, o->nranks < 2 ? "leaves no worker (-n is 1)"
                                                    : "leaves no worker among the -n ranks",
                   o->nranks < 2 ? "-n 2 or more (servers plus at least one worker)" : allowed);
    }
    if (o->accum > 1) {
        snprintf(buf, sizeof buf, "%d", o->accum);
        return refuse("accum", buf, "1 (each push is one batch's gradient)");
    }
    if (o->phantom)
        return refuse("phantom", "on", "numeric runs only (the servers apply real gradients)");
    if (strcmp(o->backend, "cpu") != 0)
        return refuse("backend", o->backend, "cpu");
    if (o->fsdp_flag)
        return refuse(o->fsdp_flag, "given", "no fsdp options");
    if (o->ddp_flag)
        return refuse(o->ddp_flag, "given", "no ddp options");
    if (o->opt.amp.amp != SIM_FP32)
        return refuse("amp", "on", "off");
    if (o->opt.clip_grad_norm > 0)
        return refuse("clip-grad-norm", "on", "off");
    if (o->opt.lr.scale_linear)
        return refuse("lr-scale", "linear", "none (each push steps at --lr)");
    if (o->resume)
        return refuse("resume", o->resume, "a fresh run (--init for weights)");
    if (o->eval_every > 0)
        return refuse("eval-every", "given", "0");
    if (o->stop_after > 0 || o->save_every > 0)
        return refuse(o->stop_after > 0 ? "stop-after" : "save-every", "given",
                      "a whole run (--save at the end)");
    if (o->uneven > 0)
        return refuse("uneven", "given", "0");
    if (o->loader_flag || o->sample_cost > 0)
        return refuse(o->loader_flag ? o->loader_flag : "sample-cost", "given",
                      "no data stage");
    if (o->elastic_max > 0)
        return refuse("elastic", "given", "a fixed world");
    if (o->rendezvous)
        return refuse("rendezvous", o->rendezvous, "one process");
    if (cli_viz_interactive(&o->viz))
        return refuse("viz", "live", "the views after the run (text, --png, --gif, --plot)");
    for (int i = 0; i < o->faults.n; i++)
        if (o->faults.f[i].kind != SIM_FAULT_SLOW_RANK)
            return refuse("fault", sim_fault_kind_name(o->faults.f[i].kind), "slow-rank");
    return RUN_PARSE_OK;
}

// ----------------------------------------------------------------------------
// the run

static int world_init(SimWorld *w, const RunOptions *o, int nranks, int trace) {
    SimWorldConfig wc;
    sim_world_config_default(&wc);
    wc.nranks = nranks;
    wc.nodes = o->nodes > 0 && nranks % o->nodes == 0 ? o->nodes : 1;
    wc.profile = o->sys;
    wc.device = o->device;
    wc.trace = trace;
    wc.trace_max_per_rank = PS_TRACE_CAP;
    wc.faults = &o->faults;
    SimStatus st = sim_world_init(w, &wc, cli_backend_find(o->backend));
    if (st != SIM_OK) {
        run_error("cannot start the ranks: %s", sim_world_error(w));
        sim_world_free(w);
        return CLI_EXIT_INTERNAL;
    }
    return CLI_EXIT_OK;
}

// Mean loss of the `n` pushes applied last by time t (NAN when none).
static double loss_at(const SimPsResult *r, double t, int n) {
    double sum = 0, lt = 0;
    int64_t li = -1;
    int got = 0;
    for (; got < n; got++) {
        int64_t bi = -1;
        for (int64_t i = 0; i < r->npushes; i++) {
            double d = r->pushes[i].t_done;
            if (d <= 0 || d > t)
                continue;
            int older = li < 0 || d < lt || (d == lt && i < li); // below the last taken
            if (older && (bi < 0 || d > r->pushes[bi].t_done ||
                          (d == r->pushes[bi].t_done && i > bi)))
                bi = i;
        }
        if (bi < 0)
            break;
        sum += r->pushes[bi].loss;
        lt = r->pushes[bi].t_done, li = bi;
    }
    return got ? sum / got : NAN;
}

static void print_workers(const SimPsResult *r, int S, int W, int batch) {
    printf("  worker  rank  pushes  samples  finished (sim s)  samples/s  waited (sim s)\n");
    for (int w = 0; w < W; w++) {
        int64_t n = 0;
        double wait = 0;
        for (int64_t i = 0; i < r->npushes; i++)
            if (r->pushes[i].worker == w)
                n++, wait += r->pushes[i].wait_s;
        double f = r->finish[w];
        printf("  %6d  %4d  %6lld  %7lld  %16.6f  %9.1f  %14.6f\n", w, S + w, (long long)n,
               (long long)(n * batch), f, f > 0 ? (double)(n * batch) / f : 0.0, wait);
    }
}

static void print_staleness(const SimPsResult *r) {
    int64_t hist[PS_HIST_MAX + 1] = {0};
    double sum = 0;
    int max = 0;
    for (int64_t i = 0; i < r->napplies; i++) {
        int s = r->applies[i].staleness;
        sum += s;
        if (s > max)
            max = s;
        hist[s < PS_HIST_MAX ? s : PS_HIST_MAX]++;
    }
    printf("staleness over %lld applies: mean %.3f, max %d; histogram:", (long long)r->napplies,
           r->napplies ? sum / (double)r->napplies : 0.0, max);
    for (int s = 0; s <= PS_HIST_MAX; s++)
        if (hist[s])
            printf(" %s%d:%lld", s == PS_HIST_MAX ? ">=" : "", s, (long long)hist[s]);
    printf("\n");
}

static void print_schedule(const SimPsResult *r) {
    printf("apply order (server:worker.push/staleness):");
    for (int64_t i = 0; i < r->napplies; i++)
        printf(" %d:%d.%lld/%d", r->applies[i].server, r->applies[i].worker,
               (long long)r->applies[i].k, r->applies[i].staleness);
    printf("\n");
    printf("  push  worker  pulled (sim us)  pushed (sim us)  applied (sim us)  staleness  loss\n");
    for (int64_t i = 0; i < r->npushes; i++) {
        const SimPsPush *p = &r->pushes[i];
        printf("  %4lld  %6d  %15.3f  %15.3f  %16.3f  %9d  %.6f\n", (long long)p->k, p->worker,
               p->t_pull * 1e6, p->t_push * 1e6, p->t_done * 1e6, p->staleness, p->loss);
    }
}

// A loss in the comparison's table; "-" when nothing was applied yet (NAN).
static void print_loss(double x) {
    if (!isnan(x))
        printf(" %14.6f", x);
    else
        printf(" %14s", "-");
}

static int by_done(const void *x, const void *y) {
    const SimPsPush *a = x, *b = y;
    if (a->t_done != b->t_done)
        return a->t_done < b->t_done ? -1 : 1;
    if (a->k != b->k)
        return a->k < b->k ? -1 : 1;
    return a->worker - b->worker;
}

// The first simulated time at which the mean loss of the last n gradients
// applied is at most target (NAN: never).
static double time_to(const SimPsResult *r, double target, int n) {
    SimPsPush *s = malloc((size_t)r->npushes * sizeof *s);
    if (s == NULL || r->npushes < n) {
        free(s);
        return NAN;
    }
    memcpy(s, r->pushes, (size_t)r->npushes * sizeof *s);
    qsort(s, (size_t)r->npushes, sizeof *s, by_done);
    double sum = 0, t = NAN;
    for (int64_t i = 0; i < r->npushes; i++) {
        sum += s[i].loss;
        if (i >= n)
            sum -= s[i - n].loss;
        if (i + 1 >= n && sum / n <= target && (i + 1 == r->npushes ||
                                                 s[i + 1].t_done != s[i].t_done)) {
            t = s[i].t_done;
            break;
        }
    }
    free(s);
    return t;
}

static void print_compare(const SimPsResult *a, const SimPsResult *d, int W, int batch) {
    double ta = a->end, td = d->end;
    double n = (double)a->npushes * batch;
    printf("\ncomparison with synchronous DDP (%d ranks, the same data, the same pushes):\n", W);
    printf("  %-22s %14s %14s\n", "", "async-ps", "ddp");
    printf("  %-22s %14.6f %14.6f\n", "finished (sim s)", ta, td);
    printf("  %-22s %14.1f %14.1f\n", "samples/s", ta > 0 ? n / ta : 0.0, td > 0 ? n / td : 0.0);
    printf("  %-22s %14.6f %14.6f\n", "final loss", loss_at(a, ta, W), loss_at(d, td, W));
    double target = loss_at(d, td, W), reach = time_to(a, target, W);
    if (!isnan(reach))
        printf("  async-ps reached DDP's final loss %.6f at %.6f simulated s (%.0f%% of DDP's "
               "time)\n", target, reach, td > 0 ? 100.0 * reach / td : 0.0);
    else
        printf("  async-ps never reached DDP's final loss %.6f\n", target);
    double tmax = ta > td ? ta : td;
    printf("  loss reached by simulated time (mean of the last %d gradients applied):\n", W);
    printf("  %12s %14s %14s\n", "t (sim s)", "async-ps", "ddp");
    for (int k = 1; k <= 5; k++) {
        double t = tmax * k / 5.0, la = loss_at(a, t, W), ld = loss_at(d, t, W);
        printf("  %12.6f", t);
        print_loss(la);
        print_loss(ld);
        printf("\n");
    }
}

static int run_one(RunOptions *o, SimTrainConfig *c, int S, int W, SimPsMode mode, int trace,
                   SimPsResult *res) {
    SimWorld w;
    int rc = world_init(&w, o, S + W, trace);
    if (rc != CLI_EXIT_OK)
        return rc;
    if (trace) {
        SimTraceInfo info;
        memset(&info, 0, sizeof info);
        snprintf(info.title, sizeof info.title, "async-ps  S=%d W=%d  max-staleness %s%d", S, W,
                 o->max_staleness < 0 ? "unbounded " : "", o->max_staleness);
        snprintf(info.strategy, sizeof info.strategy, "async-ps");
        snprintf(info.profile, sizeof info.profile, "%s", o->sys.name);
        info.nodes = w.cfg.nodes;
        sim_trace_info_normalize(&info);
        sim_trace_set_info(w.trace, &info);
    }
    SimPsConfig pc = {S, W, o->max_staleness, mode, c};
    char err[1024];
    SimStatus st = sim_ps_run(&w, &pc, res, err, sizeof err);
    if (st != SIM_OK) {
        run_error("%s", err);
        sim_world_free(&w);
        return st == SIM_EINVAL || st == SIM_EIO ? CLI_EXIT_USAGE : CLI_EXIT_INTERNAL;
    }
    if (trace && o->trace) {
        SimStatus ts = sim_trace_write_auto(w.trace, o->trace);
        if (ts != SIM_OK) {
            run_error("--trace: cannot write '%s': %s", o->trace, sim_strerror(ts));
            sim_world_free(&w);
            sim_ps_result_free(res);
            return CLI_EXIT_INTERNAL;
        }
        size_t events = 0;
        for (int r = 0; r < sim_trace_nranks(w.trace); r++)
            events += sim_trace_rank_count(w.trace, r);
        printf("trace: %s (%zu events)\n", o->trace, events);
    }
    if (trace)
        rc = run_viz_after(o, &w); // --viz text, --png, --plot: the same views as run
    sim_world_free(&w);
    if (rc != CLI_EXIT_OK)
        sim_ps_result_free(res);
    return rc;
}

int run_async_train(RunOptions *o, SimTrainConfig *c) {
    int S = o->ps_servers, W = o->nranks - o->ps_servers;
    if (o->steps == 0 && o->epochs > 0) // epochs of each worker's share
        c->loop.steps = sim_train_steps_for_epochs(c, W, o->epochs);
    printf("async-ps: %d server%s (ranks 0..%d, parameters round robin), %d worker%s (ranks "
           "%d..%d), max staleness %s, %lld pushes per worker, lr %g per push (not divided by "
           "the workers)%s\n",
           S, S > 1 ? "s" : "", S - 1, W, W > 1 ? "s" : "", S, S + W - 1,
           o->max_staleness < 0 ? "unbounded" : o->max_staleness == 0 ? "0 (bulk synchronous: "
                                                                        "the mean of each round)"
                                                                      : "bounded",
           (long long)c->loop.steps, c->opt.optim.lr, o->max_staleness > 0 ? "" : "");
    if (o->max_staleness > 0)
        printf("  max staleness %d: a worker waits while it is more than %d pushes ahead of the "
               "slowest\n", o->max_staleness, o->max_staleness);
    SimPsResult res;
    int rc = run_one(o, c, S, W, SIM_PS_ASYNC, o->trace != NULL || cli_viz_wanted(&o->viz),
                     &res);
    if (rc != CLI_EXIT_OK)
        return rc;
    print_workers(&res, S, W, c->data.batch);
    print_staleness(&res);
    if (res.napplies <= 64)
        print_schedule(&res);
    printf("finished at %.6f simulated s; %lld updates on server 0; loss of the last push %.9g; "
           "mean of the last %d: %.6f\n", res.end, (long long)res.updates,
           res.npushes ? res.pushes[res.npushes - 1].loss : 0.0f, W, loss_at(&res, res.end, W));
    if (c->ckpt.save_path)
        printf("saved: %s\n", c->ckpt.save_path);
    if (o->ps_compare) {
        SimTrainConfig dc = *c;
        dc.ckpt.save_path = NULL;
        SimPsResult ddp;
        rc = run_one(o, &dc, S, W, SIM_PS_DDP_CLOCK, 0, &ddp);
        if (rc == CLI_EXIT_OK) {
            print_compare(&res, &ddp, W, c->data.batch);
            sim_ps_result_free(&ddp);
        }
    }
    sim_ps_result_free(&res);
    return rc;
}
