/* Helpers shared by the benchmark programs: clocks and the shared synthetic folders. */
#ifndef FEDBN_BENCH_COMMON_H
#define FEDBN_BENCH_COMMON_H

#include <stdbool.h>
#include <stddef.h>

#include "fedbn/dataset.h"
#include "fedbn/graph.h"

/* Seconds on the monotonic clock. */
double bench_now(void);
/* Processor seconds used by this process (the figure that load on the machine disturbs
 * least). */
double bench_cpu_now(void);
/* Read DIR/synth/TAG/X.csv and its truth.csv; FB_ERR (with "TAG: skipped (reason)" printed)
 * when either cannot be read. */
int bench_load_synth(const char *dir, const char *tag, fb_dataset **ds, fb_graph **truth);
/* The processor's model name (/proc/cpuinfo's first "model name", or "unknown processor")
 * in buf of cap bytes; returns buf. */
const char *bench_processor(char *buf, size_t cap);
/* True when the d = 10,000 cases are to run: FB_BENCH_HUGE set to anything but "" or "0"
 * (`make bench` sets it to 1 unless given FB_BENCH_HUGE=0). */
bool bench_huge(void);

#endif
