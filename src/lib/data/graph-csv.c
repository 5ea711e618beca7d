/* graph-csv.c: being written */
