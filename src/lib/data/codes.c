/* Columns read as numbers that look like category codes: what load's discrete=auto would
 * have made discrete, so that the default (discrete=none) can say so. */
#include "config.h"

#include "fedbn/csv.h"
#include "csv-private.h"

/* Whether every value of continuous column j of ds is an integer, at most max_levels
 * distinct ones (the reader's own test for discrete=auto). */
static bool column_is_codes(const fb_dataset *ds, size_t j, size_t max_levels)
{
	fb_csv_ints set = { .ok = true };
	bool ok;

	for (size_t i = 0; i < ds->n && set.ok; i++)
		fb_csv_ints_add(&set, fb_dataset_get(ds, i, j), max_levels);
	ok = set.ok && ds->n > 0;
	fb_csv_ints_release(&set);
	return ok;
}

/* Mark the continuous columns that hold few integer values. */
size_t fb_csv_integer_codes(const fb_dataset *ds, size_t max_levels, bool *codes)
{
	size_t count = 0;

	for (size_t j = 0; j < ds->d; j++) {
		codes[j] = ds->vars[j].kind == FB_CONTINUOUS && max_levels > 0 &&
		           column_is_codes(ds, j, max_levels);
		count += codes[j];
	}
	return count;
}
