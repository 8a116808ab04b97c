#!/bin/sh
# embed.sh NAME < file > header: the file as a C string constant NAME.
set -eu
printf 'static const char %s[] =\n' "$1"
sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/        "/' -e 's/$/\\n"/'
printf '        ;\n'
