// tests/check.h: minimal assertions for ddplab's tests. A failed check prints
// the expression and both values, then the test returns non-zero.
#ifndef DDPLAB_TESTS_CHECK_H
#define DDPLAB_TESTS_CHECK_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#define CHECK(cond)                                                            \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__,   \
                    #cond);                                                    \
            return 1;                                                          \
        }                                                                      \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                     \
    do {                                                                       \
        long long check_a_ = (long long)(a), check_b_ = (long long)(b);        \
        if (check_a_ != check_b_) {                                            \
            fprintf(stderr, "%s:%d: `%s == %s` (%lld != %lld)\n", __FILE__,     \
                    __LINE__, #a, #b, check_a_, check_b_);                     \
            return 1;                                                          \
        }                                                                      \
    } while (0)

#define CHECK_NEAR(a, b, tol)                                                  \
    do {                                                                       \
        double check_a_ = (double)(a), check_b_ = (double)(b);                 \
        if (!(fabs(check_a_ - check_b_) <= (tol))) {                           \
            fprintf(stderr, "%s:%d: `%s ~= %s` (%.12g vs %.12g, tol %g)\n",     \
                    __FILE__, __LINE__, #a, #b, check_a_, check_b_,            \
                    (double)(tol));                                            \
            return 1;                                                          \
        }                                                                      \
    } while (0)

#define CHECK_STR_CONTAINS(hay, needle)                                        \
    do {                                                                       \
        const char *check_h_ = (hay), *check_n_ = (needle);                    \
        if (check_h_ == NULL || strstr(check_h_, check_n_) == NULL) {          \
            fprintf(stderr, "%s:%d: `%s` does not contain \"%s\":\n%s\n",       \
                    __FILE__, __LINE__, #hay, check_n_,                        \
                    check_h_ ? check_h_ : "(null)");                           \
            return 1;                                                          \
        }                                                                      \
    } while (0)

// Runs a named test function and counts failures: RUN(test_foo);
#define RUN(fn)                                                                \
    do {                                                                       \
        int run_rc_ = fn();                                                    \
        printf("%s %s\n", run_rc_ == 0 ? "ok    " : "FAILED", #fn);            \
        failures += run_rc_ != 0;                                              \
    } while (0)

#endif
