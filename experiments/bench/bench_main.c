/*
 * bench_main.c - sketchmm_bench: speed measurements of sketchmm's kernels.
 * `sketchmm_bench <mode> [options]` runs one mode (bench_modes.h) through the
 * driver of bench_cli.h; `--help` lists every mode and option. Exit status:
 * 0 success, 1 a run failed (for example a result did not verify), 2 bad
 * command line.
 */
#include <stdio.h>
#include <string.h>

#include "bench_cli.h"
#include "bench_modes.h"

static const bench_mode *const modes[] = {
    &bench_mode_sgemm,   &bench_mode_sgemm_ladder, &bench_mode_sgemm_padded, &bench_mode_sgemm_small,
    &bench_mode_probe, &bench_mode_hamming,     &bench_mode_encode,
    &bench_mode_unary,   &bench_mode_mat4,         &bench_mode_brgemm,
    &bench_mode_topk,    &bench_mode_pqscan,      &bench_mode_smallk,
};
#define MODE_COUNT ((int)(sizeof modes / sizeof modes[0]))

/* Former mode names, named in the error when one is used. */
static const char *const renamed[][2] = {
    { "seed002", "sgemm-ladder" },
    { "padded", "sgemm-padded" },
    { "probe", "probe" },
};

static void print_overview(FILE *out)
{
    fprintf(out,
        "Usage: sketchmm_bench <mode> [options]\n"
        "       sketchmm_bench <mode> --help     (that mode's options)\n"
        "       sketchmm_bench --help            (everything)\n"
        "\n"
        "Modes:\n");
    int width = 0;
    for (int i = 0; i < MODE_COUNT; i++)
        width = (int)strlen(modes[i]->name) > width ? (int)strlen(modes[i]->name) : width;
    for (int i = 0; i < MODE_COUNT; i++)
        fprintf(out, "  %-*s %s\n", width, modes[i]->name, modes[i]->summary);
    fprintf(out,
        "\n"
        "Every option takes a value, as '--name value' or '--name=value'.\n"
        "Environment: SKETCHMM_ISA (scalar|avx2|avx512|neon) and SKETCHMM_NUM_THREADS are read by\n"
        "the library; SKETCHMM_BENCH_NO_PEERS=1 leaves OpenBLAS, BLIS and FAISS out; OPENBLAS_CORETYPE\n"
        "(e.g. SkylakeX) and BLIS_ARCH_TYPE (0 = skx) choose the peers' kernels. libxsmm (mode\n"
        "brgemm) is linked in when libxsmm-dev was found at configure time; LIBXSMM_TARGET overrides\n"
        "its CPU detection. FAISS (mode topk) is a bridge module built when libfaiss-dev was found.\n"
        "Exit status: 0 success, 1 a run failed (e.g. a result did not verify), 2 bad command line.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        print_overview(stderr);
        return BENCH_EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        print_overview(stdout);
        for (int i = 0; i < MODE_COUNT; i++) {
            printf("\n");
            bench_mode_help(modes[i], stdout);
        }
        return 0;
    }
    for (int i = 0; i < MODE_COUNT; i++)
        if (strcmp(argv[1], modes[i]->name) == 0)
            return bench_mode_main(modes[i], argc - 2, argv + 2);
    fprintf(stderr, "sketchmm_bench: unknown mode '%s'", argv[1]);
    for (size_t r = 0; r < sizeof renamed / sizeof renamed[0]; r++)
        if (strcmp(argv[1], renamed[r][0]) == 0)
            fprintf(stderr, " (renamed '%s')", renamed[r][1]);
    fprintf(stderr, "\n\n");
    print_overview(stderr);
    return BENCH_EXIT_USAGE;
}
