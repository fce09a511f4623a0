# Installs the library, its header, a CMake package (find_package(petscgpuformats)) and a pkg-config file.
# PETSc's own PETSc.pc names no MPI flags (PETSc expects its compiler wrappers), so ours adds them.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS petscgpuformats EXPORT petscgpuformatsTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES include/petscgpuformats.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
set(_cmakedir ${CMAKE_INSTALL_LIBDIR}/cmake/petscgpuformats)
install(EXPORT petscgpuformatsTargets NAMESPACE petscgpuformats:: DESTINATION ${_cmakedir})
string(REPLACE ";" ":" PETSCGPUFORMATS_PETSC_PC_PATH "${_petsc_pc_dirs}")
configure_package_config_file(cmake/petscgpuformatsConfig.cmake.in ${PROJECT_BINARY_DIR}/petscgpuformatsConfig.cmake INSTALL_DESTINATION ${_cmakedir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/petscgpuformatsConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/petscgpuformatsConfig.cmake ${PROJECT_BINARY_DIR}/petscgpuformatsConfigVersion.cmake cmake/PETSc.cmake DESTINATION ${_cmakedir})
list(TRANSFORM MPI_C_INCLUDE_DIRS PREPEND "-I" OUTPUT_VARIABLE _mpi_includes)
string(JOIN " " PETSCGPUFORMATS_MPI_CFLAGS ${_mpi_includes})
set(PETSCGPUFORMATS_MPI_LIBS "")
foreach(_lib IN LISTS MPI_C_LIBRARIES)
  get_filename_component(_dir "${_lib}" DIRECTORY)
  get_filename_component(_name "${_lib}" NAME_WE)
  string(REGEX REPLACE "^lib" "" _name "${_name}")
  string(APPEND PETSCGPUFORMATS_MPI_LIBS " -L${_dir} -Wl,-rpath,${_dir} -l${_name}")
endforeach()
# PETSc's PETSc.pc gives -L without a run path: ours adds it, so that a program linked with
# `pkg-config --libs petscgpuformats` runs without LD_LIBRARY_PATH, as one linked by PETSc's makefiles does
set(PETSCGPUFORMATS_PETSC_RPATH "-Wl,-rpath,${PETSC_LIBDIR}")
configure_file(cmake/petscgpuformats.pc.in ${PROJECT_BINARY_DIR}/petscgpuformats.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/petscgpuformats.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
