/* FedDAG (Gao et al. 2023) and MCSL as algorithms: mcsl on one dataset, gs-feddag and
 * as-feddag over horizontal clients, as-feddag-linear.  The model of one client is in
 * fedbn/mcsl.h. */
#ifndef FEDBN_FEDDAG_H
#define FEDBN_FEDDAG_H

#include "fedbn/algo.h"

/* The learners. */
extern const fb_algo fb_algo_mcsl, fb_algo_gs_feddag, fb_algo_as_feddag,
	fb_algo_as_feddag_linear;

/* Client k's local objective at its last step and its own figure ||U_k - U_avg||_F: the
 * distance of the reply it sent the round before from the average that round's broadcast
 * brought back, computed by the client (the server sees only the sum of the replies); NaN
 * when it sent none in the last round or the one before, and where its half runs in another
 * process.  For a gs-feddag, as-feddag or as-feddag-linear run; FB_ERR when run is none of
 * these or k is out of range. */
int fb_feddag_client(const fb_run *run, size_t k, double *loss, double *dist);
/* Whether a client's reply of this many bytes (a trace record's sent[k]) carried its
 * parameters, not the empty reply of a client whose reply was lost. */
bool fb_feddag_replied(const fb_run *run, size_t bytes);

/* Client k's flat network parameters and their count (NULL and 0 for the linear model, for a
 * run of another algorithm or k out of range); valid until the run steps again. */
const double *fb_feddag_client_net(const fb_run *run, size_t k, size_t *len);

#endif
