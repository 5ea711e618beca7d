/* partition.c: being written */
