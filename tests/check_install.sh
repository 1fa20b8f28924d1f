#!/bin/bash
# check_install.sh BUILD_DIR SCRATCH_DIR - install the build into a scratch prefix and build a user's
# program (the README's C example, checked) against it four ways: CMake find_package with sketchmm::sketchmm_static and with
# sketchmm::sketchmm, pkg-config --static and plain pkg-config. The program defines functions under
# names the library uses internally (tests/install_consumer/consumer.c): the static links fail if the
# installed archive exposes them. Each program must run and print "ok <version>".
set -euo pipefail
build=$1 scratch=$2
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$scratch" && mkdir -p "$scratch"
prefix=$scratch/prefix
cmake --install "$build" --prefix "$prefix" >"$scratch/install.log"
libdir=$(dirname "$(find "$prefix" -name libsketchmm.a | head -1)")
fail=0
run() {  # run NAME PROGRAM
  local out
  if ! out=$(LD_LIBRARY_PATH=$libdir "$2"); then echo "$1: the program failed" >&2; fail=1; return; fi
  case $out in "ok "*) echo "$1: $out" ;; *) echo "$1: unexpected output: $out" >&2; fail=1 ;; esac
}
for link in static shared; do
  b=$scratch/cmake-$link
  if cmake -S "$here/install_consumer" -B "$b" -DCMAKE_PREFIX_PATH="$prefix" -DSKETCHMM_LINK=$link \
       >"$b.log" 2>&1 && cmake --build "$b" >>"$b.log" 2>&1; then
    run "find_package $link" "$b/consumer"
  else
    echo "find_package $link: the build failed:" >&2; tail -20 "$b.log" >&2; fail=1
  fi
done
export PKG_CONFIG_PATH=$libdir/pkgconfig
cc=${CC:-cc}
# pkg-config --static: the archive only (-l:libsketchmm.a), with its private dependencies.
if $cc -o "$scratch/pc-static" "$here/install_consumer/consumer.c" $(pkg-config --cflags sketchmm) \
     -L"$libdir" -l:libsketchmm.a $(pkg-config --static --libs-only-other sketchmm) \
     $(pkg-config --static --libs-only-l sketchmm | sed "s/-lsketchmm//") -lm 2>"$scratch/pc-static.log"; then
  run "pkg-config --static" "$scratch/pc-static"
else
  echo "pkg-config --static: the link failed:" >&2; cat "$scratch/pc-static.log" >&2; fail=1
fi
if $cc -o "$scratch/pc-shared" "$here/install_consumer/consumer.c" $(pkg-config --cflags --libs sketchmm) -lm \
     2>"$scratch/pc-shared.log"; then
  run "pkg-config" "$scratch/pc-shared"
else
  echo "pkg-config: the link failed:" >&2; cat "$scratch/pc-shared.log" >&2; fail=1
fi
exit $fail
