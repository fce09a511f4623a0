/* Registration of the petsc-gpuformats matrix types, explicitly or through -dll_append */
#include "../impls/cmrs/cmrs.h"
#include "../impls/sellcs/sellcs.h"
#include "../impls/bce/bce.h"

PETSC_INTERN PetscErrorCode MatGPUFormatRegisterReset_Private(void);

static PetscBool PetscGPUFormatsPackageInitialized = PETSC_FALSE;

/* Parallel types arrive with the MPI support; until then a clear error instead of PETSc's unknown type */
static PetscErrorCode MatCreate_MPIGPUFormat_Unavailable(Mat A)
{
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  SETERRQ(PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "The petsc-gpuformats matrix types run on one MPI process for now (this matrix has %d); use %s on several", size, MATMPIAIJCUSPARSE);
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
  PetscGPUFormatsInitializePackage - Registers the matrix types of petsc-gpuformats (`MATCMRS`, `MATSELLCS`, `MATBCE`) and their
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
  PetscCall(MatRegister(MATMPICMRS, MatCreate_MPIGPUFormat_Unavailable));
  PetscCall(MatGPUFormatRegister_Private(&MatSELLCSOps));
  PetscCall(MatRegisterRootName(MATSELLCS, MATSEQSELLCS, MATMPISELLCS));
  PetscCall(MatRegister(MATSEQSELLCS, MatCreate_SeqSELLCS));
  PetscCall(MatRegister(MATMPISELLCS, MatCreate_MPIGPUFormat_Unavailable));
  PetscCall(MatGPUFormatRegister_Private(&MatBCEOps));
  PetscCall(MatRegisterRootName(MATBCE, MATSEQBCE, MATMPIBCE));
  PetscCall(MatRegister(MATSEQBCE, MatCreate_SeqBCE));
  PetscCall(MatRegister(MATMPIBCE, MatCreate_MPIGPUFormat_Unavailable));
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
