/* What the shell holds between commands. */
#ifndef FEDBN_CLI_SESSION_H
#define FEDBN_CLI_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "fedbn/algo.h"
#include "fedbn/dataset.h"
#include "fedbn/export.h"
#include "fedbn/graph.h"
#include "fedbn/param.h"
#include "fedbn/partition.h"

/* What the session keeps about one run besides the run itself. */
typedef struct fb_session_run {
	char *data;   /* where the run's dataset came from, as it started (owned) */
	char *label;  /* the user's name for the run, or NULL (owned) */
	bool dropped; /* left out of compare's table */
	char *classified; /* a circuit run: the variable the newest classify predicted, or NULL
	                     (owned) */
	double accuracy;  /* that classify's accuracy */
	bool fitted;      /* fit fitted the run's DAG: fit_ll holds the newest fit's figures */
	fb_loglik fit_ll[FB_NPARTS]; /* that fit's log-likelihood of each part of the data */
} fb_session_run;

/* One command of the session, for history and session save. */
typedef struct fb_history_entry {
	char *typed;  /* the command as typed (owned) */
	char *saved;  /* the command as session save writes it: seeds and rounds resolved, or
	                 a comment for a command a replay must not repeat (owned) */
	bool failed;  /* it failed (session save leaves it out) */
} fb_history_entry;

/* What the command being run adds to its saved form; the handlers fill it in. */
typedef struct fb_history_pending {
	fb_buf extra;     /* words to add, such as the seed a gen drew from the session seed */
	char *as;         /* a whole replacement of the saved form, or NULL (owned) */
	size_t written;   /* files the session had written when the command started */
} fb_history_pending;

/* A file a sweep or a plot made, which the report shows. */
typedef struct fb_session_product {
	bool figure;  /* a plot's picture (PNG or SVG); else a sweep's summary (Markdown table) */
	char *path;   /* the file (owned) */
	char *from;   /* a summary: the sweep's out= file; a figure: NULL (owned) */
} fb_session_product;

/* A graph loaded to compare with the runs (graph load). */
typedef struct fb_session_graph {
	fb_graph *g;  /* over the variables of the dataset it was loaded for (owned) */
	char *source; /* the file it came from (owned) */
	char *data;   /* where that dataset came from (owned) */
	bool consensus; /* a bootstrap's consensus, its weights the pairs' strengths (report
	                   shows it, export what=consensus draws it); else loaded */
} fb_session_graph;

/* The session: the current dataset, truth and split, the chosen algorithm, and every run. */
typedef struct fb_session {
	fb_dataset *data;     /* the current dataset, or NULL (owned) */
	char *data_source;    /* where it came from: a file or the gen command (owned) */
	fb_graph *truth;      /* the true graph over data's variables, or NULL (owned) */
	char *truth_source;   /* where the truth came from (owned) */
	fb_pag *truth_pag;    /* the true PAG over data's variables when gen hid some of the
	                         truth's (fb_pag_of_dag), or NULL; dropped with the truth
	                         (owned) */
	fb_partition *split;  /* the current split of data, or NULL (owned) */
	fb_export_layout *layout; /* node positions every picture of data shares, made by the
	                             first export; dropped with the data or the truth (owned) */
	uint64_t seed;        /* default seed of gen and split when none is given */
	char *algo;           /* the chosen algorithm ("notears-admm", "voting:notears") (owned) */
	fb_params params;     /* its parameters (valid when algo is set) */
	fb_params runopt;     /* options of every run: threads, share, reuse */
	fb_fit_memo *memo;    /* the combinators' local fits on the current split, for runs
	                         with reuse=yes (owned) */
	fb_run **runs;        /* every run, oldest first (owned) */
	fb_session_run *meta; /* what is kept about each run, in the same order (owned) */
	size_t nruns;         /* how many */
	bool stale;           /* the data, split, truth, algorithm or a parameter changed since
	                         the last run started: the next run/step starts a new run */
	void **retired;       /* replaced datasets, truths and splits that runs still use */
	void (**retired_free)(void *); /* how to free each */
	size_t nretired;      /* how many */
	struct fb_file_mark *files; /* every file the session read or wrote (owned) */
	size_t nfiles;        /* how many */
	size_t nwritten;      /* files written so far (a command that writes one is saved as a
	                         comment: a replay must not replace files) */
	fb_history_entry *hist; /* every command run, oldest first (owned) */
	size_t nhist;         /* how many */
	fb_history_pending *pending; /* the innermost command being run, or NULL */
	fb_session_product *products; /* sweeps' summaries and plots' pictures, in order
	                                 (owned) */
	size_t nproducts;     /* how many */
	fb_session_graph *graphs; /* graphs loaded to compare with the runs, oldest first
	                             (owned) */
	size_t ngraphs;       /* how many */
	struct fb_bnfit *fit; /* the newest fitted network (fit), or NULL (owned) */
	fb_knowledge *knowledge; /* background knowledge over data's variables, or NULL: none
	                            (owned; every run takes it) */
	char knowledge_note[320]; /* what the last change of data dropped of the knowledge,
	                             for the command to say ("" when nothing) */
} fb_session;

/* An empty session with seed 1. */
void fb_session_init(fb_session *s);
/* Free everything the session holds. */
void fb_session_release(fb_session *s);
/* Replace the background knowledge by k (taken over; NULL: none); the next run is new. */
void fb_session_set_knowledge(fb_session *s, fb_knowledge *k);

/* Make data (taken over) the current dataset, dropping the split.  truth (taken over, may be
 * NULL) replaces the truth; when NULL the old truth is kept only if it has the same
 * variables, and *dropped_truth tells whether it was dropped. */
void fb_session_set_data(fb_session *s, fb_dataset *data, const char *source, fb_graph *truth,
                         const char *truth_source, int *dropped_truth);
/* Replace the truth (taken over); the pictures' layout is dropped with the old one.  The runs
 * over the current dataset (but best:, which chose by its own truth) are scored against it
 * from now on; returns how many. */
size_t fb_session_set_truth(fb_session *s, fb_graph *truth, const char *source);
/* Replace the split (taken over). */
void fb_session_set_split(fb_session *s, fb_partition *split);
/* Choose an algorithm; its parameters start at their defaults.  FB_ERR: unknown name. */
int fb_session_set_algo(fb_session *s, const char *name, fb_error *err);
/* Add a run (taken over) as the newest. */
void fb_session_add_run(fb_session *s, fb_run *run);
/* The newest run, or NULL. */
fb_run *fb_session_last_run(const fb_session *s);
/* Remember a file a sweep (figure false: its summary table, from its out= file) or a plot
 * (figure true) wrote, for the report; a file written again moves to the end. */
void fb_session_add_product(fb_session *s, bool figure, const char *path, const char *from);

/* The options every run takes (threads, share, reuse). */
extern const fb_param_def fb_session_run_options[];

#endif
