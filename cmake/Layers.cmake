# One static library per source directory. Each layer links only the layers
# below it; lint.layers (tests/lint/check_layers.py) checks every #include
# against the same table, so an include that crosses the architecture fails
# even when it needs nothing linked (a header-only include).
#
#   peergate_add_layer(NAME DIR [DEPS...])
#
# Sources are the *.cpp files directly in DIR (relative to the calling
# CMakeLists.txt); a directory with headers only becomes an INTERFACE library
# so its dependents still link. The layer peergate_NAME is also recorded for
# the layer table: its folder under src/ and the DEPS that are peergate_*
# targets (the layers it may include).
#
#   peergate_declare_layer(NAME DIR [DEPS...] [NOT FOLDER...])
#
# Records a layer without creating a target, for folders whose targets are made
# by their own CMakeLists.txt. DIR is relative to src/. The FOLDERs after NOT (relative
# to src/) are denied although the deps' closure reaches them: cli reaches sources/
# through pipeline and must call pipeline instead (written "!FOLDER" in the table).
#
#   peergate_write_layer_table(FILE)
#
# Writes the table, one line per layer: NAME DIR DEP... (deps without the
# peergate_ prefix), in the order the layers were recorded.
function(peergate_add_layer name dir)
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${dir}/*.cpp)
  set(target peergate_${name})
  if(sources)
    add_library(${target} STATIC ${sources})
    target_include_directories(${target} PUBLIC ${PROJECT_SOURCE_DIR}/src
                                                ${PROJECT_SOURCE_DIR}/include
                                                ${PROJECT_BINARY_DIR}/generated)
    target_link_libraries(${target} PUBLIC ${ARGN} peergate_sanitizers PRIVATE peergate_warnings)
  else()
    add_library(${target} INTERFACE)
    target_include_directories(${target} INTERFACE ${PROJECT_SOURCE_DIR}/src
                                                   ${PROJECT_SOURCE_DIR}/include
                                                   ${PROJECT_BINARY_DIR}/generated)
    target_link_libraries(${target} INTERFACE ${ARGN} peergate_sanitizers)
  endif()
  file(RELATIVE_PATH src_dir ${PROJECT_SOURCE_DIR}/src ${CMAKE_CURRENT_SOURCE_DIR}/${dir})
  _peergate_record_layer(${name} "${src_dir}" ${ARGN})
endfunction()

function(peergate_declare_layer name dir)
  file(RELATIVE_PATH src_dir ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/src/${dir})
  _peergate_record_layer(${name} "${src_dir}" ${ARGN})
endfunction()

# Global properties: PEERGATE_LAYERS (the names, in order), and per layer
# PEERGATE_LAYER_DIR_<name> and PEERGATE_LAYER_DEPS_<name>.
function(_peergate_record_layer name src_dir)
  if(src_dir STREQUAL "" OR src_dir MATCHES "^\\.\\.")
    message(FATAL_ERROR "layer ${name}: ${src_dir} is not a folder under src/")
  endif()
  get_property(layers GLOBAL PROPERTY PEERGATE_LAYERS)
  if(name IN_LIST layers)
    message(FATAL_ERROR "layer ${name} is recorded twice")
  endif()
  set(deps)
  set(denying OFF)
  foreach(dep ${ARGN})
    if(dep STREQUAL "NOT")
      set(denying ON)  # what follows are folders the layer may not include (lint.layers)
    elseif(denying)
      list(APPEND deps "!${dep}")
    elseif(dep MATCHES "^peergate_(.+)$")
      list(APPEND deps ${CMAKE_MATCH_1})
    endif()
  endforeach()
  set_property(GLOBAL APPEND PROPERTY PEERGATE_LAYERS ${name})
  set_property(GLOBAL PROPERTY PEERGATE_LAYER_DIR_${name} "${src_dir}")
  set_property(GLOBAL PROPERTY PEERGATE_LAYER_DEPS_${name} "${deps}")
endfunction()

function(peergate_write_layer_table file)
  get_property(layers GLOBAL PROPERTY PEERGATE_LAYERS)
  set(table "")
  foreach(name ${layers})
    get_property(dir GLOBAL PROPERTY PEERGATE_LAYER_DIR_${name})
    get_property(deps GLOBAL PROPERTY PEERGATE_LAYER_DEPS_${name})
    string(JOIN " " line ${name} ${dir} ${deps})
    string(APPEND table "${line}\n")
  endforeach()
  # Rewritten only when it changes.
  file(CONFIGURE OUTPUT ${file} CONTENT "${table}" @ONLY)
endfunction()
