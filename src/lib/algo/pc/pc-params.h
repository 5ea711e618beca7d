/* The parameters of the CI tests, written once for every table that runs PC's tests: the pc
 * learner, and fedpc and its ablations (same names, meanings and defaults, so that fedpc and
 * sep:pc run the same tests). */
#ifndef FEDBN_PC_PARAMS_H
#define FEDBN_PC_PARAMS_H

#include "fedbn/param.h"
#include "fedbn/pc.h"

/* The significance level and the test. */
#define PC_PARAMS_TEST \
	{ "alpha", FB_PARAM_DOUBLE, "0.01", 0, 1, NULL, \
	  "significance level: a pair is independent when p > alpha (fedbn's default is " \
	  "0.01; causal-learn's pc defaults to 0.05: give alpha=0.05 to match it)" }, \
	{ "test", FB_PARAM_CHOICE, "auto", 0, 0, fb_pc_tests, \
	  "CI test; auto: fisher-z for continuous data, g2 for discrete data, dg for mixed " \
	  "data; kci: kernel test for nonlinear data (n r^2 operations per test from " \
	  "low-rank factors of its kernels when their rank r is at most 2n/3, p-values " \
	  "within about 1e-6 of the exact test's; the regression on the conditioning set " \
	  "takes n^3/3 when its kernel's rank is above n/3; n^3 otherwise); dg: degenerate " \
	  "Gaussian likelihood ratio (discrete variables as indicator columns)" }

/* The settings of the discrete tests. */
#define PC_PARAMS_DISCRETE \
	{ "df", FB_PARAM_CHOICE, "adjusted", 0, 0, fb_pc_dfs, \
	  "degrees of freedom of g2/chi2: causal-learn's, pcalg's default, or pcalg's adaptDF" }, \
	{ "small", FB_PARAM_CHOICE, "none", 0, 0, fb_pc_smalls, \
	  "small-sample rule of g2/chi2: none, independent when n < 10 df, dependent when " \
	  "n/cells < 5" }, \
	{ "zero_df", FB_PARAM_CHOICE, "dependent", 0, 0, fb_pc_zero_dfs, \
	  "g2/chi2 given S with 0 degrees of freedom (x or y a function of S): keep the edge, " \
	  "or remove it as causal-learn does" }

#endif
