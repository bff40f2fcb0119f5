// Debian's libpng-dev (pkg-config `libpng`, libpng 1.6).
#include <png.h>
