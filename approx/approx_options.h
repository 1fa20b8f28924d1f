/*
 * approx_options.h - options and per-call parameters of the public
 * approximate calls (approx_options.c): reading the caller's structs
 * (struct_size), resolving defaults, checking them against the method's
 * registry entry with a sentence naming the limit, and the context.
 */
#ifndef APPROX_OPTIONS_H
#define APPROX_OPTIONS_H

#include "approx/approx_method.h"

/*
 * The caller's options (NULL: the defaults) as *out: struct_size checked and
 * fields beyond it defaulted, size 0 resolved to the method's default, every
 * field checked (the method's own size limits are approx_check_sizes').
 * SMM_OK, or the status with a sentence in msg (msg may be NULL).
 */
smm_status approx_options_read(const approx_options *in, approx_options *out, char *msg, size_t msg_size);

/* The caller's per-call parameters (NULL: the defaults) as *out, checked (candidates >= 0). */
smm_status approx_call_read(const approx_call *in, approx_call *out);

/* The process-wide context with opts->num_threads (when > 0) as the thread count. */
smm_status approx_context(const approx_options *opts, smm_context *ctx);

/* approx_options_read into *out (no message), then approx_context into *ctx. */
smm_status approx_resolve(const approx_options *in, approx_options *out, smm_context *ctx);

#endif /* APPROX_OPTIONS_H */
