/* sbx's trusted zygote (frontend/warm/zygote/, joined and embedded at build time by
 * common/embed.sh): the fixed Python program a warm suite's worker runs as
 * `PYTHON -I -B -c SOURCE`. The frontend sends it; the helper's --zygote
 * mode runs nothing else (it compares the argv word with this string). */
#ifndef SBX_ZYGOTE_H
#define SBX_ZYGOTE_H

extern const char *const sbx_zygote_source;

#endif
