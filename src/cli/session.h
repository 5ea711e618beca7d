/* What the shell holds between commands. */
#ifndef FEDBN_CLI_SESSION_H
#define FEDBN_CLI_SESSION_H

#include <stdint.h>

#include "fedbn/dataset.h"
#include "fedbn/graph.h"
#include "fedbn/partition.h"

/* The session: the current dataset, its truth and split, and the default seed. */
typedef struct fb_session {
	fb_dataset *data;     /* the current dataset, or NULL (owned) */
	char *data_source;    /* where it came from: a file or the gen command (owned) */
	fb_graph *truth;      /* the true graph over data's variables, or NULL (owned) */
	char *truth_source;   /* where the truth came from (owned) */
	fb_partition *split;  /* the current split of data, or NULL (owned) */
	uint64_t seed;        /* default seed of gen and split when none is given */
} fb_session;

/* An empty session with seed 1. */
void fb_session_init(fb_session *s);
/* Free everything the session holds. */
void fb_session_release(fb_session *s);

/* Make data (taken over) the current dataset, dropping the split.  truth (taken over, may be
 * NULL) replaces the truth; when NULL the old truth is kept only if it has the same
 * variables, and *dropped_truth tells whether it was dropped. */
void fb_session_set_data(fb_session *s, fb_dataset *data, const char *source, fb_graph *truth,
                         const char *truth_source, int *dropped_truth);
/* Replace the truth (taken over). */
void fb_session_set_truth(fb_session *s, fb_graph *truth, const char *source);
/* Replace the split (taken over). */
void fb_session_set_split(fb_session *s, fb_partition *split);

#endif
