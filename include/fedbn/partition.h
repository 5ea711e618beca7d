/* Splitting a dataset across K virtual clients: horizontally (disjoint rows), vertically
 * (disjoint column blocks, all rows) or hybrid (overlapping rows and overlapping columns). */
#ifndef FEDBN_PARTITION_H
#define FEDBN_PARTITION_H

#include <stddef.h>
#include <stdint.h>

#include "fedbn/core.h"
#include "fedbn/dataset.h"

/* How the data were split. */
enum fb_split_kind {
	FB_SPLIT_HORIZONTAL = 0,
	FB_SPLIT_VERTICAL,
	FB_SPLIT_HYBRID,
};

/* One client: its own copy of its rows and columns, and where they came from. */
typedef struct fb_client {
	fb_dataset *data; /* the client's dataset (owned) */
	size_t *rows;     /* data->n global row ids, ascending; repeated only in a hybrid split
	                     with draw=replace (owned) */
	size_t *cols;     /* data->d global variable ids, ascending (owned) */
	char *label;      /* split by a column: the column's value this client holds, else
	                     NULL (owned) */
} fb_client;

/* K clients over one dataset. */
typedef struct fb_partition {
	enum fb_split_kind kind; /* how it was split */
	size_t k;                /* number of clients */
	size_t n, d;             /* the global dataset's shape */
	fb_client *clients;      /* k clients (owned) */
	char *desc;              /* one-line description, e.g. "horizontal 10 sizes=even" (owned) */
	struct fb_transport *transport; /* the clients live in other processes and this reaches
	                                   them (not owned), or NULL: they are in this process */
} fb_partition;

/* How horizontal client sizes are chosen.
 *
 * UNEVEN (after FedPC's random_partition.m): lo = ceil(n/(2K)).  Clients 1..K-1 in turn draw
 * a size uniformly from the integers [lo, hi-1], hi = floor(left / (clients after this one)),
 * left = rows not yet given (just lo when hi <= lo); the draw is capped so that every later
 * client can still get lo rows and the last one last_min rows; the last client takes the
 * rest.  last_min = 101 (FedPC's margin of 100) when lo <= 100 and n - lo(K-1) >= 101,
 * else lo.  Capping the range gives the same law as FedPC's redraw loop and always ends.
 *
 * DIRICHLET: theta ~ Dirichlet(alpha, ..., alpha); each client gets one row plus its share
 * of the other n-K by largest remainder (ties to the lower client).
 *
 * LIST: "30,30,40".  Counts when every entry is a whole number and they add to n; otherwise
 * percentages when they add to 100 (or when every entry ends with '%'), turned into rows
 * by largest remainder.  Refused when the count of entries is not K, when the sum is neither,
 * or when a client would get no row. */
enum fb_sizes {
	FB_SIZES_EVEN = 0,  /* floor(n/K) or one more, the first n mod K clients the larger */
	FB_SIZES_UNEVEN,    /* FedPC scheme: random sizes, each at least ceil(n/(2K)) */
	FB_SIZES_DIRICHLET, /* proportions ~ Dirichlet(alpha), each client at least one row */
	FB_SIZES_LIST,      /* explicit counts, or percentages adding to 100 */
};

/* How a hybrid split gives out rows.  CUT (the default): the shared rows and the cut blocks,
 * each row once per client.  REPLACE: the federated-circuits reference code's protocol, for
 * reproducing its tables: m = floor(shared n) rows drawn uniformly with replacement are every
 * client's, and each client also draws floor(n/K) rows of its own, uniformly with
 * replacement and independently of the others, so a client may hold a row several times.
 * It concerns the rows only: that code also gives hybrid clients disjoint variables, where
 * overlap= keeps at least one variable shared. */
enum fb_split_draw {
	FB_DRAW_CUT = 0, /* rows without replacement: shared block plus disjoint blocks */
	FB_DRAW_REPLACE, /* rows drawn with replacement, as the reference code draws them */
};

/* Options of a split. */
typedef struct fb_split_options {
	enum fb_sizes sizes;  /* horizontal and hybrid row sizes */
	const char *size_list; /* FB_SIZES_LIST: "30,30,40" */
	double alpha;         /* Dirichlet concentration (1) */
	int shuffle;          /* 1: rows shuffled before cutting; 0: contiguous blocks */
	uint64_t seed;        /* stream "split" derives from it */
	const char *cols;     /* vertical: "a,b;c,d;..." column blocks; NULL = even blocks */
	double overlap;       /* hybrid: share of variables each client holds beyond its own */
	double shared;        /* hybrid: share of rows every client holds, in [0, 1) */
	enum fb_split_draw draw; /* hybrid: rows cut (default) or drawn with replacement */
	const char *order;    /* horizontal: the column whose values order the rows (stably)
	                         before they are cut into contiguous blocks, or NULL */
	int shuffle_cols;     /* vertical, hybrid: 1: the variables in a random order before
	                         the even column blocks are cut; 0: in file order */
	bool view;            /* a client whose rows are a contiguous run of the dataset's,
	                         with all its columns (horizontal with shuffle off, or one
	                         client), reads them in place (fb_dataset_rows_view) instead of
	                         holding a copy: the dataset must then outlive the partition
	                         and stay unchanged; false (the default): copies */
} fb_split_options;

/* The default share of rows every client of a hybrid split holds.  The federated-circuits
 * paper's hybrid splits overlap in rows as well as in variables, though not fully (its
 * section 4, Q1); it gives no share, and its authors' code draws 0.3 n rows for every
 * client (with replacement: draw=replace). */
#define FB_SPLIT_SHARED 0.3

/* Defaults: even, alpha 1, shuffle yes, seed 1, even columns, overlap 0.5, shared 0.3,
 * draw cut, copies (no views). */
void fb_split_options_init(fb_split_options *opt);

/* Split ds into K clients; NULL with the reason when impossible (K < 1, K > rows for
 * horizontal and hybrid, K > variables for vertical, sizes that do not add up, an empty
 * client, unknown, repeated or missing column names).  opt NULL means the defaults.
 * The caller frees the result with fb_partition_free.
 *
 * Randomness comes from one stream "split" of opt->seed, drawn in this order: the sizes
 * (uneven, dirichlet), the row shuffle (when shuffle is on) or, with draw=replace, the
 * shared rows' draws and then each client's in turn, the hybrid columns; and with
 * shuffle_cols, the order of the variables from a stream "split-columns" of opt->seed.
 *
 * With order (horizontal, shuffle off): the rows are sorted stably by the values of that
 * column (a discrete column by level code) before the blocks are cut, so each client holds
 * a range of its values: a label shift when it is the class.
 *
 * Horizontal: rows (shuffled, or in order) are cut into consecutive blocks of the sizes;
 * every client has every column.
 * Vertical: every client has every row; client c holds block c of the columns: by default
 * even contiguous blocks (the first d mod K blocks one wider), else the blocks of opt->cols,
 * "a,b;c,d;e", which must name every variable exactly once.  Spaces around names are ignored.
 * Hybrid: rows (shuffled, or in order): the first m = floor(shared n) go to every client, the
 * other n - m are cut as horizontal (the sizes, a list's counts included, are of those n - m
 * rows; each client has at least one row of its own, so K > n - m is refused).  With
 * draw=replace (FB_DRAW_REPLACE above) client c holds m + floor(n/K) rows instead, its row
 * ids ascending with repeats; it is refused on horizontal and vertical splits, with sizes
 * other than even and with shuffle off.  Columns: variable j is owned by the client whose
 * even block holds it (with K > d the first d clients own one each); every client also holds each
 * variable it does not own with probability overlap (one uniform draw per client c, then per
 * variable j, skipping owned ones); a client holding fewer than min(2, d) variables then gets
 * more, uniformly among those it lacks; finally, if K >= 2 and no variable is held by two
 * clients, one uniformly chosen variable is also given to a uniformly chosen other client.
 *
 * desc reads like the shell command: "horizontal 10 sizes=even shuffle=yes seed=1",
 * "vertical 3 cols=\"a,b;c\"", "hybrid 4 sizes=dirichlet alpha=0.5 overlap=0.5 shared=0.3
 * shuffle=yes seed=2", "horizontal 3 sizes=30,30,40 shuffle=no seed=1",
 * "hybrid 2 draw=replace overlap=0 shared=0.3 seed=1". */
fb_partition *fb_split(const fb_dataset *ds, enum fb_split_kind kind, size_t k,
                       const fb_split_options *opt, fb_error *err);
/* Split ds by its column named column: each distinct value becomes one client holding the
 * rows with that value, and the column is removed.  *rest gets ds without the column (the
 * caller frees it); the partition is over *rest (n, d, clients' cols are *rest's).  Clients
 * are ordered by value: by level label (strcmp) for a discrete column, numerically for a
 * continuous one; each client's label is its value and each holds its rows in file order.
 * Refused: an unknown column, one with a single distinct value, a continuous one with more
 * than 1000 distinct values, or a dataset with no other variable.  desc is
 * "horizontal by=COLUMN". */
fb_partition *fb_split_by(const fb_dataset *ds, const char *column, fb_dataset **rest,
                          fb_error *err);
/* Free a partition (NULL is fine). */
void fb_partition_free(fb_partition *p);
/* A copy of p in which each client keeps only its training rows (those of part
 * FB_PART_TRAIN; its rows[] stays the global ids of those), for learners, which must not
 * see held-out rows; NULL on out of memory.  Caller frees with fb_partition_free. */
fb_partition *fb_partition_train(const fb_partition *p);

#endif
