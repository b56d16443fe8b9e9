// cli/learn/lesson_text.h: a lesson's narrative on a terminal: the plain text of
// lesson.h (paragraphs one per line, list items led by "- " or "N. ",
// nested items and quotes indented by two blanks, code by four, tables as
// padded columns) wrapped to a width, with list items hanging under their
// first word and code and tables left as they are.
#ifndef DDPLAB_CLI_LESSON_TEXT_H
#define DDPLAB_CLI_LESSON_TEXT_H

#include <stdio.h>

// Writes text wrapped at width columns (UTF-8 characters counted as one
// column each) with indent blanks before every line.
void lesson_text_wrap(FILE *out, const char *text, int width, int indent);

// Writes indent blanks, mark ("a) "), then text wrapped at width with its
// continuation lines under the text after the mark.
void lesson_text_item(FILE *out, const char *mark, const char *text, int width, int indent);

// The columns to use for out: the terminal's width when out is a terminal
// (at least 40), else 80.
int lesson_text_width(FILE *out);

#endif
