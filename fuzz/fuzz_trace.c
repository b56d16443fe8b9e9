// fuzz/fuzz_trace.c: a recorded trace, as `ddplab replay` opens it
// (viz/vtrace_load.c: the binary .ddptrace of vtrace_bin.c or the JSON
// lines of vtrace_jsonl.c, told apart by the first bytes), then what replay
// does with a trace that loaded: the scene model indexes it (--info), text
// frames are drawn at its first, middle and last events, the last one's
// scene is made again on the wall clock, and the loss and memory series the
// charts plot are read.
#include "scene.h"  // defines: viz_model_new, viz_model_loss
#include "views.h"  // defines: viz_text_frame
#include "vtrace.h" // defines: VizTrace, viz_trace_load

#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_set_accepted(0);
    const char *path = fuzz_temp_file(0, data, size);
    if (path == NULL)
        return 0;
    VizTrace t;
    char err[512];
    if (viz_trace_load(path, &t, err, sizeof err) != SIM_OK) {
        viz_trace_free(&t);
        return 0;
    }
    VizModel *m = viz_model_new(&t, err, sizeof err);
    fuzz_set_accepted(m != NULL);
    FILE *null = fuzz_devnull();
    if (m != NULL && null != NULL) {
        viz_model_iterations(m);
        size_t n = viz_model_count(m);
        size_t at[3] = {0, n / 2, n - 1};
        for (int k = 0; k < 3 && n > 0; k++)
            viz_text_frame(m, at[k], 100, k != 1, NULL, null);
        // the wall-clock timeline (the interactive views' 'w' key)
        VizScene *sc = viz_scene_new(m);
        VizSceneOpts so = viz_scene_opts_default();
        so.use_wall = 1;
        so.timeline_cols = 80;
        if (sc != NULL && n > 0)
            viz_scene_at(m, n - 1, &so, sc);
        viz_scene_free(sc);
        const double *x, *y;
        viz_model_loss(m, &x, &y);
        for (int r = 0; r < t.nranks && r < 4; r++)
            viz_model_memory(m, r, &x, &y);
    }
    viz_model_free(m);
    viz_trace_free(&t);
    return 0;
}
