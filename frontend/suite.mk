# The suite runner's extra library: zlib, to read .jsonl.gz problem files.
# Included by frontend/frontend.mk after FRONTEND_LIBS is set.
FRONTEND_LIBS   += $(shell $(PKG_CONFIG) --libs zlib)
FRONTEND_CFLAGS += $(shell $(PKG_CONFIG) --cflags zlib)
