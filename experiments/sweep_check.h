/*
 * sweep_check.h - the integrity of a results file's rows (sweep_check.c) and
 * `sketchmm_sweep check` (sweep_check_main.c).
 */
#ifndef SKETCHMM_SWEEP_CHECK_H
#define SKETCHMM_SWEEP_CHECK_H

#include "results_h5.h"
#include "sweep_grid.h"


/*
 * Check rows[0..count) of a results file whose spec is cfg
 * (sweep_config_from_spec) and whose attribute grid_size is grid_size. A row
 * is bad when unreadable (may be NULL) marks it (its chunk fails its
 * checksum), when its mode, dataset or method is no known name or its size
 * fields do not fit its method, when its config_index lies outside
 * [0, grid_size), when its config_hash is not the hash of the key
 * (sweep_point_key) of its own configuration fields under cfg (for one of
 * the spec's thread counts the row's resolved count stands for), when grid
 * (may be NULL) holds another configuration at its config_index, or when an
 * earlier row holds the same configuration or config_index. reasons (may be
 * NULL) receives per row NULL when it is sound, else why it is bad (a
 * static string). Returns the number of bad rows (count when out of
 * memory); msg names the first few and why.
 */
int64_t sweep_check_rows(const sweep_config *cfg, int64_t grid_size, const sweep_grid *grid,
                         const results_row *rows, int64_t count, const unsigned char *unreadable,
                         const char **reasons, char *msg, size_t msg_size);

/*
 * A results file checked whole, as resume and merge check it: opened
 * read-only (results_open), its spec attribute read and parsed
 * (sweep_config_from_spec), its grid_size attribute, every row read and
 * checked (sweep_check_rows, without a grid). On SMM_OK the file stays open
 * in *file (results_close) and *spec, *rows (*count of them) and *why (per
 * row NULL or the reason it is bad; *nbad bad rows, msg naming the first
 * few) are malloc'ed for the caller; otherwise (the file cannot be opened,
 * is no results file of this driver, lacks its spec or grid_size, its spec
 * cannot be read) every output is NULL or 0 and msg says why.
 */
smm_status sweep_check_file(const char *path, results_file **file, char **spec, results_row **rows,
                            int64_t *count, const char ***why, int64_t *nbad, char *msg, size_t msg_size);

/*
 * `sketchmm_sweep check [--list] FILE.h5...` (sweep_check_main.c): each file
 * checked by sweep_check_file; one verdict line per file on stdout, the bad
 * rows named on stderr (--list: every bad row on stdout as
 * "FILE<TAB>ROW<TAB>CONFIG_INDEX<TAB>REASON"). argv[0] is the program,
 * argv[1] "check". Exit status 0 when every row of every file is sound, 1
 * when a file has bad rows, 2 when a file cannot be checked at all.
 */
int sweep_check_main(int argc, char **argv);


#endif /* SKETCHMM_SWEEP_CHECK_H */
