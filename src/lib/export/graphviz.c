/* graphviz.c: being written */
