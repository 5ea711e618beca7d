/* Sweeps: running one script once per cell of a grid, each cell in a fresh session inside its
 * own process, several at once; the parent collects one record per cell. */
#ifndef FEDBN_CLI_SWEEP_H
#define FEDBN_CLI_SWEEP_H

#include <stdbool.h>
#include <stddef.h>

#include "fedbn/experiment.h"
#include "cmd.h"

/* What the pool is asked to do. */
typedef struct fb_sweep_job {
	const fb_grid *grid;   /* the grid */
	const char *script;    /* the commands, with ${NAME} references */
	const char *source;    /* the script's name in messages ("exp.fbn", "do") */
	const char *label;     /* the discrete variable circuit runs classify, or NULL */
	const size_t *cells;   /* the cells to run, in order */
	size_t ncells;         /* how many */
	size_t jobs;           /* processes at once */
	double cell_timeout;   /* seconds a cell may run before it is killed and failed (0: none) */
	/* called in the parent as each cell ends (in any order) */
	void (*done)(void *ctx, size_t cell, const fb_sweep_record *rec);
	void *ctx;             /* passed back to done */
} fb_sweep_job;

/* Run the cells, each in a forked process with a fresh session; stops launching cells at
 * Ctrl-C and kills the ones running (their records are lost; finished ones were passed to
 * done).  A cell running past job->cell_timeout seconds is killed with the processes it
 * started and passed to done as failed.  Returns the number of cells that ended;
 * *interrupted tells whether Ctrl-C cut the sweep short. */
size_t fb_sweep_run(fb_cmd_ctx *ctx, const fb_sweep_job *job, bool *interrupted);

/* Whether this process is a sweep's cell (a cell may not start a sweep). */
bool fb_sweep_in_cell(void);

#endif
