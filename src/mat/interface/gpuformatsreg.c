/* Registration of the petsc-gpuformats matrix types, explicitly or through -dll_append */
#include "../impls/cmrs/cmrs.h"

PETSC_INTERN PetscErrorCode MatGPUFormatRegisterReset_Private(void);

static PetscBool PetscGPUFormatsPackageInitialized = PETSC_FALSE;

/* Parallel types arrive with the MPI support; until then a clear error instead of PETSc's unknown type */
static PetscErrorCode MatCreate_MPICMRS(Mat A)
{
  PetscFunctionBegin;
  SETERRQ(PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "Matrix type %s (%s on more than one MPI process) is not available yet: use %s on one process, or %s", MATMPICMRS, MATCMRS, MATCMRS, MATMPIAIJCUSPARSE);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PetscGPUFormatsFinalizePackage - Forgets the registration done by `PetscGPUFormatsInitializePackage()`;
  called from `PetscFinalize()`

  Level: developer

.seealso: [](ch_matrices), `PetscGPUFormatsInitializePackage()`
@*/
PetscErrorCode PetscGPUFormatsFinalizePackage(void)
{
  PetscFunctionBegin;
  PetscCall(MatGPUFormatRegisterReset_Private());
  PetscGPUFormatsPackageInitialized = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PetscGPUFormatsInitializePackage - Registers the matrix types of petsc-gpuformats (`MATCMRS`) and their
  log events; safe to call more than once

  Not Collective

  Level: beginner

  Note:
  Loading the library with `-dll_append libpetscgpuformats.so` calls this function; a program linked
  against the library may call it instead, after `PetscInitialize()`.

.seealso: [](ch_matrices), `MATCMRS`, `MATSEQCMRS`, `PetscGPUFormatsFinalizePackage()`
@*/
PetscErrorCode PetscGPUFormatsInitializePackage(void)
{
  PetscFunctionBegin;
  if (PetscGPUFormatsPackageInitialized) PetscFunctionReturn(PETSC_SUCCESS);
  PetscGPUFormatsPackageInitialized = PETSC_TRUE;
  PetscCall(MatGPUFormatRegister_Private(&MatCMRSOps));
  PetscCall(MatRegisterRootName(MATCMRS, MATSEQCMRS, MATMPICMRS));
  PetscCall(MatRegister(MATSEQCMRS, MatCreate_SeqCMRS));
  PetscCall(MatRegister(MATMPICMRS, MatCreate_MPICMRS));
  PetscCall(PetscRegisterFinalize(PetscGPUFormatsFinalizePackage));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Called by PETSc for -dll_append libpetscgpuformats.so */
PETSC_EXTERN PetscErrorCode PetscDLLibraryRegister_petscgpuformats(void)
{
  PetscFunctionBegin;
  PetscCall(PetscGPUFormatsInitializePackage());
  PetscFunctionReturn(PETSC_SUCCESS);
}
