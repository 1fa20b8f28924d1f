/* consumer.c - a user's program built against the installed sketchmm (find_package or pkg-config):
 * the README's C example, checked. It also defines functions under names the library uses
 * internally: linking the static library must not collide with them (the installed archive keeps its
 * internals local), and the program's own definitions must be the ones it calls. */
#include <sketchmm.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Names of the library's internals, with other meanings here. */
int topk_stream(int x) { return x + 1; }
double normal_quantile(double p) { return 2.0 * p; }
int scored_sort(void) { return 7; }

static int check(smm_status st, const char *what) {
  if (st != SMM_OK) fprintf(stderr, "%s: %s\n", what, smm_status_str(st));
  return st == SMM_OK;
}

int main(void) {
  enum { m = 4, n = 300, k = 24 };
  static float A[m * k], B[k * n], C[m * n], D[n * k], Q[m * k], val[m * 10];
  static int64_t idx[m * 10];
  srand(1);
  for (int i = 0; i < m * k; i++) A[i] = Q[i] = (float)rand() / RAND_MAX - 0.5f;
  for (int i = 0; i < k * n; i++) B[i] = D[i] = (float)rand() / RAND_MAX - 0.5f;

  /* --- the README's example --- */
  if (!check(exact_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, m, n, k, 1.0f, A, k, B, n, 0.0f, C, n),
             "exact_sgemm"))
    return 1;
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      double s = 0;
      for (int p = 0; p < k; p++) s += (double)A[i * k + p] * B[p * n + j];
      if (fabs(s - C[i * n + j]) > 1e-4) {
        fprintf(stderr, "C[%d][%d] = %g, expected %g\n", i, j, C[i * n + j], s);
        return 1;
      }
    }
  approx_options opts = APPROX_OPTIONS_INIT;
  opts.method = SKETCH_SIMHASH_STRUCTURED;
  opts.size = 256;
  if (!check(approx_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, m, n, k, 1.0f, A, k, B, n, 0.0f, C, n,
                          &opts, NULL), "approx_sgemm"))
    return 1;
  approx_plan *plan;
  opts.method = SKETCH_LOWRANK;
  opts.size = 16;
  if (!check(approx_plan_create(SMM_ROW_MAJOR, SMM_TRANS, k, n, D, k, &opts, NULL, &plan), "approx_plan_create"))
    return 1;
  approx_call call = APPROX_CALL_INIT;
  call.candidates = 50;
  smm_status st = approx_plan_topk(plan, SMM_ROW_MAJOR, SMM_NO_TRANS, m, Q, k, 10, idx, val, 10, &call);
  approx_plan_free(plan);
  if (!check(st, "approx_plan_topk")) return 1;
  /* the values are the exact inner products of the indices found, in decreasing order */
  for (int i = 0; i < m; i++)
    for (int t = 0; t < 10; t++) {
      int64_t j = idx[i * 10 + t];
      double s = 0;
      if (j < 0 || j >= n) {
        fprintf(stderr, "idx[%d][%d] = %lld out of range\n", i, t, (long long)j);
        return 1;
      }
      for (int p = 0; p < k; p++) s += (double)Q[i * k + p] * D[j * k + p];
      if (fabs(s - val[i * 10 + t]) > 1e-4 || (t > 0 && val[i * 10 + t] > val[i * 10 + t - 1])) {
        fprintf(stderr, "val[%d][%d] = %g, expected %g in decreasing order\n", i, t, val[i * 10 + t], s);
        return 1;
      }
    }

  if (topk_stream(1) != 2 || normal_quantile(0.25) != 0.5 || scored_sort() != 7) {
    fprintf(stderr, "the program's own functions were not the ones called\n");
    return 1;
  }
  printf("ok %s\n", smm_version());
  return 0;
}
