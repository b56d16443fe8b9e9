// cli/learn/lesson_parse.c: a lesson file into a Lesson (lesson.h): the header
// (lesson_header.c), then the body walked with md4c. Fenced blocks whose
// info string is `ddplab` or `question` become runs and questions
// (lesson_blocks.c, lesson_question.c); everything else is narrative
// (lesson_narrative.c), gathered into one text item between them.
//
// Line numbers: md4c reports none, but the text it hands over points into
// the source wherever it is verbatim (not for line breaks, indentation or
// decoded escapes), so a block's line is found from the first such pointer:
// a fence's info string, or failing that its first body line.
#include <stdlib.h>
#include <string.h>

#include "learn/lesson_internal.h"

static void item_free(LessonItem *it) { free(it->text); }

void lesson_free(Lesson *l) {
    if (l == NULL)
        return;
    free(l->path);
    free(l->id);
    free(l->title);
    free(l->difficulty);
    free(l->track);
    for (int i = 0; i < l->nprereqs; i++)
        free(l->prereqs[i]);
    free(l->prereqs);
    for (int i = 0; i < l->nitems; i++)
        item_free(&l->items[i]);
    free(l->items);
    for (int i = 0; i < l->nruns; i++)
        lesson_run_free(&l->runs[i]);
    free(l->runs);
    for (int i = 0; i < l->nquestions; i++)
        lesson_question_free(&l->questions[i]);
    free(l->questions);
    memset(l, 0, sizeof *l);
}

int lesson_parse_file(const char *path, Lesson *l, char *err, size_t errlen) {
    size_t len;
    memset(l, 0, sizeof *l);
    char *text = lesson_read_file(path, &len, err, errlen);
    if (text == NULL)
        return -1;
    int rc = lesson_parse_text(path, text, len, l, err, errlen);
    free(text);
    return rc;
}

#if !DDPLAB_HAVE_MD4C

int lesson_parse_text(const char *path, const char *text, size_t len, Lesson *l, char *err,
                      size_t errlen) {
    (void)text, (void)len;
    memset(l, 0, sizeof *l);
    return lesson_fail(err, errlen, path, 0,
                       "this build has no md4c: apt-get install libmd4c-dev, then rebuild");
}

#else

enum { BLOCK_NONE = 0, BLOCK_RUN, BLOCK_QUESTION };

typedef struct {
    const char *path;
    LessonLines lines;
    Lesson *l;
    int cap_items, cap_runs, cap_questions;
    char *err;
    size_t errlen;
    int failed;
    LessonNarr narr;
    int item_line; // the line of the narrative item being gathered (0: none yet)
    int last_line; // the latest line seen
    // The ```ddplab or ```question block being read.
    int block, block_line;
    LessonBuf body;
} Walk;

static int oom(Walk *w, int line) {
    w->failed = 1;
    return lesson_fail(w->err, w->errlen, w->path, line, "out of memory");
}

static int add_item(Walk *w, LessonItemKind kind, char *text, int index, int line) {
    LessonItem *a = lesson_grow(w->l->items, &w->cap_items, w->l->nitems, sizeof *a);
    if (a == NULL) {
        free(text);
        return oom(w, line);
    }
    w->l->items = a;
    a[w->l->nitems++] = (LessonItem){.kind = kind, .text = text, .index = index, .line = line};
    return 0;
}

// The narrative gathered since the last block, as a text item.
static int flush_text(Walk *w) {
    char *text;
    if (lesson_narr_take(&w->narr, &text) != 0)
        return oom(w, w->last_line);
    int line = w->item_line ? w->item_line : w->last_line;
    w->item_line = 0;
    return text ? add_item(w, LESSON_ITEM_TEXT, text, 0, line) : 0;
}

// Notes where verbatim text lies (for the lines of items and blocks).
static int seen_at(Walk *w, const char *p) {
    int line = lesson_line_of(&w->lines, p);
    if (line > 0)
        w->last_line = line;
    return line;
}

// An attribute's text as one string (md4c splits it around entities).
static int attr_is(const MD_ATTRIBUTE *a, const char *word) {
    size_t n = strlen(word);
    return a->size == n && a->text && memcmp(a->text, word, n) == 0;
}

static int enter_block(MD_BLOCKTYPE type, void *detail, void *u) {
    Walk *w = u;
    if (type == MD_BLOCK_CODE && w->block == BLOCK_NONE) {
        MD_BLOCK_CODE_DETAIL *c = detail;
        int kind = !c->fence_char                  ? BLOCK_NONE
                   : attr_is(&c->lang, "ddplab")   ? BLOCK_RUN
                   : attr_is(&c->lang, "question") ? BLOCK_QUESTION
                                                   : BLOCK_NONE;
        if (kind != BLOCK_NONE) {
            if (flush_text(w) != 0)
                return -1;
            w->block = kind;
            w->block_line = seen_at(w, c->info.text);
            w->body.n = 0;
            return 0;
        }
    }
    lesson_narr_block(&w->narr, 1, type, detail);
    return 0;
}

// The first body line (0-based) that opens a fence ("```" or "~~~" after
// blanks), or -1: a block that holds one was not closed where meant.
static int fence_inside(const char *s, size_t n) {
    int line = 0;
    size_t i = 0;
    while (i < n) {
        while (i < n && (s[i] == ' ' || s[i] == '\t'))
            i++;
        if (i + 3 <= n && (memcmp(s + i, "```", 3) == 0 || memcmp(s + i, "~~~", 3) == 0))
            return line;
        const char *nl = memchr(s + i, '\n', n - i);
        if (nl == NULL)
            break;
        i = (size_t)(nl - s) + 1;
        line++;
    }
    return -1;
}

static int finish_block(Walk *w) {
    Lesson *l = w->l;
    if (w->block_line == 0) // neither the info string nor a body line was verbatim
        w->block_line = w->last_line + 1;
    int first = w->block_line + 1;
    if (w->body.oom)
        return oom(w, w->block_line);
    const char *body = w->body.s ? w->body.s : "";
    int inner = fence_inside(body, w->body.n);
    if (inner >= 0) {
        w->failed = 1;
        return lesson_fail(w->err, w->errlen, w->path, w->block_line,
                           "the %s block is not closed: line %d opens another fence inside it; "
                           "end this block with a ``` line first",
                           w->block == BLOCK_RUN ? "ddplab" : "question", first + inner);
    }
    if (w->block == BLOCK_RUN) {
        LessonRun *a = lesson_grow(l->runs, &w->cap_runs, l->nruns, sizeof *a);
        if (a == NULL)
            return oom(w, w->block_line);
        l->runs = a;
        LessonRun *r = &a[l->nruns];
        memset(r, 0, sizeof *r);
        r->line = w->block_line;
        int rc = lesson_run_parse(w->path, body, w->body.n, first, r, w->err, w->errlen);
        if (rc != 0) {
            lesson_run_free(r);
            w->failed = 1;
            return -1;
        }
        l->nruns++;
        return add_item(w, LESSON_ITEM_RUN, NULL, l->nruns - 1, w->block_line);
    }
    LessonQuestion *a = lesson_grow(l->questions, &w->cap_questions, l->nquestions, sizeof *a);
    if (a == NULL)
        return oom(w, w->block_line);
    l->questions = a;
    LessonQuestion *q = &a[l->nquestions];
    memset(q, 0, sizeof *q);
    q->line = w->block_line;
    q->run = l->nruns - 1;
    int rc = lesson_question_parse(w->path, body, w->body.n, first, l->runs, l->nruns, q, w->err,
                                   w->errlen);
    if (rc != 0) {
        lesson_question_free(q);
        w->failed = 1;
        return -1;
    }
    l->nquestions++;
    return add_item(w, LESSON_ITEM_QUESTION, NULL, l->nquestions - 1, w->block_line);
}

static int leave_block(MD_BLOCKTYPE type, void *detail, void *u) {
    Walk *w = u;
    if (type == MD_BLOCK_CODE && w->block != BLOCK_NONE) {
        int rc = finish_block(w);
        w->block = BLOCK_NONE;
        return rc;
    }
    lesson_narr_block(&w->narr, 0, type, detail);
    return 0;
}

static int enter_span(MD_SPANTYPE type, void *detail, void *u) {
    (void)type, (void)detail, (void)u;
    return 0;
}

static int leave_span(MD_SPANTYPE type, void *detail, void *u) {
    (void)type, (void)detail, (void)u;
    return 0;
}

static int on_text(MD_TEXTTYPE type, const MD_CHAR *s, MD_SIZE n, void *u) {
    Walk *w = u;
    int line = seen_at(w, s);
    if (w->block != BLOCK_NONE) {
        // The fence's info string was not verbatim: the first body line
        // tells where the block is.
        if (w->block_line == 0 && line > 0)
            w->block_line = line - 1;
        lesson_buf_add(&w->body, s, n);
        return 0;
    }
    if (w->item_line == 0 && line > 0 && type != MD_TEXT_HTML)
        w->item_line = line;
    lesson_narr_text(&w->narr, type, s, n);
    return 0;
}

// The body of the lesson (text[body..len]) walked into l.
static int walk_body(Walk *w, const char *text, size_t body, size_t len) {
    MD_PARSER p;
    memset(&p, 0, sizeof p);
    p.flags = MD_FLAG_TABLES | MD_FLAG_STRIKETHROUGH;
    p.enter_block = enter_block;
    p.leave_block = leave_block;
    p.enter_span = enter_span;
    p.leave_span = leave_span;
    p.text = on_text;
    w->last_line = lesson_line_of(&w->lines, text + body);
    if (w->last_line == 0)
        w->last_line = w->lines.n;
    int rc = md_parse(text + body, (MD_SIZE)(len - body), &p, w);
    if (w->failed)
        return -1;
    if (rc != 0)
        return oom(w, 0);
    return flush_text(w);
}

int lesson_parse_text(const char *path, const char *src, size_t len, Lesson *l, char *err,
                      size_t errlen) {
    memset(l, 0, sizeof *l);
    Walk w;
    memset(&w, 0, sizeof w);
    w.path = path;
    w.l = l;
    w.err = err;
    w.errlen = errlen;
    size_t body = 0;
    int rc = -1;
    char *text = NULL; // src, padded for md4c (lesson_padded)
    if (len > LESSON_MAX_BYTES) {
        lesson_fail(err, errlen, path, 0, "is larger than %zu MiB; a lesson is a short text",
                    LESSON_MAX_BYTES >> 20);
        goto done;
    }
    const char *nul = memchr(src, '\0', len);
    if ((text = lesson_padded(src, len)) == NULL || lesson_lines_init(&w.lines, text, len) != 0) {
        lesson_fail(err, errlen, path, 0, "out of memory");
        goto done;
    }
    if (nul != NULL) {
        lesson_fail(err, errlen, path, lesson_line_of(&w.lines, text + (nul - src)),
                    "a NUL byte; a lesson is a text file");
        goto done;
    }
    if (lesson_header_parse(path, text, len, l, &body, err, errlen) != 0)
        goto done;
    if ((l->path = lesson_strndup(path, strlen(path))) == NULL) {
        lesson_fail(err, errlen, path, 0, "out of memory");
        goto done;
    }
    rc = walk_body(&w, text, body, len);
done:
    lesson_narr_free(&w.narr);
    lesson_buf_free(&w.body);
    lesson_lines_free(&w.lines);
    free(text);
    if (rc != 0)
        lesson_free(l);
    return rc;
}

#endif
