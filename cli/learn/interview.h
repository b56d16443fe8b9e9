// cli/learn/interview.h: `ddplab interview`, a drill of interview questions on
// data-parallel training whose answers come from the engine: memory per GPU
// from sim/cost/memory_formula.h, bus bandwidth and ring schedules from
// sim/coll/coll.h and sim/coll/schedule.h, DDP buckets from sim/strategy/ddp_buckets.h on a
// real model's parameters, FSDP shards and divide factors from sim/strategy/fsdp.h,
// batches and learning rates from sim/data/sampler.h and sim/model/lr_schedule.h, and
// multiple-choice "what breaks if ..." questions on the failure modes that
// `ddplab run` reproduces, and conceptual multiple-choice questions on the
// lessons' other subjects (strategies, precision, launching, the training
// loop, resilience), each with a command that shows the nearest thing.
//
// A question is plain data (IvQuestion): its text, one or two numeric
// answers with their tolerances or four choices, the worked explanation
// with the actual numbers, and a `ddplab` command that shows the same thing
// (with the exit codes it is meant to end with). Generators are pure
// functions of a 64-bit seed, so a drill repeats exactly with --seed on any
// machine; the generator (sim_splitmix, splitmix64) is the engine's.
#ifndef DDPLAB_CLI_INTERVIEW_H
#define DDPLAB_CLI_INTERVIEW_H

#include <stddef.h>
#include <stdint.h>

#include "data/sampler.h" // defines: SimSplitMix

typedef enum {
    IV_MEMORY = 0,   // model states per GPU: DDP, ZeRO-1/2/3, FSDP FULL_SHARD
    IV_COLLECTIVES,  // bus bandwidth; ring all_reduce steps and bytes
    IV_BATCH,        // effective batch and scaled lr; DistributedSampler shares
    IV_BUCKETS,      // DDP buckets of a preset at a bucket cap
    IV_SHARDING,     // FSDP flat-parameter shards and padding; divide factors
    IV_FAILURES,     // what breaks if ... (multiple choice)
    // conceptual multiple choice, one file each (interview_<topic>.c)
    IV_STRATEGIES,   // DP against DDP, DDP against FSDP, the ZeRO stages, FSDP2
    IV_PRECISION,    // autocast and GradScaler across ranks, compression hooks
    IV_LAUNCHING,    // torchrun's environment, init_process_group, backends, SLURM
    IV_LOOP,         // no_sync, DistributedSampler, distributed evaluation
    IV_RESILIENCE,   // elastic restarts, parameter servers, checkpoints
    IV_TOPIC_COUNT
} IvTopic;

#define IV_MAX_VALUES 2
#define IV_NCHOICES 4

// One numeric answer.
typedef struct {
    char name[48];    // what it is: "GB per GPU", "steps", ...
    char unit[16];    // printed after the value ("GB", "MiB", ""): never parsed
    double value;     // the engine's answer
    int decimals;     // how the expected value prints: -1 %g, else %.Nf (with
                      // thousands separators for 0)
    double rel_tol;   // accepted: |answer - value| <= max(rel_tol |value|, abs_tol)
    double abs_tol;
} IvValue;

// What the command of a question may exit with: a bit per exit code.
#define IV_EXIT(code) (1u << (code))

typedef struct {
    IvTopic topic;
    uint64_t seed;             // the topic's seed in the drill
    int ordinal;               // how many questions of the topic came before it
    char text[1400];           // the question
    int nvalues;               // 1 or 2 numeric answers; 0: multiple choice
    IvValue val[IV_MAX_VALUES];
    char choice[IV_NCHOICES][240]; // multiple choice: shown as a) .. d)
    int correct;               // index of the right choice
    char explain[2400];        // the worked explanation, with the numbers
    char command[400];         // a ddplab command that shows it ("ddplab ...")
    unsigned command_exits;    // IV_EXIT bits it is meant to end with
    char command_note[160];    // why it ends that way, "" for exit 0
} IvQuestion;

// "memory", "collectives", "batch", "buckets", "sharding", "failures",
// "strategies", "precision", "launching", "loop", "resilience".
const char *iv_topic_name(IvTopic t);
// 0 and *out, or -1 for an unknown name.
int iv_topic_parse(const char *s, IvTopic *out);

// Fills q with the question `ordinal` (0, 1, ...) of topic t for the
// topic's seed: the draws come from seed and ordinal together, and the
// multiple-choice topic walks a seed-drawn order of its items, so a drill
// repeats no item before it has asked them all. Returns 0, or -1 with the
// reason in err (the engine refused a model: not expected).
int iv_generate(IvTopic t, uint64_t seed, int ordinal, IvQuestion *q, char *err,
                size_t errlen);

// The questions of a drill: question i asks topics[order[i % n]] where
// order is a seed-drawn permutation of the n selected topics, so that every
// selected topic comes up once in every n questions; it is the ordinals[i]-th
// question of its topic, whose seed is seeds[i] (one per topic, drawn from
// the drill's seed whichever topics are selected). Fills topic_of, seeds
// and ordinals, count entries each.
void iv_plan_drill(uint64_t seed, const IvTopic *topics, int ntopics, int count,
                   IvTopic *topic_of, uint64_t *seeds, int *ordinals);

// Question i of a drill of `count`: iv_generate's question `ordinal` or,
// when its text is among the nasked asked before (two draws can meet: hashes
// by iv_text_hash), the ordinals one drill length further on (no later
// question of the drill draws those), up to 16 tries; a topic with fewer
// distinct questions gives its repeat. The same seed and options give the
// same questions.
int iv_generate_fresh(IvTopic t, uint64_t seed, int ordinal, int count, const uint64_t *asked,
                      int nasked, IvQuestion *q, char *err, size_t errlen);
uint64_t iv_text_hash(const char *text); // FNV-1a

// The options of `ddplab interview` (interview.c).
typedef struct {
    int count;
    IvTopic topics[IV_TOPIC_COUNT];
    int ntopics;
    int all_topics;
    uint64_t seed;
    int non_interactive;
    const char *answers;    // --answers FILE (points into argv), or NULL
} IvOptions;

// Parses argv[1..argc) (argv[0] is "interview"). Returns 0 to run, 1 for
// --help, -1 on bad input (one line on stderr). Opens no file.
int iv_opts_parse(int argc, char **argv, IvOptions *o);

// Grading. The answer of a numeric question is its numbers in order,
// separated by spaces (or ';', or ', '); "1,048,576" is one number; units
// and words around the numbers are ignored. A multiple-choice answer is a
// letter a-d. Returns 1 right, 0 wrong, -1 when it cannot be read as an
// answer (not as many numbers as asked, not a letter); why[] says what was
// read and, when wrong, why ("read 1 number, expected 2 (...)", "GB per GPU
// 15 is not 13.48 (within 2% or 0.01 GB)").
int iv_grade(const IvQuestion *q, const char *answer, char *why, size_t whylen);
// The expected answer as a user would type it ("13.48", "14 1792", "c").
const char *iv_expected(const IvQuestion *q, char *buf, size_t len);
// One value as it prints: with the tolerance's precision and separators.
const char *iv_value_str(const IvValue *v, double x, char *buf, size_t len);
// "within 2% (at least 0.01 GB)", "exactly", ...
const char *iv_tolerance_str(const IvValue *v, char *buf, size_t len);

// ----------------------------------------------------------------------------
// for the generators (cli/interview_*.c)

// Uniform pick of one of n entries.
int iv_pick(SimSplitMix *g, int n);
// 1234567 -> "1,234,567".
const char *iv_grouped(int64_t v, char *buf, size_t len);
// Appends printf output to buf[len] (kept terminated; truncates).
void iv_append(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
// Sets value k of q.
void iv_set_value(IvQuestion *q, int k, const char *name, const char *unit, double value,
                  int decimals, double rel_tol, double abs_tol);

// A model preset as the generators need it: its parameters (numel and
// names, in PyTorch order), the order in which their gradients become
// ready in backward (what DDP's rebuild sees), and, for FSDP on nranks
// ranks with the default wrap policy, its units' element counts. Built by
// creating the model in phantom mode (shapes only) on one rank and running
// one forward and backward of one sample.
typedef struct {
    int64_t total;       // parameters
    int nparams;
    size_t *numel;       // [nparams]
    char (*names)[96];   // [nparams]
    int nready;
    int *ready;          // [nready] parameter indices in gradient-ready order
    int nunits;
    uint64_t *unit_numel; // [nunits] (FSDP units for fsdp_ranks; 0 units if not asked)
    uint64_t padding;    // elements of padding over all units
} IvModel;

// spec: a preset name or a model spec. fsdp_ranks > 0 also builds FSDP's
// plan on that many ranks. Returns 0, or -1 with the reason in err.
int iv_model_load(const char *spec, int fsdp_ranks, IvModel *m, char *err, size_t errlen);
void iv_model_free(IvModel *m);

// The topic generators.
int iv_gen_memory(SimSplitMix *g, IvQuestion *q, char *err, size_t errlen);
int iv_gen_collectives(SimSplitMix *g, IvQuestion *q, char *err, size_t errlen);
int iv_gen_batch(SimSplitMix *g, IvQuestion *q, char *err, size_t errlen);
int iv_gen_buckets(SimSplitMix *g, IvQuestion *q, char *err, size_t errlen);
int iv_gen_sharding(SimSplitMix *g, IvQuestion *q, char *err, size_t errlen);
int iv_gen_failures(SimSplitMix *g, IvQuestion *q, char *err, size_t errlen);
// How many multiple-choice items the failures topic holds; item i's
// question, its choices shuffled by g (for tests: every item's command
// must run as stated).
int iv_failure_count(void);
void iv_failure_item(int i, SimSplitMix *g, IvQuestion *q);

// ----------------------------------------------------------------------------
// multiple-choice items (interview_choice.c): the failures topic and the
// conceptual ones share them

#define IV_NWRONG 4 // wrong answers an item holds; a question shows three

typedef struct {
    const char *question;
    const char *right;
    const char *wrong[IV_NWRONG];
    const char *explain;
    const char *command;   // "ddplab ...", run by the tests as printed
    int exit_code;         // what the command exits with (1 also allows 0)
    const char *note;      // why, when not 0
} IvChoiceItem;

// The items of a multiple-choice topic and their count; NULL and 0 for a
// numeric topic.
const IvChoiceItem *iv_choice_items(IvTopic t, int *n);
// Fills q with item `it` of topic t: three of its wrong answers drawn by g,
// the right one at a position drawn by g.
void iv_choice_fill(const IvChoiceItem *it, IvTopic t, SimSplitMix *g, IvQuestion *q);
// The generator of a multiple-choice topic: walks a seed-drawn order of the
// topic's items by q->ordinal (set by iv_generate), so a drill repeats no
// item before it has asked them all.
int iv_gen_choice(IvTopic t, SimSplitMix *g, IvQuestion *q);

// Each conceptual topic's items (one file per topic).
const IvChoiceItem *iv_strategies_items(int *n);
const IvChoiceItem *iv_precision_items(int *n);
const IvChoiceItem *iv_launching_items(int *n);
const IvChoiceItem *iv_loop_items(int *n);
const IvChoiceItem *iv_resilience_items(int *n);
const IvChoiceItem *iv_failures_items(int *n);

#endif
