/* Splitting a dataset across K virtual clients (ALGORITHMS.md §1.7): horizontal, vertical
 * and hybrid partitions, each client holding its own copy of its rows and columns. */
#include "config.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "fedbn/partition.h"

/* Margin of the FedPC scheme: the last client keeps more than this many rows when n allows. */
#define UNEVEN_MARGIN 100
/* Most distinct values a continuous column may have to be split by. */
#define BY_MAX_VALUES 1000

/* calloc of count (at least one) elements of size bytes; NULL when memory runs out: the split's
 * arrays grow with the data, so a split too large for the machine is refused, not fatal. */
static void *part_calloc(size_t count, size_t size)
{
	return calloc(count > 0 ? count : 1, size);
}

/* Record that splitting n rows over k clients ran out of memory; FB_ERR. */
static int part_oom(size_t n, size_t k, fb_error *err)
{
	return fb_fail(err, "cannot split %zu rows over %zu clients: out of memory", n, k);
}

/* Defaults: even, alpha 1, shuffle yes, seed 1, even columns, overlap 0.5, shared 0.3,
 * draw cut. */
void fb_split_options_init(fb_split_options *opt)
{
	memset(opt, 0, sizeof *opt);
	opt->sizes = FB_SIZES_EVEN;
	opt->size_list = NULL;
	opt->alpha = 1.0;
	opt->shuffle = 1;
	opt->seed = 1;
	opt->cols = NULL;
	opt->overlap = 0.5;
	opt->shared = FB_SPLIT_SHARED;
	opt->draw = FB_DRAW_CUT;
}

/* Free a partition and its clients. */
void fb_partition_free(fb_partition *p)
{
	if (p == NULL)
		return;
	for (size_t c = 0; c < p->k && p->clients != NULL; c++) {
		fb_dataset_free(p->clients[c].data);
		free(p->clients[c].rows);
		free(p->clients[c].cols);
		free(p->clients[c].label);
	}
	free(p->clients);
	free(p->desc);
	free(p);
}

/* Number of tokens tokens_split would find in s. */
static size_t tokens_count(const char *s, char sep)
{
	size_t count = 1;

	for (; *s != '\0'; s++)
		count += *s == sep;
	return count;
}

/* Cut s in place at each sep into tokens with spaces trimmed; returns the count and stores
 * up to max token starts in tok. */
static size_t tokens_split(char *s, char sep, char **tok, size_t max)
{
	size_t count = 0;

	for (;;) {
		char *end = strchr(s, sep), *last;

		if (end != NULL)
			*end = '\0';
		while (isspace((unsigned char)*s))
			s++;
		last = s + strlen(s);
		while (last > s && isspace((unsigned char)last[-1]))
			*--last = '\0';
		if (count < max)
			tok[count] = s;
		count++;
		if (end == NULL)
			return count;
		s = end + 1;
	}
}

/* Sizes adding to total in proportion to share[0..k-1] (non-negative, positive sum): floors
 * first, then one more to the largest remainders, ties to the lower index. */
static void sizes_largest_remainder(const double *share, size_t k, size_t total, size_t *out)
{
	double sum = 0.0, *frac = fb_xcalloc(k, sizeof *frac);
	size_t given = 0;

	for (size_t c = 0; c < k; c++)
		sum += share[c];
	for (size_t c = 0; c < k; c++) {
		double q = (double)total * (share[c] / sum);

		out[c] = (size_t)floor(q);
		frac[c] = q - floor(q);
		if (out[c] > total - given) /* rounding can never hand out more than total */
			out[c] = total - given;
		given += out[c];
	}
	while (given < total) {
		size_t best = 0;

		for (size_t c = 1; c < k; c++) {
			if (frac[c] > frac[best])
				best = c;
		}
		out[best]++;
		frac[best] = -1.0;
		given++;
	}
	free(frac);
}

/* Even sizes: floor(n/K), the first n mod K clients one more. */
static void sizes_even(size_t n, size_t k, size_t *out)
{
	for (size_t c = 0; c < k; c++)
		out[c] = n / k + (c < n % k ? 1 : 0);
}

/* FedPC uneven sizes (see partition.h): clients 1..K-1 draw uniformly below the rows left
 * over the clients after them, keeping room for those; the last client takes the rest. */
static void sizes_uneven(size_t n, size_t k, gsl_rng *r, size_t *out)
{
	size_t lo = (n + 2 * k - 1) / (2 * k), last_min = lo, left = n;

	if (n - lo * (k - 1) > UNEVEN_MARGIN && lo <= UNEVEN_MARGIN)
		last_min = UNEVEN_MARGIN + 1;
	for (size_t c = 0; c + 1 < k; c++) {
		size_t hi = left / (k - 1 - c);                   /* FedPC draws below */
		size_t room = left - lo * (k - 2 - c) - last_min; /* most leaving enough */
		size_t top = hi > lo ? hi - 1 : lo;

		if (top > room)
			top = room;
		out[c] = lo + fb_rng_index(r, top - lo + 1);
		left -= out[c];
	}
	out[k - 1] = left;
}

/* Dirichlet sizes: one row each, the other n-K by largest remainder of the proportions. */
static int sizes_dirichlet(size_t n, size_t k, double alpha, gsl_rng *r, size_t *out,
                           fb_error *err)
{
	double *a = fb_xcalloc(k, sizeof *a), *theta = fb_xcalloc(k, sizeof *theta), sum = 0.0;

	for (size_t c = 0; c < k; c++)
		a[c] = alpha;
	gsl_ran_dirichlet(r, k, a, theta);
	for (size_t c = 0; c < k; c++)
		sum += theta[c];
	free(a);
	if (!(sum > 0.0) || !isfinite(sum)) {
		free(theta);
		return fb_fail(err, "cannot draw Dirichlet proportions with alpha=%g: "
		               "alpha is too small", alpha);
	}
	sizes_largest_remainder(theta, k, n - k, out);
	for (size_t c = 0; c < k; c++)
		out[c]++;
	free(theta);
	return FB_OK;
}

/* Parse the k entries of list into val; *pct set when they carry a '%' sign. */
static int sizes_list_parse(const char *list, size_t k, double *val, int *pct, fb_error *err)
{
	char *copy = fb_xstrdup(list), **tok = fb_xcalloc(k, sizeof *tok);
	size_t count = tokens_split(copy, ',', tok, k), npct = 0;
	int rc = FB_OK;

	if (count != k)
		rc = fb_fail(err, "cannot use sizes '%s' for %zu clients: it lists %zu sizes",
		             list, k, count);
	for (size_t c = 0; c < k && rc == FB_OK; c++) {
		size_t len = strlen(tok[c]);

		if (len > 0 && tok[c][len - 1] == '%') {
			tok[c][len - 1] = '\0';
			npct++;
		}
		if (fb_parse_double(tok[c], &val[c]) != FB_OK || val[c] < 0.0)
			rc = fb_fail(err, "cannot use sizes '%s': size %zu is not a non-negative "
			             "number", list, c + 1);
	}
	if (rc == FB_OK && npct != 0 && npct != k)
		rc = fb_fail(err, "cannot use sizes '%s': either every size or none ends "
		             "with '%%'", list);
	*pct = npct != 0;
	free(tok);
	free(copy);
	return rc;
}

/* Explicit sizes: counts adding to n, or percentages adding to 100. */
static int sizes_list(const char *list, size_t n, size_t k, size_t *out, fb_error *err)
{
	double *val = fb_xcalloc(k, sizeof *val), sum = 0.0;
	int pct = 0, counts = 1, rc = FB_OK;

	if (list == NULL)
		list = "";
	if (sizes_list_parse(list, k, val, &pct, err) != FB_OK) {
		free(val);
		return FB_ERR;
	}
	for (size_t c = 0; c < k; c++) {
		sum += val[c];
		counts = counts && val[c] == floor(val[c]);
	}
	if (!pct && counts && sum == (double)n) {
		for (size_t c = 0; c < k; c++)
			out[c] = (size_t)val[c];
	} else if (fabs(sum - 100.0) <= 1e-6) {
		sizes_largest_remainder(val, k, n, out);
	} else {
		rc = fb_fail(err, pct ? "cannot use sizes '%s': the percentages add to %g, "
		             "not 100" : "cannot use sizes '%s': they add to %g, neither n=%zu "
		             "rows nor 100 percent", list, sum, n);
	}
	for (size_t c = 0; c < k && rc == FB_OK; c++) {
		if (out[c] == 0)
			rc = fb_fail(err, "cannot split %zu rows by sizes '%s': client %zu would "
			             "get no rows", n, list, c + 1);
	}
	free(val);
	return rc;
}

/* Row counts of the k clients by the chosen scheme, drawing from r when it needs to. */
static int sizes_compute(const fb_split_options *opt, size_t n, size_t k, gsl_rng *r,
                         size_t *out, fb_error *err)
{
	switch (opt->sizes) {
	case FB_SIZES_EVEN:
		sizes_even(n, k, out);
		return FB_OK;
	case FB_SIZES_UNEVEN:
		sizes_uneven(n, k, r, out);
		return FB_OK;
	case FB_SIZES_DIRICHLET:
		return sizes_dirichlet(n, k, opt->alpha, r, out, err);
	case FB_SIZES_LIST:
		return sizes_list(opt->size_list, n, k, out, err);
	}
	return fb_fail(err, "unknown size scheme %d", (int)opt->sizes);
}

/* Ascending comparison of two size_t values, for qsort. */
static int index_cmp(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return (x > y) - (x < y);
}

/* Rows every client of a hybrid split holds: floor(shared n). */
static size_t shared_rows(enum fb_split_kind kind, size_t n, const fb_split_options *opt)
{
	return kind == FB_SPLIT_HYBRID ? (size_t)floor(opt->shared * (double)n) : 0;
}

/* A row and its value of the ordering column. */
typedef struct order_row {
	double v;  /* the value */
	size_t i;  /* the row id */
} order_row;

/* Rows by value, ties by row id (a stable order). */
static int rows_order_cmp(const void *a, const void *b)
{
	const order_row *x = a, *y = b;

	if (x->v != y->v)
		return x->v < y->v ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* Sort the row ids perm (0..n-1) stably by column j of ds; FB_ERR when memory runs out. */
static int rows_order(const fb_dataset *ds, size_t j, size_t *perm)
{
	order_row *o = part_calloc(ds->n, sizeof *o);

	if (o == NULL)
		return FB_ERR;
	for (size_t i = 0; i < ds->n; i++)
		o[i] = (order_row){ ds->x[i * ds->d + j], i };
	qsort(o, ds->n, sizeof *o, rows_order_cmp);
	for (size_t i = 0; i < ds->n; i++)
		perm[i] = o[i].i;
	free(o);
	return FB_OK;
}

/* Order the rows (shuffled from r, sorted by column order of ds when order < d, or in file
 * order); the first m go to every client, the others are cut into consecutive blocks of the
 * given sizes; rows[c] gets client c's m + sizes[c] global row ids in ascending order.
 * FB_ERR when memory runs out (rows[] so far kept). */
static int rows_assign(const fb_dataset *ds, size_t m, size_t k, const size_t *sizes,
                       int shuffle, size_t order, gsl_rng *r, size_t **rows)
{
	size_t n = ds->n, *perm = part_calloc(n, sizeof *perm), at = m;

	if (perm == NULL)
		return FB_ERR;
	for (size_t i = 0; i < n; i++)
		perm[i] = i;
	if (shuffle)
		fb_rng_shuffle(r, perm, n);
	else if (order < ds->d && rows_order(ds, order, perm) != FB_OK) {
		free(perm);
		return FB_ERR;
	}
	for (size_t c = 0; c < k; c++) {
		if ((rows[c] = part_calloc(m + sizes[c], sizeof **rows)) == NULL) {
			free(perm);
			return FB_ERR;
		}
		memcpy(rows[c], perm, m * sizeof **rows);
		memcpy(rows[c] + m, perm + at, sizes[c] * sizeof **rows);
		qsort(rows[c], m + sizes[c], sizeof **rows, index_cmp);
		at += sizes[c];
	}
	free(perm);
	return FB_OK;
}

/* Draw=replace rows (partition.h): m draws uniform over the n rows, every client's, then
 * own draws for each client in turn; rows[c] gets client c's m + own ids ascending.  FB_ERR
 * when memory runs out. */
static int rows_draw(size_t n, size_t m, size_t k, size_t own, gsl_rng *r, size_t **rows)
{
	size_t *common = part_calloc(m, sizeof *common);

	if (common == NULL)
		return FB_ERR;
	for (size_t i = 0; i < m; i++)
		common[i] = fb_rng_index(r, n);
	for (size_t c = 0; c < k; c++) {
		if ((rows[c] = part_calloc(m + own, sizeof **rows)) == NULL) {
			free(common);
			return FB_ERR;
		}
		memcpy(rows[c], common, m * sizeof **rows);
		for (size_t i = 0; i < own; i++)
			rows[c][m + i] = fb_rng_index(r, n);
		qsort(rows[c], m + own, sizeof **rows, index_cmp);
	}
	free(common);
	return FB_OK;
}

/* Even contiguous column blocks: owner[j] = the client whose block holds variable j. */
static void cols_even_owner(size_t d, size_t k, size_t *owner)
{
	size_t j = 0;

	for (size_t c = 0; c < k; c++) {
		size_t len = d / k + (c < d % k ? 1 : 0);

		for (size_t e = 0; e < len; e++)
			owner[j++] = c;
	}
}

/* Check that every variable of ds has an owner, naming the first one missing. */
static int cols_check_covered(const fb_dataset *ds, const size_t *owner, size_t k,
                              fb_error *err)
{
	for (size_t j = 0; j < ds->d; j++) {
		if (owner[j] >= k)
			return fb_fail(err, "cannot use column blocks: variable '%s' is in no "
			               "block", ds->vars[j].name);
	}
	return FB_OK;
}

/* Parse "a,b;c,d;..." into owner[j] (k when unowned); every variable exactly once. */
static int cols_parse_owner(const fb_dataset *ds, const char *spec, size_t k, size_t *owner,
                            fb_error *err)
{
	char *copy = fb_xstrdup(spec), **block = fb_xcalloc(k, sizeof *block);
	size_t nblocks = tokens_split(copy, ';', block, k);
	int rc = FB_OK;

	for (size_t j = 0; j < ds->d; j++)
		owner[j] = k;
	if (nblocks != k)
		rc = fb_fail(err, "cannot use column blocks '%s': they are %zu blocks for %zu "
		             "clients", spec, nblocks, k);
	for (size_t c = 0; c < k && rc == FB_OK; c++) {
		size_t nnames;
		char **name;

		if (block[c][0] == '\0') {
			rc = fb_fail(err, "cannot use column blocks '%s': block %zu is empty",
			             spec, c + 1);
			break;
		}
		nnames = tokens_count(block[c], ',');
		name = fb_xcalloc(nnames, sizeof *name);
		tokens_split(block[c], ',', name, nnames);
		for (size_t e = 0; e < nnames && rc == FB_OK; e++) {
			int j = fb_dataset_find(ds, name[e]);

			if (name[e][0] == '\0')
				rc = fb_fail(err, "cannot use column blocks '%s': block %zu has an "
				             "empty name", spec, c + 1);
			else if (j < 0)
				rc = fb_fail(err, "cannot use column blocks: unknown variable '%s'",
				             name[e]);
			else if (owner[j] != k)
				rc = fb_fail(err, "cannot use column blocks: variable '%s' appears "
				             "twice", name[e]);
			else
				owner[j] = c;
		}
		free(name);
	}
	if (rc == FB_OK)
		rc = cols_check_covered(ds, owner, k, err);
	free(block);
	free(copy);
	return rc;
}

/* Number of variables client c holds in the k x d table held. */
static size_t held_count(const unsigned char *held, size_t d, size_t c)
{
	size_t count = 0;

	for (size_t j = 0; j < d; j++)
		count += held[c * d + j];
	return count;
}

/* Give client c one variable it does not hold yet, chosen uniformly from r. */
static void held_add_random(unsigned char *held, size_t d, size_t c, gsl_rng *r)
{
	size_t pick = fb_rng_index(r, d - held_count(held, d, c));

	for (size_t j = 0; j < d; j++) {
		if (held[c * d + j])
			continue;
		if (pick-- == 0) {
			held[c * d + j] = 1;
			return;
		}
	}
}

/* True when some variable is held by two clients or more. */
static int held_shared(const unsigned char *held, size_t d, size_t k)
{
	for (size_t j = 0; j < d; j++) {
		size_t holders = 0;

		for (size_t c = 0; c < k; c++)
			holders += held[c * d + j];
		if (holders >= 2)
			return 1;
	}
	return 0;
}

/* Even column blocks of the variables in file order, or (shuffle_cols) in a random order
 * from the stream "split-columns" of the seed: owner[j] = the client holding variable j. */
static void cols_owner(size_t d, size_t k, const fb_split_options *opt, size_t *owner)
{
	size_t *perm, *even;
	gsl_rng *r;

	if (!opt->shuffle_cols) {
		cols_even_owner(d, k, owner);
		return;
	}
	perm = fb_xcalloc(d, sizeof *perm);
	even = fb_xcalloc(d, sizeof *even);
	r = fb_rng_stream(opt->seed, "split-columns");
	for (size_t j = 0; j < d; j++)
		perm[j] = j;
	fb_rng_shuffle(r, perm, d);
	cols_even_owner(d, k, even);
	for (size_t j = 0; j < d; j++)
		owner[perm[j]] = even[j];
	gsl_rng_free(r);
	free(even);
	free(perm);
}

/* Hybrid columns (rule in partition.h): owners, random extras, then the guarantees. */
static void cols_hybrid(size_t d, size_t k, const fb_split_options *opt, gsl_rng *r,
                        unsigned char *held)
{
	size_t *owner = fb_xcalloc(d, sizeof *owner), want = d < 2 ? d : 2;
	double overlap = opt->overlap;

	cols_owner(d, k, opt, owner);
	for (size_t c = 0; c < k; c++) {
		for (size_t j = 0; j < d; j++)
			held[c * d + j] = owner[j] == c || gsl_rng_uniform(r) < overlap;
	}
	for (size_t c = 0; c < k; c++) {
		while (held_count(held, d, c) < want)
			held_add_random(held, d, c, r);
	}
	if (k >= 2 && !held_shared(held, d, k)) {
		size_t j = fb_rng_index(r, d), c = fb_rng_index(r, k - 1);

		if (c >= owner[j]) /* any client but the owner */
			c++;
		held[c * d + j] = 1;
	}
	free(owner);
}

/* Client c's columns from the k x d table held, ascending; NULL when memory runs out. */
static size_t *cols_from_held(const unsigned char *held, size_t d, size_t c, size_t *ncols)
{
	size_t *cols = part_calloc(d, sizeof *cols), count = 0;

	*ncols = 0;
	if (cols == NULL)
		return NULL;
	for (size_t j = 0; j < d; j++) {
		if (held[c * d + j])
			cols[count++] = j;
	}
	*ncols = count;
	return cols;
}

/* Refuse draw=replace where it makes no sense: on splits whose clients share no rows, with
 * sizes it does not use, and without randomness. */
static int draw_check(enum fb_split_kind kind, const fb_split_options *opt, fb_error *err)
{
	static const char *const kinds[] = { "horizontal", "vertical", "hybrid" };
	static const char *const schemes[] = { "even", "uneven", "dirichlet", NULL };

	if (opt->draw != FB_DRAW_CUT && opt->draw != FB_DRAW_REPLACE)
		return fb_fail(err, "unknown row draw %d", (int)opt->draw);
	if (opt->draw == FB_DRAW_CUT)
		return FB_OK;
	if (kind != FB_SPLIT_HYBRID)
		return fb_fail(err, "cannot use draw=replace on a %s split: only a hybrid split's "
		               "clients share rows, so only its rows can be drawn with replacement",
		               kinds[kind]);
	if (opt->sizes != FB_SIZES_EVEN)
		return fb_fail(err, "cannot use sizes=%s with draw=replace: each client draws "
		               "floor(n/K) rows of its own, as the reference code does",
		               opt->sizes != FB_SIZES_LIST ? schemes[opt->sizes]
		               : opt->size_list != NULL ? opt->size_list : "");
	if (!opt->shuffle)
		return fb_fail(err, "cannot use shuffle=no with draw=replace: the rows are drawn "
		               "at random, never taken in file order");
	return FB_OK;
}

/* Refuse an ordering column or a column shuffle the split cannot use. */
static int order_check(const fb_dataset *ds, enum fb_split_kind kind,
                       const fb_split_options *opt, fb_error *err)
{
	if (opt->shuffle_cols && kind == FB_SPLIT_HORIZONTAL)
		return fb_fail(err, "cannot use random_cols=yes with a horizontal split: every "
		               "client holds every variable");
	if (opt->shuffle_cols && opt->cols != NULL)
		return fb_fail(err, "cannot use random_cols=yes with cols=: the blocks given "
		               "already say which client holds which variable");
	if (opt->order == NULL)
		return FB_OK;
	if (kind != FB_SPLIT_HORIZONTAL)
		return fb_fail(err, "cannot use order=%s with a %s split: it orders the rows "
		               "of a horizontal one", opt->order,
		               kind == FB_SPLIT_VERTICAL ? "vertical" : "hybrid");
	if (opt->shuffle)
		return fb_fail(err, "cannot use order=%s with shuffle=yes: the rows are cut in "
		               "the column's order, so give shuffle=no", opt->order);
	for (size_t j = 0; j < ds->d; j++)
		if (strcmp(ds->vars[j].name, opt->order) == 0)
			return FB_OK;
	return fb_fail(err, "cannot order the rows by '%s': there is no such variable",
	               opt->order);
}

/* Refuse a split that cannot give every client something. */
static int split_check(const fb_dataset *ds, enum fb_split_kind kind, size_t k,
                       const fb_split_options *opt, fb_error *err)
{
	if (kind != FB_SPLIT_HORIZONTAL && kind != FB_SPLIT_VERTICAL && kind != FB_SPLIT_HYBRID)
		return fb_fail(err, "unknown split kind %d", (int)kind);
	if (k < 1)
		return fb_fail(err, "cannot split over 0 clients: at least one is needed");
	if (ds->n < 1 || ds->d < 1)
		return fb_fail(err, "cannot split a dataset of %zu rows and %zu variables: "
		               "it is empty", ds->n, ds->d);
	if (kind == FB_SPLIT_VERTICAL && k > ds->d)
		return fb_fail(err, "cannot split %zu variables over %zu clients: each client "
		               "needs at least one variable", ds->d, k);
	if (kind != FB_SPLIT_VERTICAL && k > ds->n)
		return fb_fail(err, "cannot split %zu rows over %zu clients: each client "
		               "needs at least one row", ds->n, k);
	if (kind != FB_SPLIT_VERTICAL && opt->sizes == FB_SIZES_DIRICHLET &&
	    (!isfinite(opt->alpha) || opt->alpha <= 0.0))
		return fb_fail(err, "cannot use alpha=%g: the Dirichlet concentration must be "
		               "positive", opt->alpha);
	if (kind == FB_SPLIT_HYBRID && !(opt->overlap >= 0.0 && opt->overlap <= 1.0))
		return fb_fail(err, "cannot use overlap=%g: it must lie in [0, 1]", opt->overlap);
	if (kind == FB_SPLIT_HYBRID && !(opt->shared >= 0.0 && opt->shared < 1.0))
		return fb_fail(err, "cannot use shared=%g: the share of rows every client holds "
		               "must lie in [0, 1), so that each also has rows of its own",
		               opt->shared);
	if (kind == FB_SPLIT_HYBRID && opt->draw == FB_DRAW_CUT &&
	    k > ds->n - shared_rows(kind, ds->n, opt))
		return fb_fail(err, "cannot split %zu rows over %zu clients with shared=%g: "
		               "%zu rows are every client's, leaving %zu, fewer than one of its "
		               "own per client", ds->n, k, opt->shared,
		               shared_rows(kind, ds->n, opt), ds->n - shared_rows(kind, ds->n, opt));
	if (order_check(ds, kind, opt, err) != FB_OK)
		return FB_ERR;
	return draw_check(kind, opt, err);
}

/* The "sizes=..." part of a description. */
static void desc_sizes(fb_buf *b, const fb_split_options *opt)
{
	switch (opt->sizes) {
	case FB_SIZES_EVEN:
		fb_buf_printf(b, " sizes=even");
		break;
	case FB_SIZES_UNEVEN:
		fb_buf_printf(b, " sizes=uneven");
		break;
	case FB_SIZES_DIRICHLET:
		fb_buf_printf(b, " sizes=dirichlet alpha=%g", opt->alpha);
		break;
	case FB_SIZES_LIST:
		fb_buf_printf(b, " sizes=%s", opt->size_list);
		break;
	}
}

/* One line describing the split in the shell's syntax. */
static char *desc_build(enum fb_split_kind kind, size_t k, const fb_split_options *opt)
{
	static const char *const kinds[] = { "horizontal", "vertical", "hybrid" };
	fb_buf b = { NULL, 0, 0 };

	fb_buf_printf(&b, "%s %zu", kinds[kind], k);
	if (opt->shuffle_cols)
		fb_buf_printf(&b, " random_cols=yes");
	if (kind == FB_SPLIT_VERTICAL) {
		if (opt->cols != NULL)
			fb_buf_printf(&b, " cols=\"%s\"", opt->cols);
		if (opt->shuffle_cols)
			fb_buf_printf(&b, " seed=%llu", (unsigned long long)opt->seed);
		return b.data;
	}
	if (opt->draw == FB_DRAW_REPLACE) { /* no sizes nor shuffle: refused with it */
		fb_buf_printf(&b, " draw=replace overlap=%g shared=%g seed=%llu", opt->overlap,
		              opt->shared, (unsigned long long)opt->seed);
		return b.data;
	}
	desc_sizes(&b, opt);
	if (kind == FB_SPLIT_HYBRID)
		fb_buf_printf(&b, " overlap=%g shared=%g", opt->overlap, opt->shared);
	fb_buf_printf(&b, " shuffle=%s", opt->shuffle ? "yes" : "no");
	if (opt->order != NULL)
		fb_buf_printf(&b, " order=%s", opt->order);
	fb_buf_printf(&b, " seed=%llu", (unsigned long long)opt->seed);
	return b.data;
}

/* Whether nrows rows and ncols columns are a contiguous run of ds's rows with all its
 * columns in order, which a view can read in place. */
static bool rows_contiguous(const fb_dataset *ds, const size_t *rows, size_t nrows,
                            const size_t *cols, size_t ncols)
{
	if (ncols != ds->d)
		return false;
	for (size_t j = 0; j < ncols; j++)
		if (cols[j] != j)
			return false;
	for (size_t i = 1; i < nrows; i++)
		if (rows[i] != rows[0] + i)
			return false;
	return true;
}

/* Give client c of p the given rows and columns (taking ownership of both arrays, either of
 * which may be NULL when memory ran out): a view of ds's rows when view allows it and they
 * are contiguous with all columns, else a copy. */
static int client_fill(fb_partition *p, const fb_dataset *ds, size_t c, size_t *rows,
                       size_t nrows, size_t *cols, size_t ncols, bool view, fb_error *err)
{
	fb_client *cl = &p->clients[c];

	cl->rows = rows;
	cl->cols = cols;
	if (rows == NULL || cols == NULL)
		return part_oom(ds->n, p->k, err);
	if (view && nrows > 0 && rows_contiguous(ds, rows, nrows, cols, ncols))
		cl->data = fb_dataset_rows_view(ds, rows[0], nrows);
	else
		cl->data = fb_dataset_subset(ds, rows, nrows, cols, ncols);
	if (cl->data == NULL)
		return fb_fail(err, "cannot copy %zu x %zu values for client %zu: out of memory",
		               nrows, ncols, c + 1);
	return FB_OK;
}

/* The ids 0..count-1; NULL when memory runs out. */
static size_t *ids_all(size_t count)
{
	size_t *ids = part_calloc(count, sizeof *ids);

	if (ids == NULL)
		return NULL;
	for (size_t i = 0; i < count; i++)
		ids[i] = i;
	return ids;
}

/* Vertical: every client has all rows and one block of columns. */
static int split_vertical(fb_partition *p, const fb_dataset *ds, const fb_split_options *opt,
                          fb_error *err)
{
	size_t d = ds->d, k = p->k, *owner = part_calloc(d, sizeof *owner);
	unsigned char *held = part_calloc(k * d, 1);
	int rc = FB_OK;

	if (owner == NULL || held == NULL)
		rc = part_oom(ds->n, k, err);
	else if (opt->cols == NULL)
		cols_owner(d, k, opt, owner);
	else
		rc = cols_parse_owner(ds, opt->cols, k, owner, err);
	for (size_t j = 0; j < d && rc == FB_OK; j++)
		held[owner[j] * d + j] = 1;
	for (size_t c = 0; c < k && rc == FB_OK; c++) {
		size_t ncols, *cols = cols_from_held(held, d, c, &ncols);

		rc = client_fill(p, ds, c, ids_all(ds->n), ds->n, cols, ncols, opt->view, err);
	}
	free(held);
	free(owner);
	return rc;
}

/* The index of the column opt->order names in ds (split_check found it), or d: none. */
static size_t split_order_column(const fb_dataset *ds, const fb_split_options *opt)
{
	for (size_t j = 0; opt->order != NULL && j < ds->d; j++)
		if (strcmp(ds->vars[j].name, opt->order) == 0)
			return j;
	return ds->d;
}

/* Horizontal and hybrid: disjoint rows by the size scheme (hybrid: beside the shared rows
 * every client holds), or hybrid rows drawn with replacement; all columns (horizontal) or
 * overlapping column sets (hybrid).  One "split" stream: sizes, shuffle or draws, then
 * columns. */
static int split_rows(fb_partition *p, const fb_dataset *ds, const fb_split_options *opt,
                      fb_error *err)
{
	size_t k = p->k, d = ds->d, *sizes = part_calloc(k, sizeof *sizes);
	size_t **rows = part_calloc(k, sizeof *rows), m = shared_rows(p->kind, ds->n, opt);
	unsigned char *held = part_calloc(k * d, 1);
	gsl_rng *r = fb_rng_stream(opt->seed, "split");
	int rc = FB_OK;

	if (sizes == NULL || rows == NULL || held == NULL) {
		rc = part_oom(ds->n, k, err);
	} else if (opt->draw == FB_DRAW_REPLACE) {
		for (size_t c = 0; c < k; c++)
			sizes[c] = ds->n / k;
		if (rows_draw(ds->n, m, k, ds->n / k, r, rows) != FB_OK)
			rc = part_oom(ds->n, k, err);
	} else if ((rc = sizes_compute(opt, ds->n - m, k, r, sizes, err)) == FB_OK) {
		if (rows_assign(ds, m, k, sizes, opt->shuffle, split_order_column(ds, opt), r,
		                rows) != FB_OK)
			rc = part_oom(ds->n, k, err);
	}
	if (rc == FB_OK) {
		if (p->kind == FB_SPLIT_HYBRID)
			cols_hybrid(d, k, opt, r, held);
		else
			memset(held, 1, k * d);
	}
	for (size_t c = 0; c < k && rc == FB_OK; c++) {
		size_t ncols, *cols = cols_from_held(held, d, c, &ncols);

		rc = client_fill(p, ds, c, rows[c], m + sizes[c], cols, ncols, opt->view, err);
		rows[c] = NULL; /* now the client's */
	}
	for (size_t c = 0; c < k && rows != NULL; c++)
		free(rows[c]);
	gsl_rng_free(r);
	free(held);
	free(rows);
	free(sizes);
	return rc;
}

/* Split ds into K clients. */
fb_partition *fb_split(const fb_dataset *ds, enum fb_split_kind kind, size_t k,
                       const fb_split_options *opt, fb_error *err)
{
	fb_split_options defaults;
	fb_partition *p;
	int rc;

	if (opt == NULL) {
		fb_split_options_init(&defaults);
		opt = &defaults;
	}
	if (split_check(ds, kind, k, opt, err) != FB_OK)
		return NULL;
	if ((p = part_calloc(1, sizeof *p)) == NULL ||
	    (p->clients = part_calloc(k, sizeof *p->clients)) == NULL) {
		free(p);
		return part_oom(ds->n, k, err), NULL;
	}
	p->kind = kind;
	p->k = k;
	p->n = ds->n;
	p->d = ds->d;
	if (kind == FB_SPLIT_VERTICAL)
		rc = split_vertical(p, ds, opt, err);
	else
		rc = split_rows(p, ds, opt, err);
	if (rc != FB_OK) {
		fb_partition_free(p);
		return NULL;
	}
	p->desc = desc_build(kind, k, opt);
	return p;
}

/* Ascending comparison of two doubles, for qsort. */
static int double_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The distinct values of continuous column j, ascending, into vals; returns their count. */
static size_t by_values_continuous(const fb_dataset *ds, size_t j, double *vals)
{
	size_t count = 0;

	for (size_t i = 0; i < ds->n; i++)
		vals[i] = fb_dataset_get(ds, i, j);
	qsort(vals, ds->n, sizeof *vals, double_cmp);
	for (size_t i = 0; i < ds->n; i++) {
		if (count == 0 || vals[i] != vals[count - 1])
			vals[count++] = vals[i];
	}
	return count;
}

/* The level codes discrete column j uses, sorted by label, into vals; returns their count. */
static size_t by_values_discrete(const fb_dataset *ds, size_t j, double *vals)
{
	const fb_var *v = &ds->vars[j];
	unsigned char *seen = fb_xcalloc(v->nlevels, 1);
	size_t count = 0;

	for (size_t i = 0; i < ds->n; i++)
		seen[(size_t)fb_dataset_get(ds, i, j)] = 1;
	for (size_t l = 0; l < v->nlevels; l++) {
		size_t at;

		if (!seen[l])
			continue;
		at = count++;
		while (at > 0 && strcmp(v->levels[(size_t)vals[at - 1]], v->levels[l]) > 0) {
			vals[at] = vals[at - 1];
			at--;
		}
		vals[at] = (double)l;
	}
	free(seen);
	return count;
}

/* Which of the count sorted values v is (it is one of them). */
static size_t by_value_index(const double *vals, size_t count, double v)
{
	for (size_t c = 0; c < count; c++) {
		if (vals[c] == v)
			return c;
	}
	return count;
}

/* Fill p's clients from the site values of column j of ds (vals, k of them, in client
 * order): rows in file order, every column of rest. */
static int by_fill(fb_partition *p, const fb_dataset *ds, const fb_dataset *rest, size_t j,
                   const double *vals, fb_error *err)
{
	size_t k = p->k, *size = part_calloc(k, sizeof *size), *of = part_calloc(ds->n, sizeof *of);
	int rc = FB_OK;

	if (size == NULL || of == NULL)
		rc = part_oom(ds->n, k, err);
	for (size_t i = 0; i < ds->n && rc == FB_OK; i++)
		size[of[i] = by_value_index(vals, k, fb_dataset_get(ds, i, j))]++;
	for (size_t c = 0; c < k && rc == FB_OK; c++) {
		size_t *rows = part_calloc(size[c], sizeof *rows), at = 0;
		fb_buf label = { NULL, 0, 0 };

		for (size_t i = 0; i < ds->n && rows != NULL; i++) {
			if (of[i] == c)
				rows[at++] = i;
		}
		if (ds->vars[j].kind == FB_DISCRETE)
			fb_buf_printf(&label, "%s", ds->vars[j].levels[(size_t)vals[c]]);
		else
			fb_buf_printf(&label, "%g", vals[c]);
		p->clients[c].label = label.data;
		rc = client_fill(p, rest, c, rows, size[c], ids_all(rest->d), rest->d, false, err);
	}
	free(of);
	free(size);
	return rc;
}

/* Refuse a column that cannot name sites: one value only, or too many continuous ones. */
static int by_check(const fb_dataset *ds, size_t j, size_t count, fb_error *err)
{
	const char *name = ds->vars[j].name;

	if (count < 2)
		return fb_fail(err, "cannot split by '%s': it has only one value, so it would "
		               "make a single client", name);
	if (ds->vars[j].kind == FB_CONTINUOUS && count > BY_MAX_VALUES)
		return fb_fail(err, "cannot split by '%s': it is continuous with %zu distinct "
		               "values (at most %d), is it really a site column?", name, count,
		               BY_MAX_VALUES);
	return FB_OK;
}

/* ds without its column j. */
static fb_dataset *by_rest(const fb_dataset *ds, size_t j)
{
	size_t *keep = fb_xcalloc(ds->d, sizeof *keep), at = 0;
	fb_dataset *rest;

	for (size_t c = 0; c < ds->d; c++) {
		if (c != j)
			keep[at++] = c;
	}
	rest = fb_dataset_subset(ds, NULL, 0, keep, at);
	free(keep);
	return rest;
}

/* Split ds by the values of one of its columns. */
fb_partition *fb_split_by(const fb_dataset *ds, const char *column, fb_dataset **rest,
                          fb_error *err)
{
	int j = fb_dataset_find(ds, column);
	double *vals;
	size_t count;
	fb_partition *p;
	fb_buf desc = { NULL, 0, 0 };

	*rest = NULL;
	if (j < 0)
		return fb_fail(err, "cannot split by '%s': there is no such column", column), NULL;
	if (ds->d < 2)
		return fb_fail(err, "cannot split by '%s': it is the only variable", column), NULL;
	if ((vals = part_calloc(ds->n, sizeof *vals)) == NULL)
		return fb_fail(err, "cannot split by '%s': out of memory", column), NULL;
	count = ds->vars[j].kind == FB_DISCRETE ? by_values_discrete(ds, (size_t)j, vals)
	                                        : by_values_continuous(ds, (size_t)j, vals);
	if (by_check(ds, (size_t)j, count, err) != FB_OK) {
		free(vals);
		return NULL;
	}
	*rest = by_rest(ds, (size_t)j);
	p = fb_xcalloc(1, sizeof *p);
	p->kind = FB_SPLIT_HORIZONTAL;
	p->k = count;
	p->n = ds->n;
	p->d = ds->d - 1;
	p->clients = fb_xcalloc(count, sizeof *p->clients);
	if (*rest == NULL || by_fill(p, ds, *rest, (size_t)j, vals, err) != FB_OK) {
		if (*rest == NULL)
			fb_fail(err, "cannot split by '%s': out of memory", column);
		fb_partition_free(p);
		fb_dataset_free(*rest);
		*rest = NULL;
		free(vals);
		return NULL;
	}
	free(vals);
	fb_buf_printf(&desc, "horizontal by=%s", column);
	p->desc = desc.data;
	return p;
}

/* Client src restricted to its training rows, into dst; FB_ERR on out of memory. */
static int client_train(fb_client *dst, const fb_client *src)
{
	size_t n, *rows = fb_dataset_part_rows(src->data, FB_PART_TRAIN, &n);

	dst->data = fb_dataset_part_subset(src->data, FB_PART_TRAIN);
	dst->rows = part_calloc(n, sizeof *dst->rows);
	for (size_t i = 0; i < n && dst->rows != NULL; i++)
		dst->rows[i] = src->rows[rows[i]];
	free(rows);
	dst->cols = fb_xcalloc(src->data->d > 0 ? src->data->d : 1, sizeof *dst->cols);
	memcpy(dst->cols, src->cols, src->data->d * sizeof *dst->cols);
	dst->label = src->label != NULL ? fb_xstrdup(src->label) : NULL;
	return dst->data != NULL && dst->rows != NULL ? FB_OK : FB_ERR;
}

/* A copy of p whose clients keep only their training rows. */
fb_partition *fb_partition_train(const fb_partition *p)
{
	fb_partition *t = fb_xcalloc(1, sizeof *t);

	*t = *p;
	t->clients = fb_xcalloc(p->k > 0 ? p->k : 1, sizeof *t->clients);
	t->desc = fb_xstrdup(p->desc);
	for (size_t c = 0; c < p->k; c++)
		if (client_train(&t->clients[c], &p->clients[c]) != FB_OK) {
			fb_partition_free(t);
			return NULL;
		}
	return t;
}
