/* postprocess.c: being written */
