// sim/model/model_presets.c: real models by name. Each preset is a spec in the
// language of sim/model/model_parse.c, its exact parameter count (what PyTorch's
// sum(p.numel() for p in model.parameters()) gives for the same module,
// a tied parameter counted once; tests/model_presets.cmake builds every
// preset and checks it) and where its shape comes from.
//
// Where the published figure differs from the exact count, the comment
// says why.
#include "model/model.h"

#include <stdio.h>
#include <string.h>

static const SimModelPreset presets[] = {
    // GPT-2 (Radford et al. 2019), HuggingFace openai-community/gpt2*
    // config.json: n_positions 1024, vocab 50257, biases everywhere, lm_head
    // tied to wte, dropout 0.1. The paper's Table 2 prints 117M, 345M, 762M
    // and 1542M; the released models (and HF's model cards: 124M, 355M,
    // 774M, 1.5B) count the tied embedding once: 12 h^2 + 13 h per layer,
    // plus (vocab + 1024) h + 2h.
    {"gpt2", "gpt:layers=12,embd=768,heads=12,ctx=1024,vocab=50257,bias=all,tied,dropout",
     124439808, "HF openai-community/gpt2 config.json (n_layer 12, n_embd 768, n_head 12)"},
    {"gpt2-medium",
     "gpt:layers=24,embd=1024,heads=16,ctx=1024,vocab=50257,bias=all,tied,dropout", 354823168,
     "HF openai-community/gpt2-medium config.json (n_layer 24, n_embd 1024, n_head 16)"},
    {"gpt2-large",
     "gpt:layers=36,embd=1280,heads=20,ctx=1024,vocab=50257,bias=all,tied,dropout", 774030080,
     "HF openai-community/gpt2-large config.json (n_layer 36, n_embd 1280, n_head 20)"},
    {"gpt2-xl", "gpt:layers=48,embd=1600,heads=25,ctx=1024,vocab=50257,bias=all,tied,dropout",
     1557611200, "HF openai-community/gpt2-xl config.json (n_layer 48, n_embd 1600, n_head 25)"},
    // GPT-3 175B (Brown et al. 2020, Table 2.1: n_layers 96, d_model 12288,
    // n_heads 96, d_head 128, n_ctx 2048), as a GPT-2 style dense model on
    // GPT-2's 50257-token BPE with a tied head. Exactly 174,604,259,328:
    // 96 (12 h^2 + 13 h) = 173,961,510,912 in the layers, 617,558,016 in the
    // token table, 25,165,824 in the position table, 24,576 in ln_f. The
    // paper prints 175.0B; the dense model of that shape has 174.6B (the
    // paper's alternating locally banded sparse attention has no parameters
    // of its own, so it does not explain the difference either).
    {"gpt3-175b",
     "gpt:layers=96,embd=12288,heads=96,ctx=2048,vocab=50257,bias=all,tied,dropout",
     174604259328, "Brown et al. 2020 (arXiv 2005.14165) Table 2.1; vocab of GPT-2's BPE"},
    // BERT-Large (Devlin et al. 2019: "340M"), HF google-bert/bert-large-uncased
    // config.json: hidden 1024, 24 layers, 16 heads, intermediate 4096,
    // max_position 512, vocab 30522, type_vocab 2, dropout 0.1. BertModel
    // (with its pooler, without the pre-training heads).
    {"bert-large",
     "gpt:layers=24,embd=1024,heads=16,ctx=512,vocab=30522,bias=all,encoder,dropout", 335141888,
     "HF google-bert/bert-large-uncased config.json; BertModel with pooler"},
    // Llama 2 (Touvron et al. 2023), HF meta-llama/Llama-2-*-hf config.json:
    // RMSNorm, SwiGLU, RoPE, no biases, untied head, vocab 32000, context
    // 4096; 70B uses grouped-query attention with 8 key/value heads.
    {"llama2-7b",
     "gpt:layers=32,embd=4096,heads=32,ctx=4096,vocab=32000,bias=none,norm=rms,mlp=swiglu,"
     "ffn=11008,pos=rope",
     6738415616, "HF meta-llama/Llama-2-7b-hf config.json (intermediate_size 11008)"},
    {"llama2-13b",
     "gpt:layers=40,embd=5120,heads=40,ctx=4096,vocab=32000,bias=none,norm=rms,mlp=swiglu,"
     "ffn=13824,pos=rope",
     13015864320, "HF meta-llama/Llama-2-13b-hf config.json (intermediate_size 13824)"},
    {"llama2-70b",
     "gpt:layers=80,embd=8192,heads=64,ctx=4096,vocab=32000,bias=none,norm=rms,mlp=swiglu,"
     "ffn=28672,kv_heads=8,pos=rope",
     68976648192, "HF meta-llama/Llama-2-70b-hf config.json (num_key_value_heads 8)"},
    // Llama 3 (Meta 2024), HF meta-llama/Meta-Llama-3-*B config.json: vocab
    // 128256, context 8192, grouped-query attention with 8 key/value heads.
    {"llama3-8b",
     "gpt:layers=32,embd=4096,heads=32,ctx=8192,vocab=128256,bias=none,norm=rms,mlp=swiglu,"
     "ffn=14336,kv_heads=8,pos=rope",
     8030261248, "HF meta-llama/Meta-Llama-3-8B config.json (intermediate_size 14336)"},
    {"llama3-70b",
     "gpt:layers=80,embd=8192,heads=64,ctx=8192,vocab=128256,bias=none,norm=rms,mlp=swiglu,"
     "ffn=28672,kv_heads=8,pos=rope",
     70553706496, "HF meta-llama/Meta-Llama-3-70B config.json (intermediate_size 28672)"},
    // The MiniGPT of the DDP guide the project started from (reference
    // seeds/004, L350-404 and L435: MiniGPT(VOCAB=8000, n_embed=384,
    // n_head=6, n_layer=6, block=BLOCK_SIZE=256)), without its dropout; it
    // runs numerically too.
    {"minigpt", "gpt:layers=6,embd=384,heads=6,ctx=256,vocab=8000", 16880640,
     "reference seeds/004 (the guide's MiniGPT, VOCAB 8000, BLOCK_SIZE 256)"},
    // ResNet-50 as a parameter count: torchvision's resnet50 (V1.5),
    // ResNet50_Weights.IMAGENET1K_V1: num_params 25,557,032 and "GFLOPS 4.09"
    // (4.089e9 multiply-adds for one 224 x 224 image), which is 8.178e9
    // FLOPs forward at 2 FLOPs per multiply-add, ddplab's convention.
    {"resnet50", "count:params=25557032,flops=8178000000", 25557032,
     "torchvision ResNet50_Weights.IMAGENET1K_V1 (num_params, GFLOPS 4.09 at 224x224)"},
};

#define NPRESETS ((int)(sizeof presets / sizeof presets[0]))

int sim_model_preset_count(void) {
    return NPRESETS;
}

const SimModelPreset *sim_model_preset_at(int i) {
    return i >= 0 && i < NPRESETS ? &presets[i] : NULL;
}

int sim_model_preset(const char *name, SimModelSpec *out) {
    if (!name)
        return -1;
    for (int i = 0; i < NPRESETS; i++) {
        if (strcmp(name, presets[i].name) != 0)
            continue;
        // a preset's spec always has a colon, so this cannot come back here
        return sim_model_parse(presets[i].spec, out, NULL, 0) == SIM_OK ? 0 : -1;
    }
    return -1;
}

const char *sim_model_preset_names(char *buf, size_t len) {
    size_t used = 0;
    if (!len)
        return buf;
    buf[0] = '\0';
    for (int i = 0; i < NPRESETS && used < len; i++) {
        int k = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", presets[i].name);
        if (k < 0)
            break;
        used += (size_t)k;
    }
    return buf;
}
