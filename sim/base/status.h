// sim/base/status.h: status codes returned by every fallible function in sim/ and
// the backends. sim/ never calls exit(); errors travel up as a SimStatus and
// the program decides what to do at its edge (cli/).
#ifndef DDPLAB_SIM_STATUS_H
#define DDPLAB_SIM_STATUS_H

// X-macro list: one line per status, name and a short human description.
#define SIM_STATUS_MAP(XX)                                                     \
    XX(OK, "success")                                                          \
    XX(EINVAL, "invalid argument")                                             \
    XX(ENOMEM, "out of memory")                                                \
    XX(ENOTSUP, "not supported")                                               \
    XX(EPROTO, "collective protocol violation")                                \
    XX(ETIMEDOUT, "watchdog timeout: a rank never arrived")                    \
    XX(EABORTED, "aborted because another rank failed")                        \
    XX(ENODEV, "no usable device")                                             \
    XX(EBACKEND, "backend library error")                                      \
    XX(EIO, "input/output error")                                              \
    XX(EFORMAT, "malformed input file")                                        \
    XX(ECRASHED, "a rank crashed (injected fault)")                            \
    XX(EINTR, "interrupted by a signal")

typedef enum {
#define SIM_STATUS_ENUM(name, desc) SIM_##name,
    SIM_STATUS_MAP(SIM_STATUS_ENUM)
#undef SIM_STATUS_ENUM
        SIM_STATUS_COUNT
} SimStatus;

// "EINVAL", "OK", ...; never NULL.
const char *sim_status_name(SimStatus st);
// "invalid argument", ...; never NULL.
const char *sim_strerror(SimStatus st);

// Propagate a failure, printing one trace line per frame when DDPLAB_DEBUG is
// set (in the spirit of NCCL's NCCLCHECK).
#define SIM_CHECK(call)                                                        \
    do {                                                                       \
        SimStatus sim_check_rc_ = (call);                                      \
        if (sim_check_rc_ != SIM_OK) {                                         \
            sim_status_trace(sim_check_rc_, __FILE__, __LINE__);               \
            return sim_check_rc_;                                              \
        }                                                                      \
    } while (0)

#define SIM_CHECK_GOTO(call, rc, label)                                        \
    do {                                                                       \
        (rc) = (call);                                                         \
        if ((rc) != SIM_OK) {                                                  \
            sim_status_trace((rc), __FILE__, __LINE__);                        \
            goto label;                                                        \
        }                                                                      \
    } while (0)

// Prints ".. file:line -> NAME" to stderr when the environment variable
// DDPLAB_DEBUG is set; otherwise does nothing.
#ifdef __cplusplus
extern "C" { // SIM_CHECK is also used in the CUDA backend's .cu files
#endif
void sim_status_trace(SimStatus st, const char *file, int line);
#ifdef __cplusplus
}
#endif

#endif
