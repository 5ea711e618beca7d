/* Simulated data for the background-knowledge tests: a dataset, its true DAG and a
 * horizontal split into 3 clients. */
#ifndef FEDBN_TEST_KNOWLEDGE_DATA_H
#define FEDBN_TEST_KNOWLEDGE_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "fedbn/dataset.h"
#include "fedbn/graph.h"
#include "fedbn/partition.h"

/* A dataset, its truth and a horizontal split into 3 clients. */
typedef struct fixture {
	fb_dataset *ds;
	fb_graph *truth;
	fb_partition *part;
} fixture;

/* d variables (d edges in the truth) and n rows simulated from seed; a failure fails the
 * test. */
fixture make_data(size_t d, size_t n, uint64_t seed);
/* Free what make_data made. */
void free_data(fixture *f);

#endif
