/* admm.h: being written */
