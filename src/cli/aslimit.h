/* Start-up under an address-space limit (ulimit -v): OpenBLAS retries a failed mapping of its
 * work buffer forever, so fedbn makes sure the buffer is mapped, or refuses to start. */
#ifndef FEDBN_CLI_ASLIMIT_H
#define FEDBN_CLI_ASLIMIT_H

/* Under a finite address-space limit: restart the program once with OPENBLAS_NUM_THREADS=1 when
 * the BLAS pool may hold other threads, then map the BLAS work buffer, or write one sentence to
 * standard error when the limit leaves no room for it.  0 when the program may go on, else the
 * exit status (2).  Call first thing in main: it may replace the process with argv again. */
int fb_aslimit_settle(char **argv);

#endif
