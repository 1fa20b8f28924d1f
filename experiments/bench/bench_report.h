/*
 * bench_report.h - what every mode of sketchmm_bench reports about the run
 * itself: the machine and library configuration, and the CSV file.
 */
#ifndef SKETCHMM_BENCH_REPORT_H
#define SKETCHMM_BENCH_REPORT_H

#include <stdio.h>

#include "bench_contention.h"

/* The CPU model from /proc/cpuinfo ("unknown CPU" when it cannot be read). */
const char *bench_cpu_model(void);

/*
 * Print the CPU, its logical CPU count, the TSC frequency, the sketchmm
 * version, ISA path, exact_sgemm kernel and the exact core's configuration
 * (bench_exact_config). Returns 0, or prints why the ISA
 * selection failed (SKETCHMM_ISA naming a missing path) and returns 1.
 */
int bench_print_setup(FILE *out);

/*
 * Print "<label>: load average 1, 5, 15 min: a b c" from /proc/loadavg
 * (nothing where it cannot be read): other processes disturb the timings,
 * so a run says how busy the machine was when it started and ended.
 */
void bench_print_load(FILE *out, const char *label);

/*
 * Print how much of the machine's CPU time other processes used since
 * run_start (bench_contention.h) and the load average: the closing lines of
 * every mode.
 */
void bench_print_run_end(FILE *out, bench_contention_mark run_start);

/* Print a contention share (0..1) as a percentage in width characters ("-" when unknown). */
void bench_print_share(FILE *out, double share, int width);

/*
 * The exact core's configuration on the current ISA path, one line
 * (smm_exact_config_describe: kernel, blocks, source: tuned file, model or
 * table), so every figure says which exact_sgemm it was measured with.
 */
const char *bench_exact_config(void);

/* The ISA path name in use ("unavailable" when the selection failed). */
const char *bench_isa_name(void);

/* The ISA paths an --isa option chooses from: "auto", "scalar", "avx2", "avx512", "neon", NULL. */
extern const char *const bench_isa_choices[];

/*
 * Select the ISA path bench_isa_choices[choice] (smm_set_isa). Returns 1 when
 * it runs; 0 when this CPU lacks it, after printing skipped_before and
 * "(<path>: not available on this CPU, skipped)" on stdout; -1 when the
 * selection failed, after printing why (bench_error).
 */
int bench_select_isa(int choice, const char *skipped_before);

/*
 * Open path for writing a CSV table; on failure print why on stderr and
 * return NULL.
 */
FILE *bench_csv_open(const char *mode, const char *path);

/* Close a CSV file from bench_csv_open; 0 on success, else prints the error and returns 1. */
int bench_csv_close(FILE *csv, const char *mode, const char *path);

/*
 * The start every mode shares: open csv_path (when not NULL) into *csv, then
 * print the setup (bench_print_setup). Returns 0, or 1 after printing why and
 * closing what it opened (*csv is then NULL).
 */
int bench_begin(const char *mode, const char *csv_path, FILE **csv);

/* Print " <value>" right-aligned in width with `decimals` decimals, or " -" (same width) for NaN (no figure). */
void bench_print_number(double value, int width, int decimals);

/* Append ",<value>" (%.6g) to a CSV row, or an empty field "," for NaN. */
void bench_csv_number(FILE *csv, double value);

#endif /* SKETCHMM_BENCH_REPORT_H */
