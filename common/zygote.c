#include "zygote.h"
#include "zygote_text.h"

const char *const sbx_zygote_source = sbx_zygote_py;
