// sim/trace/mem_cat.c: the names of memory categories and spaces
// (sim/trace/mem_cat.h).
#include "trace/mem_cat.h"

static const char *const cat_names[SIM_MEM_CAT_COUNT] = {
    "other",        "params",          "params (sharded)", "params (low precision)",
    "grads",        "grads (sharded)", "optimizer",        "activations",
    "comm buffers", "backing",
};

static const char *const cat_keys[SIM_MEM_CAT_COUNT] = {
    "other", "param", "param_shard", "param_lowp", "grad",
    "grad_shard", "optim", "act", "comm", "backing",
};

const char *sim_mem_cat_name(SimMemCat c) {
    return c >= 0 && c < SIM_MEM_CAT_COUNT ? cat_names[c] : "?";
}

const char *sim_mem_cat_key(SimMemCat c) {
    return c >= 0 && c < SIM_MEM_CAT_COUNT ? cat_keys[c] : "?";
}

const char *sim_mem_space_name(SimMemSpace s) {
    return s == SIM_MEM_DEVICE ? "device" : s == SIM_MEM_HOST ? "host" : "?";
}
