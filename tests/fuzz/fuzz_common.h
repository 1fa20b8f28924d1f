/*
 * tests/fuzz/fuzz_common.h - what the libFuzzer targets of tests/fuzz share:
 * a per-process temporary file the fuzz bytes are written to (for the
 * loaders, which take a path), and FUZZ_CHECK, which reports a broken
 * contract and traps so libFuzzer saves the input. See README.md.
 */
#ifndef SKETCHMM_FUZZ_COMMON_H
#define SKETCHMM_FUZZ_COMMON_H

/* mkstemps (include this header first, before any system header). */
#define _DEFAULT_SOURCE 1

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* libFuzzer's entry points (its headers are C++). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/*
 * Where FUZZ_CHECK writes: a duplicate of the process's original stderr,
 * made by fuzz_init_report() (targets that silence stderr, see fuzz_spec.c,
 * keep their messages this way); stderr until then.
 */
static int fuzz_report_fd = 2;

static inline void fuzz_init_report(void)
{
    int fd = dup(2);
    if (fd >= 0)
        fuzz_report_fd = fd;
}

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5), noreturn))
#endif
static inline void fuzz_fail(const char *file, int line, const char *cond, const char *fmt, ...)
{
    char buf[2048];
    int n = snprintf(buf, sizeof buf, "\n*** contract violation at %s:%d: (%s) ", file, line, cond);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < sizeof buf)
        n += vsnprintf(buf + n, sizeof buf - (size_t)n, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof buf - 2)
        n = (int)sizeof buf - 3;
    buf[n++] = '\n';
    ssize_t w = write(fuzz_report_fd, buf, (size_t)n);
    (void)w;
    __builtin_trap();
}

/* Trap with a message (printf format) unless cond holds. */
#define FUZZ_CHECK(cond, ...)                                        \
    do {                                                             \
        if (!(cond))                                                 \
            fuzz_fail(__FILE__, __LINE__, #cond, __VA_ARGS__);       \
    } while (0)

/*
 * The per-process temporary file: created once with mkstemp (in $TMPDIR or
 * /tmp, suffix as given, e.g. ".h5"), rewritten by fuzz_write_tmp on every
 * run, removed at exit.
 */
static char fuzz_tmp_path[1024];

static inline void fuzz_remove_tmp(void)
{
    if (fuzz_tmp_path[0] != '\0')
        unlink(fuzz_tmp_path);
}

static inline const char *fuzz_tmp_file(const char *tag, const char *suffix)
{
    if (fuzz_tmp_path[0] != '\0')
        return fuzz_tmp_path;
    const char *dir = getenv("TMPDIR");
    if (dir == NULL || dir[0] == '\0')
        dir = "/tmp";
    snprintf(fuzz_tmp_path, sizeof fuzz_tmp_path, "%s/sketchmm_%s_XXXXXX%s", dir, tag, suffix);
    int fd = mkstemps(fuzz_tmp_path, (int)strlen(suffix));
    if (fd < 0) {
        fprintf(stderr, "fuzz: mkstemps(%s): %s\n", fuzz_tmp_path, strerror(errno));
        abort();
    }
    close(fd);
    atexit(fuzz_remove_tmp);
    return fuzz_tmp_path;
}

/* Replace the contents of path with data[0..size). Aborts when the file cannot be written. */
static inline void fuzz_write_file(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL || (size > 0 && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
        fprintf(stderr, "fuzz: cannot write %s: %s\n", path, strerror(errno));
        abort();
    }
}

/* 1 when the NUL-terminated message buffer holds a non-empty line. */
static inline int fuzz_has_msg(const char *msg)
{
    return msg[0] != '\0' && strchr(msg, '\n') == NULL;
}

#endif /* SKETCHMM_FUZZ_COMMON_H */
