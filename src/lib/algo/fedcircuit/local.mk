# Circuit learners (added to libalgo): the circuit learner on one dataset and federated
# circuits (one-pass assembly, distributed EM, federated evaluation and the communication
# cost formulas); the circuits themselves live in src/lib/circuit
src_lib_algo_libalgo_la_SOURCES += \
	include/fedbn/fedcircuit.h \
	src/lib/algo/fedcircuit/algo-circuit.c \
	src/lib/algo/fedcircuit/fc-int.h \
	src/lib/algo/fedcircuit/fedcircuit.c \
	src/lib/algo/fedcircuit/fc-assemble.c \
	src/lib/algo/fedcircuit/fc-eval.c \
	src/lib/algo/fedcircuit/fc-score.c \
	src/lib/algo/fedcircuit/algo-fedcircuit.c

check_PROGRAMS += tests/unit/test-fedcircuit
TESTS += tests/unit/test-fedcircuit
