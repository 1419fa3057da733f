# noisetile: one Makefile, no configure step. `make` builds build/noisetile,
# `make test` builds the sanitizer variant and runs every test.
# Local settings (CC, OPT, ...) go in an untracked config.mk.
-include config.mk

CC      ?= cc
OPT     ?= -O2
BUILD   := build
PKGS    := libmicrohttpd libpng jansson

# -ffp-contract=off and no fast-math: the same request gives the same bytes
# on every x86-64 build (DESIGN.md, "Numbers").
CSTD    := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
WARN    := -Wall -Wextra -Werror
FP      := -ffp-contract=off -fno-fast-math
CPPFLAGS_ALL := -Inoise -Iserver $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
CFLAGS_ALL   := $(CSTD) $(WARN) $(FP) -MMD -MP $(CPPFLAGS_ALL)
LIBS    := $(or $(shell pkg-config --libs $(PKGS) 2>/dev/null),-lmicrohttpd -lpng16 -ljansson) -lz -lpthread -lm
SAN     := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
TSAN    := -O1 -g -fsanitize=thread

NOISE_SRC   := $(wildcard noise/*.c)
SERVER_SRC  := $(filter-out server/main.c,$(wildcard server/*.c))
TEST_SRC    := $(wildcard tests/test_*.c)

REL_NOISE   := $(NOISE_SRC:%.c=$(BUILD)/rel/%.o)
REL_SERVER  := $(SERVER_SRC:%.c=$(BUILD)/rel/%.o)
SAN_NOISE   := $(NOISE_SRC:%.c=$(BUILD)/asan/%.o)
SAN_SERVER  := $(SERVER_SRC:%.c=$(BUILD)/asan/%.o)
SAN_TESTS   := $(TEST_SRC:tests/%.c=$(BUILD)/asan/bin/%)

.PHONY: all run test test-build deps deps-bench bench clean www image-test fuzz fuzz-build valgrind
.DEFAULT_GOAL := all

all: $(BUILD)/noisetile

# ---- release build ----
$(BUILD)/rel/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(OPT) -c $< -o $@

$(BUILD)/libnoise.a: $(REL_NOISE)
	$(AR) rcs $@ $^

$(BUILD)/noisetile: $(BUILD)/rel/server/main.o $(REL_SERVER) $(BUILD)/libnoise.a
	$(CC) $(OPT) -o $@ $^ $(LIBS)

# ---- sanitizer build: the daemon and every unit test ----
$(BUILD)/asan/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(SAN) -c $< -o $@

$(BUILD)/asan/noisetile: $(BUILD)/asan/server/main.o $(SAN_SERVER) $(SAN_NOISE)
	$(CC) $(SAN) -o $@ $^ $(LIBS)

$(BUILD)/asan/bin/%: $(BUILD)/asan/tests/%.o $(SAN_SERVER) $(SAN_NOISE)
	@mkdir -p $(dir $@)
	$(CC) $(SAN) -o $@ $^ $(LIBS)

# The cache is also tested under ThreadSanitizer.
$(BUILD)/tsan/bin/test_cache: tests/test_cache.c server/cache.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(TSAN) -o $@ $^ -lpthread -lm

# ---- install what is missing, once ----
$(BUILD)/.deps-test: scripts/deps.sh package-lock.json
	@mkdir -p $(BUILD)
	scripts/deps.sh test
	@touch $@

$(BUILD)/.deps-bench: scripts/deps.sh package-lock.json
	@mkdir -p $(BUILD)
	scripts/deps.sh bench
	@touch $@

deps: $(BUILD)/.deps-test
deps-bench: $(BUILD)/.deps-bench

# ---- benchmarks, release flags (BENCHMARKS.md) ----
# Tile rendering and PNG encoding against libpng's defaults.
$(BUILD)/bench/bench_tiles: bench/bench_tiles.c $(BUILD)/rel/server/render.o $(BUILD)/rel/server/pngenc.o $(BUILD)/rel/server/fastz.o $(BUILD)/rel/server/failalloc.o $(BUILD)/libnoise.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(OPT) -o $@ $^ $(LIBS)

.PHONY: bench-tiles
bench-tiles: deps-bench
	$(MAKE) --no-print-directory $(BUILD)/bench/bench_tiles
	$(BUILD)/bench/bench_tiles

# The noise core against stb_perlin and libnoise (a C++ shim, -lnoise).
$(BUILD)/bench/bench_noise: bench/bench_noise.c bench/bench_noise_libnoise.cpp $(BUILD)/libnoise.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(OPT) -c bench/bench_noise.c -o $@.o
	$(CXX) $(OPT) -Wall -Wextra -Werror -c bench/bench_noise_libnoise.cpp -o $@-libnoise.o
	$(CXX) -o $@ $@.o $@-libnoise.o $(BUILD)/libnoise.a -lnoise -lm

.PHONY: bench-noise
bench-noise: deps-bench
	$(MAKE) --no-print-directory $(BUILD)/bench/bench_noise
	$(BUILD)/bench/bench_noise

# A grid's encodings against the bare noise_eval_grid fill of its window.
GRID_OBJS := $(addprefix $(BUILD)/rel/server/,grid.o heights.o gzip.o pngstream.o bytebuf.o render.o pngenc.o fastz.o failalloc.o)
$(BUILD)/bench/bench_grid: bench/bench_grid.c $(GRID_OBJS) $(BUILD)/libnoise.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(OPT) -o $@ $^ $(LIBS)

.PHONY: bench-grid
bench-grid: deps-bench
	$(MAKE) --no-print-directory $(BUILD)/bench/bench_grid
	$(BUILD)/bench/bench_grid

bench: bench-tiles bench-noise bench-grid

# ---- HTTP: cached tiles, the daemon against nginx serving the same bytes;
# the load test (256 connections, 60 s); idle and slow-loris clients. All on
# loopback, bounded in time, release build (BENCHMARKS.md, "HTTP" and "Load
# and slow clients"). The slow-client and SIGTERM-under-load checks also run
# in `make test` (tests/http/slowclients.test.mjs, sigterm-load.test.mjs).
.PHONY: bench-http loadtest slowtest
bench-http: deps-bench
	$(MAKE) --no-print-directory $(BUILD)/noisetile
	BUILD=$(BUILD) bench/http/bench-http.sh

bench: bench-http

loadtest: deps-bench
	$(MAKE) --no-print-directory $(BUILD)/noisetile
	BUILD=$(BUILD) bench/http/loadtest.sh

slowtest: deps
	$(MAKE) --no-print-directory $(BUILD)/noisetile
	NOISETILE_BIN=$(CURDIR)/$(BUILD)/noisetile timeout 60 node tests/http/slowclients.mjs

# ---- the viewer: static/ plus the pinned Leaflet (npm lockfile), so the
# daemon serves everything the page needs and it works with no internet ----
LEAFLET := node_modules/leaflet
$(BUILD)/.www: $(wildcard static/* static/*/*) package-lock.json
	rm -rf $(BUILD)/www
	mkdir -p $(BUILD)/www/vendor/leaflet
	cp -R static/. $(BUILD)/www/
	cp -R $(LEAFLET)/dist/leaflet.js $(LEAFLET)/dist/leaflet.css $(LEAFLET)/dist/images $(LEAFLET)/LICENSE $(BUILD)/www/vendor/leaflet/
	@touch $@

www: $(BUILD)/.www

# ---- the commands of the README ----
# make run compiles on every core, so a fresh clone serves sooner.
NPROC   := $(shell nproc 2>/dev/null || echo 1)
run: deps
	$(MAKE) --no-print-directory -j$(NPROC) $(BUILD)/noisetile $(BUILD)/.www
	$(BUILD)/noisetile --port $${NOISETILE_PORT:-8080} --static $(BUILD)/www

# Sub-make so that pkg-config runs after deps installed the libraries.
test: deps
	$(MAKE) --no-print-directory test-build
	BUILD=$(BUILD) tests/run.sh

# noise/ stands alone: every noise/*.c with -Inoise only, linked with -lm only.
$(BUILD)/noise_standalone: tests/noise_standalone.c $(NOISE_SRC) $(wildcard noise/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) $(FP) $(OPT) -Inoise -o $@ tests/noise_standalone.c $(NOISE_SRC) -lm
	$@ || { rm -f $@; exit 1; }

test-build: $(BUILD)/noise_standalone $(BUILD)/.www $(BUILD)/asan/noisetile $(SAN_TESTS) $(if $(wildcard server/cache.c tests/test_cache.c),$(BUILD)/tsan/bin/test_cache)


# ---- fuzzing (tests/fuzz/README.md): libFuzzer targets built by clang with
# ASan+UBSan; every noise and server object is instrumented for coverage.
# `make fuzz-build` builds them, `make fuzz` runs each for FUZZ_SECONDS on a
# working corpus under $(BUILD)/fuzz/corpus seeded from tests/fuzz/corpus.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_SAN     := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_SRC     := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS    := $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/fuzz/bin/%)
FUZZ_OBJS    := $(NOISE_SRC:%.c=$(BUILD)/fuzz/%.o) $(SERVER_SRC:%.c=$(BUILD)/fuzz/%.o)
# fuzz_points reads the document api_points answers on its way into
# http_response_json.
FUZZ_LDFLAGS_fuzz_points := -Wl,--wrap=http_response_json
.SECONDARY: $(FUZZ_OBJS) $(FUZZ_SRC:%.c=$(BUILD)/fuzz/%.o)

$(BUILD)/fuzz/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CFLAGS_ALL) $(FUZZ_SAN) -fsanitize=fuzzer-no-link -c $< -o $@

$(BUILD)/fuzz/bin/%: $(BUILD)/fuzz/tests/fuzz/%.o $(FUZZ_OBJS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer $(FUZZ_LDFLAGS_$*) -o $@ $^ $(LIBS)

fuzz-build: deps
	$(MAKE) --no-print-directory $(FUZZ_BINS)

fuzz: fuzz-build
	BUILD=$(BUILD) FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/run.sh

# ---- valgrind: the unit tests and the HTTP suite against a daemon built
# without sanitizers (-O1 -g, $(BUILD)/vg), all under valgrind memcheck:
# no error, no definite or indirect leak (tests/valgrind.sh).
VG_OBJS  := $(NOISE_SRC:%.c=$(BUILD)/vg/%.o) $(SERVER_SRC:%.c=$(BUILD)/vg/%.o)
VG_TESTS := $(TEST_SRC:tests/%.c=$(BUILD)/vg/bin/%)
.SECONDARY: $(TEST_SRC:%.c=$(BUILD)/vg/%.o)

$(BUILD)/vg/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -O1 -g -c $< -o $@

$(BUILD)/vg/noisetile: $(BUILD)/vg/server/main.o $(VG_OBJS)
	$(CC) -O1 -g -o $@ $^ $(LIBS)

$(BUILD)/vg/bin/%: $(BUILD)/vg/tests/%.o $(VG_OBJS)
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -o $@ $^ $(LIBS)

valgrind: deps
	$(MAKE) --no-print-directory $(BUILD)/.www $(BUILD)/vg/noisetile $(VG_TESTS)
	BUILD=$(BUILD) tests/valgrind.sh

# Builds the Dockerfile with buildah (no Docker engine), runs the image and
# checks it from the host (scripts/image-test.sh). Needs root.
image-test:
	scripts/image-test.sh

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
