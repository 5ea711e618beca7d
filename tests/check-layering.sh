#!/bin/sh
# Folders follow dependencies: each library folder may include only the public headers of the
# folders below it, and only the named folders may include readline, ncurses, Graphviz or MPI;
# core and nn use no outside library but GSL (with its CBLAS).
# Fails (listing every offending include) when a file breaks the rule.
top=${top_srcdir:-.}
cd "$top" || exit 99

# module -> the fedbn headers it may include
allowed() {
	case $1 in
	core)   echo "core param" ;;
	graph)  echo "core param graph metrics cpdag" ;;
	data)   echo "core param graph metrics dataset csv sim bif table" ;;
	stats)  echo "core param graph metrics dataset stats ci lscore" ;;
	circuit) echo "core param dataset csv sim bif stats ci circuit" ;;
	optim)  echo "core param optim" ;;
	nn)     echo "core param nn" ;;
	fed)    echo "core param graph metrics dataset partition fed wire link proto fedmpi sites" ;;
	algo)   echo "core param graph metrics cpdag dataset stats ci lscore optim nn partition fed fedmpi sites circuit algo notears notears-mlp admm pc fedpc ges fedcircuit mcsl feddag link proto serve" ;;
	export) echo "core param graph metrics dataset circuit export" ;;
	experiment) echo "core param table experiment" ;;
	plot)   echo "core param plot" ;;
	esac
}

# public header -> its module
header_module() {
	case $1 in
	core|param) echo core ;;
	graph|metrics|cpdag) echo graph ;;
	dataset|csv|sim|bif|table) echo data ;;
	stats|ci|lscore) echo stats ;;
	partition|fed|wire|link|proto|fedmpi|sites) echo fed ;;
	optim) echo optim ;;
	notears|notears-mlp|admm|algo|pc|fedpc|ges|fedcircuit|mcsl|feddag|serve) echo algo ;;
	*) echo "$1" ;;
	esac
}

fail=0
# complain FILE MESSAGE
complain() {
	echo "layering: $1: $2"
	fail=1
}

# check_file FILE MODULE: fedbn headers against the module's list, terminal/graph libraries
check_file() {
	ok=$(allowed "$2")
	for h in $(sed -n 's/^#include *["<]fedbn\/\([a-z_]*\)\.h[">].*/\1/p' "$1"); do
		case " $ok " in *" $h "*) ;; *) complain "$1" "includes fedbn/$h.h, above module '$2'" ;; esac
	done
	grep -nE '^#include *[<"](readline/|curses|ncurses)' "$1" >/dev/null &&
		complain "$1" "library code includes a terminal header"
	case $1 in src/lib/fed/link-mpi.c) ;; *)
		grep -nE '^#include *[<"]mpi\.h' "$1" >/dev/null &&
			complain "$1" "only src/lib/fed/link-mpi.c may include MPI" ;;
	esac
	case $2 in core|nn)
		grep -nE '^#include *[<"](nlopt|lbfgs|csv)' "$1" >/dev/null &&
			complain "$1" "module '$2' may use no outside library but GSL and its CBLAS" ;;
	esac
	if [ "$2" != export ]; then
		grep -nE '^#include *[<"](gvc|cgraph|graphviz/)' "$1" >/dev/null &&
			complain "$1" "only src/lib/export may include Graphviz"
	fi
}

for f in src/lib/*/*.[ch] src/lib/*/*/*.[ch]; do
	[ -f "$f" ] || continue
	mod=$(echo "$f" | cut -d/ -f3)
	check_file "$f" "$mod"
done
for f in include/fedbn/*.h; do
	base=$(basename "$f" .h)
	check_file "$f" "$(header_module "$base")"
done
for f in src/cli/*.[ch]; do
	case $(basename "$f") in shell*) ;; *)
		grep -nE '^#include *[<"]readline/' "$f" >/dev/null &&
			complain "$f" "only src/cli/shell* may include readline" ;;
	esac
	case $(basename "$f") in pane*) ;; *)
		grep -nE '^#include *[<"](curses|ncurses)' "$f" >/dev/null &&
			complain "$f" "only src/cli/pane* may include ncurses" ;;
	esac
	grep -nE '^#include *[<"](gvc|cgraph|graphviz/)' "$f" >/dev/null &&
		complain "$f" "the program reaches Graphviz only through fedbn/export.h"
	grep -nE '^#include *[<"]mpi\.h' "$f" >/dev/null &&
		complain "$f" "the program reaches MPI only through its link (fedbn/fedmpi.h)"
done
# only src/lib/plot starts another program (the plotting tool)
for f in src/lib/*/*.c src/cli/*.c; do
	case $f in src/lib/plot/*) continue ;; esac
	grep -nE '\b(exec[lv]p?e?|popen|posix_spawnp?) *\(' "$f" >/dev/null &&
		complain "$f" "only src/lib/plot may start another program"
done
[ $fail = 0 ] && echo "layering: every include follows the folder rule"
exit $fail
