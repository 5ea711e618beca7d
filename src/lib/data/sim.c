/* sim.c: being written */
