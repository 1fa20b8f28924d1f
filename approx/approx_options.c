/*
 * approx_options.c - the options and per-call parameters of the public
 * approximate calls (approx_options.h), and the public queries about
 * methods: approx_options_init, approx_default_size, approx_encoded_bytes,
 * approx_check_sizes.
 */
#include "approx/approx_options.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sketchmm/sketch.h"

/* The smallest struct_size of each struct: its layout in the first version that had struct_size (0.4.0). */
#define OPTIONS_FIRST_SIZE sizeof(approx_options)
#define CALL_FIRST_SIZE sizeof(approx_call)

/* Every flag this version knows. */
#define KNOWN_FLAGS APPROX_BORROW_B

void approx_options_init(approx_options *opts)
{
    if (opts) {
        const approx_options defaults = APPROX_OPTIONS_INIT;
        *opts = defaults;
    }
}

int32_t approx_default_size(sketch_method method)
{
    const approx_method *m = approx_method_of(method);
    return m != NULL ? m->default_size : 0;
}

int64_t approx_encoded_bytes(sketch_method method, int32_t size, int64_t k)
{
    const approx_method *m = approx_method_of(method);
    if (m == NULL)
        return -1;
    if (size == 0)
        size = m->default_size;
    if (size < 1 || size > m->max_size || k < 1)
        return -1;
    return m->encoded_bytes(method, size, k);
}

/* Write a sentence to msg (msg_size bytes; nothing when msg is NULL) and return s. */
static smm_status explain(smm_status s, char *msg, size_t msg_size, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static smm_status explain(smm_status s, char *msg, size_t msg_size, const char *fmt, ...)
{
    if (msg != NULL && msg_size > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, msg_size, fmt, ap);
        va_end(ap);
    }
    return s;
}

smm_status approx_options_read(const approx_options *in, approx_options *out, char *msg, size_t msg_size)
{
    approx_options_init(out);
    if (msg != NULL && msg_size > 0)
        msg[0] = '\0';
    if (in != NULL) {
        if (in->struct_size < OPTIONS_FIRST_SIZE || in->struct_size > sizeof *out)
            return explain(SMM_ERR_BAD_ARGUMENT, msg, msg_size,
                           "approx_options.struct_size = %zu, not a size of this struct (%zu): initialise the "
                           "options with APPROX_OPTIONS_INIT or approx_options_init()",
                           in->struct_size, sizeof *out);
        memcpy(out, in, in->struct_size);
        out->struct_size = sizeof *out;
    }
    const approx_method *m = approx_method_of(out->method);
    if (m == NULL)
        return explain(SMM_ERR_BAD_METHOD, msg, msg_size, "method %d is not a method of this library (1..%d)",
                       (int)out->method, (int)SKETCH_MADDNESS);
    const char *name = sketch_method_name(out->method);
    if (out->size == 0)
        out->size = m->default_size;
    if (out->size < 1 || out->size > m->max_size)
        return explain(sketch_method_uses_bits(out->method) ? SMM_ERR_BAD_BITS : SMM_ERR_BAD_ARGUMENT, msg,
                       msg_size, "%s: size = %d is outside 1..%d (%s)", name, (int)out->size, (int)m->max_size,
                       sketch_method_uses_bits(out->method) ? "bits" : "the sketch dimension");
    if (out->num_threads < 0 || out->num_threads > SMM_MAX_THREADS)
        return explain(SMM_ERR_BAD_THREADS, msg, msg_size, "num_threads = %d is outside 0..%d",
                       (int)out->num_threads, SMM_MAX_THREADS);
    if (out->candidates < 0)
        return explain(SMM_ERR_BAD_ARGUMENT, msg, msg_size, "candidates = %d is negative", (int)out->candidates);
    if (out->energy != 0.0 && out->method != SKETCH_LOWRANK)
        return explain(SMM_ERR_BAD_ARGUMENT, msg, msg_size, "energy is an option of lowrank only, not of %s", name);
    if (out->energy != 0.0 && !(out->energy > 0.0 && out->energy <= 1.0))
        return explain(SMM_ERR_BAD_ARGUMENT, msg, msg_size, "lowrank: energy = %g is outside (0, 1]", out->energy);
    if ((out->flags & ~(uint32_t)KNOWN_FLAGS) != 0)
        return explain(SMM_ERR_BAD_ARGUMENT, msg, msg_size, "flags = %#x holds bits this library does not know (%#x)",
                       (unsigned)out->flags, (unsigned)KNOWN_FLAGS);
    return SMM_OK;
}

smm_status approx_call_read(const approx_call *in, approx_call *out)
{
    const approx_call defaults = APPROX_CALL_INIT;
    *out = defaults;
    if (in == NULL)
        return SMM_OK;
    if (in->struct_size < CALL_FIRST_SIZE || in->struct_size > sizeof *out)
        return SMM_ERR_BAD_ARGUMENT;
    memcpy(out, in, in->struct_size);
    out->struct_size = sizeof *out;
    return out->candidates < 0 ? SMM_ERR_BAD_ARGUMENT : SMM_OK;
}

smm_status approx_check_sizes(const approx_options *opts, int64_t k, int64_t n, char *msg, size_t msg_size)
{
    approx_options o;
    smm_status s = approx_options_read(opts, &o, msg, msg_size);
    if (s == SMM_OK && (k < 1 || n < 1))
        s = explain(SMM_ERR_BAD_SIZE, msg, msg_size, "op(B) is %lld x %lld: k and n must be at least 1", (long long)k,
                    (long long)n);
    const approx_method *m = s == SMM_OK ? approx_method_of(o.method) : NULL;
    if (m != NULL && m->check_sizes != NULL)
        s = m->check_sizes(&o, k, n, msg, msg_size);
    return s;
}

smm_status approx_context(const approx_options *opts, smm_context *ctx)
{
    smm_status s = smm_context_current(ctx);
    if (s == SMM_OK && opts->num_threads > 0)
        ctx->threads = opts->num_threads;
    return s;
}

smm_status approx_resolve(const approx_options *in, approx_options *out, smm_context *ctx)
{
    smm_status s = approx_options_read(in, out, NULL, 0);
    if (s == SMM_OK)
        s = approx_context(out, ctx);
    return s;
}
