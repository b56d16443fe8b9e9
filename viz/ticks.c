// viz/ticks.c: choosing an axis's ticks and writing their labels (ticks.h).
//
// Linear: the smallest step of the form {1, 2, 5} x 10^e that gives at most
// max_ticks ticks once the range is widened to multiples of the step. Log:
// every stride-th power of the base; the 1-2-5 values of each decade when
// the range covers three decades or less and they fit; linear ticks when it
// covers less than one. Labels are formatted with integer
// arithmetic, never printf's %f / %e, so they read "1.5" whatever
// LC_NUMERIC a program set.
#include "ticks.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/errbuf.h"

// Widest exponent range handled: beyond it pow(10, e) loses the values.
enum { TICK_EXP_LIMIT = 290 };

static double pow10i(int e) {
    return pow(10.0, (double)e);
}

// floor(log10(v)) for v > 0, corrected where log10 rounds across a power.
static int floor_log10(double v) {
    int e = (int)floor(log10(v));
    if (pow10i(e + 1) <= v)
        e++;
    else if (pow10i(e) > v)
        e--;
    return e;
}

// The smallest e with 10^e >= v, for v > 0.
static int ceil_log10(double v) {
    int e = floor_log10(v);
    return pow10i(e) < v ? e + 1 : e;
}

// floor(log2(v)) and the smallest e with 2^e >= v, exactly, for v > 0.
static int floor_log2(double v) {
    int e;
    frexp(v, &e); // v = m * 2^e, m in [0.5, 1)
    return e - 1;
}

static int ceil_log2(double v) {
    int e;
    double m = frexp(v, &e);
    return m == 0.5 ? e - 1 : e;
}

static long long floor_div(long long a, long long b) {
    long long q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

static long long ceil_div(long long a, long long b) {
    return -floor_div(-a, b);
}

// mant * 10^e * k as the double nearest to that decimal: the division by an
// exact power of ten rounds once.
static double decimal_value(long long k, int mant, int e) {
    double m = (double)(k * mant);
    return e >= 0 ? m * pow10i(e) : m / pow10i(-e);
}

// Nearly equal ends (relative difference below 1e-9) cannot be told apart
// in a label; they are treated as one value.
static int nearly_equal(double lo, double hi) {
    double mag = fmax(fabs(lo), fabs(hi));
    return hi - lo <= 1e-9 * mag;
}

SimStatus viz_ticks_linear(double lo, double hi, int max_ticks, VizTicks *t) {
    memset(t, 0, sizeof(*t));
    if (!isfinite(lo) || !isfinite(hi) || lo > hi || max_ticks < 2 || max_ticks > VIZ_TICKS_MAX)
        return SIM_EINVAL;
    if (nearly_equal(lo, hi)) {
        double mid = lo / 2 + hi / 2;
        double pad = mid != 0 ? fabs(mid) * 0.1 : 1.0;
        lo = mid - pad;
        hi = mid + pad;
    }
    // Multiples of a step on both sides of zero: -s, 0, s at the least.
    if (lo < 0 && hi > 0 && max_ticks < 3)
        max_ticks = 3;
    double span = hi - lo;
    double raw = span / (max_ticks - 1);
    if (!(raw > 0) || !isfinite(span))
        return SIM_EINVAL;
    int e = floor_log10(raw);
    if (e < -TICK_EXP_LIMIT || e > TICK_EXP_LIMIT)
        return SIM_EINVAL;
    static const int mants[3] = {1, 2, 5};
    // Candidates in increasing order: 1, 2, 5 x 10^e, then x 10^(e+1) ...
    for (int i = 0; i < 12; i++) {
        int mant = mants[i % 3], ex = e + i / 3;
        double step = mant * pow10i(ex);
        if (step < raw * (1 - 1e-12))
            continue;
        long long k0 = (long long)floor(lo / step + 1e-9);
        long long k1 = (long long)ceil(hi / step - 1e-9);
        if (k1 <= k0)
            k1 = k0 + 1;
        if (k1 - k0 + 1 > max_ticks)
            continue;
        t->n = (int)(k1 - k0 + 1);
        for (int j = 0; j < t->n; j++) {
            double v = decimal_value(k0 + j, mant, ex);
            t->v[j] = v == 0 ? 0.0 : v; // no -0
        }
        t->lo = t->v[0];
        t->hi = t->v[t->n - 1];
        t->step = step;
        return SIM_OK;
    }
    return SIM_EINVAL; // not reached: 10 x raw always fits
}

// Every stride-th power of base (2 or 10) for an axis from base^elo to
// base^ehi (elo < ehi): the smallest stride that gives at most max_ticks
// ticks, at exponents that are multiples of it. When a stride leaves fewer
// than two ticks inside, the axis widens to the nearest multiples around it.
// Failing all that, the two ends alone.
static void power_ticks(int base, int elo, int ehi, int max_ticks, VizTicks *t) {
    long long e0 = elo, k = ehi - elo, n = 2;
    for (int s = 1; s < ehi - elo; s++) {
        long long a = ceil_div(elo, s), b = floor_div(ehi, s);
        if (b - a + 1 < 2) {
            a = floor_div(elo, s);
            b = ceil_div(ehi, s);
        }
        if (b - a + 1 > max_ticks)
            continue;
        if (a * s < elo)
            elo = (int)(a * s);
        if (b * s > ehi)
            ehi = (int)(b * s);
        e0 = a * s;
        k = s;
        n = b - a + 1;
        break;
    }
    t->log = 1;
    t->base = base;
    t->stride = (int)k;
    t->n = (int)n;
    for (int j = 0; j < t->n; j++) {
        int ex = (int)(e0 + j * k);
        t->v[j] = base == 2 ? ldexp(1.0, ex) : pow10i(ex);
    }
    t->lo = base == 2 ? ldexp(1.0, elo) : pow10i(elo);
    t->hi = base == 2 ? ldexp(1.0, ehi) : pow10i(ehi);
}

// The 1-2-5 values of each decade that cover [lo, hi] (hi / lo >= 3): the
// axis runs from the largest such value <= lo to the smallest >= hi. 0 if
// more than max_ticks would be needed.
static int one_two_five_ticks(double lo, double hi, int max_ticks, VizTicks *t) {
    static const int mants[3] = {1, 2, 5};
    int ex = floor_log10(lo), i = 0;
    while (i < 2 && mants[i + 1] * pow10i(ex) <= lo * (1 + 1e-12))
        i++;
    int n = 0;
    for (;;) {
        if (n == max_ticks)
            return 0;
        double v = mants[i] * pow10i(ex);
        t->v[n++] = v;
        if (v >= hi * (1 - 1e-12))
            break;
        if (++i == 3) {
            i = 0;
            ex++;
        }
    }
    t->n = n;
    t->log = 1;
    t->base = 10;
    t->stride = 0;
    t->lo = t->v[0];
    t->hi = t->v[n - 1];
    return 1;
}

SimStatus viz_ticks_log(double lo, double hi, int base, int max_ticks, VizTicks *t) {
    memset(t, 0, sizeof(*t));
    if (!isfinite(lo) || !isfinite(hi) || !(lo > 0) || lo > hi || max_ticks < 2 ||
        max_ticks > VIZ_TICKS_MAX || (base != 0 && base != 2 && base != 10))
        return SIM_EINVAL;
    if (nearly_equal(lo, hi)) {
        lo /= 2;
        hi *= 2;
    }
    if (floor_log10(lo) < -TICK_EXP_LIMIT || ceil_log10(hi) > TICK_EXP_LIMIT)
        return SIM_EINVAL;
    if (base == 0)
        base = lo >= 1 && ceil_log2(hi) - floor_log2(lo) + 1 <= 2 * max_ticks ? 2 : 10;
    if (base == 2) {
        power_ticks(2, floor_log2(lo), ceil_log2(hi), max_ticks, t);
        return SIM_OK;
    }
    if (hi / lo < 10) {
        // Less than a decade: powers and 1-2-5 values would give two or
        // three ticks; plain steps read better and the axis stays
        // logarithmic.
        SimStatus st = viz_ticks_linear(lo, hi, max_ticks, t);
        if (st != SIM_OK)
            return st;
        if (t->lo <= 0) {
            // Widening reached zero, which a log axis cannot show.
            int keep = 0;
            for (int j = 0; j < t->n; j++)
                if (t->v[j] > 0)
                    t->v[keep++] = t->v[j];
            t->n = keep;
            t->lo = lo;
        }
        t->log = 1;
        t->base = 0;
        return SIM_OK;
    }
    int elo = floor_log10(lo), ehi = ceil_log10(hi);
    if (hi / lo <= 1000 && one_two_five_ticks(lo, hi, max_ticks, t))
        return SIM_OK;
    memset(t, 0, sizeof(*t));
    power_ticks(10, elo, ehi, max_ticks, t);
    return SIM_OK;
}

// ----------------------------------------------------------------------------
// labels

// |v| rounded to `decimals` decimals, written as digits with a point,
// through integers (|v| * 10^decimals stays below 2^63 for every axis the
// tick functions produce).
static void put_fixed(double v, int decimals, char *buf, size_t len) {
    if (decimals < 0)
        decimals = 0;
    if (decimals > 15)
        decimals = 15;
    double scale = pow10i(decimals);
    double r = round(fabs(v) * scale);
    if (r >= 9.2e18) {
        snprintf(buf, len, "%s", v < 0 ? "-inf" : "inf");
        return;
    }
    unsigned long long q = (unsigned long long)r;
    unsigned long long p = (unsigned long long)scale;
    const char *sign = v < 0 && q != 0 ? "-" : "";
    if (decimals == 0)
        snprintf(buf, len, "%s%llu", sign, q);
    else
        snprintf(buf, len, "%s%llu.%0*llu", sign, q / p, decimals, q % p);
}

// v as mantissa "e" exponent with `decimals` decimals in the mantissa,
// trailing zeros dropped: "1.5e6", "2e-5".
static void put_sci(double v, int decimals, char *buf, size_t len) {
    if (v == 0) {
        snprintf(buf, len, "0");
        return;
    }
    if (decimals < 0)
        decimals = 0;
    int e = floor_log10(fabs(v));
    double m = v / pow10i(e);
    // Rounding the mantissa may carry it to 10.
    if (round(fabs(m) * pow10i(decimals)) >= 10 * pow10i(decimals)) {
        e++;
        m = v / pow10i(e);
    }
    char mb[48];
    put_fixed(m, decimals, mb, sizeof(mb));
    if (strchr(mb, '.') != NULL) {
        size_t n = strlen(mb);
        while (n > 0 && mb[n - 1] == '0')
            mb[--n] = '\0';
        if (n > 0 && mb[n - 1] == '.')
            mb[--n] = '\0';
    }
    snprintf(buf, len, "%se%d", mb, e);
}

// A linear tick: fixed decimals as the step needs them, or scientific
// notation for very large or very small axes.
static void label_linear(const VizTicks *t, double v, char *buf, size_t len) {
    int e = t->step > 0 ? floor_log10(t->step) : 0;
    double amax = fmax(fabs(t->lo), fabs(t->hi));
    if (amax >= 1e6 || amax < 1e-3) {
        int digits = v != 0 ? floor_log10(fabs(v)) - e : 0;
        put_sci(v, digits, buf, len);
    } else {
        put_fixed(v, -e, buf, len);
    }
}

// Binary suffixes when the axis reaches 1M (2^20), as byte sizes do: "1K",
// "256K", "1G"; below that (a rank sweep to 16384) whole numbers.
static void label_base2(double v, int suffixes, char *buf, size_t len) {
    static const char units[] = "KMGTPE";
    if (v >= 1 && (v < 1024 || (!suffixes && v < 1e5))) {
        put_fixed(v, 0, buf, len);
        return;
    }
    if (v >= 1) {
        for (int u = 5; u >= 0; u--) {
            double unit = ldexp(1.0, 10 * (u + 1));
            if (v >= unit && fmod(v, unit) == 0 && v / unit < 1e5) {
                put_fixed(v / unit, 0, buf, len);
                size_t n = strlen(buf);
                if (n + 1 < len) {
                    buf[n] = units[u];
                    buf[n + 1] = '\0';
                }
                return;
            }
        }
        put_sci(v, 2, buf, len);
        return;
    }
    int e = floor_log2(v);
    if (e >= -3 && ldexp(1.0, e) == v) {
        put_fixed(v, -e, buf, len); // 0.5, 0.25, 0.125
        return;
    }
    snprintf(buf, len, "2^%d", e);
}

static void label_base10(double v, char *buf, size_t len) {
    int e = floor_log10(v);
    // 1-2-5 values carry one significant digit.
    if (e >= -3 && e < 5)
        put_fixed(v, e < 0 ? -e : 0, buf, len);
    else
        put_sci(v, 0, buf, len);
}

void viz_tick_label(const VizTicks *t, double v, char *buf, size_t len) {
    if (buf == NULL || len == 0)
        return;
    if (!isfinite(v)) {
        snprintf(buf, len, "%s", isnan(v) ? "nan" : v < 0 ? "-inf" : "inf");
        return;
    }
    if (t->log && t->base == 2 && v > 0)
        label_base2(v, t->hi >= 1048576.0, buf, len);
    else if (t->log && t->base == 10 && v > 0)
        label_base10(v, buf, len);
    else
        label_linear(t, v, buf, len);
}
