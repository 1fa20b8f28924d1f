/*
 * sweep_progress.h - progress on stderr (sweep_progress.c).
 */
#ifndef SKETCHMM_SWEEP_PROGRESS_H
#define SKETCHMM_SWEEP_PROGRESS_H

#include <stdint.h>


/*
 * Progress on stderr: configurations done / total, elapsed time and ETA. On
 * a terminal one line redrawn in place; otherwise plain lines.
 */
typedef struct {
    int64_t done, total;
    double start;
    int tty;
    int drawn;       /* a progress line is on screen (tty) */
} sweep_progress;

void sweep_progress_init(sweep_progress *p, int64_t total);
/* A message line (the progress line is cleared first and redrawn after). */
void sweep_progress_note(sweep_progress *p, const char *fmt, ...);
/* One more configuration done; what is a short description of its result. */
void sweep_progress_step(sweep_progress *p, const char *what);
/* Clear the progress line (tty), before other output; the next note or step redraws it. */
void sweep_progress_end(sweep_progress *p);


#endif /* SKETCHMM_SWEEP_PROGRESS_H */
