// tests/test_env.c: reading the tests' environment switches (see
// test_env.h).
#include "test_env.h"

#include <stdlib.h>
#include <string.h>

static int flag(const char *name) {
    const char *v = getenv(name);
    return v != NULL && strcmp(v, "1") == 0;
}

int tenv_quick(void) {
    return flag("DDPLAB_TEST_QUICK");
}

int tenv_full(void) {
    return flag("DDPLAB_TEST_FULL");
}

int tenv_sanitized(void) {
    return flag("DDPLAB_SANITIZED");
}
