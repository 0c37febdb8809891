# ccache for every build, hitting across checkouts: CI clones into a new folder each time, and a
# newcomer's clone is anywhere. base_dir makes the paths under the checkout relative before ccache
# hashes them, and -ffile-prefix-map makes the object files' own paths (debug info, __FILE__)
# relative too, which is also what lets ccache leave the build directory out of the hash. Compile
# definitions must not carry absolute paths either: tests read theirs from one file
# (tests/support/build_paths.h). -DCMAKE_CXX_COMPILER_LAUNCHER=... replaces all of this.
find_program(CCACHE_PROGRAM ccache)
if(CCACHE_PROGRAM AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_CXX_COMPILER_LAUNCHER /usr/bin/env CCACHE_BASEDIR=${PROJECT_SOURCE_DIR}
                                  ${CCACHE_PROGRAM})
endif()
add_compile_options(-ffile-prefix-map=${PROJECT_SOURCE_DIR}/=)
