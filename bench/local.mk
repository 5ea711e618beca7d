# benchmarks: programs that print figures (make bench); never part of the test suite
