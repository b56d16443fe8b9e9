// tests/test_lesson_parse.c: the lesson parser (cli/learn/lesson.h) on
//   - a good lesson (tests/lessons/good.md) that uses every header key and
//     item kind, parsed to the exact structure and narrative text;
//   - malformed lessons, each rejected with "PATH:LINE: problem" naming the
//     right line and what is allowed;
//   - line numbers of blocks inside lists and quotes, CRLF line ends, small
//     error buffers;
//   - a few hundred randomly mutated copies of the good lesson: parsed or
//     rejected, never a crash (run under ASan+UBSan too).
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/viz_cli.h" // defines: cli_viz_set (the --at check a pause must agree with)
#include "learn/lesson.h"
#include "test_env.h"
#include "test_files.h"

#define GOOD DDPLAB_TEST_DIR "/lessons/good.md"

// A header of 8 lines: a body appended to it starts on line 9.
#define HDR                                                                                        \
    "---\nid: t\ntitle: T\ndifficulty: beginner\nprerequisites:\nminutes: 5\ntrack: "              \
    "lessons\n---\n"

static int parse(const char *text, Lesson *l, char *err, size_t errlen) {
    return lesson_parse_text("t.md", text, strlen(text), l, err, errlen);
}

static const char *good_text0 =
    "Buckets\n"
    "\n"
    "Gradients are grouped into buckets with --bucket-cap-mb, and each bucket is reduced as "
    "one collective & no more.\n"
    "\n"
    "- first point\n"
    "- second point\n"
    "  1. nested one\n"
    "  2. nested two\n"
    "\n"
    "option   meaning\n"
    "-------  ----------\n"
    "-n       ranks\n"
    "--steps  iterations\n"
    "\n"
    "    ddplab run -n 4";

static int test_good(void) {
    Lesson l;
    char err[512] = "";
    int rc = lesson_parse_file(GOOD, &l, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "%s\n", err);
    CHECK_EQ_INT(rc, 0);
    CHECK(strcmp(l.path, GOOD) == 0);
    CHECK(strcmp(l.id, "fixture-good") == 0);
    CHECK(strcmp(l.title, "A fixture that uses every part of the format") == 0);
    CHECK(strcmp(l.difficulty, "intermediate") == 0);
    CHECK(strcmp(l.track, "lessons") == 0);
    CHECK_EQ_INT(l.minutes, 12);
    CHECK_EQ_INT(l.nprereqs, 2);
    CHECK(strcmp(l.prereqs[0], "fixture-a") == 0 && strcmp(l.prereqs[1], "fixture-b") == 0);

    // text, run, text, question x3, run, question x2
    static const LessonItemKind kinds[] = {
        LESSON_ITEM_TEXT,     LESSON_ITEM_RUN,      LESSON_ITEM_TEXT,
        LESSON_ITEM_QUESTION, LESSON_ITEM_QUESTION, LESSON_ITEM_QUESTION,
        LESSON_ITEM_RUN,      LESSON_ITEM_QUESTION, LESSON_ITEM_QUESTION};
    static const int lines[] = {10, 31, 41, 43, 53, 61, 72, 77, 84};
    static const int index[] = {0, 0, 0, 0, 1, 2, 1, 3, 4};
    CHECK_EQ_INT(l.nitems, 9);
    for (int i = 0; i < 9; i++) {
        CHECK_EQ_INT(l.items[i].kind, kinds[i]);
        CHECK_EQ_INT(l.items[i].line, lines[i]);
        if (kinds[i] != LESSON_ITEM_TEXT)
            CHECK_EQ_INT(l.items[i].index, index[i]);
        else
            CHECK(l.items[i].text != NULL);
    }
    if (strcmp(l.items[0].text, good_text0) != 0)
        fprintf(stderr, "narrative:\n[%s]\nwanted:\n[%s]\n", l.items[0].text, good_text0);
    CHECK(strcmp(l.items[0].text, good_text0) == 0);
    CHECK(strcmp(l.items[2].text, "After the run.") == 0);

    CHECK_EQ_INT(l.nruns, 2);
    const LessonRun *r = &l.runs[0];
    CHECK_EQ_INT(r->line, 31);
    CHECK(strcmp(r->command,
                 "run --strategy ddp -n 4 --steps 2 --model mlp:16,64,64,4 --bucket-cap-mb 0.004 "
                 "--title \"two words\" --note 'a \"quoted\" one'") == 0);
    static const char *const argv0[] = {"run",
                                        "--strategy",
                                        "ddp",
                                        "-n",
                                        "4",
                                        "--steps",
                                        "2",
                                        "--model",
                                        "mlp:16,64,64,4",
                                        "--bucket-cap-mb",
                                        "0.004",
                                        "--title",
                                        "two words",
                                        "--note",
                                        "a \"quoted\" one"};
    CHECK_EQ_INT(r->argc, 15);
    for (int i = 0; i < 15; i++)
        CHECK(strcmp(r->argv[i], argv0[i]) == 0);
    CHECK(r->argv[15] == NULL);
    CHECK_EQ_INT(r->expect_exit, 0);
    CHECK_EQ_INT(r->npauses, 3);
    CHECK(strcmp(r->pauses[0].pos, "bucket-launch:0") == 0);
    CHECK(strcmp(r->pauses[0].caption, "The first bucket launches while backward still runs.") ==
          0);
    CHECK_EQ_INT(r->pauses[0].line, 34);
    CHECK(strcmp(r->pauses[1].pos, "i1") == 0 && strcmp(r->pauses[1].caption, "") == 0);
    CHECK_EQ_INT(r->pauses[1].line, 36);
    CHECK(strcmp(r->pauses[2].pos, "57") == 0 &&
          strcmp(r->pauses[2].caption, "An event number.") == 0);
    r = &l.runs[1];
    CHECK_EQ_INT(r->line, 72);
    CHECK(strcmp(r->command, "plan --model gpt:7b -n 8") == 0);
    CHECK_EQ_INT(r->argc, 5);
    CHECK(strcmp(r->argv[0], "plan") == 0 && r->argv[5] == NULL);
    CHECK_EQ_INT(r->npauses, 0);
    CHECK_EQ_INT(r->expect_exit, 1);

    CHECK_EQ_INT(l.nquestions, 5);
    const LessonQuestion *q = &l.questions[0];
    CHECK_EQ_INT(q->type, LESSON_Q_NUMBER);
    CHECK(strcmp(q->ask, "How many buckets does DDP use for this model?") == 0);
    CHECK(strcmp(q->answer, "3") == 0 && strcmp(q->check, "buckets") == 0);
    CHECK_NEAR(q->tol, 0.5, 0);
    CHECK_EQ_INT(q->tol_relative, 0);
    CHECK(strcmp(q->explain, "Each bucket closes once it holds at least the cap.") == 0);
    CHECK_EQ_INT(q->run, 0);
    CHECK_EQ_INT(q->line, 43);
    q = &l.questions[1];
    CHECK(strcmp(q->answer, "1.5e6") == 0 && strcmp(q->check, "peak_bytes:0") == 0);
    CHECK_NEAR(q->tol, 0.02, 1e-15);
    CHECK_EQ_INT(q->tol_relative, 1);
    CHECK(strcmp(q->explain, "") == 0);
    q = &l.questions[2];
    CHECK_EQ_INT(q->type, LESSON_Q_CHOICE);
    CHECK(strcmp(q->answer, "b") == 0 && q->check == NULL);
    CHECK_EQ_INT(q->nchoices, 3);
    CHECK(strcmp(q->choices[0], "a) AllGather") == 0);
    CHECK(strcmp(q->choices[1], "b) AllReduce, summed over ranks") == 0);
    CHECK(strcmp(q->choices[2], "c) Broadcast") == 0);
    CHECK_EQ_INT(q->naccept, 0);
    CHECK_EQ_INT(q->run, 0);
    q = &l.questions[3];
    CHECK_EQ_INT(q->type, LESSON_Q_WORD);
    CHECK(strcmp(q->answer, "fits") == 0);
    CHECK_EQ_INT(q->naccept, 2);
    CHECK(strcmp(q->accept[0], "fit") == 0 && strcmp(q->accept[1], "Fits") == 0);
    CHECK_EQ_INT(q->run, 1);
    q = &l.questions[4];
    CHECK(strcmp(q->check, "out:peak ([0-9.]+) GiB") == 0);
    CHECK_EQ_INT(q->run, 1);
    CHECK_NEAR(q->tol, 0, 0);
    lesson_free(&l);
    CHECK(l.items == NULL && l.id == NULL && l.nitems == 0);
    lesson_free(&l); // twice is harmless

    // The same lesson with CRLF line ends parses to the same structure.
    size_t len;
    char *text = tfile_read(GOOD, &len);
    CHECK(text != NULL);
    char *crlf = malloc(2 * len + 1);
    size_t k = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] == '\n')
            crlf[k++] = '\r';
        crlf[k++] = text[i];
    }
    Lesson c;
    rc = lesson_parse_text("crlf.md", crlf, k, &c, err, sizeof err);
    free(crlf);
    free(text);
    if (rc != 0)
        fprintf(stderr, "%s\n", err);
    CHECK_EQ_INT(rc, 0);
    CHECK_EQ_INT(c.nitems, 9);
    CHECK(strcmp(c.id, "fixture-good") == 0);
    CHECK(strcmp(c.runs[0].argv[14], "a \"quoted\" one") == 0);
    CHECK(strcmp(c.questions[1].check, "peak_bytes:0") == 0);
    CHECK_EQ_INT(c.items[3].line, 43);
    int same = strcmp(c.items[0].text, good_text0) == 0;
    lesson_free(&c);
    CHECK(same);
    return 0;
}

typedef struct {
    const char *text; // a body after HDR (full = 0), or the whole file
    int full;         // 2: the whole file, with a NUL inside
    int line;         // the line the message names (0: none)
    const char *want; // a part of the message
} Bad;

static const Bad bad[] = {
    // The header
    {"# A lesson\n\nNo header.\n", 1, 1, "no header; a lesson starts with a '---' line"},
    {"", 1, 1, "no header"},
    {"---\nid: t\ntitle: T\n", 1, 1, "the header is not closed"},
    {"---\nid: t\ncolour: red\n---\n", 1, 3,
     "unknown header key 'colour'; allowed: id, title, difficulty, prerequisites, minutes, track"},
    {"---\nid: t\ntitle T\n---\n", 1, 3, "'title T' is not a 'key: value' line"},
    {"---\nid: t\nid: u\n---\n", 1, 3, "'id' is given twice (first on line 2)"},
    {"---\nid: Bad_Id\n---\n", 1, 2, "id: 'Bad_Id' is not an id; allowed: 1 to 64 lower-case"},
    {"---\nid: -x\n---\n", 1, 2, "is not an id"},
    {"---\nid: t\ndifficulty: hard\n---\n", 1, 3,
     "difficulty: 'hard' is not a difficulty; allowed: beginner, intermediate, advanced"},
    {"---\nminutes: 0\n---\n", 1, 2, "minutes: '0' is not a duration; allowed: 1 to 120"},
    {"---\nminutes: 121\n---\n", 1, 2, "minutes: '121' is not a duration"},
    {"---\nminutes: 5m\n---\n", 1, 2, "minutes: '5m' is not a duration"},
    {"---\nminutes:\n---\n", 1, 2, "minutes: '' is not a duration"},
    {"---\ntrack: extra\n---\n", 1, 2,
     "track: 'extra' is not a track; allowed: lessons, spot-the-bug"},
    {"---\ntitle:\n---\n", 1, 2, "title: is empty"},
    {"---\nid: t\ntitle: T\ndifficulty: beginner\nprerequisites:\nminutes: 5\n---\n", 1, 7,
     "the header has no 'track'"},
    {"---\nid: t\ntitle: T\ndifficulty: beginner\nminutes: 5\ntrack: lessons\n---\n", 1, 7,
     "the header has no 'prerequisites'"},
    {"---\nid: t\ntitle: T\ndifficulty: beginner\nprerequisites: a, B\nminutes: 5\ntrack: "
     "lessons\n---\n",
     1, 5, "prerequisites: 'B' is not a lesson id"},
    {"---\nid: t\ntitle: T\ndifficulty: beginner\nprerequisites: a,,b\nminutes: 5\ntrack: "
     "lessons\n---\n",
     1, 5, "prerequisites: '' is not a lesson id"},
    {"---\nid: t\ntitle: T\ndifficulty: beginner\nprerequisites: t\nminutes: 5\ntrack: "
     "lessons\n---\n",
     1, 5, "its own prerequisite"},
    {"---\nid: t\n\0title: T\n---\n", 2, 3, "a NUL byte"},
    // Runs
    {"Text.\n\n```ddplab\n```\n", 0, 11, "the ddplab block has no command; its first line is run"},
    {"```ddplab\n\n\n```\n", 0, 9, "has no command"},
    {"```ddplab\ntrain -n 4\n```\n", 0, 10,
     "unknown command 'train'; allowed: run, plan, bench, report"},
    {"```ddplab\nddplab run -n 4\n```\n", 0, 10, "without the program name"},
    {"```ddplab\nrun -n 4\npause bogus:1 x\n```\n", 0, 11,
     "pause: 'bogus:1' is not a position; allowed: N, iN or KIND[:K] (KIND: iteration, phase"},
    {"```ddplab\nrun -n 4\npause i-1\n```\n", 0, 11, "'i-1' is not a position"},
    {"```ddplab\nrun -n 4\npause coll:x\n```\n", 0, 11, "'coll:x' is not a position"},
    {"```ddplab\nrun -n 4\npause -3\n```\n", 0, 11, "'-3' is not a position"},
    {"```ddplab\nrun -n 4\npause\n```\n", 0, 11, "pause needs a position"},
    {"```ddplab\nplan -n 4\npause i1\n```\n", 0, 11, "a plan block takes no pauses"},
    {"```ddplab\nreport t.ddptrace\npause i1\n```\n", 0, 11,
     "a report block takes no pauses (report makes no trace)"},
    {"```ddplab\nrun -n 2 --trace t.json\npause i1\n```\n", 0, 11,
     "a block whose --trace is 't.json' takes no pauses"},
    {"```ddplab\nrun -n 4 --compare-with '--algo ring'\npause i1\n```\n", 0, 11,
     "a comparison (--compare-backends, --compare-with) takes no pauses"},
    {"```ddplab\nrun -n 4 --compare-backends=cpu,cpu\npause i1\n```\n", 0, 11,
     "takes no pauses: it runs twice and makes no trace"},
    {"```ddplab\nrun -n 4\nexpect exit zero\n```\n", 0, 11,
     "expect exit: 'zero' is not an exit code; allowed: a number from 0 to 255"},
    {"```ddplab\nrun -n 4\nexpect exit 256\n```\n", 0, 11, "'256' is not an exit code"},
    {"```ddplab\nrun -n 4\nexpect exit\n```\n", 0, 11, "'' is not an exit code"},
    {"```ddplab\nrun -n 4\nexpect status 0\n```\n", 0, 11, "allowed: expect exit N"},
    {"```ddplab\nrun -n 4\nexpect exit 1\nexpect exit 3\n```\n", 0, 12,
     "given twice (first on line 11)"},
    {"```ddplab\nrun -n 4\nstep 3\n```\n", 0, 11,
     "'step 3' is not a line of a ddplab block; allowed: the command first, then pause POS"},
    {"```ddplab\nrun -n 4 \\\n```\n", 0, 10, "ends with '\\' but the block ends"},
    {"```ddplab\nrun --title \"a b\n```\n", 0, 10, "the command has a \" that is not closed"},
    {"```ddplab\nrun --title 'a b\n```\n", 0, 10, "has a ' that is not closed"},
    // A block not closed where it was meant to be
    {"```question\nask: Q?\ntype: word\nanswer: x\n\nText.\n\n```ddplab\nrun\n```\n", 0, 9,
     "the question block is not closed: line 16 opens another fence inside it"},
    {"```ddplab\nrun\n\n  ~~~\n", 0, 9, "the ddplab block is not closed: line 12"},
    // Questions
    {"```ddplab\nrun\n```\n```question\ncolour: red\n```\n", 0, 13,
     "unknown question key 'colour'; allowed: ask, type, answer, check, tolerance, digits, "
     "from, varies, choice, accept, explain"},
    {"```ddplab\nrun\n```\n```question\nask: a\ntype: word\nanswer: x\nvaries: cpu\n```\n", 0,
     16, "'varies' is for number questions; this one is type word"},
    {"```question\nask x\n```\n", 0, 10, "'ask x' is not a 'key: value' line"},
    {"```question\n  more\n```\n", 0, 10, "no key comes before it"},
    {"```question\ntype: word\nanswer: x\n```\n", 0, 9, "the question has no ask"},
    {"```question\nask: Q?\nanswer: x\n```\n", 0, 9, "the question has no type"},
    {"```question\nask: Q?\ntype: word\n```\n", 0, 9, "the question has no answer"},
    {"```question\nask: Q?\ntype: word\nanswer:\n```\n", 0, 12, "the question has no answer"},
    {"```question\nask: Q?\nask: R?\n```\n", 0, 11, "'ask' is given twice (first on line 10)"},
    {"```question\nask: Q?\ntype: essay\nanswer: x\n```\n", 0, 11,
     "type: 'essay' is not a question type; allowed: number, choice, word"},
    {"```ddplab\nrun\n```\n```question\nask: Q?\ntype: number\nanswer: 3\n```\n", 0, 12,
     "a number question needs check: FACT"},
    {"```ddplab\nrun\n```\n```question\nask: Q?\ntype: number\nanswer: three\ncheck: "
     "buckets\n```\n",
     0, 15, "answer: 'three' is not a number"},
    {"```ddplab\nrun\n```\n```question\nask: Q?\ntype: number\nanswer: 0x10\ncheck: "
     "buckets\n```\n",
     0, 15, "answer: '0x10' is not a number"},
    {"```ddplab\nrun\n```\n```question\nask: Q?\ntype: number\nanswer: 1,5\ncheck: "
     "buckets\n```\n",
     0, 15, "answer: '1,5' is not a number"},
    {"```ddplab\nrun\n```\n```question\nask: Q?\ntype: number\nanswer: 3\ncheck: "
     "bukets\n```\n",
     0, 16, "check: 'bukets' is not a fact; allowed: exit, iterations, buckets"},
    {"```ddplab\nrun\n```\n```question\nask: Q?\ntype: number\nanswer: 3\ncheck: "
     "peak_bytes:r0\n```\n",
     0, 16, "needs a number after ':'"},
    {"```ddplab\nrun\n```\n```question\nask: Q?\ntype: number\nanswer: 3\ncheck: "
     "out:(\n```\n",
     0, 16, "regular expression"},
    {"```ddplab\nplan -n 8\n```\n```question\nask: Q?\ntype: number\nanswer: 3\ncheck: "
     "buckets\n```\n",
     0, 16, "needs a trace and the latest run is a plan (line 9)"},
    {"```ddplab\nreport t.ddptrace\n```\n```question\nask: Q?\ntype: number\nanswer: 3\n"
     "check: exposed_us\n```\n",
     0, 16, "needs a trace and the latest run is a report (line 9); a report's facts are exit"},
    {"```ddplab\nrun --trace=t.json\n```\n```question\nask: Q?\ntype: number\nanswer: 3\n"
     "check: exposed_us\n```\n",
     0, 16, "needs a trace the player reads (.ddptrace or .jsonl), and the latest run's is "
     "'t.json' (line 9)"},
    {"```question\nask: Q?\ntype: number\nanswer: 3\ncheck: buckets\n```\n", 0, 9,
     "no ddplab block comes before it"},
    {"```ddplab\nrun\n```\n```question\nask: Q?\ntype: number\nanswer: 3\ncheck: "
     "buckets\ntolerance: -1\n```\n",
     0, 17, "tolerance: '-1' is not a tolerance"},
    {"```ddplab\nrun\n```\n```question\nask: Q?\ntype: number\nanswer: 3\ncheck: "
     "buckets\ntolerance: x%\n```\n",
     0, 17, "tolerance: 'x%' is not a tolerance"},
    {"```ddplab\nrun\n```\n```question\nask: Q?\ntype: number\nanswer: 3\ncheck: "
     "buckets\ndigits: 0\n```\n",
     0, 17, "digits: '0' is not a number of significant digits; allowed: a whole number from 1 "
     "to 15"},
    {"```ddplab\nrun\n```\n```question\nask: Q?\ntype: number\nanswer: 3\ncheck: "
     "buckets\ndigits: 4x\n```\n",
     0, 17, "digits: '4x' is not a number of significant digits"},
    {"```ddplab\nrun\n```\n```question\nask: Q?\ntype: number\nanswer: 3\ncheck: "
     "buckets\ntolerance: 1%\ndigits: 3\n```\n",
     0, 18, "digits: the question has a tolerance already (line 17); allowed: one of them"},
    {"```ddplab\nrun\n```\n```question\nask: Q?\ntype: number\nanswer: 3\ncheck: "
     "buckets\nfrom: 2 steps;; 3 buckets\n```\n",
     0, 17, "from: an empty figure; allowed: figures as the lesson shows them"},
    {"```ddplab\nrun\n```\n```question\nask: Q?\ntype: number\nanswer: 3\ncheck: "
     "buckets\nfrom: 2 steps;\n```\n",
     0, 17, "from: an empty figure"},
    {"```question\nask: Q?\ntype: word\nanswer: x\ndigits: 3\n```\n", 0, 13,
     "'digits' is for number questions; this one is type word"},
    {"```question\nask: Q?\ntype: choice\nanswer: a\nfrom: 3 steps\nchoice: a) x\nchoice: b) "
     "y\n```\n",
     0, 13, "'from' is for number questions"},
    {"```question\nask: Q?\ntype: choice\nchoice: a) x\nchoice: c) y\nanswer: a\n```\n", 0, 13,
     "choice c) comes where b) belongs; allowed: the choices lettered a, b, c, ... in order"},
    {"```question\nask: Q?\ntype: word\nanswer: x\ncheck: buckets\n```\n", 0, 13,
     "'check' is for number questions; this one is type word"},
    {"```question\nask: Q?\ntype: word\nanswer: x\nchoice: a) y\n```\n", 0, 13,
     "'choice' is for choice questions"},
    {"```question\nask: Q?\ntype: choice\nanswer: a\naccept: b\nchoice: a) x\nchoice: b) "
     "y\n```\n",
     0, 13, "'accept' is for word questions"},
    {"```question\nask: Q?\ntype: choice\nchoice: a) x\nchoice: b) y\nanswer: e\n```\n", 0, 14,
     "answer: 'e' names no choice; allowed: the letter of a choice (a, b)"},
    {"```question\nask: Q?\ntype: choice\nchoice: a) x\nchoice: b) y\nanswer: a)\n```\n", 0, 14,
     "names no choice"},
    {"```question\nask: Q?\ntype: choice\nchoice: a) only\nanswer: a\n```\n", 0, 12,
     "a choice question needs at least 2 choices"},
    {"```question\nask: Q?\ntype: choice\nanswer: a\n```\n", 0, 9, "needs at least 2 choices"},
    {"```question\nask: Q?\ntype: choice\nchoice: a) x\nchoice: B) y\nanswer: a\n```\n", 0, 13,
     "choice: 'B) y' is not a choice; allowed: choice: L) text"},
    {"```question\nask: Q?\ntype: choice\nchoice: a) x\nchoice: a) y\nanswer: a\n```\n", 0, 13,
     "choice a) is given twice"},
    {"```question\nask: Q?\ntype: word\nanswer: x\naccept: y,,z\n```\n", 0, 13,
     "accept: an empty spelling"},
};

// A question's text is shown as the narrative is: its markdown rendered.
static int test_question_markdown(void) {
    const char *text = HDR "```question\n"
                           "ask: From which step does `--resume` go on, **exactly**?\n"
                           "type: choice\n"
                           "choice: a) The *last* step &amp; no other\n"
                           "choice: b) Step `0`\n"
                           "answer: a\n"
                           "explain: The checkpoint's `step`, as\n"
                           "  `ck.st` records it.\n"
                           "```\n";
    Lesson l;
    char err[512];
    int rc = parse(text, &l, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "%s\n", err);
    CHECK_EQ_INT(rc, 0);
    CHECK_EQ_INT(l.nquestions, 1);
    const LessonQuestion *q = &l.questions[0];
    CHECK(strcmp(q->ask, "From which step does --resume go on, exactly?") == 0);
    CHECK(strcmp(q->choices[0], "a) The last step & no other") == 0);
    CHECK(strcmp(q->choices[1], "b) Step 0") == 0);
    CHECK(strcmp(q->explain, "The checkpoint's step, as ck.st records it.") == 0);
    lesson_free(&l);
    return 0;
}

// digits: and from: of a number question.
static int test_digits_from(void) {
    const char *text = HDR "```ddplab\nrun --steps 3\n```\n"
                           "```question\n"
                           "ask: What loss is logged at the last step, to 4 digits?\n"
                           "type: number\n"
                           "answer: 1.468\n"
                           "check: loss\n"
                           "digits: 4\n"
                           "from: 3 steps;  2 buckets per\n"
                           "  step; `--accum 4`\n"
                           "```\n";
    Lesson l;
    char err[512];
    int rc = parse(text, &l, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "%s\n", err);
    CHECK_EQ_INT(rc, 0);
    const LessonQuestion *q = &l.questions[0];
    CHECK_EQ_INT(q->digits, 4);
    CHECK_NEAR(q->tol, 0, 0);
    CHECK_EQ_INT(q->nfrom, 3);
    CHECK(strcmp(q->from[0], "3 steps") == 0 && strcmp(q->from[1], "2 buckets per step") == 0);
    CHECK(strcmp(q->from[2], "--accum 4") == 0); // its Markdown as the screen shows it
    lesson_free(&l);
    return 0;
}

static int test_bad(void) {
    char text[2048], err[512];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const Bad *b = &bad[i];
        size_t len;
        if (b->full) {
            len = strlen(b->text);
            if (b->full == 2) // the text goes on after a NUL
                len += 1 + strlen(b->text + len + 1);
            memcpy(text, b->text, len);
        } else {
            len = (size_t)snprintf(text, sizeof text, HDR "%s", b->text);
        }
        Lesson l;
        memset(&l, 0x5a, sizeof l); // the parser must empty it
        strcpy(err, "(no message)");
        int rc = lesson_parse_text("t.md", text, len, &l, err, sizeof err);
        char want[64];
        snprintf(want, sizeof want, b->line ? "t.md:%d: " : "t.md: ", b->line);
        int ok = rc == -1 && strncmp(err, want, strlen(want)) == 0 && strstr(err, b->want) &&
                 !strchr(err, '\n') && l.items == NULL && l.id == NULL && l.nitems == 0 &&
                 l.runs == NULL && l.questions == NULL && l.prereqs == NULL && l.path == NULL;
        if (!ok) {
            fprintf(stderr, "case %zu: rc %d, message: %s\n  wanted: %s...%s\n", i, rc, err, want,
                    b->want);
            lesson_free(&l);
            return 1;
        }
        lesson_free(&l);
    }
    return 0;
}

// Blocks inside lists and quotes keep their source lines; a missing file,
// tiny error buffers.
static int test_lines_and_edges(void) {
    const char *body = "Intro.\n"           // 9
                       "\n"                 // 10
                       "- step one\n"       // 11
                       "\n"                 // 12
                       "  ```ddplab\n"      // 13
                       "  run -n 2\n"       // 14
                       "  pause i0 here\n"  // 15
                       "  ```\n"            // 16
                       "\n"                 // 17
                       "> A quote\n"        // 18
                       ">\n"                // 19
                       "> ```question\n"    // 20
                       "> ask: Q?\n"        // 21
                       "> type: word\n"     // 22
                       "> answer: ring\n"   // 23
                       "> ```\n"            // 24
                       "\n"                 // 25
                       "~~~ ddplab extra\n" // 26
                       "bench -n 2\n"       // 27
                       "~~~\n"              // 28
                       "````\n"             // 29
                       "```ddplab\n"        // 30: inside a longer fence: narrative
                       "run\n"              // 31
                       "```\n"              // 32
                       "````\n";            // 33
    char text[1024], err[256];
    snprintf(text, sizeof text, HDR "%s", body);
    Lesson l;
    int rc = parse(text, &l, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "%s\n", err);
    CHECK_EQ_INT(rc, 0);
    CHECK_EQ_INT(l.nitems, 6);
    CHECK_EQ_INT(l.items[0].kind, LESSON_ITEM_TEXT);
    CHECK(strcmp(l.items[0].text, "Intro.\n\n- step one") == 0);
    CHECK_EQ_INT(l.items[0].line, 9);
    CHECK_EQ_INT(l.items[1].kind, LESSON_ITEM_RUN);
    CHECK_EQ_INT(l.items[1].line, 13);
    CHECK_EQ_INT(l.runs[0].pauses[0].line, 15);
    CHECK_EQ_INT(l.items[2].kind, LESSON_ITEM_TEXT);
    CHECK(strcmp(l.items[2].text, "  A quote") == 0);
    CHECK_EQ_INT(l.items[2].line, 18);
    CHECK_EQ_INT(l.items[3].kind, LESSON_ITEM_QUESTION);
    CHECK_EQ_INT(l.items[3].line, 20);
    CHECK(strcmp(l.questions[0].answer, "ring") == 0);
    CHECK_EQ_INT(l.questions[0].run, 0);
    CHECK_EQ_INT(l.items[4].kind, LESSON_ITEM_RUN);
    CHECK_EQ_INT(l.items[4].line, 26);
    CHECK(strcmp(l.runs[1].argv[0], "bench") == 0);
    CHECK_EQ_INT(l.items[5].kind, LESSON_ITEM_TEXT);
    CHECK(strcmp(l.items[5].text, "    ```ddplab\n    run\n    ```") == 0);
    CHECK_EQ_INT(l.items[5].line, 30);
    lesson_free(&l);

    // An error inside a block in a list names the source line.
    snprintf(text, sizeof text, HDR "- a\n\n  ```ddplab\n  run\n  pause nowhere\n  ```\n");
    CHECK_EQ_INT(parse(text, &l, err, sizeof err), -1);
    CHECK_STR_CONTAINS(err, "t.md:13: pause: 'nowhere' is not a position");

    // Quotes group words; \ escapes outside them.
    snprintf(text, sizeof text,
             HDR "```ddplab\nrun --a \"x \\\"y\\\" \\\\\" --b 'p q'r a\\ b \"\"\n```\n");
    CHECK_EQ_INT(parse(text, &l, err, sizeof err), 0);
    CHECK_EQ_INT(l.runs[0].argc, 7);
    CHECK(strcmp(l.runs[0].argv[2], "x \"y\" \\") == 0);
    CHECK(strcmp(l.runs[0].argv[4], "p qr") == 0);
    CHECK(strcmp(l.runs[0].argv[5], "a b") == 0);
    CHECK(strcmp(l.runs[0].argv[6], "") == 0);
    CHECK(l.runs[0].argv[7] == NULL);
    lesson_free(&l);

    // A lesson of only a header: no items.
    CHECK_EQ_INT(parse(HDR, &l, err, sizeof err), 0);
    CHECK_EQ_INT(l.nitems, 0);
    CHECK(strcmp(l.id, "t") == 0 && l.nprereqs == 0);
    lesson_free(&l);

    // md4c reads the byte after the text it is given: an unclosed link at
    // the end with a ')' after the caller's text must not run on.
    snprintf(text, sizeof text, HDR "Text [a](b)");
    CHECK_EQ_INT(lesson_parse_text("t.md", text, strlen(text) - 1, &l, err, sizeof err), 0);
    CHECK_EQ_INT(l.nitems, 1);
    CHECK(strcmp(l.items[0].text, "Text [a](b") == 0);
    lesson_free(&l);

    // A file that is not there.
    CHECK_EQ_INT(lesson_parse_file(DDPLAB_TEST_DIR "/lessons/no-such.md", &l, err, sizeof err), -1);
    CHECK_STR_CONTAINS(err, "/lessons/no-such.md: cannot read: No such file or directory");
    CHECK(l.items == NULL && l.id == NULL);

    // Small buffers are cut, never overrun; none at all is fine too.
    char small[12];
    memset(small, 'x', sizeof small);
    CHECK_EQ_INT(parse("# no header\n", &l, small, 8), -1);
    CHECK(strcmp(small, "t.md:1:") == 0 && small[8] == 'x');
    CHECK_EQ_INT(parse("# no header\n", &l, NULL, 0), -1);
    return 0;
}

// A pause takes exactly the positions `ddplab replay --at` takes.
static int test_positions(void) {
    static const char *const pos[] = {"0",
                                      "57",
                                      "i0",
                                      "i12",
                                      "iteration",
                                      "iteration:3",
                                      "phase:0",
                                      "bucket-launch:1",
                                      "bucket-done",
                                      "coll",
                                      "coll-step:9",
                                      "gather:0",
                                      "free:2",
                                      "reduce",
                                      "memory-peak:0",
                                      "marker:4",
                                      "fault",
                                      "any:100",
                                      "-1",
                                      "i",
                                      "ix",
                                      "i-2",
                                      "bucket",
                                      "coll:",
                                      "coll:-1",
                                      "coll:1x",
                                      "Iteration",
                                      "x1",
                                      "bucket-launch:0:1",
                                      "1.5",
                                      "+3",
                                      " 3"};
    for (size_t i = 0; i < sizeof pos / sizeof pos[0]; i++) {
        char text[512], err[256];
        snprintf(text, sizeof text, HDR "```ddplab\nrun -n 2\npause %s cap\n```\n", pos[i]);
        Lesson l;
        int lesson_ok = parse(text, &l, err, sizeof err) == 0;
        // A leading blank is not part of a pause's POS (words split on blanks).
        int expect = pos[i][0] == ' ' ? 1 : 0;
        if (lesson_ok)
            expect = strcmp(l.runs[0].pauses[0].pos, pos[i][0] == ' ' ? pos[i] + 1 : pos[i]) == 0;
        lesson_free(&l);
        CliViz v;
        memset(&v, 0, sizeof v);
        int viz_ok =
            cli_viz_set(&v, "(expected)", "at", pos[i][0] == ' ' ? pos[i] + 1 : pos[i]) == 0;
        if (lesson_ok != viz_ok || (lesson_ok && !expect)) {
            fprintf(stderr, "position '%s': lesson %d, --at %d\n", pos[i], lesson_ok, viz_ok);
            return 1;
        }
    }
    return 0;
}

// Deep nesting (quotes and lists hundreds deep) and a wide table: the text
// is kept, indentation stops growing at a depth, nothing overflows.
static int test_deep(void) {
    const int depth = 300, cols = 100;
    size_t cap = (size_t)1 << 18; // the list alone is about 100 KB
    char *t = malloc(cap), err[256];
    CHECK(t != NULL);
    size_t n = (size_t)snprintf(t, cap, HDR);
    for (int i = 0; i < depth; i++)
        t[n++] = '>';
    n += (size_t)snprintf(t + n, cap - n, " deep quote\n\n");
    for (int i = 0; i < depth; i++) {
        for (int k = 0; k < 2 * i; k++)
            t[n++] = ' ';
        n += (size_t)snprintf(t + n, cap - n, "- item %d\n", i);
    }
    t[n++] = '\n';
    for (int row = 0; row < 3; row++) {
        for (int c = 0; c < cols; c++)
            n += (size_t)snprintf(t + n, cap - n, row == 1 ? "|---" : "| c%d ", c);
        n += (size_t)snprintf(t + n, cap - n, "|\n");
    }
    CHECK(n < cap);
    Lesson l;
    int rc = lesson_parse_text("t.md", t, n, &l, err, sizeof err);
    free(t);
    if (rc != 0)
        fprintf(stderr, "%s\n", err);
    CHECK_EQ_INT(rc, 0);
    CHECK_EQ_INT(l.nitems, 1);
    const char *x = l.items[0].text;
    CHECK(strncmp(x, "                                                                deep quote",
                  64 + 10) == 0); // 32 quotes of two blanks each, no more
    CHECK_STR_CONTAINS(x, "\n- item 0\n  - item 1\n");
    CHECK_STR_CONTAINS(x, "- item 299\n");
    CHECK_STR_CONTAINS(x, "c0  c1  c2");
    CHECK_STR_CONTAINS(x, "c98  c99\n--  --");
    lesson_free(&l);
    return 0;
}

// xorshift64*: the mutations are the same on every run.
static uint64_t rnd(uint64_t *s) {
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ULL;
}

// A parsed lesson must be consistent: indices in range, strings present.
static int consistent(const Lesson *l) {
    CHECK(l->id && l->title && l->difficulty && l->track && l->path);
    CHECK(l->minutes >= 1 && l->minutes <= 120);
    for (int i = 0; i < l->nitems; i++) {
        const LessonItem *it = &l->items[i];
        CHECK(it->line >= 1);
        if (it->kind == LESSON_ITEM_TEXT)
            CHECK(it->text && it->text[0]);
        else if (it->kind == LESSON_ITEM_RUN)
            CHECK(it->index >= 0 && it->index < l->nruns);
        else
            CHECK(it->index >= 0 && it->index < l->nquestions);
    }
    for (int i = 0; i < l->nruns; i++) {
        const LessonRun *r = &l->runs[i];
        CHECK(r->argc >= 1 && r->argv[r->argc] == NULL && r->command);
        CHECK(!strcmp(r->argv[0], "run") || !strcmp(r->argv[0], "plan") ||
              !strcmp(r->argv[0], "bench"));
        for (int k = 0; k < r->npauses; k++)
            CHECK(r->pauses[k].pos && r->pauses[k].caption);
        CHECK(r->expect_exit >= 0 && r->expect_exit <= 255);
    }
    for (int i = 0; i < l->nquestions; i++) {
        const LessonQuestion *q = &l->questions[i];
        CHECK(q->ask && q->answer && q->explain && q->run < l->nruns);
        if (q->type == LESSON_Q_NUMBER)
            CHECK(q->check && q->run >= 0);
        if (q->type == LESSON_Q_CHOICE)
            CHECK(q->nchoices >= 2);
    }
    return 0;
}

static int test_mutations(void) {
    size_t len;
    char *good = tfile_read(GOOD, &len);
    CHECK(good != NULL);
    static const char pieces[] = "`~\n\n-*#>|:\\\"' \t&;!<[]()0123456789abcxyz\r\0\x80\xff";
    int rounds = tenv_quick() ? 300 : 1500, parsed = 0;
    char *buf = malloc(len * 2 + 64);
    CHECK(buf != NULL);
    uint64_t seed = 0x9E3779B97F4A7C15ULL;
    for (int round = 0; round < rounds; round++) {
        size_t n = len;
        memcpy(buf, good, len);
        int edits = 1 + (int)(rnd(&seed) % 8);
        for (int e = 0; e < edits && n > 0; e++) {
            size_t at = rnd(&seed) % n;
            char c = pieces[rnd(&seed) % (sizeof pieces - 1)];
            switch (rnd(&seed) % 7) {
            case 0: // replace a byte
                buf[at] = c;
                break;
            case 1: // insert a byte
                if (n < len * 2) {
                    memmove(buf + at + 1, buf + at, n - at);
                    buf[at] = c;
                    n++;
                }
                break;
            case 2: { // delete a run of bytes
                size_t k = 1 + rnd(&seed) % 16;
                if (k > n - at)
                    k = n - at;
                memmove(buf + at, buf + at + k, n - at - k);
                n -= k;
                break;
            }
            case 3: { // copy a stretch elsewhere (a duplicated line or block)
                size_t k = 1 + rnd(&seed) % 40, to = rnd(&seed) % n;
                if (k > n - at)
                    k = n - at;
                if (n + k <= len * 2) {
                    memmove(buf + to + k, buf + to, n - to);
                    memmove(buf + to, buf + (at < to ? at : at + k), k);
                    n += k;
                }
                break;
            }
            case 4: // cut the end
                n = at;
                break;
            case 5: { // insert a piece of Markdown or of the lesson format
                static const char *const tokens[] = {
                    "](",       "<!--",     "-->",          "```",  "```ddplab\n", "```question\n",
                    "\n```\n",  "|---|",    "| a |",        "&#",   "&amp;",       "> ",
                    "1. ",      "    ",     "\n- ",         "* ",   "\n---\n",     "pause ",
                    "choice: ", "answer: ", "check: out:(", "\\\n", "<div>",       "[x]: /u",
                    "~~~",      "\t",       "**",           "_",    "\r\n"};
                const char *tk = tokens[rnd(&seed) % (sizeof tokens / sizeof tokens[0])];
                size_t k = strlen(tk);
                if (n + k <= len * 2) {
                    memmove(buf + at + k, buf + at, n - at);
                    memcpy(buf + at, tk, k);
                    n += k;
                }
                break;
            }
            default: // flip a bit
                buf[at] ^= (char)(1u << (rnd(&seed) % 8));
                break;
            }
        }
        Lesson l;
        char err[256];
        err[0] = '\0';
        int rc = lesson_parse_text("m.md", buf, n, &l, err, sizeof err);
        if (rc == 0) {
            parsed++;
            if (consistent(&l) != 0) {
                fprintf(stderr, "round %d: an inconsistent lesson\n", round);
                lesson_free(&l);
                free(buf);
                free(good);
                return 1;
            }
        } else if (rc != -1 || strncmp(err, "m.md:", 5) != 0 || strchr(err, '\n') ||
                   l.nitems != 0 || l.items != NULL || l.id != NULL) {
            fprintf(stderr, "round %d: rc %d, message '%s'\n", round, rc, err);
            lesson_free(&l);
            free(buf);
            free(good);
            return 1;
        }
        lesson_free(&l);
    }
    printf("mutations: %d of %d parsed, the rest rejected\n", parsed, rounds);
    free(buf);
    free(good);
    // Some mutations leave the lesson valid, most do not.
    CHECK(parsed > 0 && parsed < rounds);
    return 0;
}

int main(void) {
    int failures = 0;
    RUN(test_good);
    RUN(test_question_markdown);
    RUN(test_digits_from);
    RUN(test_bad);
    RUN(test_lines_and_edges);
    RUN(test_deep);
    RUN(test_positions);
    RUN(test_mutations);
    return failures != 0;
}
