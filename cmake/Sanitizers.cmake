# PEERGATE_SANITIZE=address,undefined (the asan preset) or thread (the tsan preset).
add_library(peergate_sanitizers INTERFACE)
if(PEERGATE_SANITIZE)
  target_compile_options(peergate_sanitizers INTERFACE
    -fsanitize=${PEERGATE_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  target_link_options(peergate_sanitizers INTERFACE -fsanitize=${PEERGATE_SANITIZE})
endif()
# libFuzzer steers by the coverage of the parsers, which live in the layer libraries, so
# those get the coverage instrumentation too (the fuzz preset); only the fuzz targets link
# the fuzzer's main.
if(PEERGATE_BUILD_FUZZ)
  target_compile_options(peergate_sanitizers INTERFACE -fsanitize=fuzzer-no-link)
endif()
