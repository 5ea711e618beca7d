#!/usr/bin/python3
"""The reference readers of bench-csv on one numeric CSV file (a header, then numbers):
pandas.read_csv (its C engine, defaults) and numpy.loadtxt(delimiter=","), each run once,
printing "pandas S" and "loadtxt S", S the processor seconds of the call
(time.process_time).  A reader that is not installed is left out.

    python3 csv-reference.py FILE"""
import sys
import time

path = sys.argv[1]
try:
    import pandas
    t0 = time.process_time()
    pandas.read_csv(path)
    print("pandas %.3f" % (time.process_time() - t0), flush=True)
except ImportError:
    pass
try:
    import numpy
    t0 = time.process_time()
    numpy.loadtxt(path, delimiter=",", skiprows=1)
    print("loadtxt %.3f" % (time.process_time() - t0), flush=True)
except ImportError:
    pass
