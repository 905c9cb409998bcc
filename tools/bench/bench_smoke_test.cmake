# ctest script: `impetus-bench SUITE --json --quick` must exit 0 and print an impetus-bench/1
# document carrying every figure bench-format.md requires of SUITE, or a `skipped` entry naming
# the part it belongs to (e.g. when the shared benchmark scenes are not there).
cmake_minimum_required(VERSION 3.25)
# Inputs (-D): BENCH (the impetus-bench executable), SUITE.
include(${CMAKE_CURRENT_LIST_DIR}/../cmake_smoke_check.cmake)
impetus_smoke_document(doc ${SUITE} ${BENCH} ${SUITE} --json --quick)

# Parts named by `skipped` entries: the text before the entry's first ':', split at '/' and ','
# ("stack10/chain50: ... not found" names stack10 and chain50).
set(skipped_parts "")
string(JSON skipped_count ERROR_VARIABLE error LENGTH "${doc}" skipped)
if(NOT error AND skipped_count GREATER 0)
  math(EXPR last "${skipped_count} - 1")
  foreach(i RANGE ${last})
    string(JSON entry GET "${doc}" skipped ${i})
    string(FIND "${entry}" ":" colon)
    if(colon GREATER 0)
      string(SUBSTRING "${entry}" 0 ${colon} names)
      string(REGEX REPLACE "[/,]" ";" names "${names}")
      foreach(name ${names})
        string(STRIP "${name}" name)
        list(APPEND skipped_parts "${name}")
      endforeach()
    endif()
  endforeach()
endif()

# Required figures (bench-format.md). Sizes that --quick leaves out are not required: solver's
# chain_n / tree_n for n = 1000, 10000 and chain_1000.*_lu.
set(required "")
if(SUITE STREQUAL "scenes")
  foreach(scene pile_boxes_1k pile_spheres_1k)
    list(APPEND required ${scene}.ms_per_step ${scene}.max_penetration
         ${scene}.ms_per_step.threads_1 ${scene}.ms_per_step.threads_2
         ${scene}.speedup_2_threads_paired ${scene}.speedup_2_threads_paired_min
         ${scene}.speedup_2_threads_paired_max ${scene}.allocations_per_step
         ${scene}.allocations_per_step_at_end)
  endforeach()
elseif(SUITE STREQUAL "ellipsoid")
  foreach(m fixed_point steffensen newton_bisection)
    list(APPEND required ${m}.mean_iterations ${m}.max_iterations ${m}.ns_per_pair
         ${m}.failed_fraction gamma_sweep.${m}.converged_fraction
         gamma_sweep.${m}.mean_iterations eq13.${m}.mean_iterations)
  endforeach()
elseif(SUITE STREQUAL "solver")
  list(APPEND required stack10.drift_mm.block stack10.drift_mm.sequential_impulse
       chain50.joint_error_max)
  foreach(o A B C)
    list(APPEND required paper.simple.${o}.us paper.tree20.${o}.us paper.loops.${o}.us)
  endforeach()
elseif(SUITE STREQUAL "mcd")
  list(APPEND required mesh.adaptive_subdivision.us_per_query mesh.sampling.us_per_query
       mesh.triangles)
  foreach(m golden_section conservative_advancement hybrid sampling)
    list(APPEND required capsule.${m}.evaluations_mean capsule.${m}.us_per_query
         capsule.${m}.miss_fraction)
  endforeach()
elseif(SUITE STREQUAL "plane_toi")
  foreach(p cube octahedron poly50 poly200)
    list(APPEND required ${p}.extreme_vertex.ms ${p}.discrete_dt0.005.ms
         ${p}.discrete_dt0.001.ms ${p}.toi_abs_diff_max)
  endforeach()
elseif(SUITE STREQUAL "phong")
  list(APPEND required ms_per_query.cold ms_per_query.warm triangles
       direction_jump_deg_max.phong direction_jump_deg_max.euclidean)
elseif(SUITE STREQUAL "batch")
  list(APPEND required process_1.runs_per_s jobs_2.runs_per_s jobs_2.efficiency
       ranks_2.runs_per_s ranks_2.efficiency)
elseif(SUITE STREQUAL "cloth")
  foreach(s hang drape)
    list(APPEND required ${s}.vertices ${s}.self_intersections_max)
    foreach(c none provot_tang3 tight_5pt)
      list(APPEND required ${s}.${c}.pairs_mean ${s}.${c}.ms_per_frame)
    endforeach()
  endforeach()
elseif(SUITE STREQUAL "soak")
  foreach(s box_pile ragdolls cloth_box_stack)
    list(APPEND required ${s}.steps ${s}.diverged ${s}.rss_mib_reference ${s}.rss_mib_end
         ${s}.rss_growth_fraction ${s}.energy_max_rise_fraction ${s}.bodies_asleep_end
         ${s}.dynamic_bodies)
  endforeach()
endif()

# A required figure may only be absent when `skipped` names its part (its first dotted name).
foreach(figure ${required})
  string(REGEX REPLACE "\\..*$" "" part "${figure}")
  impetus_smoke_is_number(is_number "${doc}" ${figure})
  if(is_number)
    continue()
  endif()
  if(part IN_LIST skipped_parts)
    message(STATUS "${figure}: skipped (${part})")
    continue()
  endif()
  message(FATAL_ERROR "figure ${figure} missing or not a number:\n${doc}")
endforeach()
# scenes: the paired speed-up lies within its least and greatest round, and --quick makes one
# round, whose ratio is then also the ratio of the two medians (1 thread over 2, not inverted).
if(SUITE STREQUAL "scenes")
  foreach(scene pile_boxes_1k pile_spheres_1k)
    impetus_smoke_is_number(is_number "${doc}" ${scene}.speedup_2_threads_paired)
    if(NOT is_number)
      continue()  # skipped (checked above)
    endif()
    foreach(f speedup_2_threads speedup_2_threads_paired speedup_2_threads_paired_min
              speedup_2_threads_paired_max)
      string(JSON ${f} GET "${doc}" figures ${scene}.${f})
    endforeach()
    if(speedup_2_threads_paired LESS speedup_2_threads_paired_min OR
       speedup_2_threads_paired GREATER speedup_2_threads_paired_max)
      message(FATAL_ERROR "${scene}: paired speed-up ${speedup_2_threads_paired} outside "
                          "[${speedup_2_threads_paired_min}, ${speedup_2_threads_paired_max}]")
    endif()
    if(NOT speedup_2_threads_paired EQUAL speedup_2_threads)
      message(FATAL_ERROR "${scene}: one round's paired speed-up ${speedup_2_threads_paired} "
                          "is not the ratio of the medians ${speedup_2_threads}")
    endif()
  endforeach()
endif()
message(STATUS "impetus-bench ${SUITE}: ok")
