/*
 * bench_main.c - sketchmm_bench: speed measurements of sketchmm's exact
 * product. `sketchmm_bench <mode> [options]` runs one mode; `--help` lists
 * every mode and flag. Exit status: 0 success, 1 a run failed (for example a
 * result did not verify), 2 bad command line.
 */
#include <stdio.h>
#include <string.h>

#include "bench_cli.h"
#include "bench_modes.h"

typedef struct {
    const char *name;
    const char *summary;
    int (*main)(int argc, char **argv);
    void (*help)(FILE *out);
} bench_mode;

static const bench_mode modes[] = {
    { "sgemm", "exact_sgemm against OpenBLAS and BLIS (GFLOPS, ratios, fraction of peak)",
      bench_sgemm_main, bench_sgemm_help },
    { "seed002", "the matrix-multiplication kernels of seed article 002 (flops/cycle, GFLOPS)",
      bench_seed002_main, bench_seed002_help },
    { "padded", "naive and tiled kernels on padded and unpadded (power-of-two stride) matrices",
      bench_padded_main, bench_padded_help },
    { "probe", "peak FMA throughput of this CPU (512-bit and 256-bit, 1 and more threads)",
      bench_probe_main, bench_probe_help },
    { "hamming", "all-pairs Hamming distances (u16, u32) and top-k: pairs/s per kernel beside plain C",
      bench_hamming_main, bench_hamming_help },
    { "encode", "sketch_encode of every sketch family: vectors/s, ratio to dense SimHash, angle accuracy",
      bench_encode_main, bench_encode_help },
    { "unary", "zero, identity, relu and their transposes: GiB/s and transpose/copy ratio",
      bench_unary_main, bench_unary_help },
    { "mat4", "4x4 float/double multiply, inverse, copy: M ops/s per ISA path, 1 and all threads, vs i7-6700K",
      bench_mat4_main, bench_mat4_help },
    { "brgemm", "batch-reduce GEMM C += sum A_i B_i on small sizes: GFLOPS vs libxsmm, OpenBLAS, plain loops",
      bench_brgemm_main, bench_brgemm_help },
};
#define MODE_COUNT ((int)(sizeof modes / sizeof modes[0]))

static void print_overview(FILE *out)
{
    fprintf(out,
        "Usage: sketchmm_bench <mode> [options]\n"
        "       sketchmm_bench <mode> --help     (that mode's options)\n"
        "       sketchmm_bench --help            (everything)\n"
        "\n"
        "Modes:\n");
    for (int i = 0; i < MODE_COUNT; i++)
        fprintf(out, "  %-9s %s\n", modes[i].name, modes[i].summary);
    fprintf(out,
        "\n"
        "Every option takes a value, as '--name value' or '--name=value'.\n"
        "Environment: SKETCHMM_ISA (scalar|avx2|avx512|neon) and SKETCHMM_NUM_THREADS are read by\n"
        "the library; SKETCHMM_BENCH_NO_PEERS=1 leaves OpenBLAS and BLIS out; OPENBLAS_CORETYPE\n"
        "(e.g. SkylakeX) and BLIS_ARCH_TYPE (0 = skx) choose the peers' kernels. libxsmm (mode\n"
        "brgemm) is linked in when libxsmm-dev was found at configure time; LIBXSMM_TARGET overrides\n"
        "its CPU detection.\n"
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
            modes[i].help(stdout);
        }
        return 0;
    }
    for (int i = 0; i < MODE_COUNT; i++)
        if (strcmp(argv[1], modes[i].name) == 0)
            return modes[i].main(argc - 2, argv + 2);
    fprintf(stderr, "sketchmm_bench: unknown mode '%s'\n\n", argv[1]);
    print_overview(stderr);
    return BENCH_EXIT_USAGE;
}
