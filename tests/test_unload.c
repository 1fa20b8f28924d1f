/*
 * test_unload.c - the shared library stays loaded for the life of the process.
 *
 * exact_sgemm leaves OpenMP worker threads behind (spinning, with OMP_WAIT_POLICY=active, as many
 * clusters set it). A host that opens the library with dlopen and closes it again (Python's cffi
 * at interpreter exit, a plugin system) would unmap the code those threads run if dlclose could
 * unload it: the library is linked with -z nodelete, so dlclose leaves it (and libgomp) in place.
 *
 *   test_unload PATH_OF_LIBSKETCHMM_SO
 *
 * Opens the library, runs a product on 2 threads, closes it, checks with RTLD_NOLOAD that it is
 * still mapped, then lets the worker threads spin for a while before exiting 0. Exit 1 on a failure.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sketchmm.h"

typedef smm_status (*set_threads_fn)(int);
typedef smm_status (*sgemm_fn)(smm_layout, smm_trans, smm_trans, int64_t, int64_t, int64_t, float,
                               const float *, int64_t, const float *, int64_t, float, float *, int64_t);

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_unload PATH_OF_LIBSKETCHMM_SO\n");
        return 1;
    }
    setenv("OMP_WAIT_POLICY", "active", 1); /* before libgomp is loaded with the library */
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        fprintf(stderr, "dlopen %s: %s\n", argv[1], dlerror());
        return 1;
    }
    set_threads_fn set_threads = (set_threads_fn)(uintptr_t)dlsym(h, "smm_set_num_threads");
    sgemm_fn sgemm = (sgemm_fn)(uintptr_t)dlsym(h, "exact_sgemm");
    if (set_threads == NULL || sgemm == NULL) {
        fprintf(stderr, "dlsym: %s\n", dlerror());
        return 1;
    }
    enum { N = 256 };
    float *a = malloc(sizeof(float) * N * N), *c = malloc(sizeof(float) * N * N);
    if (a == NULL || c == NULL)
        return 1;
    for (int i = 0; i < N * N; i++)
        a[i] = (float)(i % 7) - 3.0f;
    if (set_threads(2) != SMM_OK ||
        sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, N, N, N, 1.0f, a, N, a, N, 0.0f, c, N) != SMM_OK) {
        fprintf(stderr, "exact_sgemm failed\n");
        return 1;
    }
    if (dlclose(h) != 0) {
        fprintf(stderr, "dlclose: %s\n", dlerror());
        return 1;
    }
    void *again = dlopen(argv[1], RTLD_NOW | RTLD_NOLOAD);
    if (again == NULL) {
        fprintf(stderr, "FAIL: dlclose unloaded %s while its OpenMP threads may still run "
                        "(the library must be linked with -z nodelete)\n", argv[1]);
        return 1;
    }
    struct timespec pause = { 0, 200 * 1000 * 1000 }; /* the workers spin on; they must find their code */
    nanosleep(&pause, NULL);
    free(a);
    free(c);
    printf("test_unload: still loaded after dlclose\n");
    return 0;
}
