/* metrics.c: being written */
