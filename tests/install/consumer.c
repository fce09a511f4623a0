/* Registers the installed plugin's types; needs no GPU */
#include <petscgpuformats.h>

int main(int argc, char **argv)
{
  PetscErrorCode (*create)(Mat) = NULL;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscGPUFormatsInitializePackage());
  PetscCall(PetscFunctionListFind(MatList, MATSEQCMRS, &create));
  PetscCheck(create, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s not registered", MATSEQCMRS);
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "installed petsc-gpuformats registers %s\n", MATSEQCMRS));
  PetscCall(PetscFinalize());
  return 0;
}
