// Umbrella header of the C kernel target: every public header of CKernels is listed here, so
// the Clang module changes (and dependents rebuild) whenever a header is added.
#include "od_kernels.h"
#include "od_attention.h"
#include "od_encoder.h"
#include "od_sha256.h"
#include "od_writeback.h"
#include "od_gemm.h"
#include "od_gemm_rows.h"
#include "od_gemm_i16.h"
#include "od_conv.h"
#include "od_conv1d.h"
#include "od_gated.h"
#include "od_pool.h"
