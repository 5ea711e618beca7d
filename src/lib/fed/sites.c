/* Sites that each hold their own file: a site's rows put in its keys' order, and the
 * federation the sites' variables and keys make. */
#include "config.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/sites.h"

/* A row and its key, for sorting. */
typedef struct key_row {
	double key; /* the value, or the level code of a text key */
	size_t row; /* the row in the file */
} key_row;

/* Ascending keys, then rows, for qsort. */
static int key_row_cmp(const void *a, const void *b)
{
	const key_row *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->row < y->row ? -1 : x->row > y->row;
}

/* The text of ds's value v in column j: the level, or the number to 17 digits. */
static const char *key_text(const fb_dataset *ds, size_t j, double v, char *buf, size_t n)
{
	if (ds->vars[j].kind == FB_DISCRETE)
		return ds->vars[j].levels[(size_t)v];
	snprintf(buf, n, "%.17g", v);
	return buf;
}

/* The digest of the sorted keys' texts, each ended by a NUL. */
static uint64_t keys_digest(const fb_dataset *ds, size_t j, const key_row *kr, size_t n)
{
	uint64_t h = FB_HASH_INIT;
	char buf[40];

	for (size_t i = 0; i < n; i++) {
		const char *t = key_text(ds, j, kr[i].key, buf, sizeof buf);

		h = fb_hash_bytes(h, t, strlen(t) + 1);
	}
	return h;
}

/* Sort ds's rows by column j into kr; FB_ERR naming a repeated key. */
static int sort_keys(const fb_dataset *ds, size_t j, const char *source, key_row *kr,
                     fb_error *err)
{
	char buf[40];

	for (size_t i = 0; i < ds->n; i++)
		kr[i] = (key_row){ fb_dataset_get(ds, i, j), i };
	qsort(kr, ds->n, sizeof *kr, key_row_cmp);
	for (size_t i = 1; i < ds->n; i++)
		if (kr[i].key == kr[i - 1].key)
			return fb_fail(err, "'%s': the key '%s' repeats the value '%s' in rows %zu and "
			                    "%zu; every row needs its own key", source, ds->vars[j].name,
			               key_text(ds, j, kr[i].key, buf, sizeof buf), kr[i - 1].row + 1,
			               kr[i].row + 1);
	return FB_OK;
}

/* Take the key column out and sort the rows by it. */
fb_dataset *fb_site_keyed(const fb_dataset *ds, const char *key, const char *source,
                          fb_site_keys *keys, fb_error *err)
{
	int j = fb_dataset_find(ds, key);
	key_row *kr;
	size_t *rows, *cols;
	fb_dataset *out = NULL;

	if (j < 0)
		return fb_fail(err, "'%s' has no key column '%s'", source, key), NULL;
	if (ds->d < 2)
		return fb_fail(err, "'%s' holds only the key column '%s'", source, key), NULL;
	if (strlen(key) >= FB_SITE_KEY_MAX)
		return fb_fail(err, "the key column's name is longer than %d bytes",
		               FB_SITE_KEY_MAX - 1), NULL;
	kr = fb_xcalloc(ds->n + 1, sizeof *kr);
	rows = fb_xcalloc(ds->n + 1, sizeof *rows);
	cols = fb_xcalloc(ds->d, sizeof *cols);
	if (sort_keys(ds, (size_t)j, source, kr, err) == FB_OK) {
		for (size_t i = 0; i < ds->n; i++)
			rows[i] = kr[i].row;
		for (size_t c = 0, m = 0; c < ds->d; c++)
			if (c != (size_t)j)
				cols[m++] = c;
		if ((out = fb_dataset_subset(ds, rows, ds->n, cols, ds->d - 1)) == NULL)
			fb_fail(err, "out of memory putting '%s' in its keys' order", source);
		snprintf(keys->name, sizeof keys->name, "%s", key);
		keys->n = ds->n;
		keys->digest = keys_digest(ds, (size_t)j, kr, ds->n);
	}
	free(kr);
	free(rows);
	free(cols);
	return out;
}

/* ---- the federation of the sites ---- */

/* What the sites' variables make: each site's variables' global ids, and the union. */
typedef struct sites_vars {
	size_t k;           /* sites */
	size_t **gid;       /* per site, per column: its global id (owned) */
	size_t d;           /* global variables */
	size_t *from_site;  /* per global variable: the first site holding it (owned) */
	size_t *from_col;   /* ... and its column there (owned) */
	size_t *holders;    /* per global variable: how many sites hold it (owned) */
} sites_vars;

/* Free what sv owns. */
static void sites_vars_release(sites_vars *sv)
{
	for (size_t c = 0; sv->gid != NULL && c < sv->k; c++)
		free(sv->gid[c]);
	free(sv->gid);
	free(sv->from_site);
	free(sv->from_col);
	free(sv->holders);
}

/* Whether variables u and v agree in kind and levels. */
static bool same_kind(const fb_var *u, const fb_var *v)
{
	if (u->kind != v->kind || u->nlevels != v->nlevels)
		return false;
	for (size_t l = 0; l < u->nlevels; l++)
		if (strcmp(u->levels[l], v->levels[l]) != 0)
			return false;
	return true;
}

/* The global id of site c's column j: a variable an earlier site holds, or a new one. */
static int global_id(const fb_dataset *const *sites, char *const *sources, sites_vars *sv,
                     size_t c, size_t j, fb_error *err)
{
	const fb_var *v = &sites[c]->vars[j];

	for (size_t g = 0; g < sv->d; g++) {
		const fb_var *u = &sites[sv->from_site[g]]->vars[sv->from_col[g]];

		if (strcmp(u->name, v->name) != 0)
			continue;
		if (!same_kind(u, v))
			return fb_fail(err, "variable '%s' is %s at client %zu ('%s') and %s at client "
			                    "%zu ('%s'): a variable shared by sites needs the same kind "
			                    "and levels", v->name,
			               u->kind == FB_DISCRETE ? "discrete" : "continuous",
			               sv->from_site[g] + 1, sources[sv->from_site[g]],
			               v->kind == u->kind ? "has other levels"
			               : v->kind == FB_DISCRETE ? "discrete" : "continuous",
			               c + 1, sources[c]);
		sv->gid[c][j] = g;
		sv->holders[g]++;
		return FB_OK;
	}
	sv->from_site[sv->d] = c;
	sv->from_col[sv->d] = j;
	sv->holders[sv->d] = 1;
	sv->gid[c][j] = sv->d++;
	return FB_OK;
}

/* Number the sites' variables in order of first appearance. */
static int sites_vars_build(const fb_dataset *const *sites, char *const *sources, size_t k,
                            sites_vars *sv, fb_error *err)
{
	size_t total = 0;

	memset(sv, 0, sizeof *sv);
	sv->k = k;
	for (size_t c = 0; c < k; c++)
		total += sites[c]->d;
	sv->gid = fb_xcalloc(k, sizeof *sv->gid);
	sv->from_site = fb_xcalloc(total + 1, sizeof *sv->from_site);
	sv->from_col = fb_xcalloc(total + 1, sizeof *sv->from_col);
	sv->holders = fb_xcalloc(total + 1, sizeof *sv->holders);
	for (size_t c = 0; c < k; c++) {
		sv->gid[c] = fb_xcalloc(sites[c]->d + 1, sizeof **sv->gid);
		for (size_t j = 0; j < sites[c]->d; j++)
			if (global_id(sites, sources, sv, c, j, err) != FB_OK)
				return FB_ERR;
	}
	return FB_OK;
}

/* The kind of federation the variables make: every site holds every variable
 * (horizontal), each variable lives at one site (vertical), or else hybrid. */
static enum fb_split_kind sites_kind(const sites_vars *sv)
{
	bool all = true, one = true;

	for (size_t g = 0; g < sv->d; g++) {
		all &= sv->holders[g] == sv->k;
		one &= sv->holders[g] == 1;
	}
	return all ? FB_SPLIT_HORIZONTAL : one && sv->k > 1 ? FB_SPLIT_VERTICAL
	                                                     : FB_SPLIT_HYBRID;
}

/* The first site whose variables are not site 1's (its own are numbered first). */
static size_t site_differing(const fb_dataset *const *sites, const sites_vars *sv)
{
	for (size_t c = 1; c < sv->k; c++) {
		if (sites[c]->d != sites[0]->d)
			return c;
		for (size_t j = 0; j < sites[c]->d; j++)
			if (sv->gid[c][j] >= sites[0]->d)
				return c;
	}
	return sv->k > 1 ? 1 : 0;
}

/* Whether sites a and b share a variable. */
static bool share_var(const fb_dataset *const *sites, const sites_vars *sv, size_t a,
                      size_t b)
{
	for (size_t i = 0; i < sites[a]->d; i++)
		for (size_t j = 0; j < sites[b]->d; j++)
			if (sv->gid[a][i] == sv->gid[b][j])
				return true;
	return false;
}

/* Check that the keys fit the kind: a vertical federation's sites hold the same keys, a
 * hybrid one's sites that share variables hold different ones. */
static int check_keys(const fb_dataset *const *sites, const sites_vars *sv,
                      enum fb_split_kind kind, const fb_site_keys *keys,
                      char *const *sources, fb_error *err)
{
	for (size_t c = 1; kind == FB_SPLIT_VERTICAL && c < sv->k; c++) {
		if (keys[c].n != keys[0].n)
			return fb_fail(err, "client %zu ('%s') holds %zu keys and client 1 ('%s') %zu: "
			                    "in a vertical federation (each variable at one site) every "
			                    "site needs the same keys", c + 1, sources[c], keys[c].n,
			               sources[0], keys[0].n);
		if (keys[c].digest != keys[0].digest)
			return fb_fail(err, "clients 1 ('%s') and %zu ('%s') hold %zu keys each but not "
			                    "the same ones: in a vertical federation every site needs "
			                    "the same keys", sources[0], c + 1, sources[c], keys[c].n);
	}
	for (size_t a = 0; kind == FB_SPLIT_HYBRID && a < sv->k; a++)
		for (size_t b = a + 1; b < sv->k; b++)
			if (keys[a].n == keys[b].n && keys[a].digest == keys[b].digest &&
			    share_var(sites, sv, a, b))
				return fb_fail(err, "clients %zu ('%s') and %zu ('%s') hold the same keys "
				                    "and share variables: sites holding the same rows need "
				                    "their own variables each", a + 1, sources[a], b + 1,
				               sources[b]);
	return FB_OK;
}

/* Indices 0..n-1 ordered by ascending key[]. */
static size_t *order_by(const size_t *key, size_t n)
{
	size_t *o = fb_xcalloc(n + 1, sizeof *o);

	for (size_t i = 0; i < n; i++) {
		size_t at = i;

		while (at > 0 && key[o[at - 1]] > key[i]) {
			o[at] = o[at - 1];
			at--;
		}
		o[at] = i;
	}
	return o;
}

/* Client c of the federation: site c's columns in ascending global order, its rows given
 * the global ids from first. */
static int sites_client(const fb_dataset *site, const size_t *gid, size_t first,
                        fb_client *cl, fb_error *err)
{
	size_t *perm = order_by(gid, site->d);

	cl->data = fb_dataset_subset(site, NULL, 0, perm, site->d);
	cl->cols = fb_xcalloc(site->d + 1, sizeof *cl->cols);
	for (size_t j = 0; j < site->d; j++)
		cl->cols[j] = gid[perm[j]];
	free(perm);
	cl->rows = fb_xcalloc(site->n + 1, sizeof *cl->rows);
	for (size_t i = 0; i < site->n; i++)
		cl->rows[i] = first + i;
	return cl->data != NULL ? FB_OK : fb_fail(err, "out of memory for the sites' clients");
}

/* The global variables as a dataset of 0 rows. */
static fb_dataset *sites_schema(const fb_dataset *const *sites, const sites_vars *sv)
{
	fb_dataset *s = fb_dataset_alloc(0, sv->d);

	for (size_t g = 0; s != NULL && g < sv->d; g++) {
		const fb_var *v = &sites[sv->from_site[g]]->vars[sv->from_col[g]];
		fb_error err;

		free(s->vars[g].name);
		s->vars[g].name = fb_xstrdup(v->name);
		if (v->kind == FB_DISCRETE)
			fb_dataset_set_levels(s, g, v->levels, v->nlevels, &err);
	}
	return s;
}

/* The partition's one-line description: "vertical 4 key=id rows=200". */
static char *sites_desc(enum fb_split_kind kind, size_t k, const fb_site_keys *keys,
                        const size_t *n)
{
	static const char *const names[] = { "horizontal", "vertical", "hybrid" };
	fb_buf b = { 0 };
	char *out;

	fb_buf_printf(&b, "%s %zu", names[kind], k);
	if (keys != NULL)
		fb_buf_printf(&b, " key=%s", keys[0].name);
	fb_buf_printf(&b, " rows=");
	for (size_t c = 0; c < (kind == FB_SPLIT_VERTICAL ? 1 : k); c++)
		fb_buf_printf(&b, "%s%zu", c > 0 ? "," : "", n[c]);
	out = fb_xstrdup(b.data);
	fb_buf_release(&b);
	return out;
}

/* Fill p's clients from the sites. */
static int sites_clients(fb_partition *p, const fb_dataset *const *sites, const size_t *n,
                         const sites_vars *sv, fb_error *err)
{
	size_t first = 0;

	p->clients = fb_xcalloc(p->k, sizeof *p->clients);
	for (size_t c = 0; c < p->k; c++) {
		if (sites_client(sites[c], sv->gid[c], first, &p->clients[c], err) != FB_OK)
			return FB_ERR;
		if (p->kind != FB_SPLIT_VERTICAL)
			first += n[c];
		p->n = p->kind == FB_SPLIT_VERTICAL ? n[c] : p->n + n[c];
	}
	return FB_OK;
}

/* The federation of the sites. */
fb_partition *fb_sites_partition(const fb_dataset *const *sites, const size_t *rows,
                                 const fb_site_keys *keys, char *const *sources, size_t k,
                                 fb_dataset **schema, fb_error *err)
{
	sites_vars sv;
	size_t *n = fb_xcalloc(k + 1, sizeof *n), bad;
	fb_partition *p = NULL;
	enum fb_split_kind kind = FB_SPLIT_HORIZONTAL;
	int ret = k == 0 ? fb_fail(err, "a federation needs at least one site")
	                 : sites_vars_build(sites, sources, k, &sv, err);

	for (size_t c = 0; c < k; c++)
		n[c] = rows != NULL ? rows[c] : sites[c]->n;
	if (ret == FB_OK && (kind = sites_kind(&sv)) != FB_SPLIT_HORIZONTAL && keys == NULL) {
		bad = site_differing(sites, &sv);
		ret = fb_fail(err, "client %zu ('%s') holds other variables than client 1 ('%s'): "
		                   "sites with other columns need a key column that matches their "
		                   "rows (--key NAME)", bad + 1, sources[bad], sources[0]);
	}
	if (ret == FB_OK && keys != NULL)
		ret = check_keys(sites, &sv, kind, keys, sources, err);
	if (ret == FB_OK) {
		p = fb_xcalloc(1, sizeof *p);
		p->kind = kind;
		p->k = k;
		p->d = sv.d;
		if (sites_clients(p, sites, n, &sv, err) != FB_OK) {
			fb_partition_free(p);
			p = NULL;
		} else {
			p->desc = sites_desc(kind, k, keys, n);
			*schema = sites_schema(sites, &sv);
		}
	}
	if (k > 0)
		sites_vars_release(&sv);
	free(n);
	return p;
}
