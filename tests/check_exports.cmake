# check_exports.cmake - the shared library exports the public API and nothing else, and so does the
# installed static library.
#   cmake -DLIB=libsketchmm.so -DNM=nm -DHEADERS=<dir of sketchmm/*.h> -P check_exports.cmake
#   cmake -DLIB=libsketchmm.a -DARCHIVE=1 -DNM=nm -DHEADERS=... -P check_exports.cmake
# Every function a public header declares with SMM_API must be a defined dynamic symbol of LIB (for
# an archive: a defined global symbol), and every such symbol of LIB must be one of them (the
# linker's _init and _fini aside): an internal name of the library never enters a user's link.
if(ARCHIVE)
  set(nm_args -g --defined-only --format=posix)
else()
  set(nm_args -D --defined-only --format=posix)
endif()
execute_process(COMMAND ${NM} ${nm_args} ${LIB}
                OUTPUT_VARIABLE nm_out ERROR_VARIABLE nm_err RESULT_VARIABLE nm_rc)
if(NOT nm_rc EQUAL 0)
  message(FATAL_ERROR "${NM} -D ${LIB} failed: ${nm_err}")
endif()
string(REGEX MATCHALL "[^\n]+" nm_lines "${nm_out}")
set(exported "")
foreach(line IN LISTS nm_lines)
  if(line MATCHES ":$" OR line MATCHES "^[^ ]+\\[[^]]*\\]:$")  # an archive member's heading
    continue()
  endif()
  string(REGEX MATCH "^([^ ]+) " _ "${line}")
  set(name "${CMAKE_MATCH_1}")
  string(REGEX REPLACE "@.*$" "" name "${name}")
  if(NOT name STREQUAL "_init" AND NOT name STREQUAL "_fini")
    list(APPEND exported "${name}")
  endif()
endforeach()

file(GLOB headers "${HEADERS}/*.h")
set(declared "")
foreach(h IN LISTS headers)
  file(READ "${h}" text)
  string(REGEX MATCHALL "\nSMM_API [^;(]*[ *]([a-z_0-9]+)\\(" decls "${text}") # declarations start their line
  foreach(d IN LISTS decls)
    string(REGEX MATCH "([a-z_0-9]+)\\($" _ "${d}")
    list(APPEND declared "${CMAKE_MATCH_1}")
  endforeach()
endforeach()
list(LENGTH declared ndeclared)
if(ndeclared LESS 10)
  message(FATAL_ERROR "found only ${ndeclared} SMM_API declarations in ${HEADERS}: the header scan is broken")
endif()

set(extra ${exported})
list(REMOVE_ITEM extra ${declared})
set(missing ${declared})
list(REMOVE_ITEM missing ${exported})
if(extra OR missing)
  list(JOIN extra " " extra_text)
  list(JOIN missing " " missing_text)
  message(FATAL_ERROR "exports of ${LIB} differ from the public headers:\n"
          "  exported but not declared with SMM_API: ${extra_text}\n"
          "  declared with SMM_API but not exported: ${missing_text}")
endif()
list(LENGTH exported nexported)
message(STATUS "${LIB}: ${nexported} exported functions, each declared in a public header")
