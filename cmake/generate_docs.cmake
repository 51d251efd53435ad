# cmake -DBIN=path/to/trainready -DOUT_DIR=dir -P generate_docs.cmake: runs the binary's
# `help-man` and `completions` commands and writes what the package installs. gzip -n: no name
# or time stamp inside, so the same binary gives the same bytes.
file(MAKE_DIRECTORY ${OUT_DIR})
foreach(job "help-man;trainready.1" "completions;bash;trainready.bash" "completions;zsh;_trainready")
  list(POP_BACK job out)
  execute_process(COMMAND ${BIN} ${job} OUTPUT_FILE ${OUT_DIR}/${out}.tmp RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${BIN} ${job} failed (${rc})")
  endif()
  file(RENAME ${OUT_DIR}/${out}.tmp ${OUT_DIR}/${out})
endforeach()
execute_process(COMMAND gzip -9nf ${OUT_DIR}/trainready.1 RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gzip ${OUT_DIR}/trainready.1 failed (${rc})")
endif()
