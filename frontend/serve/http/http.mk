# sbx-http (frontend/serve/http/): the server behind `sbx-run --http`
# (docs/http.md), a program of its own so that libmicrohttpd (Debian's
# pulls in GnuTLS and eight more libraries: 1.2 ms more at every start) is
# loaded by the server alone. sbx-run links only cli/http_launch.o, which
# executes it. The unit tests (tests/unit/frontend_http*.c) link
# HTTP_LIB_OBJS.
HTTP_SRCS       := $(sort $(wildcard frontend/serve/http/*.c))
HTTP_OBJS       := $(HTTP_SRCS:%.c=$(BUILD)/%.o)
HTTP_MAIN_OBJ   := $(BUILD)/frontend/serve/http/http_main.o
HTTP_LIB_OBJS   := $(filter-out $(HTTP_MAIN_OBJ),$(HTTP_OBJS))
HTTP_CFLAGS     := $(shell $(PKG_CONFIG) --cflags libmicrohttpd 2>/dev/null)
HTTP_LIBS       := $(shell $(PKG_CONFIG) --libs libmicrohttpd 2>/dev/null || echo -lmicrohttpd)

$(HTTP_OBJS): ALL_CFLAGS += $(FRONTEND_CFLAGS) $(HTTP_CFLAGS) $(FRONTEND_IQUOTE) \
        -DSBX_LIBEXECDIR='"$(LIBEXECDIR)"'
$(HTTP_OBJS): $(CONFIG_STAMP)

all: $(BUILD)/sbx-http

$(BUILD)/sbx-http: $(HTTP_MAIN_OBJ) $(HTTP_LIB_OBJS) $(FACE_LIB_OBJS) $(LIBSBX)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(FRONTEND_LIBS) $(HTTP_LIBS)


# sbx-run's half (frontend/cli/http_launch.c): --http executes sbx-http.
$(BUILD)/frontend/cli/http_launch.o: ALL_CFLAGS += -DSBX_LIBEXECDIR='"$(LIBEXECDIR)"'
frontend-layout-check: $(HTTP_OBJS)
