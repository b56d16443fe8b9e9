// cli/learn/interview_choice.c: what the multiple-choice topics share: which
// items a topic holds, how an item becomes a question (three wrong answers
// and the right one's position drawn from the seed), and the walk through a
// topic's items in a seed-drawn order.
#include <stdio.h>

#include "learn/interview.h"

typedef const IvChoiceItem *(*IvItemsFn)(int *n);

static IvItemsFn items_of(IvTopic t) {
    switch (t) {
    case IV_FAILURES: return iv_failures_items;
    case IV_STRATEGIES: return iv_strategies_items;
    case IV_PRECISION: return iv_precision_items;
    case IV_LAUNCHING: return iv_launching_items;
    case IV_LOOP: return iv_loop_items;
    case IV_RESILIENCE: return iv_resilience_items;
    default: return NULL;
    }
}

const IvChoiceItem *iv_choice_items(IvTopic t, int *n) {
    IvItemsFn f = items_of(t);
    *n = 0;
    return f ? f(n) : NULL;
}

void iv_choice_fill(const IvChoiceItem *it, IvTopic t, SimSplitMix *g, IvQuestion *q) {
    q->topic = t;
    q->nvalues = 0;
    snprintf(q->text, sizeof q->text, "%s", it->question);
    // three of the wrong answers, then the right one placed at random: the
    // draws are those the failures topic has always made, so its drills
    // repeat from before the other topics shared this code
    int w[IV_NWRONG] = {0, 1, 2, 3};
    for (int k = IV_NWRONG - 1; k > 0; k--) {
        int j = iv_pick(g, k + 1), s = w[k];
        w[k] = w[j];
        w[j] = s;
    }
    q->correct = iv_pick(g, IV_NCHOICES);
    for (int c = 0, k = 0; c < IV_NCHOICES; c++)
        snprintf(q->choice[c], sizeof q->choice[c], "%s",
                 c == q->correct ? it->right : it->wrong[w[k++]]);
    snprintf(q->explain, sizeof q->explain, "%s", it->explain);
    snprintf(q->command, sizeof q->command, "%s", it->command);
    q->command_exits = IV_EXIT(it->exit_code);
    if (it->exit_code == 1) // plan's verdict: 1 when it does not fit, else 0
        q->command_exits |= IV_EXIT(0);
    snprintf(q->command_note, sizeof q->command_note, "%s", it->note ? it->note : "");
}

int iv_gen_choice(IvTopic t, SimSplitMix *g, IvQuestion *q) {
    enum { MAX_ITEMS = 64 };
    int n;
    const IvChoiceItem *items = iv_choice_items(t, &n);
    if (!items || n <= 0 || n > MAX_ITEMS)
        return -1;
    // the items in an order drawn from the topic's seed, walked by ordinal
    int order[MAX_ITEMS];
    SimSplitMix o;
    sim_splitmix_seed(&o, q->seed);
    for (int i = 0; i < n; i++)
        order[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = iv_pick(&o, i + 1), s = order[i];
        order[i] = order[j];
        order[j] = s;
    }
    iv_choice_fill(&items[order[q->ordinal % n]], t, g, q);
    return 0;
}
