// tests/test_record.c: the record of named numbers (sim/base/record.h) that
// a checkpoint keeps every rank's timeline in: what is written reads back
// bit for bit, and the reader refuses every field that is not what the
// writer wrote in that place.
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/record.h"
#include "check.h"

static int same_bits(double a, double b) {
    return memcmp(&a, &b, sizeof a) == 0;
}

// Doubles and whole numbers at their edges, lists empty and long.
static int test_round_trip(void) {
    const double d[] = {0.0, -0.0, 1.0 / 3.0, 0.00090870246438079765, DBL_MIN, DBL_MAX,
                        4.9406564584124654e-324, -123456.789e-200, 1e300};
    const int64_t i[] = {0, -1, 1, INT64_MAX, INT64_MIN, 1234567890123};
    SimRecOut o;
    sim_rec_out_init(&o);
    for (size_t k = 0; k < sizeof d / sizeof d[0]; k++)
        sim_rec_f64(&o, "d", d[k]);
    sim_rec_i64s(&o, "ints", i, sizeof i / sizeof i[0]);
    sim_rec_f64s(&o, "doubles", d, sizeof d / sizeof d[0]);
    sim_rec_i64s(&o, "none", NULL, 0);
    sim_rec_f64s(&o, "no_doubles", NULL, 0);
    sim_rec_i64(&o, "last", 7);
    char *text = sim_rec_take(&o);
    CHECK(text != NULL);
    CHECK(strchr(text, '\n') == NULL); // one line
    SimRecIn in;
    sim_rec_in_init(&in, text);
    for (size_t k = 0; k < sizeof d / sizeof d[0]; k++)
        CHECK(same_bits(sim_rec_get_f64(&in, "d"), d[k]));
    int64_t gi[8];
    double gd[16];
    sim_rec_get_i64s(&in, "ints", gi, sizeof i / sizeof i[0]);
    for (size_t k = 0; k < sizeof i / sizeof i[0]; k++)
        CHECK(gi[k] == i[k]);
    sim_rec_get_f64s(&in, "doubles", gd, sizeof d / sizeof d[0]);
    for (size_t k = 0; k < sizeof d / sizeof d[0]; k++)
        CHECK(same_bits(gd[k], d[k]));
    CHECK_EQ_INT(sim_rec_get_i64s_upto(&in, "none", gi, 8), 0);
    sim_rec_get_f64s(&in, "no_doubles", gd, 0);
    CHECK_EQ_INT(sim_rec_get_i64(&in, "last"), 7);
    CHECK_EQ_INT(in.bad, 0);
    CHECK_EQ_INT(sim_rec_end(&in), 0);
    free(text);
    // no field at all is the empty record, which reads as complete
    sim_rec_out_init(&o);
    text = sim_rec_take(&o);
    CHECK(text != NULL && text[0] == '\0');
    sim_rec_in_init(&in, text);
    CHECK_EQ_INT(sim_rec_end(&in), 0);
    free(text);
    return 0;
}

// Reads `text` as the fields "a" (one whole number) and "b" (a list of
// exactly two): 0 when it matches that and nothing is left over.
static int read_ab(const char *text) {
    SimRecIn in;
    sim_rec_in_init(&in, text);
    int64_t b[2];
    (void)sim_rec_get_i64(&in, "a");
    sim_rec_get_i64s(&in, "b", b, 2);
    int rc = sim_rec_end(&in);
    // once bad, every read gives 0
    if (in.bad && sim_rec_get_i64(&in, "a") != 0)
        return 2;
    return rc;
}

static int test_strict(void) {
    CHECK_EQ_INT(read_ab("a=1 b=2,3"), 0);
    CHECK_EQ_INT(read_ab("a=1  b=2,3 "), 0); // spacing between fields is free
    const char *bad[] = {
        "",              // nothing
        "b=2,3 a=1",     // another order
        "a=1",           // a field short
        "a=1 b=2",       // a list one short
        "a=1 b=2,3,4",   // one long
        "a=1 b=2,3 c=4", // something left over
        "a=1,5 b=2,3",   // a list where one number was written
        "a= b=2,3",      // no value
        "a=x b=2,3",     // not a number
        "a=1x b=2,3",    // a number with a tail
        "a=1 b=2,,3",    // an empty list entry
        "a=1 b=2,3,",    // a trailing comma
        "aa=1 b=2,3",    // a name that only begins like it
        "A=1 b=2,3",     // names are case-sensitive
        "a=99999999999999999999 b=2,3", // beyond int64
        "a 1 b=2,3",     // no '='
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        if (read_ab(bad[k]) != -1) {
            fprintf(stderr, "accepted or misread: \"%s\"\n", bad[k]);
            return 1;
        }
    }
    // a list of any length up to the room the reader has
    SimRecIn in;
    int64_t v[3];
    sim_rec_in_init(&in, "l=1,2,3,4");
    CHECK_EQ_INT(sim_rec_get_i64s_upto(&in, "l", v, 3), 0);
    CHECK_EQ_INT(in.bad, 1);
    sim_rec_in_init(&in, "l=1,2");
    CHECK_EQ_INT(sim_rec_get_i64s_upto(&in, "l", v, 3), 2);
    CHECK_EQ_INT(sim_rec_end(&in), 0);
    // NULL text is a record that is not there
    sim_rec_in_init(&in, NULL);
    CHECK_EQ_INT(sim_rec_get_i64(&in, "a"), 0);
    CHECK_EQ_INT(sim_rec_end(&in), -1);
    return 0;
}

int main(void) {
    int failures = 0;
    RUN(test_round_trip);
    RUN(test_strict);
    return failures ? 1 : 0;
}
