// libsndfile's C API (Debian's libsndfile1-dev, installed by scripts/setup.sh). Debian builds it
// with libFLAC, libvorbis/libopus (Ogg) and mpg123/LAME, so one library reads and writes WAV,
// FLAC, Ogg Vorbis, Ogg Opus and MP3. The Audio target reaches it through virtual I/O only
// (bytes in memory, never a path it opens itself).
#include <sndfile.h>
