// sim/strategy/ddp_errors.c: the errors DDP raises, in PyTorch 1.13's words,
// each followed by ddplab's own diagnosis on a line of its own.
//
// PyTorch's text is reproduced word for word (its spacing and line breaks
// included), so that a search for the message a script printed finds this
// one, and a test can compare the two. What PyTorch prints depends on
// TORCH_DISTRIBUTED_DEBUG: at OFF the parameters are given by index only,
// with a hint to set the variable; at INFO or DETAIL their names come first,
// sorted as strings (PyTorch keeps them in a std::set: "10.bias" before
// "2.bias", "3.bias" before "3.weight"). ddplab's diagnosis after it always
// names them, and says what the missing gradient did to the buckets.
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "strategy/ddp_internal.h"

int sim_ddp_debug_parse(const char *s, SimDdpDebugLevel *out) {
    static const char *const names[] = {"OFF", "INFO", "DETAIL"};
    for (int i = 0; i < 3; i++)
        if (strcasecmp(s, names[i]) == 0) {
            *out = (SimDdpDebugLevel)i;
            return 0;
        }
    return -1;
}

const char *sim_ddp_debug_name(SimDdpDebugLevel d) {
    return d == SIM_DDP_DEBUG_DETAIL ? "DETAIL" : d == SIM_DDP_DEBUG_INFO ? "INFO" : "OFF";
}

// A text that grows; once it is full it stays cut (snprintf's truncation).
typedef struct {
    char *p;
    size_t cap, len;
} Text;

static void put(Text *t, const char *s) {
    if (t->len + 1 < t->cap) {
        size_t n = strlen(s), room = t->cap - 1 - t->len;
        n = n < room ? n : room;
        memcpy(t->p + t->len, s, n);
        t->len += n;
        t->p[t->len] = '\0';
    }
}

static void put_int(Text *t, long long v) {
    char b[24];
    snprintf(b, sizeof b, "%lld", v);
    put(t, b);
}

static int by_name(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

// ", "-separated names of the unready parameters in std::set order.
static void put_sorted_names(Text *t, const DdpState *s) {
    int n = s->m->nparams, k = 0;
    const char **names = malloc((size_t)(n > 0 ? n : 1) * sizeof *names);
    if (names == NULL) {
        put(t, "(out of memory for the names)");
        return;
    }
    for (int i = 0; i < n; i++)
        if (!s->ready[i])
            names[k++] = s->m->params[i].name;
    qsort(names, (size_t)k, sizeof *names, by_name);
    for (int i = 0; i < k; i++) {
        put(t, i ? ", " : "");
        put(t, names[i]);
    }
    free(names);
}

// `sep`-separated: the unready parameters' indices (names 0) or names
// (names 1), in index order.
static void put_unready(Text *t, const DdpState *s, int names, const char *sep) {
    for (int i = 0, k = 0; i < s->m->nparams; i++) {
        if (s->ready[i])
            continue;
        put(t, k++ ? sep : "");
        if (names)
            put(t, s->m->params[i].name);
        else
            put_int(t, i);
    }
}

// reducer.cpp's ensure_prior_reduction_finished, the three variants of its
// opening (static_graph, find_unused_parameters off, on) and its ending.
static void put_pytorch_text(Text *t, const DdpState *s, int rank) {
    static const char base[] =
        "Expected to have finished reduction in the prior iteration before starting a new "
        "one. This error indicates that your module has parameters that were not used in "
        "producing loss. ";
    static const char outputs[] =
        "making sure all `forward` function outputs participate in calculating loss. ";
    static const char bug[] =
        "\nIf you already have done the above, then the distributed data parallel module "
        "wasn't able to locate the output tensors in the return value of your module's "
        "`forward` function. Please include the loss function and the structure of the "
        "return value of `forward` of your module when reporting this issue (e.g. list, "
        "dict, iterable).";
    if (s->o->buckets.static_graph) {
        put(t, "Expected to have finished reduction in the prior iteration before starting a "
               "new one. This error indicates that your training graph has changed in this "
               "iteration, e.g., one parameter is used in first iteration, but then got "
               "unused in the second iteration. this is not compatible with static_graph set "
               "to True.");
    } else {
        put(t, base);
        put(t, s->o->buckets.find_unused
                   ? "Since `find_unused_parameters=True` is enabled, this likely  means that "
                     "not all `forward` outputs participate in computing loss. You can fix "
                     "this by "
                   : "You can enable unused parameter detection by passing the keyword "
                     "argument `find_unused_parameters=True` to "
                     "`torch.nn.parallel.DistributedDataParallel`, and by \n");
        put(t, outputs);
        put(t, bug);
    }
    if (s->o->debug_level != SIM_DDP_DEBUG_OFF) {
        put(t, "\nParameters which did not receive grad for rank ");
        put_int(t, rank);
        put(t, ": ");
        put_sorted_names(t, s);
    }
    put(t, "\nParameter indices which did not receive grad for rank ");
    put_int(t, rank);
    put(t, ": ");
    put_unready(t, s, 0, " ");
    if (s->o->debug_level == SIM_DDP_DEBUG_OFF)
        put(t, "\n In addition, you can set the environment variable TORCH_DISTRIBUTED_DEBUG "
               "to either INFO or DETAIL to print out information about which particular "
               "parameters did not receive gradient on this rank as part of this error");
}

// ddplab's reading of the same failure: which parameters, which bucket,
// what it did to the step, and the way out.
static void put_diagnosis(Text *t, const DdpState *s, int rank, long long step) {
    int first = s->plan.nbuckets, unready = 0;
    for (int i = 0; i < s->m->nparams; i++)
        if (!s->ready[i]) {
            unready++;
            if (s->bucket_of[i] >= 0 && s->bucket_of[i] < first)
                first = s->bucket_of[i];
        }
    put(t, "\nddplab's diagnosis: in the backward of step ");
    put_int(t, step);
    put(t, ", rank ");
    put_int(t, rank);
    put(t, unready > 1 ? " gave no gradient to the parameters " : " gave no gradient to ");
    put_unready(t, s, 1, ", ");
    put(t, unready > 1 ? " (indices " : " (index ");
    put_unready(t, s, 0, " ");
    put(t, "): the forward did not use ");
    put(t, unready > 1 ? "them" : "it");
    if (first < s->plan.nbuckets) {
        put(t, ", so bucket ");
        put_int(t, first);
        put(t, " never became ready, and neither its all_reduce nor any later bucket's was "
               "launched (buckets launch in order)");
    }
    put(t, "; the reduction was left unfinished, and the optimizer step that followed used "
           "gradients that were not averaged across the ranks. ");
    put(t, s->o->buckets.static_graph
               ? "With --static-graph every parameter used in the first iteration must be "
                 "used in every iteration: use it, or drop --static-graph."
               : "Use every parameter in forward, or pass --find-unused-parameters "
                 "(find_unused_parameters=True).");
}

SimStatus ddp_error_unfinished(const DdpState *s, SimRank *r, long long step) {
    Text t = {r->error, sizeof r->error, 0};
    r->error[0] = '\0';
    put_pytorch_text(&t, s, r->rank);
    put_diagnosis(&t, s, r->rank, step);
    return SIM_EPROTO;
}
