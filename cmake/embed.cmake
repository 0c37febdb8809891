# ty_embed_files(TARGET <lib> NAMESPACE <ns> OUTPUT <name> FILES <f>...)
# Generates a .cc that holds each file's bytes as a std::string_view, keyed by its base name,
# so data (catalog tables) ships inside the binary and stays data in the source tree.
function(ty_embed_files)
  cmake_parse_arguments(ARG "" "TARGET;NAMESPACE;OUTPUT" "FILES" ${ARGN})
  set(out ${CMAKE_CURRENT_BINARY_DIR}/${ARG_OUTPUT}.cc)
  # One -D argument carries the whole list; keep its semicolons from splitting the command.
  string(REPLACE ";" "$<SEMICOLON>" files_arg "${ARG_FILES}")
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DNAMESPACE=${ARG_NAMESPACE} "-DFILES=${files_arg}"
            -P ${PROJECT_SOURCE_DIR}/cmake/embed_script.cmake
    DEPENDS ${ARG_FILES} ${PROJECT_SOURCE_DIR}/cmake/embed_script.cmake
    COMMENT "Embedding ${ARG_OUTPUT}"
    VERBATIM)
  target_sources(${ARG_TARGET} PRIVATE ${out})
endfunction()
