// tests/test_env.h: the environment switches the tests honour. Each is on
// when its variable is set to exactly "1".
#ifndef DDPLAB_TESTS_ENV_H
#define DDPLAB_TESTS_ENV_H

// DDPLAB_TEST_QUICK=1: shrink large cases (never skip a kind of check).
int tenv_quick(void);
// DDPLAB_TEST_FULL=1: run every large case, even the slow ones.
int tenv_full(void);
// DDPLAB_SANITIZED=1: the build runs under a sanitizer; timing bounds loosen.
int tenv_sanitized(void);

#endif
