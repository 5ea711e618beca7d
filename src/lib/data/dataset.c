/* dataset.c: being written */
