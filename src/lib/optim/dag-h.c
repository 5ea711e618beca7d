/* dag-h.c: being written */
