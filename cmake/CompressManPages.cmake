# cmake -DGZIP=gzip -DDIR=dir -P CompressManPages.cmake: gzip -9n every DIR/*.1, as Debian
# policy wants man pages (maximum compression, no name or time stamp: reproducible).
file(GLOB pages ${DIR}/*.1)
foreach(page ${pages})
  execute_process(COMMAND ${GZIP} -9nf ${page} RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "gzip ${page} failed")
  endif()
endforeach()
