/* admm.c: being written */
