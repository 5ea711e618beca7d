/* Inside the graph folder only: the row scan graph.c and graph-scan.c share. */
#ifndef FEDBN_GRAPH_INT_H
#define FEDBN_GRAPH_INT_H

#include <stddef.h>

/* The first column k >= j whose mark in row or in row2 (d marks each; row2 may be row) is
 * set, or d; zero marks are skipped eight at a time. */
size_t graph_row_next(const unsigned char *row, const unsigned char *row2, size_t j, size_t d);

#endif
