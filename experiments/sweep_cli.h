/*
 * sweep_cli.h - the command line of sketchmm_sweep (sweep_cli.c).
 */
#ifndef SKETCHMM_SWEEP_CLI_H
#define SKETCHMM_SWEEP_CLI_H

#include "sweep_config.h"

/*
 * Fill *cfg from the command line (and the spec file it names). Returns -1
 * to go on, else the exit status (0 after --help, SWEEP_EXIT_USAGE after
 * printing an error on stderr).
 */
int sweep_parse_args(int argc, char **argv, sweep_config *cfg);

#endif /* SKETCHMM_SWEEP_CLI_H */
