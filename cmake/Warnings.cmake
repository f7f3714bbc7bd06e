# Warnings every first-party target gets; -Werror only where a preset asks for it.
# -Wno-missing-field-initializers: designated initializers that leave defaulted members out are the house style.
add_library(peergate_warnings INTERFACE)
target_compile_options(peergate_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wconversion -Wsign-conversion -Wshadow -Wnon-virtual-dtor
  -Wold-style-cast -Wcast-align -Wno-missing-field-initializers -Woverloaded-virtual -Wnull-dereference -Wimplicit-fallthrough)
if(PEERGATE_WERROR)
  target_compile_options(peergate_warnings INTERFACE -Werror)
endif()
