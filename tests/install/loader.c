/* A PETSc program that does not link petsc-gpuformats: the types come from -dll_append only; needs no GPU */
#include <petscmat.h>

int main(int argc, char **argv)
{
  PetscErrorCode (*create)(Mat) = NULL;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscFunctionListFind(MatList, "seqaijcusparsecmrs", &create));
  PetscCheck(create, PETSC_COMM_SELF, PETSC_ERR_PLIB, "seqaijcusparsecmrs not registered: load the plugin with -dll_append <path of libpetscgpuformats.so>");
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "-dll_append registered seqaijcusparsecmrs\n"));
  PetscCall(PetscFinalize());
  return 0;
}
