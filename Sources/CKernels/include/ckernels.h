#ifndef ONDEVICE_CKERNELS_H
#define ONDEVICE_CKERNELS_H
#include <stddef.h>
#include <stdint.h>
#endif
