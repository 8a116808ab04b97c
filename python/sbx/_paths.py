# Where `make install` put sbx-run; None when installed by pip (then
# $SBX_RUN or PATH is used). Rewritten by install.mk.
SBX_RUN = None
