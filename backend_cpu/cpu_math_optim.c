// backend_cpu/cpu_math_optim.c: one step of torch.optim.SGD and
// torch.optim.Adam / AdamW over a flat range of parameters, reproducing
// PyTorch 1.13's single-tensor code (_single_tensor_sgd, _single_tensor_adam,
// _single_tensor_adamw in torch/optim/) operation by operation:
// - coefficients (1 - beta, lr / bias_correction, ...) are computed in double,
//   as Python computes them, and rounded to fp32 where torch hands them to a
//   kernel as a scalar;
// - each tensor op rounds to fp32, in torch's order;
// - x.add_(y, alpha=a) is a fused multiply-add, as torch's vectorised CPU
//   kernel (fmadd) computes it, and so is addcmul_ (x + (v*t1)*t2, which
//   the compiler of torch's AVX2 kernels contracts into one fma); addcdiv_
//   (x + (v*t1)/t2) cannot be fused.
// The result is torch.optim's bit for bit on x86-64 CPUs with FMA, where
// torch runs its AVX2 kernels (tests/test_kernels_torch.c checks it), and
// within an ulp per operation where torch's kernels do not fuse.
#include <math.h>

#include "cpu_math.h"

// Compiles the update loops twice on x86-64 (with FMA instructions, and the
// baseline, which calls libm's fmaf), chosen when the program is loaded, so
// that fmaf is one instruction wherever the CPU has it and the loops can be
// vectorised. The selection runs before the sanitizers' runtimes start, so
// sanitized builds keep the baseline only.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define OPTIM_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define OPTIM_SANITIZED 1
#endif
#endif
#if defined(__x86_64__) && defined(__GNUC__) && defined(__linux__) && !defined(OPTIM_SANITIZED)
#define OPTIM_FMA_CLONES __attribute__((target_clones("fma", "default")))
#else
#define OPTIM_FMA_CLONES
#endif

// The loops below have no branches inside (the choices are selects on
// loop-invariant values, and every store happens on every iteration), and
// their pointers do not alias, so that the compiler can vectorise them
// (backend_cpu/CMakeLists.txt builds this file at -O3).

// ----------------------------------------------------------------------------
// SGD

typedef struct {
    float wd, mom, one_minus_damp, neg_lr;
    int has_wd, nesterov, first;
} SgdCoef;

OPTIM_FMA_CLONES
static void sgd_plain(float *restrict p, const float *restrict g, size_t n, SgdCoef k) {
    for (size_t i = 0; i < n; i++) {
        float d = fmaf(p[i], k.wd, g[i]); // d_p = grad.add(param, alpha=wd)
        d = k.has_wd ? d : g[i];
        p[i] = fmaf(d, k.neg_lr, p[i]);   // param.add_(d_p, alpha=-lr)
    }
}

OPTIM_FMA_CLONES
static void sgd_momentum(float *restrict p, const float *restrict g, float *restrict buf, size_t n,
                         SgdCoef k) {
    for (size_t i = 0; i < n; i++) {
        float d = fmaf(p[i], k.wd, g[i]);
        d = k.has_wd ? d : g[i];
        // first step: buf = clone(d_p); then buf.mul_(m).add_(d_p, alpha=1-dampening)
        float b = fmaf(d, k.one_minus_damp, buf[i] * k.mom);
        b = k.first ? d : b;
        buf[i] = b;
        float dn = fmaf(b, k.mom, d); // nesterov: d_p.add(buf, alpha=m)
        d = k.nesterov ? dn : b;
        p[i] = fmaf(d, k.neg_lr, p[i]);
    }
}

SimStatus cpu_math_sgd_step(void *ctx, int rank, float *p, const float *g, float *momentum_buf,
                            size_t n, const SimSgdHyper *h) {
    (void)ctx;
    (void)rank;
    if (h->momentum != 0.0 && momentum_buf == NULL)
        return SIM_EINVAL;
    SgdCoef k = {
        .wd = (float)h->weight_decay,
        .mom = (float)h->momentum,
        .one_minus_damp = (float)(1.0 - h->dampening),
        .neg_lr = (float)(-h->lr),
        .has_wd = h->weight_decay != 0.0,
        .nesterov = h->nesterov != 0,
        .first = h->first_step != 0,
    };
    if (h->momentum != 0.0)
        sgd_momentum(p, g, momentum_buf, n, k);
    else
        sgd_plain(p, g, n, k);
    return SIM_OK;
}

// ----------------------------------------------------------------------------
// Adam / AdamW

typedef struct {
    float wd;            // Adam: L2 term added to the gradient
    float decay;         // AdamW: param.mul_(1 - lr*wd); 1 (exact no-op) for Adam
    float beta1, one_minus_beta1, beta2, one_minus_beta2;
    float bc2_sqrt, eps, neg_step_size;
    int has_wd;          // Adam with weight_decay != 0
} AdamCoef;

OPTIM_FMA_CLONES
static void adam_loop(float *restrict p, const float *restrict g, float *restrict m,
                      float *restrict v, size_t n, AdamCoef k) {
    for (size_t i = 0; i < n; i++) {
        float pi = p[i] * k.decay; // AdamW: param.mul_(1 - lr * weight_decay)
        // Adam: grad = grad.add(param, alpha=weight_decay)
        float gi = fmaf(pi, k.wd, g[i]);
        gi = k.has_wd ? gi : g[i];
        // exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
        float mi = fmaf(gi, k.one_minus_beta1, m[i] * k.beta1);
        // exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        float vi = fmaf(k.one_minus_beta2 * gi, gi, v[i] * k.beta2);
        // denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
        float denom = sqrtf(vi) / k.bc2_sqrt + k.eps;
        // param.addcdiv_(exp_avg, denom, value=-step_size)
        p[i] = pi + k.neg_step_size * mi / denom;
        m[i] = mi;
        v[i] = vi;
    }
}

SimStatus cpu_math_adam_step(void *ctx, int rank, float *p, const float *g, float *m, float *v,
                             size_t n, const SimAdamHyper *h) {
    (void)ctx;
    (void)rank;
    if (h->step < 1)
        return SIM_EINVAL;
    double step = (double)h->step;
    double bias_correction1 = 1.0 - pow(h->beta1, step);
    double bias_correction2 = 1.0 - pow(h->beta2, step);
    double step_size = h->lr / bias_correction1;
    AdamCoef k = {
        .wd = (float)h->weight_decay,
        .decay = h->decoupled ? (float)(1.0 - h->lr * h->weight_decay) : 1.0f,
        .beta1 = (float)h->beta1,
        .one_minus_beta1 = (float)(1.0 - h->beta1),
        .beta2 = (float)h->beta2,
        .one_minus_beta2 = (float)(1.0 - h->beta2),
        .bc2_sqrt = (float)sqrt(bias_correction2),
        .eps = (float)h->eps,
        .neg_step_size = (float)(-step_size),
        .has_wd = !h->decoupled && h->weight_decay != 0.0,
    };
    adam_loop(p, g, m, v, n, k);
    return SIM_OK;
}
