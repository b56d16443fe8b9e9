// tests/test_model_parse.c: the --model spec language: what parses, its
// canonical form, the description of the equivalent PyTorch module, and the
// message every bad spec gets (naming the field and what is allowed).
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "model/model.h"

static int test_mlp_specs(void) {
    SimModelSpec s;
    char err[512], buf[512];
    CHECK_EQ_INT(sim_model_parse("mlp:784,256,256,10", &s, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(s.kind, SIM_MODEL_MLP);
    CHECK_EQ_INT(s.nwidths, 4);
    CHECK_EQ_INT(s.widths[0], 784);
    CHECK_EQ_INT(s.widths[1], 256);
    CHECK_EQ_INT(s.widths[3], 10);
    CHECK_EQ_INT(s.act, SIM_ACT_RELU);
    CHECK_EQ_INT(s.batchnorm + s.unused_branch + s.mse, 0);
    CHECK(strcmp(sim_model_spec_str(&s, buf, sizeof buf), "mlp:784,256,256,10") == 0);

    // Options in any order after the widths; the canonical form orders them.
    CHECK_EQ_INT(sim_model_parse("mlp:8,16,4,mse,unused,bn,act=gelu", &s, err, sizeof err),
                 SIM_OK);
    CHECK_EQ_INT(s.act, SIM_ACT_GELU);
    CHECK_EQ_INT(s.batchnorm, 1);
    CHECK_EQ_INT(s.unused_branch, 1);
    CHECK_EQ_INT(s.mse, 1);
    CHECK(strcmp(sim_model_spec_str(&s, buf, sizeof buf), "mlp:8,16,4,act=gelu,bn,unused,mse") ==
          0);
    SimModelSpec again;
    CHECK_EQ_INT(sim_model_parse(buf, &again, err, sizeof err), SIM_OK);
    CHECK(memcmp(&s, &again, sizeof s) == 0);

    // act=relu is the default, written out or not; 2 widths is one Linear.
    CHECK_EQ_INT(sim_model_parse("mlp:3,2,act=relu", &s, err, sizeof err), SIM_OK);
    CHECK(strcmp(sim_model_spec_str(&s, buf, sizeof buf), "mlp:3,2") == 0);
    CHECK_EQ_INT(sim_model_parse("mlp:3,2,unused", &s, err, sizeof err), SIM_OK);
    return 0;
}

static int test_gpt_specs(void) {
    SimModelSpec s;
    char err[512], buf[512];
    CHECK_EQ_INT(sim_model_parse("gpt:layers=4,embd=128,heads=4,ctx=64,vocab=65", &s, err,
                                 sizeof err), SIM_OK);
    CHECK_EQ_INT(s.kind, SIM_MODEL_GPT);
    CHECK_EQ_INT(s.layers, 4);
    CHECK_EQ_INT(s.embd, 128);
    CHECK_EQ_INT(s.heads, 4);
    CHECK_EQ_INT(s.ctx, 64);
    CHECK_EQ_INT(s.vocab, 65);
    CHECK_EQ_INT(s.mse, 0);
    // Fields in any order; printed in the documented order.
    CHECK_EQ_INT(sim_model_parse("gpt:vocab=50257,ctx=1024,heads=12,embd=768,layers=12", &s, err,
                                 sizeof err), SIM_OK);
    CHECK(strcmp(sim_model_spec_str(&s, buf, sizeof buf),
                 "gpt:layers=12,embd=768,heads=12,ctx=1024,vocab=50257") == 0);
    return 0;
}

static int test_describe(void) {
    SimModelSpec s;
    char err[256], buf[512];
    CHECK_EQ_INT(sim_model_parse("mlp:784,256,10", &s, err, sizeof err), SIM_OK);
    CHECK(strcmp(sim_model_describe(&s, buf, sizeof buf),
                 "nn.Sequential(Linear(784, 256), ReLU(), Linear(256, 10)), cross-entropy loss") ==
          0);
    CHECK_EQ_INT(sim_model_parse("mlp:4,8,2,act=gelu,bn,unused,mse", &s, err, sizeof err), SIM_OK);
    sim_model_describe(&s, buf, sizeof buf);
    CHECK_STR_CONTAINS(buf, "Linear(4, 8), BatchNorm1d(8), GELU(), Linear(8, 2)");
    CHECK_STR_CONTAINS(buf, "Linear(8, 2) added to the output on even steps only");
    CHECK_STR_CONTAINS(buf, "MSE loss");
    CHECK_EQ_INT(sim_model_parse("gpt:layers=2,embd=16,heads=2,ctx=8,vocab=11", &s, err,
                                 sizeof err), SIM_OK);
    CHECK_STR_CONTAINS(sim_model_describe(&s, buf, sizeof buf),
                       "MiniGPT(vocab=11, n_embed=16, n_head=2, n_layer=2, block=8) without "
                       "dropout");
    return 0;
}

typedef struct {
    const char *spec;
    const char *message; // a part of the expected error
} BadSpec;

static const BadSpec bad[] = {
    {"cnn:3,4", "unknown model kind \"cnn\" (allowed: mlp:"},
    {"", "unknown model kind \"\""},
    {"mlp", "mlp needs its fields after a colon"},
    {"gpt", "gpt needs its fields after a colon"},
    {"mlp:", "empty field 1"},
    {"mlp:784", "1 width given (an mlp needs 2..16 widths"},
    {"mlp:784,0,10", "width 2 \"0\" is not an integer in 1..1048576"},
    {"mlp:784,-5", "width 2 \"-5\" is not an integer in 1..1048576"},
    {"mlp:784,12x", "width 2 \"12x\" is not an integer"},
    {"mlp:99999999999999999999,2", "width 1 \"99999999999999999999\" is not an integer"},
    {"mlp:784,,10", "empty field 2"},
    {"mlp:784,10,act=tanh", "act=\"tanh\" is unknown (allowed: relu, gelu)"},
    {"mlp:784,10,act=gelu,act=relu", "option act given twice"},
    {"mlp:784,10,dropout", "unknown option \"dropout\" (allowed: act=relu|gelu, bn, unused, mse)"},
    {"mlp:784,10,bn", "bn needs a hidden layer (3 or more widths)"},
    {"mlp:4,8,2,bn,bn", "option bn given twice"},
    {"mlp:4,8,2,mse,mse", "option mse given twice"},
    {"mlp:4,bn,8,2", "width \"8\" after an option (widths come first)"},
    {"mlp:1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17", "more than 16 widths"},
    {"gpt:layers=4,embd=128,heads=4,ctx=64", "missing vocab= (gpt needs all of layers, embd, "
                                             "heads, ctx, vocab)"},
    {"gpt:embd=128,heads=4,ctx=64,vocab=65", "missing layers="},
    {"gpt:layers=4,embd=130,heads=4,ctx=64,vocab=65", "embd=130 is not divisible by heads=4"},
    {"gpt:layers=0,embd=128,heads=4,ctx=64,vocab=65", "layers=\"0\" is not an integer in 1..1024"},
    {"gpt:layers=4,embd=128,heads=4,ctx=64,vocab=x", "vocab=\"x\" is not an integer in 1..1048576"},
    {"gpt:layers=4,embd=128,heads=4,ctx=999999,vocab=65", "ctx=\"999999\" is not an integer in "
                                                          "1..131072"},
    {"gpt:layers=4,layers=4,embd=128,heads=4,ctx=64,vocab=65", "field layers given twice"},
    {"gpt:depth=4,embd=128,heads=4,ctx=64,vocab=65", "unknown field \"depth\" (allowed: layers=, "
                                                     "embd=, heads=, ctx=, vocab=)"},
    {"gpt:layers", "unknown field \"layers\""},
    {"gpt:layers=4,embd=128,heads=4,ctx=64,vocab=65,bn", "unknown field \"bn\""},
};

static int test_bad_specs(void) {
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        SimModelSpec s;
        memset(&s, 0x5a, sizeof s);
        SimModelSpec before = s;
        char err[512];
        SimStatus st = sim_model_parse(bad[i].spec, &s, err, sizeof err);
        if (st != SIM_EINVAL)
            fprintf(stderr, "spec \"%s\" was accepted\n", bad[i].spec);
        CHECK_EQ_INT(st, SIM_EINVAL);
        CHECK_STR_CONTAINS(err, bad[i].message);
        CHECK_STR_CONTAINS(err, "model spec \"");
        CHECK(memcmp(&s, &before, sizeof s) == 0); // a failed parse writes nothing
    }
    char tiny[16];
    SimModelSpec s;
    CHECK_EQ_INT(sim_model_parse("mlp:1", &s, tiny, sizeof tiny), SIM_EINVAL);
    CHECK_EQ_INT(strlen(tiny), sizeof tiny - 1); // truncated, still terminated
    CHECK_EQ_INT(sim_model_parse(NULL, &s, NULL, 0), SIM_EINVAL);
    return 0;
}

int main(void) {
    int failures = 0;
    RUN(test_mlp_specs);
    RUN(test_gpt_specs);
    RUN(test_describe);
    RUN(test_bad_specs);
    return failures != 0;
}
