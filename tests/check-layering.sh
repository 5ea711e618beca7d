#!/bin/sh
# Folders follow dependencies: each library folder may include its own public headers and
# those of the folders below it, and only the named folders may include readline, ncurses,
# Graphviz or MPI; core and nn use no outside library but GSL (with its CBLAS).
# Everything is read from the local.mk files: a public header belongs to the folder whose
# local.mk (or a family folder's local.mk inside it, as src/lib/algo/pc/) lists it among its
# sources, and src/lib/F/local.mk names the folders below F in src_lib_F_uses.  These must
# form layers: no folder below itself.
# Fails (listing every offending include) when a file breaks the rule.
top=${top_srcdir:-.}
cd "$top" || exit 99
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT

fail=0
# complain FILE MESSAGE
complain() {
	echo "layering: $1: $2"
	fail=1
}

# header -> module, one "NAME MODULE" a line: the fedbn headers each local.mk lists
for mk in src/lib/*/local.mk src/lib/*/*/local.mk; do
	[ -f "$mk" ] || continue
	mod=$(echo "$mk" | cut -d/ -f3)
	grep -v '^[[:space:]]*#' "$mk" | grep -o 'include/fedbn/[A-Za-z0-9_-]*\.h' |
		sed "s|include/fedbn/\\(.*\\)\\.h|\\1 $mod|"
done > "$tmp/headers"
for h in $(cut -d' ' -f1 "$tmp/headers" | sort | uniq -d); do
	complain "include/fedbn/$h.h" "listed by more than one folder's local.mk"
done

# uses MODULE: the folders below MODULE, as its local.mk names them
uses() {
	sed -n "s/^src_lib_$1_uses *=//p" "src/lib/$1/local.mk" 2>/dev/null
}

# header_module NAME: the module of public header NAME, or nothing
header_module() {
	awk -v h="$1" '$1 == h { print $2; exit }' "$tmp/headers"
}

# allowed MODULE: the fedbn headers MODULE may include (its own and those of its uses)
allowed() {
	for m in "$1" $(uses "$1"); do
		awk -v m="$m" '$2 == m { printf "%s ", $1 }' "$tmp/headers"
	done
}

# the uses must form layers: drop, round by round, the folders whose uses are all dropped
left=$(for d in src/lib/*/; do [ -f "$d/local.mk" ] && basename "$d"; done | tr '\n' ' ')
while [ -n "$left" ]; do
	next= dropped=0
	for m in $left; do
		below=
		for u in $(uses "$m"); do
			[ -f "src/lib/$u/local.mk" ] || complain "src/lib/$m/local.mk" "uses '$u', no folder"
			case " $left " in *" $u "*) below=1 ;; esac
		done
		if [ -n "$below" ]; then next="$next $m"; else dropped=1; fi
	done
	if [ $dropped = 0 ]; then
		complain "src/lib" "folders below one another in a circle:$next"
		break
	fi
	left=$next
done

# check_file FILE MODULE: fedbn headers against the module's list, terminal/graph libraries
check_file() {
	ok=$(allowed "$2")
	for h in $(sed -n 's/^#include *["<]fedbn\/\([A-Za-z0-9_-]*\)\.h[">].*/\1/p' "$1"); do
		case " $ok " in *" $h "*) ;; *)
			hm=$(header_module "$h")
			complain "$1" "includes fedbn/$h.h, of module '${hm:-none}', not below module '$2'" ;;
		esac
	done
	grep -nE '^#include *[<"](readline/|curses|ncurses)' "$1" >/dev/null &&
		complain "$1" "library code includes a terminal header"
	case $1 in src/lib/fed/link-mpi*|src/lib/fed/transport-mpi*) ;; *)
		grep -nE '^#include *[<"]mpi\.h' "$1" >/dev/null &&
			complain "$1" "only src/lib/fed/link-mpi* (or transport-mpi*) may include MPI" ;;
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
	check_file "$f" "$(echo "$f" | cut -d/ -f3)"
done
for f in include/fedbn/*.h; do
	[ -f "$f" ] || continue
	mod=$(header_module "$(basename "$f" .h)")
	if [ -z "$mod" ]; then
		complain "$f" "no folder's local.mk lists it"
	else
		check_file "$f" "$mod"
	fi
done
for f in src/cli/*.[ch]; do
	[ -f "$f" ] || continue
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
# only src/lib/plot starts another program (the plotting tool); src/cli/aslimit.c starts fedbn
# itself again, once, under an address-space limit
for f in src/lib/*/*.c src/lib/*/*/*.c src/cli/*.c; do
	[ -f "$f" ] || continue
	case $f in src/lib/plot/* | src/cli/aslimit.c) continue ;; esac
	grep -nE '\b(exec[lv]p?e?|popen|posix_spawnp?) *\(' "$f" >/dev/null &&
		complain "$f" "only src/lib/plot may start another program"
done
[ $fail = 0 ] && echo "layering: every include follows the folder rule"
exit $fail
