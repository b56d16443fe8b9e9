// cli/lsan_fonts.c: what a sanitizer is told to leave to the font
// libraries. With AddressSanitizer, the leak check leaves out the font
// configuration fontconfig loads once for the process, the first time the
// SDL view's plugin sets text (a chart, a frame), and keeps until exit by
// design; with ThreadSanitizer, the race check leaves out the threads that
// load it. Everything ddplab allocates, and every thread of its own, is
// still checked. The program exports the hooks (ddplab.dynlist) so that the
// sanitizer's runtime finds them.
#if defined(__SANITIZE_ADDRESS__)
const char *__lsan_default_suppressions(void);

const char *__lsan_default_suppressions(void) {
    return "leak:libfontconfig.so\n";
}
#elif defined(__SANITIZE_THREAD__)
// ThreadSanitizer: fontconfig loads that configuration on a thread of
// pango's, and the races it reports are between those libraries' own
// threads, not ddplab's (whose ranks are still checked).
const char *__tsan_default_suppressions(void);

const char *__tsan_default_suppressions(void) {
    return "race:libfontconfig.so\nrace:libpangoft2-1.0.so\nrace:libglib-2.0.so\n";
}
#else
typedef int ddplab_lsan_fonts_unused; // ISO C: a translation unit holds a declaration
#endif
