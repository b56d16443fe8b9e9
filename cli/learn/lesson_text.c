// cli/learn/lesson_text.c: the narrative wrapped for a terminal (lesson_text.h).
// Each line of the parser's text is a paragraph, a list item or a heading;
// such a line is wrapped, its continuation lines indented under the text
// after the item's mark. Tables (a block of lines with a rule of dashes) and
// code (lines indented by four or more without a list mark) keep their lines.
#include "learn/lesson_text.h"

#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

int lesson_text_width(FILE *out) {
    struct winsize ws;
    if (out != NULL && isatty(fileno(out)) && ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 &&
        ws.ws_col > 0)
        return ws.ws_col < 40 ? 40 : ws.ws_col;
    return 80;
}

// Columns of s[n]: UTF-8 characters (continuation bytes do not count).
static int cols(const char *s, size_t n) {
    int c = 0;
    for (size_t i = 0; i < n; i++)
        c += ((unsigned char)s[i] & 0xC0) != 0x80;
    return c;
}

// The length of a list mark at s ("- ", "* ", "12. "), 0 when none.
static size_t mark_len(const char *s, size_t n) {
    if (n >= 2 && (s[0] == '-' || s[0] == '*' || s[0] == '+') && s[1] == ' ')
        return 2;
    size_t d = 0;
    while (d < n && d < 9 && s[d] >= '0' && s[d] <= '9')
        d++;
    if (d > 0 && d + 1 < n && (s[d] == '.' || s[d] == ')') && s[d + 1] == ' ')
        return d + 2;
    return 0;
}

// A table's rule: blanks and dashes, with a run of at least three dashes.
static int is_rule(const char *s, size_t n) {
    int run = 0, best = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '-')
            best = ++run > best ? run : best;
        else if (s[i] == ' ')
            run = 0;
        else
            return 0;
    }
    return best >= 3;
}

// The words of s[n] from column col on, lines broken before width, each
// new line starting with hang blanks; ends the last line.
static void wrap_words(FILE *out, const char *s, size_t n, int col, int hang, int width) {
    int first = 1;
    for (size_t i = 0; i < n;) {
        while (i < n && s[i] == ' ')
            i++;
        if (i >= n)
            break;
        size_t w = i;
        while (w < n && s[w] != ' ')
            w++;
        int wc = cols(s + i, w - i);
        if (!first && col + 1 + wc > width) {
            fprintf(out, "\n%*s", hang, "");
            col = hang;
        } else if (!first) {
            fputc(' ', out);
            col++;
        }
        fwrite(s + i, 1, w - i, out);
        col += wc;
        first = 0;
        i = w;
    }
    fputc('\n', out);
}

// One line of text wrapped: its indentation and mark as they are, the
// continuation lines under the text after the mark.
static void wrap_line(FILE *out, const char *s, size_t n, int width, int indent) {
    size_t lead = 0;
    while (lead < n && s[lead] == ' ')
        lead++;
    size_t head = lead + mark_len(s + lead, n - lead);
    fprintf(out, "%*s%.*s", indent, "", (int)head, s);
    int hang = indent + (int)head;
    wrap_words(out, s + head, n - head, hang, hang, width);
}

void lesson_text_item(FILE *out, const char *mark, const char *text, int width, int indent) {
    fprintf(out, "%*s%s", indent, "", mark);
    int hang = indent + cols(mark, strlen(mark));
    wrap_words(out, text, strlen(text), hang, hang, width < 20 ? 20 : width);
}

// The line at p: its length, and where the next one starts (NULL at the end).
static size_t line_at(const char *p, const char **next) {
    const char *nl = strchr(p, '\n');
    *next = nl && nl[1] ? nl + 1 : NULL; // a final newline ends the text
    return nl ? (size_t)(nl - p) : strlen(p);
}

void lesson_text_wrap(FILE *out, const char *text, int width, int indent) {
    if (text == NULL)
        return;
    if (width < 20)
        width = 20;
    const char *p = *text ? text : NULL;
    while (p != NULL) {
        const char *next;
        size_t n = line_at(p, &next);
        if (n == 0) { // the blank lines between blocks stay
            fputc('\n', out);
            p = next;
            continue;
        }
        // a block: lines up to a blank line; a table when one is a rule
        int table = 0;
        for (const char *q = p, *qn; q != NULL; q = qn) {
            size_t k = line_at(q, &qn);
            if (k == 0)
                break;
            table |= is_rule(q, k);
        }
        while (p != NULL && (n = line_at(p, &next)) > 0) {
            size_t lead = 0;
            while (lead < n && p[lead] == ' ')
                lead++;
            if (table || (lead >= 4 && mark_len(p + lead, n - lead) == 0))
                fprintf(out, "%*s%.*s\n", indent, "", (int)n, p);
            else
                wrap_line(out, p, n, width, indent);
            p = next;
        }
    }
}
