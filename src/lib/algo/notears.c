/* notears.c: being written */
