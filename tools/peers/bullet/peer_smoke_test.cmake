# ctest script shared by the peers: `PEER --quick --json --only SCENE` must exit 0 and print an
# impetus-bench/1 document of suite SUITE with machine info and every figure in FIGURES
# (comma-separated names), each a finite number.
cmake_minimum_required(VERSION 3.25)
include(${CMAKE_CURRENT_LIST_DIR}/../../cmake_smoke_check.cmake)
impetus_smoke_document(doc ${SUITE} ${PEER} --quick --json --only ${SCENE})
string(REPLACE "," ";" figures "${FIGURES}")
foreach(figure ${figures})
  impetus_smoke_is_number(is_number "${doc}" ${figure})
  if(NOT is_number)
    message(FATAL_ERROR "figure ${figure} missing or not a number:\n${doc}")
  endif()
endforeach()
