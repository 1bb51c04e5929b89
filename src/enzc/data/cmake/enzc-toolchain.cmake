# CMake toolchain file for enzc: builds C and C++ through enzcc / enzc++.
#
#   cmake -DCMAKE_TOOLCHAIN_FILE=$(enzcc --cmake-toolchain) ..
#
# enzcc is looked up in ENZC_BIN_DIR (a -D cache variable or environment variable),
# then in the active virtual environment, then next to a regular (non-editable)
# install of the package, then on PATH.

set(_enzc_hints)
foreach(_dir "${ENZC_BIN_DIR}" "$ENV{ENZC_BIN_DIR}" "$ENV{VIRTUAL_ENV}/bin")
  if(_dir AND NOT _dir STREQUAL "/bin")
    list(APPEND _enzc_hints "${_dir}")
  endif()
endforeach()
# <prefix>/lib/pythonX.Y/site-packages/enzc/data/cmake -> <prefix>/bin
get_filename_component(_enzc_prefix "${CMAKE_CURRENT_LIST_DIR}/../../../../../.." ABSOLUTE)
list(APPEND _enzc_hints "${_enzc_prefix}/bin")

find_program(ENZC_ENZCC NAMES enzcc HINTS ${_enzc_hints})
find_program(ENZC_ENZCXX NAMES enzc++ HINTS ${_enzc_hints})
if(NOT ENZC_ENZCC OR NOT ENZC_ENZCXX)
  message(FATAL_ERROR "enzc: cannot find enzcc/enzc++; put the directory holding them on "
                      "PATH, or pass -DENZC_BIN_DIR=<dir>")
endif()

set(CMAKE_C_COMPILER "${ENZC_ENZCC}" CACHE FILEPATH "enzc C compiler" FORCE)
set(CMAKE_CXX_COMPILER "${ENZC_ENZCXX}" CACHE FILEPATH "enzc C++ compiler" FORCE)

# Objects from enzcc carry bitcode in `.llvmbc`. GNU ar asks the system's LLVM gold
# plugin for their symbols, which fails when that plugin is older than LLVM 22 and
# leaves the archive without an index; llvm-ar-22 reads them correctly.
find_program(ENZC_AR NAMES llvm-ar-22 llvm-ar ar)
find_program(ENZC_RANLIB NAMES llvm-ranlib-22 llvm-ranlib ranlib)
set(CMAKE_AR "${ENZC_AR}" CACHE FILEPATH "archiver" FORCE)
set(CMAKE_RANLIB "${ENZC_RANLIB}" CACHE FILEPATH "ranlib" FORCE)
