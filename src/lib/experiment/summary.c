/* Summaries of result tables: mean and standard error per group of rows. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/core.h"
#include "fedbn/experiment.h"

/* The column indices of names into idx; FB_ERR naming the first one t lacks. */
static int summary_columns(const fb_table *t, const char *const *names, size_t n, int *idx,
                           fb_error *err)
{
	for (size_t i = 0; i < n; i++)
		if ((idx[i] = fb_table_col(t, names[i])) < 0)
			return fb_fail(err, "the table has no column '%s'", names[i]);
	return FB_OK;
}

/* The group of row r (its key cells equal a group's), or s->ngroups when it is new. */
static size_t summary_group_of(const fb_summary *s, const fb_table *t, size_t r,
                               const int *kidx)
{
	for (size_t gr = 0; gr < s->ngroups; gr++) {
		size_t k = 0;

		while (k < s->nkeys && strcmp(s->keys[gr * s->nkeys + k],
		                              fb_table_get(t, r, (size_t)kidx[k])) == 0)
			k++;
		if (k == s->nkeys)
			return gr;
	}
	return s->ngroups;
}

/* Assign every row to its group (made in first-row order); group[r] receives it. */
static void summary_groups(fb_summary *s, const fb_table *t, const int *kidx, size_t *group)
{
	for (size_t r = 0; r < t->nrows; r++) {
		size_t gr = summary_group_of(s, t, r, kidx);

		if (gr == s->ngroups) {
			s->keys = fb_xreallocarray(s->keys, (s->ngroups + 1) * (s->nkeys ? s->nkeys : 1),
			                           sizeof *s->keys);
			s->rows = fb_xreallocarray(s->rows, s->ngroups + 1, sizeof *s->rows);
			for (size_t k = 0; k < s->nkeys; k++)
				s->keys[gr * s->nkeys + k] = fb_xstrdup(fb_table_get(t, r, (size_t)kidx[k]));
			s->rows[gr] = 0;
			s->ngroups++;
		}
		s->rows[gr]++;
		group[r] = gr;
	}
}

/* The statistics of column c over the rows of group gr (two passes: mean, then spread). */
static fb_summary_stat summary_stat(const fb_table *t, const size_t *group, size_t gr,
                                    size_t c)
{
	fb_summary_stat st = { NAN, NAN, 0, true };
	double sum = 0, ss = 0, v;

	for (size_t r = 0; r < t->nrows; r++)
		if (group[r] == gr && fb_table_number(t, r, c, &v) == FB_OK) {
			sum += v;
			st.n++;
			st.whole &= v == floor(v) && fabs(v) < 1e15;
		}
	if (st.n == 0)
		return st;
	st.mean = sum / (double)st.n;
	for (size_t r = 0; r < t->nrows; r++)
		if (group[r] == gr && fb_table_number(t, r, c, &v) == FB_OK)
			ss += (v - st.mean) * (v - st.mean);
	if (st.n >= 2)
		st.se = sqrt(ss / (double)(st.n - 1)) / sqrt((double)st.n);
	return st;
}

/* Copy n names. */
static char **summary_names(const char *const *names, size_t n)
{
	char **out = fb_xcalloc(n > 0 ? n : 1, sizeof *out);

	for (size_t i = 0; i < n; i++)
		out[i] = fb_xstrdup(names[i]);
	return out;
}

/* Summarise t. */
int fb_summary_compute(fb_summary *s, const fb_table *t, const char *const *keys,
                       size_t nkeys, const char *const *figs, size_t nfigs, fb_error *err)
{
	int *kidx = fb_xcalloc(nkeys + 1, sizeof *kidx), *fidx = fb_xcalloc(nfigs + 1, sizeof *fidx);
	size_t *group = fb_xcalloc(t->nrows + 1, sizeof *group);
	int ret = FB_OK;

	memset(s, 0, sizeof *s);
	if (summary_columns(t, keys, nkeys, kidx, err) != FB_OK ||
	    summary_columns(t, figs, nfigs, fidx, err) != FB_OK) {
		ret = FB_ERR;
		goto out;
	}
	s->nkeys = nkeys;
	s->nfigs = nfigs;
	s->key_names = summary_names(keys, nkeys);
	s->fig_names = summary_names(figs, nfigs);
	summary_groups(s, t, kidx, group);
	s->stat = fb_xcalloc(s->ngroups * nfigs + 1, sizeof *s->stat);
	for (size_t gr = 0; gr < s->ngroups; gr++)
		for (size_t f = 0; f < nfigs; f++)
			s->stat[gr * nfigs + f] = summary_stat(t, group, gr, (size_t)fidx[f]);
out:
	free(kidx);
	free(fidx);
	free(group);
	return ret;
}

/* Free the summary. */
void fb_summary_release(fb_summary *s)
{
	for (size_t i = 0; i < s->ngroups * s->nkeys; i++)
		free(s->keys[i]);
	for (size_t k = 0; s->key_names != NULL && k < s->nkeys; k++)
		free(s->key_names[k]);
	for (size_t f = 0; s->fig_names != NULL && f < s->nfigs; f++)
		free(s->fig_names[f]);
	free(s->keys);
	free(s->key_names);
	free(s->fig_names);
	free(s->rows);
	free(s->stat);
	memset(s, 0, sizeof *s);
}

/* One group's statistics of one figure. */
const fb_summary_stat *fb_summary_get(const fb_summary *s, size_t gr, size_t f)
{
	return &s->stat[gr * s->nfigs + f];
}

/* v as text, "" when it is NaN. */
static const char *summary_number(double v, char *buf, size_t len)
{
	if (isnan(v))
		buf[0] = '\0';
	else
		fb_format_double(v, buf, len);
	return buf;
}

/* The summary as a table. */
void fb_summary_table(const fb_summary *s, fb_table *t)
{
	size_t ncols = s->nkeys + 1 + 2 * s->nfigs;
	char **head = fb_xcalloc(ncols, sizeof *head), **cells = fb_xcalloc(ncols, sizeof *cells);
	char (*num)[40] = fb_xcalloc(ncols, sizeof *num);

	for (size_t k = 0; k < s->nkeys; k++)
		head[k] = fb_xstrdup(s->key_names[k]);
	head[s->nkeys] = fb_xstrdup("count");
	for (size_t f = 0; f < s->nfigs; f++) {
		head[s->nkeys + 1 + 2 * f] = fb_xasprintf("%s_mean", s->fig_names[f]);
		head[s->nkeys + 2 + 2 * f] = fb_xasprintf("%s_se", s->fig_names[f]);
	}
	fb_table_init(t, ncols, (const char *const *)head);
	for (size_t gr = 0; gr < s->ngroups; gr++) {
		for (size_t k = 0; k < s->nkeys; k++)
			cells[k] = s->keys[gr * s->nkeys + k];
		snprintf(num[s->nkeys], sizeof num[0], "%zu", s->rows[gr]);
		cells[s->nkeys] = num[s->nkeys];
		for (size_t f = 0; f < s->nfigs; f++) {
			const fb_summary_stat *st = fb_summary_get(s, gr, f);
			size_t c = s->nkeys + 1 + 2 * f;

			cells[c] = (char *)summary_number(st->mean, num[c], sizeof num[c]);
			cells[c + 1] = (char *)summary_number(st->se, num[c + 1], sizeof num[c + 1]);
		}
		fb_table_add_row(t, (const char *const *)cells);
	}
	for (size_t c = 0; c < ncols; c++)
		free(head[c]);
	free(head);
	free(cells);
	free(num);
}
