/* Classification with a circuit: the label's most probable value given the other observed
 * values, argmax_y log p(y, x_E) (the conditional's argmax: p(x_E) is common to every y);
 * and its scores: the confusion matrix, accuracy and F1 (of a positive class, by default the
 * rarest in the training rows). */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/circuit.h"

/* Rows classified together. */
#define CLASSIFY_BATCH 1024

/* Fill the m rows of batch (rows of x from row at) with the label set to y. */
static void batch_fill(double *batch, const double *x, size_t at, size_t m, size_t d,
                       size_t target, double y)
{
	memcpy(batch, x + at * d, m * d * sizeof *batch);
	for (size_t i = 0; i < m; i++)
		batch[i * d + target] = y;
}

/* Predict the label of n rows. */
int fb_circuit_classify(const fb_circuit *c, const double *x, size_t n, size_t target,
                        size_t nlevels, size_t *label, double *logp, fb_error *err)
{
	size_t d = c->nvars;
	double *batch = malloc(CLASSIFY_BATCH * (d ? d : 1) * sizeof *batch);
	double *lp = malloc(CLASSIFY_BATCH * sizeof *lp), *best = malloc(CLASSIFY_BATCH * sizeof *best);
	int rc = FB_OK;

	if (target >= d || nlevels == 0)
		rc = fb_fail(err, "cannot classify variable %zu of a circuit over %zu with %zu "
		                  "values", target + 1, d, nlevels);
	else if (batch == NULL || lp == NULL || best == NULL)
		rc = fb_fail(err, "out of memory classifying %zu rows", n);
	for (size_t at = 0; rc == FB_OK && at < n; at += CLASSIFY_BATCH) {
		size_t m = n - at < CLASSIFY_BATCH ? n - at : CLASSIFY_BATCH;

		for (size_t y = 0; rc == FB_OK && y < nlevels; y++) {
			batch_fill(batch, x, at, m, d, target, (double)y);
			rc = fb_circuit_logpdf(c, batch, m, lp, err);
			for (size_t i = 0; rc == FB_OK && i < m; i++)
				if (y == 0 || lp[i] > best[i]) {
					best[i] = lp[i];
					label[at + i] = y;
				}
		}
		for (size_t i = 0; rc == FB_OK && logp != NULL && i < m; i++)
			logp[at + i] = best[i];
	}
	free(batch);
	free(lp);
	free(best);
	return rc;
}

/* Count into cm (L x L, zeroed here; rows: true, columns: predicted) the n pairs
 * (truth[i], pred[i]), each value below L. */
void fb_confusion_count(const size_t *truth, const size_t *pred, size_t n, size_t L,
                        size_t *cm)
{
	memset(cm, 0, L * L * sizeof *cm);
	for (size_t i = 0; i < n; i++)
		cm[truth[i] * L + pred[i]]++;
}

/* F1 of class k from the L x L confusion matrix (0 when it is never true nor predicted). */
double fb_confusion_f1(const size_t *cm, size_t L, size_t k)
{
	size_t tp = cm[k * L + k], pred = 0, truth = 0;

	for (size_t m = 0; m < L; m++)
		pred += cm[m * L + k], truth += cm[k * L + m];
	return pred + truth > 0 ? 2.0 * (double)tp / (double)(pred + truth) : 0.0;
}

/* The rows on the diagonal of the L x L confusion matrix: those classified right. */
size_t fb_confusion_right(const size_t *cm, size_t L)
{
	size_t right = 0;

	for (size_t k = 0; k < L; k++)
		right += cm[k * L + k];
	return right;
}

/* Accuracy and F1 (of class positive for two classes or when positive < L, else the mean
 * over classes) of the L x L confusion matrix cm over n rows. */
void fb_confusion_scores(const size_t *cm, size_t L, size_t n, size_t positive, double *acc,
                         double *f1)
{
	double sum = 0;

	for (size_t k = 0; k < L; k++)
		sum += fb_confusion_f1(cm, L, k);
	*acc = n > 0 ? (double)fb_confusion_right(cm, L) / (double)n : NAN;
	if (positive < L)
		*f1 = fb_confusion_f1(cm, L, positive);
	else
		*f1 = L == 2 ? fb_confusion_f1(cm, L, 1) : sum / (double)L;
}

/* The default positive class of discrete variable j: of two levels the one with fewer
 * training rows (every row when none is held out), the later on a tie; SIZE_MAX for more. */
size_t fb_class_positive(const fb_dataset *ds, size_t j)
{
	size_t count[2] = { 0, 0 };

	if (ds->vars[j].nlevels != 2)
		return SIZE_MAX;
	for (size_t i = 0; i < ds->n; i++) {
		double v = fb_dataset_get(ds, i, j);

		if (fb_dataset_part(ds, i) == FB_PART_TRAIN && (v == 0 || v == 1))
			count[(size_t)v]++;
	}
	return count[1] <= count[0] ? 1 : 0;
}

/* The rows scored: the test part, or every row when there is none (*all). */
static size_t *confusion_rows(const fb_dataset *ds, size_t *n, bool *all)
{
	size_t *rows = fb_dataset_part_rows(ds, FB_PART_TEST, n);

	*all = rows == NULL;
	if (rows == NULL) {
		*n = ds->n;
		rows = fb_xcalloc(ds->n > 0 ? ds->n : 1, sizeof *rows);
		for (size_t i = 0; i < ds->n; i++)
			rows[i] = i;
	}
	return rows;
}

/* The confusion matrix of classifying the discrete variable j of ds's test rows with c. */
size_t *fb_circuit_confusion(const fb_circuit *c, const fb_dataset *ds, size_t j, size_t *n,
                             bool *all, fb_error *err)
{
	size_t *rows = confusion_rows(ds, n, all), L = ds->vars[j].nlevels;
	size_t *label = fb_xcalloc(*n + 1, sizeof *label), *truth = fb_xcalloc(*n + 1, sizeof *truth);
	size_t *cm = fb_xcalloc(L * L, sizeof *cm);
	double *x = fb_xcalloc(*n * ds->d + 1, sizeof *x);

	for (size_t i = 0; i < *n; i++) {
		memcpy(x + i * ds->d, ds->x + rows[i] * ds->d, ds->d * sizeof *x);
		truth[i] = (size_t)fb_dataset_get(ds, rows[i], j);
	}
	if (fb_circuit_classify(c, x, *n, j, L, label, NULL, err) == FB_OK)
		fb_confusion_count(truth, label, *n, L, cm);
	else {
		free(cm);
		cm = NULL;
	}
	free(rows), free(x), free(label), free(truth);
	return cm;
}
