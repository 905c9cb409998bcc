# ctest script: install the build into a temporary prefix, build tests/consumer against it with
# find_package(impetus), run the consumer. Proves that the installed package (headers, library,
# impetusConfig.cmake and its dependencies) is usable on its own.
cmake_minimum_required(VERSION 3.25)
# Inputs (-D): BUILD_DIR, CONSUMER_DIR, WORK_DIR, GENERATOR, CXX_COMPILER, BUILD_TYPE, SANITIZE,
# PUBLIC_HEADERS (;-list, relative to the include root: what must be installed, and nothing else),
# DOC_EXAMPLES (tools/docs/embedding.md), SCENE_FILE (a scene its examples load).
foreach(var BUILD_DIR CONSUMER_DIR WORK_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "consumer_test.cmake: -D${var}=... is required")
  endif()
endforeach()
if(NOT BUILD_TYPE)
  set(BUILD_TYPE Release)
endif()

set(prefix ${WORK_DIR}/prefix)
set(consumer_build ${WORK_DIR}/build)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  message(STATUS "${what}: ok")
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

run_step("install into ${prefix}"
  ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} --config ${BUILD_TYPE})
run_step("run the installed CLI" ${prefix}/bin/impetus --version)

# Public headers only: exactly PUBLIC_HEADERS under include/impetus, none naming nlohmann or the
# World's internals, and each compiling on its own (one translation unit per header, built with
# the consumer below).
set(include_root ${prefix}/include/impetus)
file(GLOB_RECURSE installed RELATIVE ${include_root} ${include_root}/*)
list(SORT installed)
set(expected ${PUBLIC_HEADERS})
list(SORT expected)
if(NOT installed STREQUAL expected)
  message(FATAL_ERROR "installed headers differ from the public list:\n  installed: ${installed}\n"
                      "  expected:  ${expected}")
endif()
set(header_checks ${WORK_DIR}/header_checks)
file(MAKE_DIRECTORY ${header_checks})
foreach(header ${installed})
  file(READ ${include_root}/${header} text)
  if(text MATCHES "nlohmann|world_impl\\.h|#include \"(dynamics|cloth)/")
    message(FATAL_ERROR "installed ${header} exposes an internal or JSON header")
  endif()
  string(MAKE_C_IDENTIFIER ${header} name)
  file(WRITE ${header_checks}/${name}.cpp "#include \"${header}\"\n")
endforeach()
list(LENGTH installed header_count)

# tools/docs/embedding.md: its ```cpp blocks, in order, are one program (doc_examples).
if(DOC_EXAMPLES)
  file(READ ${DOC_EXAMPLES} doc)
  string(REPLACE ";" "<semicolon>" doc "${doc}")  # CMake lists split on ';'
  string(REGEX MATCHALL "```cpp\n[^`]*```" blocks "${doc}")
  set(program "// Cut out of ${DOC_EXAMPLES} by tests/consumer_test.cmake\n")
  foreach(block ${blocks})
    string(REGEX REPLACE "^```cpp\n" "" block "${block}")
    string(REGEX REPLACE "```$" "" block "${block}")
    string(APPEND program "${block}\n")
  endforeach()
  string(REPLACE "<semicolon>" ";" program "${program}")
  list(LENGTH blocks block_count)
  file(WRITE ${WORK_DIR}/doc_examples.cpp "${program}")
  message(STATUS "embedding.md: ${block_count} C++ blocks")
endif()
message(STATUS "public headers: ${header_count} installed, each self-contained")

set(configure_args -S ${CONSUMER_DIR} -B ${consumer_build} -DCMAKE_PREFIX_PATH=${prefix}
                   -DCMAKE_BUILD_TYPE=${BUILD_TYPE} -DHEADER_CHECKS_DIR=${header_checks}
                   -DDOC_EXAMPLES_SOURCE=${WORK_DIR}/doc_examples.cpp)
if(GENERATOR)
  list(APPEND configure_args -G ${GENERATOR})
endif()
if(CXX_COMPILER)
  list(APPEND configure_args -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
endif()
if(SANITIZE STREQUAL "thread")
  list(APPEND configure_args "-DCMAKE_CXX_FLAGS=-fsanitize=thread"
                             "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread")
elseif(SANITIZE)
  # The installed library was built with ASan/UBSan; its consumer must link their runtimes.
  list(APPEND configure_args "-DCMAKE_CXX_FLAGS=-fsanitize=address,undefined"
                             "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined")
endif()
run_step("configure the consumer" ${CMAKE_COMMAND} ${configure_args})
run_step("build the consumer" ${CMAKE_COMMAND} --build ${consumer_build} --config ${BUILD_TYPE})

find_program(consumer_exe consumer PATHS ${consumer_build} ${consumer_build}/${BUILD_TYPE}
             NO_DEFAULT_PATH REQUIRED)
run_step("run the consumer" ${consumer_exe})
message(STATUS "${step_output}")
if(DOC_EXAMPLES)
  find_program(doc_examples_exe doc_examples PATHS ${consumer_build} ${consumer_build}/${BUILD_TYPE}
               NO_DEFAULT_PATH REQUIRED)
  run_step("run embedding.md's examples" ${doc_examples_exe} ${SCENE_FILE})
  message(STATUS "${step_output}")
endif()
