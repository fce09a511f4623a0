/*
   gpuauto's model, on the host: the kind of a matrix from its row statistics, and the candidates in the order the type
   tries them. A first model, from the H200 records in bench/results/h200 (one process per matrix, every type timed in
   it); to be fitted again on the sweep of every type (bench/sweep.sh) when it has run:
   - small (at most GPUAUTO_SMALL_NNZ entries): small-inline.md, 13 matrices of 48 k to 809 k entries, products of 4 to
     16 microseconds: BCE the fastest of ours on 8, SELL-C-sigma on 3, CMRS on 2; on the regular ones within 0.94 to 1.06
     of sellcuda and 1.9 to 2.0 times aijcusparse; DIA and HYB were not in that suite. The large matrices of the
     suites have 16 M entries or more: the threshold lies in the unmeasured gap between.
   - regular, short rows (coefficient of variation of the row lengths at most 0.5, longest row at most 128): the
     stencils, banded and FEM-like matrices (0 to 0.28 there; the irregular ones 2.1 and more). DIA first: 1.12 to 1.40
     times our other types on the stencils, banded and full diagonals (dia.md), and it declines a matrix of scattered diagonals itself;
     then HYB, the fastest of the rest on the FEM-like, banded and 2D matrices (argcsr.md), and 0.96 of SELL-C-sigma on the
     27-point one.
   - regular, long rows (the dense 5000 x 5000): BCE 74.7, SELL-C-sigma 78, CMRS 80 microseconds (refresh.jsonl).
   - power-law (coefficient of variation 5 or more and a mean row length of 10 or more: R-MAT, 9.2 to 12.0 and 15.3 to
     15.6): BCE and aijcusparse within 5 % of each other (BCE 122.0 against 125.1 at scale 20, 577 against 548 at 22),
     SELL-C-sigma 0.88 of them; -mat_gpuauto_tune decides between the first two.
   - other irregular rows (circuit-like 2.1, LP-like 333, both of mean 6): SELL-C-sigma, then BCE (144.0 and 160.9 on the
     circuit-like, 206.2 and 210.4 on the LP-like matrix, aijcusparse 168.6 and 241.1).
   ELL and ARG-CSR come after these: ELL's products equal HYB's where it stores a matrix (ell.md), ARG-CSR is slower than
   aijcusparse on every matrix measured (argcsr.md).
*/
#include "gpuauto.h"

const char *const GPUAutoCandidateNames[] = {"aijcusparse", "cmrs", "sellcs", "bce", "dia", "hyb", "ell", "argcsr"};
const char *const GPUAutoRuleNames[]      = {"small", "regular rows, short", "regular rows, long", "power-law rows", "power-law rows, large", "irregular rows"};

/* the order of each kind (every candidate appears once, the preferred first) */
static const GPUAutoCandidate GPUAutoOrder[GPUAUTO_NRULES][GPUAUTO_NCANDIDATES] = {
    {GPUAUTO_BCE,    GPUAUTO_CMRS,   GPUAUTO_SELLCS, GPUAUTO_ELL,  GPUAUTO_ARGCSR, GPUAUTO_CSR,    GPUAUTO_HYB, GPUAUTO_DIA   },
    {GPUAUTO_DIA,    GPUAUTO_SELLCS, GPUAUTO_ELL,    GPUAUTO_BCE,  GPUAUTO_HYB,    GPUAUTO_CMRS,   GPUAUTO_CSR, GPUAUTO_ARGCSR},
    {GPUAUTO_BCE,    GPUAUTO_SELLCS, GPUAUTO_CMRS,   GPUAUTO_CSR,  GPUAUTO_ARGCSR, GPUAUTO_HYB,    GPUAUTO_ELL, GPUAUTO_DIA   },
    {GPUAUTO_BCE,    GPUAUTO_CSR,    GPUAUTO_SELLCS, GPUAUTO_HYB,  GPUAUTO_CMRS,   GPUAUTO_ARGCSR, GPUAUTO_DIA, GPUAUTO_ELL   },
    {GPUAUTO_CSR,    GPUAUTO_BCE,    GPUAUTO_SELLCS, GPUAUTO_CMRS, GPUAUTO_DIA,    GPUAUTO_HYB,    GPUAUTO_ELL, GPUAUTO_ARGCSR},
    {GPUAUTO_SELLCS, GPUAUTO_BCE,    GPUAUTO_CSR,    GPUAUTO_CMRS, GPUAUTO_HYB,    GPUAUTO_ARGCSR, GPUAUTO_DIA, GPUAUTO_ELL   }
};

/* The kind of an m-row matrix of these row statistics */
PetscErrorCode GPUAutoClassify(PetscInt m, const MatGPUFormatRowStats *s, GPUAutoRule *rule)
{
  PetscReal cv;

  PetscFunctionBegin;
  PetscCheck(m >= 0 && s->nnz >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "gpuauto: %" PetscInt_FMT " rows, %" PetscInt_FMT " entries", m, s->nnz);
  cv = s->mean > 0 ? (PetscReal)(s->stddev / s->mean) : 0.0;
  if (s->nnz <= GPUAUTO_SMALL_NNZ) *rule = GPUAUTO_RULE_SMALL;
  else if (cv <= GPUAUTO_REGULAR_CV) *rule = s->maxlen <= GPUAUTO_SHORT_ROW ? GPUAUTO_RULE_REGULAR_SHORT : GPUAUTO_RULE_REGULAR_LONG;
  else if (cv >= GPUAUTO_POWER_CV && s->mean >= GPUAUTO_POWER_MEAN) *rule = s->nnz <= GPUAUTO_POWER_LARGE_NNZ ? GPUAUTO_RULE_POWER_LAW : GPUAUTO_RULE_POWER_LAW_LARGE;
  else *rule = GPUAUTO_RULE_IRREGULAR;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The candidates allowed (a mask of 1 << GPUAutoCandidate) in the order the type tries them, for an m-row matrix of these
   statistics: order[0 .. *n) and the kind; deterministic. mask 0 is an error.
*/
PetscErrorCode GPUAutoRank(PetscInt m, const MatGPUFormatRowStats *s, PetscInt mask, GPUAutoCandidate order[], PetscInt *n, GPUAutoRule *rule)
{
  PetscFunctionBegin;
  PetscCheck(mask > 0 && mask < (1 << GPUAUTO_NCANDIDATES), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "gpuauto: no candidate format allowed");
  PetscCall(GPUAutoClassify(m, s, rule));
  *n = 0;
  for (PetscInt i = 0; i < GPUAUTO_NCANDIDATES; i++) {
    GPUAutoCandidate c = GPUAutoOrder[*rule][i];

    if (mask & (1 << c)) order[(*n)++] = c;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -mat_gpuauto_formats: a list of candidates' names, separated by commas, to the mask of GPUAutoRank() */
PetscErrorCode GPUAutoParseFormats(const char *list, PetscInt *mask)
{
  char  *copy, *tok, *save = NULL;
  size_t len;

  PetscFunctionBegin;
  *mask = 0;
  PetscCall(PetscStrlen(list, &len));
  PetscCheck(len, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-mat_gpuauto_formats: an empty list");
  PetscCall(PetscStrallocpy(list, &copy));
  for (tok = strtok_r(copy, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
    PetscInt c;

    for (c = 0; c < GPUAUTO_NCANDIDATES; c++) {
      PetscBool same;

      PetscCall(PetscStrcmp(tok, GPUAutoCandidateNames[c], &same));
      if (same) break;
    }
    if (c == GPUAUTO_NCANDIDATES) { /* the name kept for the message, the copy freed */
      char           name[64];
      PetscErrorCode ierr = PetscStrncpy(name, tok, sizeof(name)), ferr = PetscFree(copy);

      PetscCall(ierr);
      PetscCall(ferr);
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_UNKNOWN_TYPE, "-mat_gpuauto_formats: unknown format '%s' (aijcusparse, cmrs, sellcs, bce, dia, hyb, ell, argcsr)", name);
    }
    *mask |= 1 << c;
  }
  PetscCall(PetscFree(copy));
  PetscCheck(*mask, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-mat_gpuauto_formats '%s' names no format", list);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The mask back to a list of names, in the candidates' fixed order */
PetscErrorCode GPUAutoFormatsString(PetscInt mask, char *buf, size_t len)
{
  size_t used = 0;

  PetscFunctionBegin;
  PetscCheck(len > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "no room");
  buf[0] = 0;
  for (PetscInt c = 0; c < GPUAUTO_NCANDIDATES; c++) {
    if (!(mask & (1 << c))) continue;
    PetscCall(PetscSNPrintf(buf + used, len - used, "%s%s", used ? "," : "", GPUAutoCandidateNames[c]));
    PetscCall(PetscStrlen(buf, &used));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
