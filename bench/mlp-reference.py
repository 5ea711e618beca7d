#!/usr/bin/python3
"""The reference implementations of fedbn's notears-mlp and notears-mlp-admm on one shared
folder (X.csv with a header), at the settings of synth/NONLINEAR_REFERENCE.md (the papers'
defaults), torch on one thread in float64:

  K = 1: xunzheng/notears's notears_nonlinear(NotearsMLP(dims=[d, 10, 1], bias=True), X,
         lambda1=0.01, lambda2=0.01) after torch.manual_seed(SEED);
  K > 1: ignavierng/notears-admm's notears_nonlinear_admm(Xs, lambda1=0.001, lambda2=0.01)
         over K contiguous equal blocks of rows after utils.set_random_seed(SEED), then
         postprocess(B, threshold=0.3).

Prints "cpu_call S" (processor seconds of the learning call), "cpu_process S" (of the whole
process so far: start-up, imports, reading the file and the call), then one line "i j" per
edge i -> j of the graph (0-based).

    PYTHONPATH=CHECKOUT python3 mlp-reference.py FOLDER K SEED

CHECKOUT is the notears checkout for K = 1, the notears-admm one for K > 1."""
import sys
import time

import numpy as np
import torch

torch.set_num_threads(1)
torch.set_default_dtype(torch.double)


def learn(x, k, seed):
    """The reference's weighted adjacency on rows x (k clients), zeros for no edge."""
    if k == 1:
        from notears.nonlinear import NotearsMLP, notears_nonlinear
        torch.manual_seed(seed)
        model = NotearsMLP(dims=[x.shape[1], 10, 1], bias=True)
        return notears_nonlinear(model, x, lambda1=0.01, lambda2=0.01)
    from notears_admm import utils
    from notears_admm.nonlinear_admm import notears_nonlinear_admm
    from notears_admm.postprocess import postprocess
    xs = x.reshape(k, x.shape[0] // k, x.shape[1])
    utils.set_random_seed(seed)
    return postprocess(notears_nonlinear_admm(xs, lambda1=0.001, lambda2=0.01), threshold=0.3)


def main():
    folder, k, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    x = np.loadtxt(folder + "/X.csv", delimiter=",", skiprows=1)
    t0 = time.process_time()
    w = learn(x, k, seed)
    t1 = time.process_time()
    print("cpu_call %.3f" % (t1 - t0))
    print("cpu_process %.3f" % t1)
    for i, j in zip(*np.nonzero(w)):
        print("%d %d" % (i, j))


if __name__ == "__main__":
    main()
