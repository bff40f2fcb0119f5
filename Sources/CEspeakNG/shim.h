// espeak-ng's public C API (Debian's libespeak-ng-dev, installed by scripts/setup.sh).
// The Phonemes target calls only espeak_Initialize, espeak_SetVoiceByName and
// espeak_TextToPhonemes, all behind one lock: the library keeps its state in globals.
#include <espeak-ng/speak_lib.h>
