/* Registration of the petsc-gpuformats matrix types, explicitly or through -dll_append */
#include "../impls/cmrs/cmrs.h"
#include "../impls/sellcs/sellcs.h"
#include "../impls/bce/bce.h"
#include "../impls/dia/dia.h"
#include "../impls/hyb/hyb.h"
#include "../impls/argcsr/argcsr.h"
#include "../impls/gpuauto/gpuauto.h"

PETSC_INTERN PetscErrorCode MatGPUFormatRegisterReset_Private(void);

static PetscBool PetscGPUFormatsPackageInitialized = PETSC_FALSE;

/* The parallel types: MATMPIAIJCUSPARSE with its blocks in the format (src/mat/impls/common/gpuformatmpi.c) */
/*MC
   MATMPICMRS - "mpiaijcusparsecmrs" - a parallel `MATMPIAIJCUSPARSE` matrix whose diagonal blocks are `MATSEQCMRS` (CMRS on the GPU);
   the off-diagonal blocks too with `-mat_gpuformat_offdiag`

   Options Database Keys:
+  -mat_type cmrs - the type on any number of processes (with `MatSetFromOptions()`)
-  -mat_gpuformat_offdiag <bool> - the off-diagonal blocks in the format too (default false: cuSPARSE's CSR)

   Level: beginner

   Note:
   `MatMult()` and `MatMultAdd()` are those of `MATMPIAIJCUSPARSE`, which overlap the scatter of the ghost values with the
   product of the diagonal block; the format's options are read with the matrix's prefix and given to the blocks.

.seealso: [](ch_matrices), `Mat`, `MATSEQCMRS`, `MATMPIAIJCUSPARSE`
M*/
static PetscErrorCode MatCreate_MPICMRS(Mat A)
{
  PetscFunctionBegin;
  PetscCall(MatCreate_MPIGPUFormat_Private(A, &MatCMRSOps));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   MATMPISELLCS - "mpiaijcusparsesellcs" - a parallel `MATMPIAIJCUSPARSE` matrix whose diagonal blocks are `MATSEQSELLCS` (SELL-C-sigma on the GPU);
   the off-diagonal blocks too with `-mat_gpuformat_offdiag`

   Options Database Keys:
+  -mat_type sellcs - the type on any number of processes (with `MatSetFromOptions()`)
-  -mat_gpuformat_offdiag <bool> - the off-diagonal blocks in the format too (default false: cuSPARSE's CSR)

   Level: beginner

   Note:
   `MatMult()` and `MatMultAdd()` are those of `MATMPIAIJCUSPARSE`, which overlap the scatter of the ghost values with the
   product of the diagonal block; the format's options are read with the matrix's prefix and given to the blocks.

.seealso: [](ch_matrices), `Mat`, `MATSEQSELLCS`, `MATMPIAIJCUSPARSE`
M*/
static PetscErrorCode MatCreate_MPISELLCS(Mat A)
{
  PetscFunctionBegin;
  PetscCall(MatCreate_MPIGPUFormat_Private(A, &MatSELLCSOps));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   MATMPIBCE - "mpiaijcusparsebce" - a parallel `MATMPIAIJCUSPARSE` matrix whose diagonal blocks are `MATSEQBCE` (BCE on the GPU);
   the off-diagonal blocks too with `-mat_gpuformat_offdiag`

   Options Database Keys:
+  -mat_type bce - the type on any number of processes (with `MatSetFromOptions()`)
-  -mat_gpuformat_offdiag <bool> - the off-diagonal blocks in the format too (default false: cuSPARSE's CSR)

   Level: beginner

   Note:
   `MatMult()` and `MatMultAdd()` are those of `MATMPIAIJCUSPARSE`, which overlap the scatter of the ghost values with the
   product of the diagonal block; the format's options are read with the matrix's prefix and given to the blocks.

.seealso: [](ch_matrices), `Mat`, `MATSEQBCE`, `MATMPIAIJCUSPARSE`
M*/
static PetscErrorCode MatCreate_MPIBCE(Mat A)
{
  PetscFunctionBegin;
  PetscCall(MatCreate_MPIGPUFormat_Private(A, &MatBCEOps));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   MATMPIDIA - "mpiaijcusparsedia" - a parallel `MATMPIAIJCUSPARSE` matrix whose diagonal blocks are `MATSEQDIA` (DIA on the GPU);
   the off-diagonal blocks too with `-mat_gpuformat_offdiag`

   Options Database Keys:
+  -mat_type dia - the type on any number of processes (with `MatSetFromOptions()`)
-  -mat_gpuformat_offdiag <bool> - the off-diagonal blocks in the format too (default false: cuSPARSE's CSR)

   Level: beginner

   Note:
   `MatMult()` and `MatMultAdd()` are those of `MATMPIAIJCUSPARSE`, which overlap the scatter of the ghost values with the
   product of the diagonal block; the format's options are read with the matrix's prefix and given to the blocks. A block
   that DIA declines (-mat_dia_max_fill) multiplies with aijcusparse's product.

.seealso: [](ch_matrices), `Mat`, `MATSEQDIA`, `MATMPIAIJCUSPARSE`
M*/
static PetscErrorCode MatCreate_MPIDIA(Mat A)
{
  PetscFunctionBegin;
  PetscCall(MatCreate_MPIGPUFormat_Private(A, &MatDIAOps));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   MATMPIHYB - "mpiaijcusparsehyb" - a parallel `MATMPIAIJCUSPARSE` matrix whose diagonal blocks are `MATSEQHYB` (HYB on the GPU);
   the off-diagonal blocks too with `-mat_gpuformat_offdiag`

   Options Database Keys:
+  -mat_type hyb - the type on any number of processes (with `MatSetFromOptions()`)
-  -mat_gpuformat_offdiag <bool> - the off-diagonal blocks in the format too (default false: cuSPARSE's CSR)

   Level: beginner

   Note:
   `MatMult()` and `MatMultAdd()` are those of `MATMPIAIJCUSPARSE`, which overlap the scatter of the ghost values with the
   product of the diagonal block; the format's options are read with the matrix's prefix and given to the blocks.

.seealso: [](ch_matrices), `Mat`, `MATSEQHYB`, `MATMPIAIJCUSPARSE`
M*/
static PetscErrorCode MatCreate_MPIHYB(Mat A)
{
  PetscFunctionBegin;
  PetscCall(MatCreate_MPIGPUFormat_Private(A, &MatHYBOps));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   MATMPIELL - "mpiaijcusparseell" - a parallel `MATMPIAIJCUSPARSE` matrix whose diagonal blocks are `MATSEQELL` (ELL on the GPU);
   the off-diagonal blocks too with `-mat_gpuformat_offdiag`

   Options Database Keys:
+  -mat_type ell - the type on any number of processes (with `MatSetFromOptions()`)
-  -mat_gpuformat_offdiag <bool> - the off-diagonal blocks in the format too (default false: cuSPARSE's CSR)

   Level: beginner

   Note:
   `MatMult()` and `MatMultAdd()` are those of `MATMPIAIJCUSPARSE`, which overlap the scatter of the ghost values with the
   product of the diagonal block; the format's options are read with the matrix's prefix and given to the blocks. A
   block that ELL declines (-mat_ell_max_fill) multiplies with aijcusparse's product.

.seealso: [](ch_matrices), `Mat`, `MATSEQELL`, `MATMPIAIJCUSPARSE`
M*/
static PetscErrorCode MatCreate_MPIELL(Mat A)
{
  PetscFunctionBegin;
  PetscCall(MatCreate_MPIGPUFormat_Private(A, &MatELLOps));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   MATMPIARGCSR - "mpiaijcusparseargcsr" - a parallel `MATMPIAIJCUSPARSE` matrix whose diagonal blocks are `MATSEQARGCSR`
   (ARG-CSR on the GPU); the off-diagonal blocks too with `-mat_gpuformat_offdiag`

   Options Database Keys:
+  -mat_type argcsr - the type on any number of processes (with `MatSetFromOptions()`)
-  -mat_gpuformat_offdiag <bool> - the off-diagonal blocks in the format too (default false: cuSPARSE's CSR)

   Level: beginner

   Note:
   `MatMult()` and `MatMultAdd()` are those of `MATMPIAIJCUSPARSE`, which overlap the scatter of the ghost values with the
   product of the diagonal block; the format's options are read with the matrix's prefix and given to the blocks.

.seealso: [](ch_matrices), `Mat`, `MATSEQARGCSR`, `MATMPIAIJCUSPARSE`
M*/
static PetscErrorCode MatCreate_MPIARGCSR(Mat A)
{
  PetscFunctionBegin;
  PetscCall(MatCreate_MPIGPUFormat_Private(A, &MatARGCSROps));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   MATMPIGPUAUTO - "mpiaijcusparsegpuauto" - a parallel `MATMPIAIJCUSPARSE` matrix whose diagonal blocks are `MATSEQGPUAUTO`,
   each choosing its format for itself; the off-diagonal blocks too with `-mat_gpuformat_offdiag`

   Options Database Keys:
+  -mat_type gpuauto - the type on any number of processes (with `MatSetFromOptions()`)
-  -mat_gpuformat_offdiag <bool> - the off-diagonal blocks in the type too (default false: cuSPARSE's CSR)

   Level: beginner

   Note:
   `MatMult()` and `MatMultAdd()` are those of `MATMPIAIJCUSPARSE`, which overlap the scatter of the ghost values with the
   product of the diagonal block; the options are read with the matrix's prefix and given to the blocks.

.seealso: [](ch_matrices), `Mat`, `MATSEQGPUAUTO`, `MATMPIAIJCUSPARSE`
M*/
static PetscErrorCode MatCreate_MPIGPUAuto(Mat A)
{
  PetscFunctionBegin;
  PetscCall(MatCreate_MPIGPUFormat_Private(A, &MatGPUAutoOps));
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
#if !defined(MATGPUFORMAT_UNSUPPORTED_BUILD)
  MatGPUFormatStreamAllocOption = PETSC_BOOL3_UNKNOWN; /* no format's block outlives PetscFinalize() */
#endif
  PetscGPUFormatsPackageInitialized = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PetscGPUFormatsInitializePackage - Registers the matrix types of petsc-gpuformats (`MATCMRS`, `MATSELLCS`, `MATBCE`, `MATDIA`, `MATHYB`, `MATELL`, `MATARGCSR`, `MATGPUAUTO`) and their
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
#if !defined(MATGPUFORMAT_UNSUPPORTED_BUILD)
  /* once for the run: a device block is freed the way it was allocated */
  {
    PetscBool pool, set;

    PetscCall(PetscOptionsGetBool(NULL, NULL, "-mat_gpuformat_stream_alloc", &pool, &set));
    if (set) MatGPUFormatStreamAllocOption = pool ? PETSC_BOOL3_TRUE : PETSC_BOOL3_FALSE;
  }
#endif
  PetscCall(MatGPUFormatRegister_Private(&MatCMRSOps));
  PetscCall(MatRegisterRootName(MATCMRS, MATSEQCMRS, MATMPICMRS));
  PetscCall(MatRegister(MATSEQCMRS, MatCreate_SeqCMRS));
  PetscCall(MatRegister(MATMPICMRS, MatCreate_MPICMRS));
  PetscCall(MatGPUFormatRegister_Private(&MatSELLCSOps));
  PetscCall(MatRegisterRootName(MATSELLCS, MATSEQSELLCS, MATMPISELLCS));
  PetscCall(MatRegister(MATSEQSELLCS, MatCreate_SeqSELLCS));
  PetscCall(MatRegister(MATMPISELLCS, MatCreate_MPISELLCS));
  PetscCall(MatGPUFormatRegister_Private(&MatBCEOps));
  PetscCall(MatRegisterRootName(MATBCE, MATSEQBCE, MATMPIBCE));
  PetscCall(MatRegister(MATSEQBCE, MatCreate_SeqBCE));
  PetscCall(MatRegister(MATMPIBCE, MatCreate_MPIBCE));
  PetscCall(MatGPUFormatRegister_Private(&MatDIAOps));
  PetscCall(MatRegisterRootName(MATDIA, MATSEQDIA, MATMPIDIA));
  PetscCall(MatRegister(MATSEQDIA, MatCreate_SeqDIA));
  PetscCall(MatRegister(MATMPIDIA, MatCreate_MPIDIA));
  PetscCall(MatGPUFormatRegister_Private(&MatHYBOps));
  PetscCall(MatRegisterRootName(MATHYB, MATSEQHYB, MATMPIHYB));
  PetscCall(MatRegister(MATSEQHYB, MatCreate_SeqHYB));
  PetscCall(MatRegister(MATMPIHYB, MatCreate_MPIHYB));
  PetscCall(MatGPUFormatRegister_Private(&MatELLOps));
  PetscCall(MatRegisterRootName(MATELL, MATSEQELL, MATMPIELL));
  PetscCall(MatRegister(MATSEQELL, MatCreate_SeqELL));
  PetscCall(MatRegister(MATMPIELL, MatCreate_MPIELL));
  PetscCall(MatGPUFormatRegister_Private(&MatARGCSROps));
  PetscCall(MatRegisterRootName(MATARGCSR, MATSEQARGCSR, MATMPIARGCSR));
  PetscCall(MatRegister(MATSEQARGCSR, MatCreate_SeqARGCSR));
  PetscCall(MatRegister(MATMPIARGCSR, MatCreate_MPIARGCSR));
  PetscCall(MatGPUFormatRegister_Private(&MatGPUAutoOps));
  PetscCall(MatRegisterRootName(MATGPUAUTO, MATSEQGPUAUTO, MATMPIGPUAUTO));
  PetscCall(MatRegister(MATSEQGPUAUTO, MatCreate_SeqGPUAuto));
  PetscCall(MatRegister(MATMPIGPUAUTO, MatCreate_MPIGPUAuto));
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
