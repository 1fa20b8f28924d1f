/*
 * sweep_merge.h - `sketchmm_sweep merge` (sweep_merge.c).
 */
#ifndef SKETCHMM_SWEEP_MERGE_H
#define SKETCHMM_SWEEP_MERGE_H



/*
 * `sketchmm_sweep merge [--overwrite] OUT.h5 IN.h5...`: argv[0] is the
 * program, argv[1] "merge". Returns the exit status.
 */
int sweep_merge_main(int argc, char **argv);


#endif /* SKETCHMM_SWEEP_MERGE_H */
