#!/usr/bin/python3
"""How much of the NOTEARS-MLP reference's processor time is its L-BFGS-B routine alone.

Runs bench/mlp-reference.py's K = 1 learner (xunzheng/notears's notears_nonlinear, torch on one
thread in float64) on each FOLDER and times every call into scipy's compiled L-BFGS-B step
(scipy.optimize._lbfgsb.setulb, the netlib routine both sides use), then prints a line a
folder:

    FOLDER call S  lbfgsb S (P %)  evaluations E  per evaluation U us

A program that runs the same optimiser for the same number of evaluations spends at least
the lbfgsb seconds however fast its objective is, so call / lbfgsb bounds its speed ratio.

    PYTHONPATH=NOTEARS_CHECKOUT /usr/bin/python3 mlp-reference-optimiser.py FOLDER:SEED...
"""
import importlib.util
import os
import sys
import time

import numpy as np
from scipy.optimize import _lbfgsb, _lbfgsb_py


class TimedRoutine:
    """scipy's compiled L-BFGS-B module with its step routine timed in processor seconds."""

    def __init__(self):
        self.seconds = 0.0
        self.evaluations = 0

    def __getattr__(self, name):
        return getattr(_lbfgsb, name)

    def setulb(self, *args, **kwargs):
        """One reverse-communication step of the routine, timed; counts the evaluations it
        asks for (the task word it leaves starts with FG)."""
        t0 = time.process_time()
        out = _lbfgsb.setulb(*args, **kwargs)
        self.seconds += time.process_time() - t0
        task = args[11] if len(args) > 11 else kwargs.get("task")
        if task is not None and bytes(task).startswith(b"FG"):
            self.evaluations += 1
        return out


def reference_module():
    """bench/mlp-reference.py loaded as a module (its file name is not an identifier)."""
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location("mlp_reference",
                                                  os.path.join(here, "mlp-reference.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    ref = reference_module()
    for arg in sys.argv[1:]:
        folder, _, seed = arg.rpartition(":")
        x = np.loadtxt(folder + "/X.csv", delimiter=",", skiprows=1)
        timed = TimedRoutine()
        _lbfgsb_py._lbfgsb = timed
        t0 = time.process_time()
        ref.learn(x, 1, int(seed))
        call = time.process_time() - t0
        _lbfgsb_py._lbfgsb = _lbfgsb
        print("%s call %.3f s  lbfgsb %.3f s (%.1f %%)  evaluations %d  per evaluation %.1f us"
              % (os.path.basename(folder), call, timed.seconds, 100.0 * timed.seconds / call,
                 timed.evaluations, 1e6 * timed.seconds / max(timed.evaluations, 1)))


if __name__ == "__main__":
    main()
