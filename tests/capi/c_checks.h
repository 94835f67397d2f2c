/*
 * The checks of the C programs that test the C API (c_program.c, c_sessions.c; docs/c-api.md).
 * Each program is one translation unit: the counters are its own.
 *
 *   CHECK(cond)                 counts a check; a false one is a failure, printed, and the
 *                               program goes on.
 *   CHECK_CALL(expr, message)   a call that must return RC_OK, counted like CHECK: otherwise the
 *                               status and `message` (the handle's last error) are printed, and
 *                               the program goes on.
 *   REQUIRE_CALL(expr, message) a call that must return RC_OK; otherwise it prints the same and
 *                               exits with 1 (for setup that nothing after it could do without).
 */
#ifndef RETCON_TESTS_CAPI_C_CHECKS_H
#define RETCON_TESTS_CAPI_C_CHECKS_H

#include <retcon.h>

#include <stdio.h>
#include <stdlib.h>

static int failures = 0;
static int checks = 0;

#define CHECK(cond)                                                                                                    \
    do {                                                                                                               \
        ++checks;                                                                                                      \
        if (!(cond)) {                                                                                                 \
            ++failures;                                                                                                \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);                                   \
        }                                                                                                              \
    } while (0)

#define CHECK_CALL(expr, message)                                                                                      \
    do {                                                                                                               \
        rc_status call_status_ = (expr);                                                                               \
        ++checks;                                                                                                      \
        if (call_status_ != RC_OK) {                                                                                   \
            ++failures;                                                                                                \
            fprintf(stderr, "%s:%d: %s returned %s: %s\n", __FILE__, __LINE__, #expr, rc_status_name(call_status_),    \
                    (message));                                                                                        \
        }                                                                                                              \
    } while (0)

#define REQUIRE_CALL(expr, message)                                                                                    \
    do {                                                                                                               \
        rc_status call_status_ = (expr);                                                                               \
        if (call_status_ != RC_OK) {                                                                                   \
            fprintf(stderr, "%s:%d: %s returned %s: %s\n", __FILE__, __LINE__, #expr, rc_status_name(call_status_),    \
                    (message));                                                                                        \
            exit(1);                                                                                                   \
        }                                                                                                              \
    } while (0)

#endif
