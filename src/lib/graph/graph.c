/* graph.c: being written */
