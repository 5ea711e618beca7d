# GES and its local scores (added to libalgo and libstats)
src_lib_stats_libstats_la_SOURCES += \
	include/fedbn/lscore.h \
	src/lib/stats/lscore.c

src_lib_algo_libalgo_la_SOURCES += \
	include/fedbn/ges.h \
	src/lib/algo/ges.c \
	src/lib/algo/algo-ges.c
