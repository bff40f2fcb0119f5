#include "ckernels.h"
