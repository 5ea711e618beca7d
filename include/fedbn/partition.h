/* Splitting a dataset across K virtual clients: horizontally (disjoint rows), vertically
 * (disjoint column blocks, all rows) or hybrid (disjoint rows, overlapping columns). */
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
	size_t *rows;     /* data->n global row ids (owned) */
	size_t *cols;     /* data->d global variable ids (owned) */
} fb_client;

/* K clients over one dataset. */
typedef struct fb_partition {
	enum fb_split_kind kind; /* how it was split */
	size_t k;                /* number of clients */
	size_t n, d;             /* the global dataset's shape */
	fb_client *clients;      /* k clients (owned) */
	char *desc;              /* one-line description, e.g. "horizontal 10 sizes=even" (owned) */
} fb_partition;

/* How horizontal client sizes are chosen. */
enum fb_sizes {
	FB_SIZES_EVEN = 0,  /* floor(n/K) or one more, the first n mod K clients the larger */
	FB_SIZES_UNEVEN,    /* FedPC scheme: random sizes, each at least n/(2K) */
	FB_SIZES_DIRICHLET, /* proportions ~ Dirichlet(alpha), each client at least one row */
	FB_SIZES_LIST,      /* explicit counts, or percentages adding to 100 */
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
} fb_split_options;

/* Defaults: even, alpha 1, shuffle yes, seed 1, even columns, overlap 0.5. */
void fb_split_options_init(fb_split_options *opt);

/* Split ds into K clients; NULL with the reason when impossible (K > rows, sizes that do not
 * add up, an empty client, unknown column names). */
fb_partition *fb_split(const fb_dataset *ds, enum fb_split_kind kind, size_t k,
                       const fb_split_options *opt, fb_error *err);
/* Free a partition (NULL is fine). */
void fb_partition_free(fb_partition *p);

#endif
