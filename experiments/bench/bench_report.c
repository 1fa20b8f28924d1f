/*
 * bench_report.c - machine and library description, CSV files (see
 * bench_report.h).
 */
#include "bench_report.h"

#include <errno.h>
#include <math.h>
#include <omp.h>
#include <string.h>

#include "bench_cli.h"
#include "bench_timing.h"
#include "sketchmm.h"

const char *bench_cpu_model(void)
{
    static char model[256];
    if (model[0] != '\0')
        return model;
    snprintf(model, sizeof model, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f == NULL)
        return model;
    char line[512];
    while (fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, "model name", 10) != 0)
            continue;
        const char *colon = strchr(line, ':');
        if (colon == NULL)
            continue;
        colon++;
        while (*colon == ' ' || *colon == '\t')
            colon++;
        snprintf(model, sizeof model, "%s", colon);
        model[strcspn(model, "\n")] = '\0';
        break;
    }
    fclose(f);
    return model;
}

void bench_print_load(FILE *out, const char *label)
{
    FILE *f = fopen("/proc/loadavg", "r");
    if (f == NULL)
        return;
    double one, five, fifteen;
    if (fscanf(f, "%lf %lf %lf", &one, &five, &fifteen) == 3)
        fprintf(out, "%s: load average 1, 5, 15 min: %.2f %.2f %.2f\n", label, one, five, fifteen);
    fclose(f);
}

void bench_print_share(FILE *out, double share, int width)
{
    if (isnan(share))
        fprintf(out, " %*s", width, "-");
    else
        fprintf(out, " %*.0f", width, 100.0 * share);
}

void bench_print_run_end(FILE *out, bench_contention_mark run_start)
{
    double share = bench_contention_others(run_start, bench_contention_now());
    fprintf(out, "\n");
    if (!isnan(share))
        fprintf(out, "Other processes used %.0f%% of the machine's CPU time during this run.\n", 100.0 * share);
    bench_print_load(out, "End");
}

const char *bench_exact_config(void)
{
    static char text[SMM_CONFIG_TEXT];
    smm_exact_config c;
    const smm_status s = smm_exact_config_get(&c);
    if (s != SMM_OK)
        snprintf(text, sizeof text, "unavailable (%s)", smm_status_str(s));
    else
        smm_exact_config_describe(&c, text, sizeof text);
    return text;
}

const char *bench_isa_name(void)
{
    smm_isa isa;
    if (smm_get_isa(&isa) != SMM_OK)
        return "unavailable";
    return smm_isa_name(isa);
}

const char *const bench_isa_choices[] = { "auto", "scalar", "avx2", "avx512", "neon", NULL };

int bench_select_isa(int choice, const char *skipped_before)
{
    static const smm_isa values[] = { SMM_ISA_AUTO, SMM_ISA_SCALAR, SMM_ISA_AVX2, SMM_ISA_AVX512, SMM_ISA_NEON };
    const smm_isa isa = values[choice];
    if (isa != SMM_ISA_AUTO && !smm_isa_supported(isa)) {
        printf("%s(%s: not available on this CPU, skipped)\n", skipped_before, bench_isa_choices[choice]);
        return 0;
    }
    if (smm_set_isa(isa) != SMM_OK) {
        bench_error("cannot select ISA %s", bench_isa_choices[choice]);
        return -1;
    }
    return 1;
}

int bench_print_setup(FILE *out)
{
    smm_isa isa;
    smm_status s = smm_get_isa(&isa);
    if (s != SMM_OK) {
        fprintf(stderr, "sketchmm_bench: ISA selection failed: %s (check SKETCHMM_ISA)\n", smm_status_str(s));
        return 1;
    }
    fprintf(out, "CPU: %s, %d logical CPUs\n", bench_cpu_model(), omp_get_num_procs());
    if (bench_cycles_available())
        fprintf(out, "TSC: %.3f GHz (measured; cycles below are TSC ticks at this nominal rate)\n", bench_tsc_ghz());
    else
        fprintf(out, "TSC: none on this architecture (flops/cycle unavailable)\n");
    fprintf(out, "sketchmm %s: ISA path %s, exact_sgemm kernel %s\n", smm_version(), smm_isa_name(isa),
            exact_sgemm_kernel_name());
    fprintf(out, "Exact core configuration: %s\n", bench_exact_config());
    bench_print_load(out, "Start");
    return 0;
}

FILE *bench_csv_open(const char *mode, const char *path)
{
    FILE *f = fopen(path, "w");
    if (f == NULL)
        fprintf(stderr, "sketchmm_bench %s: cannot write %s: %s\n", mode, path, strerror(errno));
    return f;
}

int bench_csv_close(FILE *csv, const char *mode, const char *path)
{
    if (csv == NULL)
        return 0;
    int failed = ferror(csv);
    if (fclose(csv) != 0)
        failed = 1;
    if (failed) {
        fprintf(stderr, "sketchmm_bench %s: error writing %s\n", mode, path);
        return 1;
    }
    return 0;
}

int bench_begin(const char *mode, const char *csv_path, FILE **csv)
{
    *csv = NULL;
    if (csv_path != NULL && (*csv = bench_csv_open(mode, csv_path)) == NULL)
        return 1;
    if (bench_print_setup(stdout) != 0) {
        bench_csv_close(*csv, mode, csv_path);
        *csv = NULL;
        return 1;
    }
    return 0;
}

void bench_print_number(double value, int width, int decimals)
{
    if (isnan(value))
        printf(" %*s", width, "-");
    else
        printf(" %*.*f", width, decimals, value);
}

void bench_csv_number(FILE *csv, double value)
{
    if (isnan(value))
        fprintf(csv, ",");
    else
        fprintf(csv, ",%.6g", value);
}
