/* Federated circuits: the server assembles the clients' circuits (Algorithm 1, lines 9-22)
 * and sets its weights from the row counts, without a pass over the data. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fc-int.h"

/* The most products glue=all may build. */
#define FC_MAX_PRODUCTS 100000

/* The server nodes being built: shared sums, and the cluster circuits of private subspaces. */
typedef struct fc_build {
	size_t *sums;     /* ids of the shared subspaces' sums */
	double *sum_rho;  /* rho of each: its owners' rows */
	size_t nsums;     /* how many */
	size_t **cl;      /* per private subspace: the received ids of its clusters */
	size_t *ncl;      /* per private subspace: how many clusters */
	size_t npriv;     /* private subspaces */
} fc_build;

/* Free what a build owns. */
static void build_release(fc_build *b)
{
	for (size_t l = 0; b->cl != NULL && l < b->npriv; l++)
		free(b->cl[l]);
	free(b->cl);
	free(b->ncl);
	free(b->sums);
	free(b->sum_rho);
}

/* Graft every received circuit into the assembled one on its client's machine. */
static int graft_all(fb_fc *fc, fb_error *err)
{
	size_t *vars = malloc((fc->p->d ? fc->p->d : 1) * sizeof *vars);
	int rc = vars == NULL ? fb_fail(err, "out of memory assembling") : FB_OK;

	for (size_t i = 0; rc == FB_OK && i < fc->nrecv; i++) {
		fc_subspace_vars(&fc->sub, fc->recv[i].sub, vars);
		rc = fb_circuit_graft(fc->circ, fc->recv[i].c, vars, (int)fc->owner[i],
		                      &fc->croot[i], err);
	}
	free(vars);
	return rc;
}

/* A server sum over the received circuits with subspace sub, weighted by their rows. */
static int shared_sum(fb_fc *fc, size_t sub, size_t *id, double *rho, fb_error *err)
{
	size_t *ch = malloc(fc->nrecv * sizeof *ch), n = 0;
	double *w = malloc(fc->nrecv * sizeof *w), tot = 0;
	int rc;

	if (ch == NULL || w == NULL) {
		free(ch);
		free(w);
		return fb_fail(err, "out of memory assembling");
	}
	for (size_t i = 0; i < fc->nrecv; i++)
		if (fc->recv[i].sub == sub) {
			ch[n] = fc->croot[i];
			w[n++] = (double)fc->recv[i].rows;
			tot += (double)fc->recv[i].rows;
		}
	for (size_t i = 0; i < n; i++)
		w[i] /= tot;
	rc = n == 0 ? fb_fail(err, "no client learned shared subspace %zu", sub)
	            : fb_circuit_add_sum(fc->circ, ch, w, n, FB_CIRCUIT_SERVER, id, err);
	*rho = tot;
	free(ch);
	free(w);
	return rc;
}

/* The received circuits of private subspace sub into a new list *ids of *n. */
static int private_list(const fb_fc *fc, size_t sub, size_t **ids, size_t *n, fb_error *err)
{
	*n = 0;
	*ids = malloc((fc->nrecv ? fc->nrecv : 1) * sizeof **ids);
	if (*ids == NULL)
		return fb_fail(err, "out of memory assembling");
	for (size_t i = 0; i < fc->nrecv; i++)
		if (fc->recv[i].sub == sub)
			(*ids)[(*n)++] = i;
	return *n == 0 ? fb_fail(err, "no client learned private subspace %zu", sub) : FB_OK;
}

/* The shared sums and the private subspaces' cluster lists. */
static int build_parts(fb_fc *fc, fc_build *b, fb_error *err)
{
	size_t n = fc->sub.n;
	int rc = FB_OK;

	b->sums = malloc(n * sizeof *b->sums);
	b->sum_rho = malloc(n * sizeof *b->sum_rho);
	b->cl = calloc(n, sizeof *b->cl);
	b->ncl = calloc(n, sizeof *b->ncl);
	if (b->sums == NULL || b->sum_rho == NULL || b->cl == NULL || b->ncl == NULL)
		return fb_fail(err, "out of memory assembling");
	for (size_t s = 0; rc == FB_OK && s < n; s++) {
		if (fc->sub.nowners[s] > 1) {
			rc = shared_sum(fc, s, &b->sums[b->nsums], &b->sum_rho[b->nsums], err);
			b->nsums++;
		} else {
			rc = private_list(fc, s, &b->cl[b->npriv], &b->ncl[b->npriv], err);
			b->npriv++;
		}
	}
	return rc;
}

/* Product number p's cluster choices into pick[npriv]: glue=all reads p in mixed radix;
 * glue=random takes p mod K_l for p < K_l and a uniform draw from r afterwards. */
static void product_pick(const fb_fc *fc, const fc_build *b, size_t p, gsl_rng *r,
                         size_t *pick)
{
	for (size_t l = 0; l < b->npriv; l++) {
		if (fc->o.glue == FB_FC_GLUE_ALL) {
			pick[l] = p % b->ncl[l];
			p /= b->ncl[l];
		} else {
			pick[l] = p < b->ncl[l] ? p : (size_t)gsl_rng_uniform_int(r, b->ncl[l]);
		}
	}
}

/* How many products: the product of the cluster counts (all), or max(P, largest K_l). */
static int product_count(const fb_fc *fc, const fc_build *b, size_t *np, fb_error *err)
{
	size_t n = 1, kmax = 0;

	for (size_t l = 0; l < b->npriv; l++) {
		kmax = b->ncl[l] > kmax ? b->ncl[l] : kmax;
		if (fc->o.glue == FB_FC_GLUE_ALL && (n *= b->ncl[l]) > FC_MAX_PRODUCTS)
			return fb_fail(err, "glue=all would build more than %d products; use "
			                    "glue=random", FC_MAX_PRODUCTS);
	}
	if (fc->o.glue == FB_FC_GLUE_RANDOM) {
		n = fc->o.products ? fc->o.products : fc->o.clusters;
		n = n < kmax ? kmax : n;
	}
	*np = n;
	return FB_OK;
}

/* Append product p (every shared sum, then picked clusters) and its rho. */
static int add_product(fb_fc *fc, const fc_build *b, const size_t *pick, size_t *ch,
                       size_t *id, double *rho, fb_error *err)
{
	size_t n = 0;

	*rho = 0;
	for (size_t i = 0; i < b->nsums; i++) {
		ch[n++] = b->sums[i];
		*rho += b->sum_rho[i];
	}
	for (size_t l = 0; l < b->npriv; l++) {
		size_t rid = b->cl[l][pick[l]];

		ch[n++] = fc->croot[rid];
		*rho += (double)fc->recv[rid].rows;
	}
	return fb_circuit_add_product(fc->circ, ch, n, FB_CIRCUIT_SERVER, id, err);
}

/* The products and the root sum over them, weighted by rho. */
static int build_root(fb_fc *fc, const fc_build *b, fb_error *err)
{
	size_t np = 0, *ids = NULL, *ch = NULL, *pick = NULL, root;
	double *w = NULL, tot = 0;
	gsl_rng *r = NULL;
	int rc = product_count(fc, b, &np, err);

	if (rc == FB_OK) {
		ids = malloc(np * sizeof *ids);
		w = malloc(np * sizeof *w);
		ch = malloc((b->nsums + b->npriv) * sizeof *ch);
		pick = malloc((b->npriv ? b->npriv : 1) * sizeof *pick);
		r = fb_rng_stream(fc->o.seed, "fedcircuit-glue");
		if (ids == NULL || w == NULL || ch == NULL || pick == NULL || r == NULL)
			rc = fb_fail(err, "out of memory assembling");
	}
	for (size_t p = 0; rc == FB_OK && p < np; p++) {
		product_pick(fc, b, p, r, pick);
		rc = add_product(fc, b, pick, ch, &ids[p], &w[p], err);
		tot += w[p];
	}
	for (size_t p = 0; rc == FB_OK && p < np; p++)
		w[p] /= tot;
	if (rc == FB_OK)
		rc = fb_circuit_add_sum(fc->circ, ids, w, np, FB_CIRCUIT_SERVER, &root, err);
	fc->nproducts = np;
	if (r != NULL)
		gsl_rng_free(r);
	free(ids);
	free(w);
	free(ch);
	free(pick);
	return rc;
}

/* Assemble the received circuits (server, after the last client's round). */
int fc_assemble(fb_fc *fc, fb_error *err)
{
	fc_build b = { 0 };
	size_t id;
	int rc;

	fc->circ = fb_circuit_alloc(fc->p->d);
	fc->croot = malloc((fc->nrecv ? fc->nrecv : 1) * sizeof *fc->croot);
	if (fc->circ == NULL || fc->croot == NULL)
		return fb_fail(err, "out of memory assembling");
	rc = graft_all(fc, err);
	if (rc == FB_OK)
		rc = build_parts(fc, &b, err);
	if (rc == FB_OK && b.npriv > 0)
		rc = build_root(fc, &b, err);
	else if (rc == FB_OK && b.nsums > 1)
		rc = fb_circuit_add_product(fc->circ, b.sums, b.nsums, FB_CIRCUIT_SERVER, &id, err);
	build_release(&b);
	if (rc == FB_OK)
		rc = fb_circuit_check(fc->circ, err);
	if (rc != FB_OK) {
		fb_circuit_free(fc->circ);
		fc->circ = NULL;
	}
	return rc;
}
