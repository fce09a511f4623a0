#!/bin/sh
# Make the PETSc 3.25 source tree build with a CUDA 13 toolkit that ships no NVML (no nvml.h, no
# lib64/stubs/libnvidia-ml.so). PETSc 3.25 uses NVML only for GPU energy/power logging
# (-log_view_gpu_energy, -log_view_gpu_energy_meter, PetscLogGpuEnergyMeterBegin/End) plus an
# nvmlInit_v2()/nvmlShutdown() pair at CUDA device init/shutdown. This script makes NVML optional:
# all NVML code is put under PetscDefined(HAVE_NVML), which this configure never defines, so the
# library neither includes nvml.h (also not from the public header petscdevice_cuda.h) nor links
# libnvidia-ml. The energy-logging device-context ops become NULL (as they are for HIP): using them
# fails at run time with PETSc's "No method ..." error; everything else is unchanged.
# The CUDA-13/CCCL-3 fixes that 3.22.5 needed (patch-cuda13.sh) are already upstream in 3.25.4.
# Usage: sh conf/petsc/patch-nvml.sh PETSC_SOURCE_TREE   (idempotent; fails loudly if the source differs)
set -eu
[ $# -eq 1 ] && [ -f "$1/config/BuildSystem/config/packages/CUDA.py" ] || { echo "usage: $0 petsc-3.25-source-dir" >&2; exit 2; }
cd "$1"
fail() { echo "patch-nvml: $*" >&2; exit 1; }
count() { grep -c -- "$1" "$2" || true; }

# 1. configure: do not require nvml.h, nvmlInit_v2 or the stub libnvidia-ml.so.
f=config/BuildSystem/config/packages/CUDA.py
sed -i "s/self.functions         = \['cublasInit','cufftDestroy','nvmlInit_v2'\]/self.functions         = ['cublasInit','cufftDestroy']/" $f
sed -i "s/'thrust\/version.h','nvml.h'\]/'thrust\/version.h']/" $f
sed -i "s/self.stubliblist       = \[\['libcuda.so','libnvidia-ml.so'\]\]/self.stubliblist       = [['libcuda.so']]/" $f
[ "$(count nvml $f)" = 0 ] || fail "$f still mentions nvml: $(grep -n nvml $f)"
grep -q "self.stubliblist       = \[\['libcuda.so'\]\]" $f || fail "$f: stubliblist not as expected"

# 2. public header: no #include <nvml.h>.
f=include/petscdevice_cuda.h
sed -i '/^ *#include <nvml.h>/d' $f
[ "$(count nvml $f)" = 0 ] || fail "$f still mentions nvml"

# 3. PetscCallNVML macro only with NVML.
f=include/petsc/private/deviceimpl.h
sed -i '/^#if PetscDefined(HAVE_CUDA)$/{N;N;/PetscCallNVML/s/^#if PetscDefined(HAVE_CUDA)/#if PetscDefined(HAVE_NVML)/;}' $f
[ "$(count 'PetscDefined(HAVE_NVML)' $f)" = 1 ] || fail "$f: PetscCallNVML guard not found"

# 4. nvmlInit_v2()/nvmlShutdown() at device init/shutdown only with NVML.
f=src/sys/objects/device/impls/cupm/cupmdevice.cxx
sed -i '/^#if PetscDefined(HAVE_CUDA)$/{N;/nvml/s/^#if PetscDefined(HAVE_CUDA)/#if PetscDefined(HAVE_NVML)/;}' $f
[ "$(count 'PetscDefined(HAVE_NVML)' $f)" = 2 ] || fail "$f: expected 2 NVML guards (nvmlInit_v2, nvmlShutdown)"

# 5. NVML handle, getPower and the energy meter (and their entries in the ops table) only with NVML.
#    In this file every HAVE_CUDA / HAVE_CUDA_VERSION_12_2PLUS guard is about NVML (3 + 2 of them).
f=src/sys/objects/device/impls/cupm/cupmcontext.hpp
sed -i 's/^#if PetscDefined(HAVE_CUDA)$/#if PetscDefined(HAVE_NVML)/; s/^#if PetscDefined(HAVE_CUDA_VERSION_12_2PLUS)$/#if PetscDefined(HAVE_CUDA_VERSION_12_2PLUS) \&\& PetscDefined(HAVE_NVML)/' $f
[ "$(count '^#if PetscDefined(HAVE_NVML)$' $f)" = 3 ] || fail "$f: expected 3 HAVE_CUDA guards turned into HAVE_NVML"
[ "$(count '^#if PetscDefined(HAVE_CUDA_VERSION_12_2PLUS) && PetscDefined(HAVE_NVML)$' $f)" = 2 ] || fail "$f: expected 2 HAVE_CUDA_VERSION_12_2PLUS guards"
[ "$(count 'PetscDefined(HAVE_CUDA)' $f)" = 0 ] || fail "$f: unexpected HAVE_CUDA guard left"
echo "patch-nvml: NVML made optional (PETSC_HAVE_NVML undefined)"
