# PC and the CPDAG tools (added to libalgo and libgraph)
