# Included by the ctest smoke scripts of impetus-bench (bench/bench_smoke_test.cmake) and of the
# peer programs (peers/bullet/peer_smoke_test.cmake): the checks every impetus-bench/1 document
# must pass (../shared/spec/bench-format.md), whichever program printed it.

# impetus_smoke_document(<out-var> <suite> <command> [<arg>...]): runs the command, which must
# exit 0 and print an impetus-bench/1 document of suite <suite> with every machine key set; the
# document is stored in <out-var>.
function(impetus_smoke_document out_var suite)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE doc ERROR_VARIABLE log)
  if(NOT rc EQUAL 0)
    string(JOIN " " command ${ARGN})
    message(FATAL_ERROR "${command} exited ${rc}:\n${log}\n${doc}")
  endif()
  string(JSON format ERROR_VARIABLE error GET "${doc}" format)
  if(error OR NOT format STREQUAL "impetus-bench/1")
    message(FATAL_ERROR "not an impetus-bench/1 document (${error}):\n${doc}")
  endif()
  string(JSON doc_suite GET "${doc}" suite)
  if(NOT doc_suite STREQUAL suite)
    message(FATAL_ERROR "suite is '${doc_suite}', expected '${suite}'")
  endif()
  foreach(key cpu threads build commit)
    string(JSON value ERROR_VARIABLE error GET "${doc}" machine ${key})
    if(error OR value STREQUAL "")
      message(FATAL_ERROR "machine.${key} missing: ${error}")
    endif()
  endforeach()
  set(${out_var} "${doc}" PARENT_SCOPE)
endfunction()

# impetus_smoke_is_number(<out-var> <doc> <figure>): whether figures.<figure> is a number.
function(impetus_smoke_is_number out_var doc figure)
  string(JSON type ERROR_VARIABLE error TYPE "${doc}" figures ${figure})
  if(NOT error AND type STREQUAL "NUMBER")
    set(${out_var} TRUE PARENT_SCOPE)
  else()
    set(${out_var} FALSE PARENT_SCOPE)
  endif()
endfunction()
