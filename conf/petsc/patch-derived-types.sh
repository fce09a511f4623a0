#!/bin/sh
# Make a PETSc 3.22 source tree accept types derived from MATSEQAIJCUSPARSE in aijcusparse's own accessors
# (MatSeqAIJCUSPARSEGetArrayRead(), MatSeqAIJCUSPARSEGetIJ(), ...) and ILU(0)/ICC(0). Their debug-only checks
# want the exact type name, so a debug PETSc (--with-debugging=1) rejects seqaijcusparsecmrs and the other types of
# petsc-gpuformats. After this patch the checks accept any type name that begins with seqaijcusparse; they stay
# debug-only checks, so an optimized PETSc is unchanged.
#   sh conf/petsc/patch-derived-types.sh PETSC_SOURCE_TREE
set -e
cd "$1"
f=src/mat/impls/aij/seq/seqcusparse/aijcusparse.cu
[ -f "$f" ] || { echo "patch-derived-types: no $f under $1" >&2; exit 1; }
n=$(grep -c 'PetscCheckTypeName([AB], MATSEQAIJCUSPARSE);' "$f" || true)
# each check on a line of its own becomes a debug-only block (an optimized PETSc keeps no check, as before)
sed -i -E 's/^([[:space:]]*)PetscCheckTypeName\(([AB]), MATSEQAIJCUSPARSE\);[[:space:]]*$/#if defined(PETSC_USE_DEBUG)\n\1do { PetscBool derived_ = PETSC_FALSE; PetscCall(PetscStrbeginswith(((PetscObject)(\2))->type_name, MATSEQAIJCUSPARSE, \&derived_)); PetscCheck(derived_, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Object (%s) is not %s or a type derived from it", ((PetscObject)(\2))->type_name, MATSEQAIJCUSPARSE); } while (0);\n#endif/' "$f"
left=$(grep -c 'PetscCheckTypeName([AB], MATSEQAIJCUSPARSE);' "$f" || true)
[ "$left" = 0 ] || { echo "patch-derived-types: $left exact checks left in $f" >&2; exit 1; }
# the ILU(0)/ICC(0) symbolic factorizations check the factored matrix's type in an if (PetscDefined(USE_DEBUG)) block:
# "Expected MATSEQAIJCUSPARSE, but input is ..."; only the comparison right before that message changes
k=$(grep -c 'Expected MATSEQAIJCUSPARSE, but input is' "$f" || true)
sed -i -E '/^    PetscCall\(PetscObjectTypeCompare\(\(PetscObject\)A, MATSEQAIJCUSPARSE, &flg\)\);$/{N;s/^    PetscCall\(PetscObjectTypeCompare\(\(PetscObject\)A, MATSEQAIJCUSPARSE, &flg\)\);(\n.*Expected MATSEQAIJCUSPARSE, but input is)/    PetscCall(PetscStrbeginswith(((PetscObject)A)->type_name, MATSEQAIJCUSPARSE, \&flg));\1/}' "$f"
done=$(grep -c 'PetscStrbeginswith(((PetscObject)A)->type_name, MATSEQAIJCUSPARSE, &flg));' "$f" || true)
[ "$done" = "$k" ] || { echo "patch-derived-types: $done of the $k factorization checks in $f changed" >&2; exit 1; }
echo "patch-derived-types: $n checks and $k factorization checks in $f accept derived types"
