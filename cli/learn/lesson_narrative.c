// cli/learn/lesson_narrative.c: a lesson's narrative as plain text (see
// lesson_internal.h for the shape). md4c hands over blocks and text in
// document order; markup is dropped as it arrives, entities are decoded,
// raw HTML (comments included) is left out.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "learn/lesson_internal.h"

#if DDPLAB_HAVE_MD4C

// Starts output: the separator a new block needs, then the containers'
// prefixes at the start of a line.
static void begin(LessonNarr *t) {
    if (t->pending) {
        lesson_buf_rtrim(&t->out);
        if (t->out.n > 0)
            lesson_buf_adds(&t->out,
                            t->lists > 0 && t->prev_in_list && !t->heading ? "\n" : "\n\n");
        t->prev_in_list = t->lists > 0;
        t->pending = t->heading = 0;
        t->bol = 1;
    }
    if (t->bol) {
        int d = t->depth < LESSON_NARR_DEPTH ? t->depth : LESSON_NARR_DEPTH;
        for (int i = 0; i < d; i++) {
            LessonNarrBox *b = &t->box[i];
            if (!b->done) {
                lesson_buf_adds(&t->out, b->mark);
                b->done = 1;
            } else {
                for (size_t k = strlen(b->mark); k > 0; k--)
                    lesson_buf_addc(&t->out, ' ');
            }
        }
        if (t->depth > LESSON_NARR_DEPTH && !t->deep.done) {
            lesson_buf_adds(&t->out, t->deep.mark);
            t->deep.done = 1;
        }
        t->bol = 0;
    }
}

static void newline(LessonNarr *t) {
    lesson_buf_addc(&t->out, '\n');
    t->bol = 1;
}

static void push_box(LessonNarr *t, char kind, const char *mark) {
    LessonNarrBox *b = t->depth < LESSON_NARR_DEPTH ? &t->box[t->depth] : &t->deep;
    b->kind = kind;
    snprintf(b->mark, sizeof b->mark, "%s", mark);
    b->done = kind == 'q';
    t->depth++;
}

static void pop_box(LessonNarr *t) {
    t->depth--;
    t->deep.done = 1; // past the cap, an outer item's mark was written already
}

// Characters of UTF-8 text (for the widths of table columns).
static size_t u8len(const char *s) {
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

static void table_cell(LessonNarr *t) {
    char *c = NULL;
    lesson_buf_rtrim(&t->cur);
    if (t->cur.oom || (c = lesson_buf_take(&t->cur)) == NULL) {
        t->out.oom = 1;
        return;
    }
    char **a = lesson_grow(t->cells, &t->cap_cells, t->ncells, sizeof *a);
    if (a == NULL) {
        free(c);
        t->out.oom = 1;
        return;
    }
    t->cells = a;
    t->cells[t->ncells++] = c;
}

// A row ends: exactly ncols cells (md4c gives that many; kept safe anyway).
static void table_row_end(LessonNarr *t) {
    while (t->ncells > t->row_start + (int)t->ncols)
        free(t->cells[--t->ncells]);
    while (t->ncells < t->row_start + (int)t->ncols && !t->out.oom)
        table_cell(t);
    t->row_start = t->ncells;
}

static void table_free(LessonNarr *t) {
    for (int i = 0; i < t->ncells; i++)
        free(t->cells[i]);
    t->ncells = t->row_start = t->head_rows = 0;
    lesson_buf_free(&t->cur);
}

static void spaces(LessonNarr *t, size_t n) {
    for (; n > 0; n--)
        lesson_buf_addc(&t->out, ' ');
}

// The rows, each column as wide as its widest cell plus two blanks; a rule
// of '-' under the header rows.
static void table_draw(LessonNarr *t) {
    int nc = (int)t->ncols, rows = nc > 0 ? t->ncells / nc : 0;
    size_t *w = nc > 0 ? calloc((size_t)nc, sizeof *w) : NULL;
    if (rows == 0 || w == NULL) {
        free(w);
        return;
    }
    for (int i = 0; i < rows * nc; i++) {
        size_t k = u8len(t->cells[i]);
        if (k > w[i % nc])
            w[i % nc] = k;
    }
    for (int r = 0; r < rows; r++) {
        if (r > 0)
            newline(t);
        begin(t);
        for (int c = 0; c < nc; c++) {
            const char *s = t->cells[r * nc + c];
            lesson_buf_adds(&t->out, s);
            if (c + 1 < nc)
                spaces(t, w[c] - u8len(s) + 2);
        }
        while (t->out.n > 0 && t->out.s[t->out.n - 1] == ' ')
            t->out.s[--t->out.n] = '\0';
        if (r + 1 == t->head_rows) {
            newline(t);
            begin(t);
            for (int c = 0; c < nc; c++) {
                for (size_t k = w[c] ? w[c] : 1; k > 0; k--)
                    lesson_buf_addc(&t->out, '-');
                if (c + 1 < nc)
                    spaces(t, 2);
            }
        }
    }
    free(w);
}

static void table_block(LessonNarr *t, int enter, MD_BLOCKTYPE type, void *detail) {
    switch (type) {
    case MD_BLOCK_TABLE:
        if (enter) {
            table_free(t);
            t->table = 1;
            t->ncols = ((MD_BLOCK_TABLE_DETAIL *)detail)->col_count;
            t->pending = 1;
        } else {
            table_draw(t);
            table_free(t);
            t->table = 0;
        }
        break;
    case MD_BLOCK_THEAD:
        if (!enter)
            t->head_rows = t->ncols ? t->ncells / (int)t->ncols : 0;
        break;
    case MD_BLOCK_TR:
        if (!enter)
            table_row_end(t);
        break;
    case MD_BLOCK_TH:
    case MD_BLOCK_TD:
        t->cell = enter;
        if (enter)
            t->cur.n = 0;
        else
            table_cell(t);
        break;
    default:
        break;
    }
}

void lesson_narr_block(LessonNarr *t, int enter, MD_BLOCKTYPE type, void *detail) {
    if (type == MD_BLOCK_HTML) {
        t->html += enter ? 1 : -1;
        return;
    }
    switch (type) {
    case MD_BLOCK_QUOTE:
        if (enter)
            push_box(t, 'q', "  ");
        else
            pop_box(t);
        break;
    case MD_BLOCK_UL:
    case MD_BLOCK_OL:
        if (enter && t->lists < LESSON_NARR_DEPTH)
            t->next[t->lists] = type == MD_BLOCK_OL ? ((MD_BLOCK_OL_DETAIL *)detail)->start : 0;
        t->lists += enter ? 1 : -1;
        break;
    case MD_BLOCK_LI:
        if (enter) {
            char mark[16] = "- ";
            int l = t->lists - 1;
            if (l >= 0 && l < LESSON_NARR_DEPTH && t->next[l] > 0)
                snprintf(mark, sizeof mark, "%u. ", t->next[l]++);
            push_box(t, 'l', mark);
            t->pending = 1;
        } else {
            pop_box(t);
        }
        break;
    case MD_BLOCK_H:
        t->pending = t->heading = enter;
        if (!enter)
            t->prev_in_list = 0; // what follows a heading stands apart
        break;
    case MD_BLOCK_CODE:
        t->code = enter;
        t->pending = 1;
        break;
    case MD_BLOCK_P:
    case MD_BLOCK_HR:
        if (enter)
            t->pending = 1;
        break;
    case MD_BLOCK_TABLE:
    case MD_BLOCK_THEAD:
    case MD_BLOCK_TBODY:
    case MD_BLOCK_TR:
    case MD_BLOCK_TH:
    case MD_BLOCK_TD:
        table_block(t, enter, type, detail);
        break;
    default:
        break;
    }
}

// Writes code point c as UTF-8 into out[4]; its length.
static size_t utf8(unsigned long c, char *out) {
    if (c == 0 || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        c = 0xFFFD;
    if (c < 0x80) {
        out[0] = (char)c;
        return 1;
    }
    if (c < 0x800) {
        out[0] = (char)(0xC0 | (c >> 6));
        out[1] = (char)(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {
        out[0] = (char)(0xE0 | (c >> 12));
        out[1] = (char)(0x80 | ((c >> 6) & 0x3F));
        out[2] = (char)(0x80 | (c & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (c >> 18));
    out[1] = (char)(0x80 | ((c >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((c >> 6) & 0x3F));
    out[3] = (char)(0x80 | (c & 0x3F));
    return 4;
}

// An entity ("&amp;", "&#8594;", "&#x2192;") as UTF-8 in out[4]; 0 for a
// name this table does not know (the entity is then shown as written).
static size_t entity(const char *s, size_t n, char *out) {
    static const struct {
        const char *name;
        unsigned long c;
    } names[] = {{"amp", '&'},       {"lt", '<'},      {"gt", '>'},       {"quot", '"'},
                 {"apos", '\''},     {"nbsp", ' '},    {"ndash", 0x2013}, {"mdash", 0x2014},
                 {"hellip", 0x2026}, {"times", 0xD7},  {"rarr", 0x2192},  {"larr", 0x2190},
                 {"le", 0x2264},     {"ge", 0x2265},   {"ne", 0x2260},    {"asymp", 0x2248},
                 {"micro", 0xB5},    {"middot", 0xB7}, {"deg", 0xB0},     {"plusmn", 0xB1},
                 {"minus", 0x2212}};
    if (n < 3 || s[0] != '&' || s[n - 1] != ';')
        return 0;
    s++, n -= 2;
    if (s[0] == '#') {
        unsigned long c = 0;
        int hex = n > 1 && (s[1] == 'x' || s[1] == 'X');
        for (size_t i = 1 + (size_t)hex; i < n && c <= 0x10FFFF; i++) {
            int d = s[i] >= '0' && s[i] <= '9'          ? s[i] - '0'
                    : hex && s[i] >= 'a' && s[i] <= 'f' ? s[i] - 'a' + 10
                    : hex && s[i] >= 'A' && s[i] <= 'F' ? s[i] - 'A' + 10
                                                        : -1;
            if (d < 0)
                return 0;
            c = c * (hex ? 16 : 10) + (unsigned long)d;
        }
        return utf8(c, out);
    }
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i].name) == n && memcmp(names[i].name, s, n) == 0)
            return utf8(names[i].c, out);
    return 0;
}

// A code block's text: each line indented by four blanks (after the
// containers' prefixes); blank lines kept, leading ones dropped.
static void code_text(LessonNarr *t, const char *s, size_t n) {
    while (n > 0) {
        const char *nl = memchr(s, '\n', n);
        size_t k = nl ? (size_t)(nl - s) : n;
        if (k > 0) {
            int first = t->pending || t->bol;
            begin(t);
            if (first)
                spaces(t, 4);
            lesson_buf_add(&t->out, s, k);
        }
        if (nl) {
            if (!t->pending)
                newline(t);
            k++;
        }
        s += k;
        n -= k;
    }
}

void lesson_narr_text(LessonNarr *t, MD_TEXTTYPE type, const char *s, size_t n) {
    char u[4];
    if (t->html || type == MD_TEXT_HTML)
        return;
    if (t->code && !t->table) {
        code_text(t, s, n);
        return;
    }
    switch (type) {
    case MD_TEXT_BR:
        if (!t->table) {
            begin(t);
            newline(t);
            return;
        }
        s = " ", n = 1;
        break;
    case MD_TEXT_SOFTBR:
        s = " ", n = 1;
        break;
    case MD_TEXT_NULLCHAR:
        n = utf8(0xFFFD, u), s = u;
        break;
    case MD_TEXT_ENTITY: {
        size_t k = entity(s, n, u);
        if (k > 0)
            s = u, n = k;
        break;
    }
    default:
        break;
    }
    if (t->table) {
        if (!t->cell)
            return;
        for (size_t i = 0; i < n; i++)
            lesson_buf_addc(&t->cur, s[i] == '\n' ? ' ' : s[i]);
        return;
    }
    begin(t);
    for (size_t i = 0; i < n; i++) // an inline code span's line ends are blanks
        lesson_buf_addc(&t->out, s[i] == '\n' ? ' ' : s[i]);
}

int lesson_narr_take(LessonNarr *t, char **text) {
    *text = NULL;
    if (t->out.oom || t->cur.oom)
        return -1;
    lesson_buf_rtrim(&t->out);
    if (t->out.n > 0 && (*text = lesson_buf_take(&t->out)) == NULL)
        return -1;
    t->out.n = 0;
    t->bol = 1;
    return 0;
}

void lesson_narr_free(LessonNarr *t) {
    table_free(t);
    free(t->cells);
    t->cells = NULL;
    t->cap_cells = 0;
    lesson_buf_free(&t->out);
}


// md4c's callbacks straight into a LessonNarr (no fenced blocks to keep
// apart: a question's text is prose).
static int plain_enter(MD_BLOCKTYPE type, void *detail, void *u) {
    lesson_narr_block(u, 1, type, detail);
    return 0;
}

static int plain_leave(MD_BLOCKTYPE type, void *detail, void *u) {
    lesson_narr_block(u, 0, type, detail);
    return 0;
}

static int plain_span(MD_SPANTYPE type, void *detail, void *u) {
    (void)type, (void)detail, (void)u;
    return 0;
}

static int plain_text(MD_TEXTTYPE type, const MD_CHAR *s, MD_SIZE n, void *u) {
    lesson_narr_text(u, type, s, n);
    return 0;
}

char *lesson_md_plain(const char *md) {
    size_t len = strlen(md);
    char *padded = lesson_padded(md, len);
    if (padded == NULL)
        return NULL;
    LessonNarr t;
    memset(&t, 0, sizeof t);
    MD_PARSER p;
    memset(&p, 0, sizeof p);
    p.flags = MD_FLAG_STRIKETHROUGH;
    p.enter_block = plain_enter;
    p.leave_block = plain_leave;
    p.enter_span = plain_span;
    p.leave_span = plain_span;
    p.text = plain_text;
    char *out = NULL;
    int rc = md_parse(padded, (MD_SIZE)len, &p, &t);
    free(padded);
    if (rc != 0 || lesson_narr_take(&t, &out) != 0) {
        lesson_narr_free(&t);
        free(out);
        return NULL;
    }
    lesson_narr_free(&t);
    return out ? out : strdup(""); // only markup: nothing to show
}

#else

char *lesson_md_plain(const char *md) {
    return strdup(md);
}

#endif
