# One static library per source directory. Each layer links only the layers
# below it, so an include that crosses the architecture fails to build.
#
#   peergate_add_layer(NAME DIR [DEPS...])
#
# Sources are the *.cpp files directly in DIR; a directory with headers only
# becomes an INTERFACE library so its dependents still link.
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
endfunction()
