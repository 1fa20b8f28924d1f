/*
 * fuzz_tuning - libFuzzer target of the tuning file's parser
 * (exact/tuning_file.c) and of the library's reading of it (exact/tuning.c).
 *
 * Each input is parsed twice: as it is, and with its last line, when it is a
 * checksum line, replaced by the right checksum of everything before it (or
 * that line appended), so the fuzzer reaches every value check of a file
 * whose checksum holds, the hostile case, and not only the checksum test.
 * Checked besides the sanitizers:
 *   - a refused input gives a non-empty, one-line reason;
 *   - an accepted one: every section it has passes tuning_check, the
 *     signature is four lines, and formatting it and parsing the text again
 *     gives the same sections (the round trip is exact);
 *   - the input written to a file and read the way the library reads it on
 *     first use (tuning_load with that file): every path's configuration
 *     passes tuning_check whatever the file holds (a file with another
 *     signature is ignored, with a note), and the note is never empty.
 */
#include "fuzz_common.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "exact/tuning.h"
#include "exact/tuning_file.h"

static char path[] = "/tmp/sketchmm_fuzz_tuning_XXXXXX.txt";
static int path_ready = 0;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    fuzz_init_report();
    const int fd = mkstemps(path, 4);
    if (fd >= 0) {
        close(fd);
        path_ready = 1;
    }
    return 0;
}

static void check_parse(const char *text, size_t size)
{
    static tuning_file f, g;
    static char again[TUNING_FILE_MAX_BYTES];
    char why[160] = "";
    const int ok = tuning_file_parse(text, size, &f, why, sizeof why);
    if (!ok) {
        FUZZ_CHECK(why[0] != '\0' && strchr(why, '\n') == NULL, "reason '%s'", why);
        return;
    }
    int lines = 0;
    for (const char *p = f.signature; *p; p++)
        lines += *p == '\n';
    FUZZ_CHECK(lines == 4, "signature of %d lines", lines);
    for (int isa = 0; isa < SMM_ISA_COUNT; isa++)
        if (f.has[isa]) {
            const char *bad = tuning_check((smm_isa)isa, &f.params[isa]);
            FUZZ_CHECK(bad == NULL, "accepted section %d fails its check: %s", isa, bad);
        }
    const int64_t len = tuning_file_format(&f, again, sizeof again);
    FUZZ_CHECK(len > 0, "an accepted file does not format");
    FUZZ_CHECK(tuning_file_parse(again, (size_t)len, &g, why, sizeof why), "the formatted text is refused: %s", why);
    FUZZ_CHECK(strcmp(f.signature, g.signature) == 0, "signature changed in the round trip");
    for (int isa = 0; isa < SMM_ISA_COUNT; isa++) {
        FUZZ_CHECK(f.has[isa] == g.has[isa], "section %d lost or gained", isa);
        if (f.has[isa])
            FUZZ_CHECK(tuning_params_equal(&f.params[isa], &g.params[isa]) &&
                           strcmp(f.measured[isa], g.measured[isa]) == 0,
                       "section %d changed in the round trip", isa);
    }
}

/* The input with a right checksum line at its end, into out; its length. */
static size_t checksummed(const uint8_t *data, size_t size, char *out, size_t room)
{
    size_t body = size;
    /* drop a last line that starts with "checksum" */
    size_t start = size;
    while (start > 0 && data[start - 1] != '\n')
        start--;
    if (start == size && size > 0) { /* the input ends with '\n': look at the line before */
        start = size - 1;
        while (start > 0 && data[start - 1] != '\n')
            start--;
    }
    if (size - start >= 8 && memcmp(data + start, "checksum", 8) == 0)
        body = start;
    if (body > room - 32)
        body = room - 32;
    memcpy(out, data, body);
    size_t n = body;
    if (n > 0 && out[n - 1] != '\n')
        out[n++] = '\n';
    n += (size_t)snprintf(out + n, room - n, "checksum %016llx\n", (unsigned long long)XXH3_64bits(out, n));
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char fixed[TUNING_FILE_MAX_BYTES + 64];
    check_parse((const char *)data, size);
    const size_t n = checksummed(data, size, fixed, sizeof fixed);
    check_parse(fixed, n);

    if (!path_ready)
        return 0;
    FILE *fp = fopen(path, "wb");
    if (fp == NULL)
        return 0;
    const size_t wrote = fwrite(fixed, 1, n, fp);
    fclose(fp);
    if (wrote != n)
        return 0;
    static tuning_state st;
    tuning_load(&st, path);
    for (int isa = SMM_ISA_SCALAR; isa < SMM_ISA_COUNT; isa++) {
        const char *bad = tuning_check((smm_isa)isa, &st.params[isa]);
        FUZZ_CHECK(bad == NULL, "loaded configuration of path %d fails its check: %s", isa, bad);
    }
    FUZZ_CHECK(st.note[0] != '\0', "no note");
    return 0;
}
