/* lbfgs.c: being written */
