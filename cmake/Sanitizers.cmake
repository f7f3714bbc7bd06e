# PEERGATE_SANITIZE=address,undefined (the asan preset) or thread (the tsan preset).
add_library(peergate_sanitizers INTERFACE)
if(PEERGATE_SANITIZE)
  target_compile_options(peergate_sanitizers INTERFACE
    -fsanitize=${PEERGATE_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  target_link_options(peergate_sanitizers INTERFACE -fsanitize=${PEERGATE_SANITIZE})
endif()
