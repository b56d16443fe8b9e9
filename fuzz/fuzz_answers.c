// fuzz/fuzz_answers.c: the answers of `ddplab interview --answers FILE` (or
// typed at the prompt), one line per question, graded by iv_grade against
// the questions of a fixed drill (seed 7, all topics, 12 questions). Each
// question's own expected answer must grade right, and the input's lines
// must grade without a crash; the input is accepted when every line reads
// as an answer (right or wrong), rejected when one does not (not as many
// numbers as asked, not a letter).
#include <stdlib.h>
#include <string.h>

#include "learn/interview.h" // defines: IvQuestion, iv_plan_drill, iv_generate_fresh, iv_grade

#include "fuzz_util.h"

enum { DRILL = 12 };

// The drill's questions, made once.
static const IvQuestion *drill(void) {
    static IvQuestion qs[DRILL];
    static int made;
    if (made)
        return qs;
    IvTopic all[IV_TOPIC_COUNT], topic_of[DRILL];
    uint64_t seeds[DRILL], asked[DRILL];
    int ordinals[DRILL];
    for (int t = 0; t < IV_TOPIC_COUNT; t++)
        all[t] = (IvTopic)t;
    iv_plan_drill(7, all, IV_TOPIC_COUNT, DRILL, topic_of, seeds, ordinals);
    for (int i = 0; i < DRILL; i++) {
        char err[256];
        if (iv_generate_fresh(topic_of[i], seeds[i], ordinals[i], DRILL, asked, i, &qs[i], err,
                              sizeof err) != 0) {
            fprintf(stderr, "fuzz_answers: question %d: %s\n", i + 1, err);
            abort();
        }
        asked[i] = iv_text_hash(qs[i].text);
        char exp[128], why[512];
        if (iv_grade(&qs[i], iv_expected(&qs[i], exp, sizeof exp), why, sizeof why) != 1) {
            fprintf(stderr, "fuzz_answers: question %d's own answer '%s' grades %s\n", i + 1,
                    exp, why);
            abort();
        }
    }
    made = 1;
    return qs;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const IvQuestion *qs = drill();
    fuzz_set_accepted(0);
    char *text = fuzz_strndup(data, size);
    if (text == NULL)
        return 0;
    int ok = 1, i = 0;
    // a final line break ends the last line rather than starting an empty one
    for (char *line = text; line && *line != '\0' && i < DRILL; i++) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        char why[512];
        int g = iv_grade(&qs[i], line, why, sizeof why);
        if (g < -1 || g > 1) {
            fprintf(stderr, "fuzz_answers: grade %d of line %d\n", g, i + 1);
            abort();
        }
        ok &= g >= 0;
        line = nl ? nl + 1 : NULL;
    }
    fuzz_set_accepted(ok && i > 0);
    free(text);
    return 0;
}
