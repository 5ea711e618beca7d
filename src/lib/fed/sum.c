/* The federation's sum of the clients' vectors: what a summed server half receives instead
 * of the replies themselves.  Today the sum is formed in the clear, in client order; secure
 * aggregation (pairwise masks that cancel in the sum, dropout recovery by secret shares)
 * goes here and nowhere else, and must give the same doubles. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "fedbn/fed.h"

/* Add the replies of n numbers in client order; count them and the empty ones.  A NaN
 * would make the whole sum NaN without a word: the client that sent it is named. */
int fb_fed_sum(const fb_msg *const *up, size_t k, size_t n, double *sum, size_t *count,
               size_t *silent, fb_error *err)
{
	*count = *silent = 0;
	memset(sum, 0, n * sizeof *sum);
	for (size_t c = 0; c < k; c++) {
		if (up[c] == NULL)
			continue;
		if (up[c]->nd == 0 && up[c]->nb == 0) {
			(*silent)++;
			continue;
		}
		if (up[c]->nd != n || up[c]->nb != 0)
			return fb_fail(err, "client %zu sent %zu numbers and %zu other bytes where the "
			               "sum takes a vector of %zu numbers", c + 1, up[c]->nd,
			               up[c]->nb, n);
		for (size_t q = 0; q < n; q++) {
			if (isnan(up[c]->d[q]))
				return fb_fail(err, "client %zu sent NaN (number %zu of %zu) where the sum "
				               "takes numbers", c + 1, q + 1, n);
			sum[q] += up[c]->d[q];
		}
		(*count)++;
	}
	return FB_OK;
}
