// cli/learn/interview_memory.c: "how much memory per GPU": the model states of
// mixed-precision Adam under DDP, ZeRO-1/2/3 and FSDP FULL_SHARD, from
// sim/cost/memory_formula.h (the ZeRO paper's 2 + 2 + K bytes per parameter,
// K = 12), for a preset or a round number of parameters.
#include <stdio.h>
#include <string.h>

#include "cost/memory_formula.h" // defines: sim_memf_*
#include "learn/interview.h"
#include "model/model.h"         // defines: sim_model_preset_at

static const char *const presets[] = {"gpt2-xl", "bert-large", "llama2-7b", "llama2-13b",
                                      "llama2-70b", "llama3-8b", "llama3-70b", "gpt3-175b"};
// Billions of parameters (the ZeRO paper's 7.5B among them).
static const double billions[] = {1.3, 2.7, 6.7, 7.5, 13, 30, 65, 175};
static const int ranks[] = {4, 8, 16, 32, 64, 128, 256, 512, 1024};

typedef struct {
    const char *cli;  // --strategy of ddplab plan
    const char *says; // how the question names it
} Strategy;

static const Strategy strategies[] = {
    {"ddp", "DDP"},
    {"zero1", "ZeRO stage 1"},
    {"zero2", "ZeRO stage 2"},
    {"zero3", "ZeRO stage 3"},
    {"fsdp", "FSDP FULL_SHARD (every unit's flat parameter padded to a multiple of the GPUs)"},
};

#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

static int64_t preset_params(const char *name) {
    for (int i = 0; i < sim_model_preset_count(); i++)
        if (strcmp(sim_model_preset_at(i)->name, name) == 0)
            return sim_model_preset_at(i)->params;
    return 0;
}

static double gb(double bytes) {
    return bytes / 1e9;
}

// "%.*f" arguments for an amount of bytes in GB: three decimals below 1 GB,
// as the answer prints.
#define GBF(bytes) (gb(bytes) < 1 ? 3 : 2), gb(bytes)

// The worked arithmetic of strategy s for psi parameters on n ranks.
static void explain(IvQuestion *q, int s, double psi, int n, SimMemfBytes b, double bytes,
                    uint64_t padding) {
    char p[32], pad[32];
    iv_grouped((int64_t)psi, p, sizeof p);
    iv_grouped((int64_t)padding, pad, sizeof pad);
    size_t L = sizeof q->explain;
    double pg = b.param + b.grad, K = b.optim;
    switch (s) {
    case 0:
        iv_append(q->explain, L, "DDP replicates everything on every GPU: (%g + %g + %g) "
                  "bytes x %s parameters = %.*f GB per GPU, whatever the number of GPUs "
                  "(%d here).", b.param, b.grad, K, p, GBF(bytes), n);
        break;
    case 1:
        iv_append(q->explain, L, "ZeRO-1 shards only the optimizer state (K = %g bytes: fp32 "
                  "master weights, momentum, variance): (%g + %g) x %s = %.*f GB of "
                  "parameters and gradients, plus %g x %s / %d = %.*f GB of optimizer state: "
                  "%.*f GB.", K, b.param, b.grad, p, GBF(pg * psi), K, p, n, GBF(K * psi / n),
                  GBF(bytes));
        break;
    case 2:
        iv_append(q->explain, L, "ZeRO-2 shards the optimizer state and the gradients: %g x "
                  "%s = %.*f GB of parameters stay whole, plus (%g + %g) x %s / %d = %.*f GB: "
                  "%.*f GB.", b.param, p, GBF(b.param * psi), b.grad, K, p, n,
                  GBF((b.grad + K) * psi / n), GBF(bytes));
        break;
    case 3:
        iv_append(q->explain, L, "ZeRO-3 shards parameters, gradients and optimizer state: "
                  "(%g + %g + %g) x %s / %d = %.*f GB.", b.param, b.grad, K, p, n, GBF(bytes));
        break;
    default:
        iv_append(q->explain, L, "FULL_SHARD is ZeRO-3 on flat parameters: each rank holds "
                  "ceil(numel / %d) elements of every unit, so (%g + %g + %g) x (%s + %s "
                  "padding) / %d = %.*f GB; the padding changes nothing at this scale.", n,
                  b.param, b.grad, K, p, pad, n,
                  GBF(bytes));
        break;
    }
    iv_append(q->explain, L, " Not counted: activations, DDP's bucket copy of the gradients, "
              "the unit FSDP gathers, the CUDA context; `ddplab plan` prints them beside the "
              "formula.");
}

int iv_gen_memory(SimSplitMix *g, IvQuestion *q, char *err, size_t errlen) {
    int use_preset = iv_pick(g, 2);
    const char *preset = presets[iv_pick(g, NELEM(presets))];
    double bil = billions[iv_pick(g, NELEM(billions))];
    int n = ranks[iv_pick(g, NELEM(ranks))];
    int s = iv_pick(g, NELEM(strategies));
    SimMemfBytes b = sim_memf_mixed_adam();
    double psi = use_preset ? (double)preset_params(preset) : bil * 1e9;
    char model[64], who[160], p[32];
    if (use_preset) {
        snprintf(model, sizeof model, "%s", preset);
        snprintf(who, sizeof who, "%s (%s parameters)", preset,
                 iv_grouped((int64_t)psi, p, sizeof p));
    } else {
        snprintf(model, sizeof model, "count:params=%.0f", psi);
        snprintf(who, sizeof who, "A model of %g billion parameters", bil);
    }
    double bytes;
    uint64_t padding = 0;
    if (s <= 3) {
        static const SimMemfStage stages[] = {SIM_MEMF_STAGE0, SIM_MEMF_ZERO1, SIM_MEMF_ZERO2,
                                              SIM_MEMF_ZERO3};
        bytes = sim_memf_zero(stages[s], psi, n, b);
    } else if (use_preset) {
        IvModel m;
        if (iv_model_load(preset, n, &m, err, errlen) != 0)
            return -1;
        bytes = sim_memf_fsdp_full_shard(m.unit_numel, m.nunits, n, b);
        padding = m.padding;
        iv_model_free(&m);
    } else {
        uint64_t unit = (uint64_t)psi; // a count-only model is one root unit
        bytes = sim_memf_fsdp_full_shard(&unit, 1, n, b);
        padding = sim_memf_shard_numel(unit, n) * (uint64_t)n - unit;
    }
    snprintf(q->text, sizeof q->text,
             "%s trains with mixed-precision Adam: bf16 parameters and gradients (2 bytes "
             "each) and 12 bytes of fp32 optimizer state per parameter (master weights, "
             "momentum, variance). With %s on %d GPUs, how many GB (10^9 bytes) of model "
             "states (parameters, gradients, optimizer state; no activations or buffers) does "
             "each GPU hold?",
             who, strategies[s].says, n);
    // three decimals below 1 GB, where 0.01 GB is a large part of the answer
    iv_set_value(q, 0, "GB per GPU", "GB", gb(bytes), gb(bytes) < 1 ? 3 : 2, 0.02, 0.01);
    explain(q, s, psi, n, b, bytes, padding);
    snprintf(q->command, sizeof q->command, "ddplab plan --model %s -n %d --strategy %s", model,
             n, strategies[s].cli);
    q->command_exits = IV_EXIT(0) | IV_EXIT(1);
    snprintf(q->command_note, sizeof q->command_note,
             "exit 1 when the plan does not fit an 80 GB GPU");
    return 0;
}
