/* notears.h: being written */
