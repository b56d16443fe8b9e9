// cli/lesson/lesson_cmd.c: `ddplab lesson`: the menu of lessons (also what `ddplab`
// alone opens), and `ddplab lesson NAME|FILE`, which plays one
// (lesson_play.h). Progress is kept in the learner's state directory
// (lesson_progress.h) after every lesson played.
#define _GNU_SOURCE // strcasestr

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/backends.h"         // defines: cli_backend_listed, cli_backend_names
#include "core/cli.h"              // defines: CLI_EXIT_*
#include "learn/lesson.h"          // defines: Lesson, lesson_dir
#include "learn/lesson_catalog.h"  // defines: LessonCatalog
#include "learn/lesson_progress.h" // defines: LessonProgress
#include "learn/lesson_text.h"     // defines: lesson_text_width
#include "lesson/lesson_args.h"    // defines: LessonArgs, lesson_args_parse
#include "lesson/lesson_cmd.h"
#include "lesson/lesson_confine.h" // defines: lesson_load, lesson_confine
#include "lesson/lesson_play.h"    // defines: lesson_play
#include "lesson/lesson_tui.h"     // defines: lesson_tui_run
#include "views.h"                 // defines: viz_curses_available, viz_sdl_available

static const char *const prog = "ddplab lesson";

void lesson_help(FILE *out) {
    fputs("usage: ddplab lesson [NAME|FILE] [options]\n"
          "       ddplab            (the same as `ddplab lesson`: the menu)\n"
          "\n"
          "Guided lessons on data-parallel training: each one tells a part of the\n"
          "story, runs ddplab to show it (the view stops where the lesson points),\n"
          "and asks questions whose answers are checked against what the run\n"
          "computed.\n"
          "\n"
          "On a terminal the lessons are one full-screen program. The menu lists\n"
          "them by section with your progress (up/down or j/k, Enter; / searches\n"
          "titles and topics; t and l filter by track and level; m reviews the\n"
          "questions you missed; i opens the interview drill; ? lists the keys).\n"
          "A lesson shows its narrative, the view of its run at each pause, and its\n"
          "questions on one screen (side by side from 150 columns, stacked below),\n"
          "with the keys that work in the status line: Enter goes on, left goes\n"
          "back, Tab gives the view the keys (space plays it at the lesson's pace\n"
          "and stops at the next pause; ] and [ jump to the next event of the kind\n"
          "the pause is about), o shows the run's whole output, q goes up one\n"
          "level (view, lesson, menu). A lesson left half-way resumes where it was;\n"
          "its end sums up the score and what was missed. Without a terminal (a\n"
          "pipe, a script) the menu is printed and the command ends, and a lesson\n"
          "is played as text.\n"
          "\n"
          "  NAME                  a lesson's id (or its number in the menu, or its\n"
          "                        file name); FILE: a path to a lesson .md file\n"
          "      --viz text|ncurses|sdl\n"
          "                        ncurses = the full-screen player above; text =\n"
          "                        the lesson as text, each pause a frame printed\n"
          "                        in it (Enter goes on) and answers typed on a\n"
          "                        line; sdl = the text lesson with each pause in a\n"
          "                        window (q closes it and the lesson goes on)\n"
          "                        [ncurses on a terminal when built, else text]\n"
          "      --non-interactive answer every question with the lesson's recorded\n"
          "                        answer and check it: the answer must equal the\n"
          "                        fact its run computed (within its tolerance;\n"
          "                        a question marked varies: only notes a\n"
          "                        difference),\n"
          "                        every command must end with the exit code the\n"
          "                        lesson expects, every pause must name an event\n"
          "                        (what the test suite runs; implies --viz text)\n"
          "      --backend NAME    run the lesson's run and bench blocks on this\n"
          "                        backend (cpu, or cuda in a CUDA build); blocks\n"
          "                        with --phantom (shapes only), --fault (the cpu\n"
          "                        backend's diagnosis) or --strategy async-ps (an\n"
          "                        event simulation on the host) stay on cpu\n"
          "      --list            print the lessons and stop\n"
          "      --lessons DIR     where the lessons are [$DDPLAB_LESSONS, else the\n"
          "                        source tree's lessons/ from the build tree,\n"
          "                        else PREFIX/share/ddplab/lessons installed]\n"
          "  -h, --help            print this help\n"
          "\n"
          "Answers: a number, a letter for a choice, a word (any case); an empty\n"
          "answer skips the question (full screen: Enter twice). A number is right when it is what the run\n"
          "computed, rounded to the answer's own last digit, with as many digits\n"
          "as the screen showed less one when it showed 4 or more (a loss shown\n"
          "as 1.46754: 1.4675 or 1.46754, not 1.47), or as many as the question\n"
          "asks for; a count exactly; within its tolerance where a question gives\n"
          "one. At a terminal the choices come in a new order each time (their\n"
          "letters as shown). Progress (lessons finished, answers right, where\n"
          "a lesson was left, which answers were missed) is kept\n"
          "in $XDG_STATE_HOME/ddplab/progress.json (default\n"
          "~/.local/state/ddplab/progress.json). The lesson format is\n"
          "lessons/FORMAT.md.\n"
          "\n"
          "examples:\n"
          "  ddplab                              # the menu\n"
          "  ddplab lesson --list\n"
          "  ddplab lesson ddp-internals --viz text\n"
          "  ddplab lesson lessons/06-ddp-internals.md --non-interactive\n"
          "\n"
          "exit codes:\n"
          "  0  the lesson was played (and, with --non-interactive, every check passed)\n"
          "  1  a check failed (--non-interactive: a recorded answer the run no longer\n"
          "     computes, a command that ended with another exit code than the lesson\n"
          "     expects, a pause at no event)\n"
          "  2  bad input (unknown lesson or option; a malformed lesson file, with the\n"
          "     file and line)\n"
          "  4  internal error (the scratch directory, out of memory)\n",
          out);
}

static int usage(const char *fmt, const char *a, const char *b) {
    fprintf(stderr, "%s: ", prog);
    fprintf(stderr, fmt, a, b);
    fprintf(stderr, " (see ddplab lesson --help)\n");
    return CLI_EXIT_USAGE;
}

int lesson_args_parse(int argc, char **argv, LessonArgs *a) {
    memset(a, 0, sizeof *a);
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        if (strcmp(s, "-h") == 0 || strcmp(s, "--help") == 0) {
            lesson_help(stdout);
            return -1;
        }
        if (strcmp(s, "--non-interactive") == 0) {
            a->non_interactive = 1;
            continue;
        }
        if (strcmp(s, "--list") == 0) {
            a->list = 1;
            continue;
        }
        if (strncmp(s, "--", 2) == 0 || (s[0] == '-' && s[1] != '\0')) {
            static const char *const valued[] = {"--viz", "--backend", "--lessons"};
            const char *eq = strchr(s, '=');
            size_t n = eq ? (size_t)(eq - s) : strlen(s);
            int k = -1;
            for (int j = 0; j < 3; j++)
                if (strlen(valued[j]) == n && strncmp(s, valued[j], n) == 0)
                    k = j;
            if (k < 0)
                return usage("unknown option '%s'%s", s, "");
            const char *v = eq ? eq + 1 : NULL;
            if (v == NULL) {
                if (i + 1 >= argc)
                    return usage("%s needs a value%s", valued[k], "");
                v = argv[++i];
            }
            if (k == 0)
                a->viz = v;
            else if (k == 1)
                a->backend = v;
            else
                a->dir = v;
            continue;
        }
        if (a->name != NULL)
            return usage("one lesson at a time ('%s' and '%s')", a->name, s);
        a->name = s;
    }
    return 0;
}

int lesson_args_check(LessonArgs *a) {
    if (a->viz && strcmp(a->viz, "text") && strcmp(a->viz, "ncurses") && strcmp(a->viz, "sdl"))
        return usage("--viz: '%s' is not a view; allowed: text, ncurses, sdl%s", a->viz, "");
    if (a->viz && strcmp(a->viz, "ncurses") == 0 && !viz_curses_available()) {
        fprintf(stderr, "%s: --viz ncurses: this build has no ncurses (apt-get install "
                "libncurses-dev, then rebuild); --viz text works everywhere\n", prog);
        return CLI_EXIT_USAGE;
    }
    if (a->viz && strcmp(a->viz, "sdl") == 0 && !viz_sdl_available()) {
        fprintf(stderr, "%s: --viz sdl: this build has no SDL2 (apt-get install libsdl2-dev "
                "libcairo2-dev libpango1.0-dev, then rebuild); try --viz ncurses\n", prog);
        return CLI_EXIT_USAGE;
    }
    if (a->non_interactive && a->viz && strcmp(a->viz, "text") != 0)
        return usage("--non-interactive shows pauses as text frames; --viz %s waits for "
                     "keys%s", a->viz, "");
    if (a->backend) {
        if (!cli_backend_listed(a->backend)) {
            char names[128];
            cli_backend_names(names, sizeof names);
            const char *hint = cli_backend_missing_hint(a->backend);
            fprintf(stderr, "%s: --backend: '%s' is not in this build; allowed: %s%s%s\n", prog,
                    a->backend, names, hint ? "; " : "", hint ? hint : "");
            return CLI_EXIT_USAGE;
        }
    }
    return 0;
}

static int is_terminal(void) {
    return isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
}

// A UTF-8 locale in the environment: text frames may draw boxes.
static int utf8_locale(void) {
    const char *vars[] = {"LC_ALL", "LC_CTYPE", "LANG"};
    for (int i = 0; i < 3; i++) {
        const char *v = getenv(vars[i]);
        if (v != NULL && *v != '\0')
            return strstr(v, "UTF-8") || strstr(v, "utf8") || strstr(v, "UTF8") ||
                   strstr(v, "utf-8");
    }
    return 0;
}

// ---------------------------------------------------------------------------
// Progress

typedef struct {
    char *path;          // NULL: no place to keep it
    LessonProgress p;
} Progress;

static void progress_open(Progress *g) {
    memset(g, 0, sizeof *g);
    g->path = lesson_progress_path();
    char err[512];
    if (g->path && lesson_progress_load(&g->p, g->path, err, sizeof err) != 0)
        fprintf(stderr, "%s: %s; it will be replaced\n", prog, err);
}

static void progress_note(Progress *g, const Lesson *l, const LessonPlayResult *r,
                          int non_interactive) {
    if (non_interactive) // a test or a read-through, not the learner's own answers
        return;
    char err[512];
    if (g->path == NULL || l->id == NULL)
        return;
    if (lesson_progress_record(&g->p, l->id, r->completed, r->right, r->asked, time(NULL)) != 0 ||
        lesson_progress_save(&g->p, g->path, err, sizeof err) != 0)
        fprintf(stderr, "%s: progress not saved: %s\n", prog, g->path);
}

static void progress_close(Progress *g) {
    lesson_progress_free(&g->p);
    free(g->path);
}

// ---------------------------------------------------------------------------
// Playing

static int play_file(const char *path, const LessonArgs *a, Progress *g) {
    Lesson l;
    char err[512];
    if (lesson_load(path, &l, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", prog, err);
        return CLI_EXIT_USAGE;
    }
    LessonPlayOpts o = {0};
    o.non_interactive = a->non_interactive;
    o.viz = a->viz ? a->viz
            : !a->non_interactive && is_terminal() && viz_curses_available() ? "ncurses"
                                                                             : "text";
    o.backend = a->backend;
    o.in = stdin;
    o.out = stdout;
    o.width = lesson_text_width(stdout);
    o.unicode = utf8_locale();
    o.wait_enter = !a->non_interactive && isatty(STDIN_FILENO);
    if (!a->non_interactive && l.nprereqs > 0) {
        int missing = 0;
        for (int i = 0; i < l.nprereqs; i++) {
            const LessonProgressEntry *e = lesson_progress_find(&g->p, l.prereqs[i]);
            missing += e == NULL || !e->completed;
        }
        if (missing > 0)
            printf("(This lesson builds on %d lesson%s you have not finished yet; you can "
                   "take it anyway.)\n\n", missing, missing == 1 ? "" : "s");
    }
    LessonPlayResult r;
    int rc = lesson_play(&l, &o, &r);
    progress_note(g, &l, &r, a->non_interactive);
    lesson_free(&l);
    return rc;
}

// The full-screen player: on a terminal, unless --viz text or sdl (the
// lesson as text, with pauses as text frames or windows) or
// --non-interactive.
static int use_tui(const LessonArgs *a) {
    if (a->non_interactive || a->list || (a->viz && strcmp(a->viz, "ncurses") != 0))
        return 0;
    return lesson_tui_available();
}

static int tui(const LessonArgs *a, Progress *g, const LessonCatalog *c, const char *path) {
    LessonTuiOpts o = {0};
    o.cat = c;
    o.path = path;
    o.backend = a->backend;
    o.progress = &g->p;
    o.progress_path = g->path;
    o.seed = (unsigned long)time(NULL) ^ ((unsigned long)getpid() << 16);
    if (o.seed == 0)
        o.seed = 1;
    return lesson_tui_run(&o);
}

static int is_file(const char *s) {
    struct stat st;
    size_t n = strlen(s);
    return strchr(s, '/') != NULL || (n > 3 && strcmp(s + n - 3, ".md") == 0)
               ? 1
               : stat(s, &st) == 0 && S_ISREG(st.st_mode);
}

// ---------------------------------------------------------------------------
// The menu

// "   3  [x] collectives        beginner      20 min  Collectives: all_reduce, ..."
// The title comes last and is cut to the width (with "...").
static void print_menu(const LessonCatalog *c, const Progress *g, const char *dir) {
    printf("ddplab lessons (%s%s)\n", dir, c->from_index ? "/index.md" : "");
    int iw = 8;
    for (int i = 0; i < c->n; i++) {
        int n = c->e[i].id ? (int)strlen(c->e[i].id) : 0;
        iw = n > iw ? n : iw;
    }
    int width = lesson_text_width(stdout);
    const char *section = NULL;
    for (int i = 0; i < c->n; i++) {
        const LessonEntry *e = &c->e[i];
        if (section == NULL || strcmp(section, e->section) != 0) {
            section = e->section;
            printf("\n%s\n", section[0] ? section : "Lessons");
        }
        if (e->error) {
            printf("  %3d  [!] %s\n", i + 1, e->error);
            continue;
        }
        const LessonProgressEntry *p = lesson_progress_find(&g->p, e->id);
        const char *mark = p == NULL ? "[ ]" : p->completed ? "[x]" : "[~]";
        char score[32] = "";
        if (p != NULL && p->asked > 0)
            snprintf(score, sizeof score, "%d/%d", p->right, p->asked);
        char head[192];
        int used = snprintf(head, sizeof head, "  %3d  %s %-*s  %-12s %3d min %5s  ", i + 1,
                            mark, iw, e->id, e->difficulty, e->minutes, score);
        int room = width - 1 - used, n = (int)strlen(e->title);
        if (n <= room) {
            printf("%s%s\n", head, e->title);
        } else if (room >= 30) {
            printf("%s%.*s...\n", head, room - 3, e->title);
        } else { // a narrow terminal: the title on a line of its own
            for (size_t k = strlen(head); k > 0 && head[k - 1] == ' '; k--)
                head[k - 1] = '\0';
            printf("%s\n           %.*s\n", head, width - 12, e->title);
        }
    }
    if (c->n == 0)
        printf("\n(no lessons in %s yet)\n", dir);
    printf("\n[x] finished  [~] started  [ ] not yet;  N/M: questions right in the last play\n");
}

// A word that is no lesson's number or id: the lessons whose id or title
// contain it (in any case). The one found, or -1 after listing them (or
// saying there are none).
static int menu_search(const LessonCatalog *c, const char *word) {
    int found = -1, n = 0;
    for (int i = 0; i < c->n; i++) {
        const LessonEntry *e = &c->e[i];
        if (e->error || (strcasestr(e->id, word) == NULL && strcasestr(e->title, word) == NULL))
            continue;
        if (n++ == 0)
            found = i;
    }
    if (n == 1)
        return found;
    if (n == 0) {
        printf("No lesson '%s': a number from 1 to %d, an id, or a word of a title (? helps).\n",
               word, c->n);
        return -1;
    }
    printf("%d lessons have '%s':\n", n, word);
    for (int i = 0; i < c->n; i++) {
        const LessonEntry *e = &c->e[i];
        if (!e->error && (strcasestr(e->id, word) || strcasestr(e->title, word)))
            printf("  %3d  %s: %s\n", i + 1, e->id, e->title);
    }
    return -1;
}

static int menu(const LessonCatalog *c, const LessonArgs *a, Progress *g, const char *dir) {
    print_menu(c, g, dir);
    if (a->list || !is_terminal()) {
        const char *first = NULL;
        for (int i = 0; i < c->n && first == NULL; i++)
            first = c->e[i].id;
        printf("\nStart one with: ddplab lesson ID (or its number)%s%s\n",
               first ? ", e.g. ddplab lesson " : "", first ? first : "");
        printf("ddplab lesson --help says more.\n");
        return CLI_EXIT_OK;
    }
    int rc = CLI_EXIT_OK;
    for (;;) {
        char line[256];
        printf("\nChoose a lesson by number, id or a word of its title (? helps, q quits): ");
        fflush(stdout);
        if (fgets(line, sizeof line, stdin) == NULL) {
            putchar('\n');
            break;
        }
        line[strcspn(line, "\r\n")] = '\0';
        char *s = line;
        while (*s == ' ')
            s++;
        for (size_t n = strlen(s); n > 0 && s[n - 1] == ' '; n--)
            s[n - 1] = '\0';
        if (*s == '\0')
            continue;
        if (strcmp(s, "q") == 0 || strcmp(s, "quit") == 0)
            break;
        if (strcmp(s, "?") == 0 || strcmp(s, "help") == 0) {
            printf("Type a lesson's number or id to play it, or a word to find the lessons "
                   "whose id or title has it (fsdp, bucket, ...); q quits.\n");
            continue;
        }
        int k = lesson_catalog_find(c, s);
        if (k < 0)
            k = menu_search(c, s);
        if (k < 0)
            continue;
        if (c->e[k].error) {
            printf("%s cannot be played: %s\n", c->e[k].path, c->e[k].error);
            continue;
        }
        putchar('\n');
        rc = play_file(c->e[k].path, a, g);
        // the lesson's last lines (its score) stay until the learner is done with them
        printf("\n(Enter: back to the menu) ");
        fflush(stdout);
        if (fgets(line, sizeof line, stdin) == NULL)
            break;
        printf("\n");
        print_menu(c, g, dir);
    }
    return rc == CLI_EXIT_INTERNAL ? rc : CLI_EXIT_OK;
}

int lesson_main(int argc, char **argv) {
    LessonArgs a;
    int rc = lesson_args_parse(argc, argv, &a);
    if (rc != 0)
        return rc < 0 ? CLI_EXIT_OK : rc;
    if ((rc = lesson_args_check(&a)) != 0)
        return rc;
    const char *dir = a.dir ? a.dir : lesson_dir();
    Progress g;
    progress_open(&g);
    if (a.name != NULL && !a.list && is_file(a.name)) {
        rc = use_tui(&a) ? tui(&a, &g, NULL, a.name) : play_file(a.name, &a, &g);
        progress_close(&g);
        return rc;
    }
    LessonCatalog c;
    char err[512];
    if (lesson_catalog_load(dir, lesson_confine, &c, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", prog, err);
        progress_close(&g);
        return CLI_EXIT_USAGE;
    }
    if ((a.name == NULL || a.list) && use_tui(&a)) {
        rc = tui(&a, &g, &c, NULL);
    } else if (a.name == NULL || a.list) {
        rc = menu(&c, &a, &g, dir);
    } else {
        int k = lesson_catalog_find(&c, a.name);
        if (k < 0) {
            fprintf(stderr, "%s: no lesson '%s' in %s (ddplab lesson --list shows them; a "
                    "file needs its path, e.g. ./%s.md)\n", prog, a.name, dir, a.name);
            rc = CLI_EXIT_USAGE;
        } else if (c.e[k].error) {
            fprintf(stderr, "%s: %s\n", prog, c.e[k].error);
            rc = CLI_EXIT_USAGE;
        } else {
            rc = use_tui(&a) ? tui(&a, &g, &c, c.e[k].path) : play_file(c.e[k].path, &a, &g);
        }
    }
    lesson_catalog_free(&c);
    progress_close(&g);
    return rc;
}
