# `make package` / `cpack -G DEB`: a Debian package of trainready. Everything is an ordinary
# install() rule, so whatever else the project installs (a plugin library under
# TRAINREADY_PLUGIN_INSTALL_DIR, CMakeLists.txt) lands in the package too. GNUInstallDirs is included at the
# top of CMakeLists.txt, before any install() rule.

install(TARGETS trainready RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# The man page and the completion scripts are printed by the binary just built from its own
# option definitions (`help-man`, `completions`): build outputs, never committed or hand-written.
set(TR_GENERATED_DOCS ${CMAKE_BINARY_DIR}/generated/docs)
set(TR_MAN_PAGE ${TR_GENERATED_DOCS}/trainready.1.gz)
set(TR_BASH_COMPLETION ${TR_GENERATED_DOCS}/trainready.bash)
set(TR_ZSH_COMPLETION ${TR_GENERATED_DOCS}/_trainready)
add_custom_command(
  OUTPUT ${TR_MAN_PAGE} ${TR_BASH_COMPLETION} ${TR_ZSH_COMPLETION}
  COMMAND ${CMAKE_COMMAND} -DBIN=$<TARGET_FILE:trainready> -DOUT_DIR=${TR_GENERATED_DOCS}
          -P ${CMAKE_SOURCE_DIR}/cmake/generate_docs.cmake
  DEPENDS trainready ${CMAKE_SOURCE_DIR}/cmake/generate_docs.cmake
  COMMENT "Generating the man page and shell completions from trainready's option definitions")
add_custom_target(trainready_docs ALL DEPENDS ${TR_MAN_PAGE} ${TR_BASH_COMPLETION}
                                              ${TR_ZSH_COMPLETION})

install(FILES ${TR_MAN_PAGE} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${TR_BASH_COMPLETION} DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
        RENAME trainready)
install(FILES ${TR_ZSH_COMPLETION} DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions)
file(GLOB TR_DOC_PAGES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/docs/*.md)
install(FILES ${TR_DOC_PAGES} DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/docs/rules/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/rules
        FILES_MATCHING PATTERN "*.md")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME trainready)
# Two packages, as distributions split an MPI build: `trainready` (the binary, man page,
# completions, docs) installs on any node, and `trainready-mpi` (the plugin that `bench` and
# `fleet` load) depends on Open MPI's libmpi.so.40 (libopenmpi3). With one package, Depends
# would pull Open MPI onto every node, which is what the plugin exists to avoid.
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL tool mpi)
set(CPACK_DEBIAN_TOOL_PACKAGE_NAME trainready)
set(CPACK_DEBIAN_MPI_PACKAGE_NAME trainready-mpi)
set(CPACK_COMPONENT_MPI_DESCRIPTION
    "trainready's MPI layer, loaded at run time by bench and fleet (uses the node's Open MPI)")
set(CPACK_DEBIAN_MPI_PACKAGE_DEPENDS "trainready (= ${PROJECT_VERSION})")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_CONTACT "trainready maintainers <maintainers@users.noreply.a-seed-3533fc87.example>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # trainready_0.1.0_amd64.deb
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
# Depends is computed by dpkg-shlibdeps from the libraries the binary and the network plugin
# really link (libc6, libsimdjson14 for lint, libstdc++6; libcurl4, libxml2, libmicrohttpd12 for
# the plugin, ...), never kept by hand; it needs dpkg-dev and file
# (setup-deps.sh).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The build keeps -g1 for crash reports; the package ships the stripped binary (a quarter the size).
set(CPACK_STRIP_FILES ON)
include(CPack)
