# noisetile: one Makefile, no configure step. `make` builds build/noisetile
# (the daemon with its viewer built in), `make test` builds the sanitizer
# variant and runs every test; `make help` lists the targets.
# Local settings (CC, OPT, ...) go in an untracked config.mk.
-include config.mk

# Quiet output: one short line per step; `make V=1` prints every command.
V ?= 0
Q     := $(if $(filter 1,$(V)),,@)
quiet  = $(if $(filter 1,$(V)),,@printf '  %-6s %s\n' '$(1)' '$(2)';)

CC      ?= cc
OPT     ?= -O2
BUILD   := build
# libdeflate: its Adler-32 and CRC-32 in the PNG path (tiles/fastz.c, pngenc.c)
PKGS    := libpng jansson sqlite3 libdeflate libwebp

# -ffp-contract=off and no fast-math: the same request gives the same bytes
# on every x86-64 build (docs/field.md, "Numbers").
CSTD    := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
WARN    := -Wall -Wextra -Werror
FP      := -ffp-contract=off -fno-fast-math
# libmicrohttpd is not Debian's shared library: scripts/libmicrohttpd.sh
# builds Debian 12's 0.9.75 source with Debian's patches and ours
# (deps/libmicrohttpd/) into $(MHD), and what speaks HTTP links its .a
# (docs/architecture.md, "The HTTP library"). -isystem: its header is
# treated as the system's was.
MHD     := $(BUILD)/mhd
MHD_A   := $(MHD)/lib/libmicrohttpd.a
MHD_H   := $(MHD)/include/microhttpd.h
CPPFLAGS_ALL := -Inoise -Iserver -isystem $(MHD)/include $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
CFLAGS_ALL   := $(CSTD) $(WARN) $(FP) -MMD -MP $(CPPFLAGS_ALL)
LIBS    := $(or $(shell pkg-config --libs $(PKGS) 2>/dev/null),-lpng16 -ljansson -lsqlite3 -ldeflate -lwebp) -lz -lpthread -lm
SAN     := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
TSAN    := -O1 -g -fsanitize=thread

NOISE_SRC   := $(wildcard noise/*.c)
SERVER_SRC  := $(filter-out server/main.c,$(wildcard server/*.c server/*/*.c))
TEST_SRC    := $(wildcard tests/unit/test_*.c)

REL_NOISE   := $(NOISE_SRC:%.c=$(BUILD)/rel/%.o)
REL_SERVER  := $(SERVER_SRC:%.c=$(BUILD)/rel/%.o)
SAN_NOISE   := $(NOISE_SRC:%.c=$(BUILD)/asan/%.o)
SAN_SERVER  := $(SERVER_SRC:%.c=$(BUILD)/asan/%.o)
SAN_TESTS   := $(TEST_SRC:tests/unit/%.c=$(BUILD)/asan/bin/%)
# the noise core as an installed library (below, "make install"); the minor
# version grows with new functions (2.1: noise_field_grid_rows)
LIB_MAJOR   := 2
LIB_VERSION := 2.1.0
PIC_NOISE   := $(NOISE_SRC:%.c=$(BUILD)/pic/%.o)
LIB_FILES   := $(BUILD)/lib/libnoisetile.a $(BUILD)/lib/libnoisetile.so.$(LIB_VERSION)

.PHONY: all help run test test-build deps deps-test deps-bench bench bench-cold clean www image-test fresh-test fuzz fuzz-build valgrind
.DEFAULT_GOAL := all

all: $(BUILD)/noisetile

help:
	@echo 'noisetile: make [TARGET] [V=1]     (V=1 prints every command)'
	@echo '  (none)          build build/noisetile: the daemon, its viewer built in'
	@echo '  run             install what building needs, build, serve on :8080 (NOISETILE_PORT)'
	@echo '  test            install the test tools too, build with sanitizers, run every test'
	@echo '  deps            install what building and running need (scripts/deps.sh build)'
	@echo '  deps-test       that and the test tools; deps-bench: and the benchmark peers'
	@echo '  valgrind        unit and HTTP tests under valgrind memcheck'
	@echo '  test-avx512-emu the noise tests on the AVX-512 path in bochs, for CPUs without it (hours)'
	@echo '  fuzz            each libFuzzer target for FUZZ_SECONDS (default 60); fuzz-build'
	@echo '  slowtest        idle and slow-loris clients on every slot, a normal client served'
	@echo '  loadtest        256 connections for 60 s on loopback'
	@echo '  bench           bench-tiles bench-noise bench-grid bench-grid-http bench-http'
	@echo '                  bench-cold bench-export bench-rest bench-graph'
	@echo '                  (bench-noise FASTNOISE2_DIR=DIR: and FastNoise2 from that source tree)'
	@echo '  deploytest      the deploy/ setups (nginx cache) checked on loopback'
	@echo '  image-test      build and check the container image with buildah (root)'
	@echo '  fresh-test      make run and make test in a clean Debian 12 container (root, minutes)'
	@echo '  install         the noise core as a library, headers, pkg-config (PREFIX, DESTDIR)'
	@echo '  lib, uninstall  build that library in build/lib; remove what install put in PREFIX'
	@echo '  www             stage the viewer in build/www (for --static build/www)'
	@echo '  clean           remove build/'

# ---- the viewer: static/ and the library files below, staged in build/www
# and compiled into the binary (server/service/embedded.h, scripts/embed-www.sh), so
# build/noisetile serves everything the page needs, with no internet and no
# flag (--static DIR overrides it). To embed another file, add
# "URL-PATH=SOURCE" to WWW_VENDOR, its npm package pinned in package.json and
# package-lock.json (as a "dependencies" entry: `make run` installs those).
LEAFLET := node_modules/leaflet
THREE   := node_modules/three
WWW_VENDOR := \
  vendor/leaflet/leaflet.js=$(LEAFLET)/dist/leaflet.js \
  vendor/leaflet/leaflet.css=$(LEAFLET)/dist/leaflet.css \
  vendor/leaflet/LICENSE=$(LEAFLET)/LICENSE \
  vendor/pmtiles/pmtiles.js=node_modules/pmtiles/dist/pmtiles.js \
  $(foreach f,layers.png layers-2x.png marker-icon.png marker-icon-2x.png marker-shadow.png,vendor/leaflet/images/$(f)=$(LEAFLET)/dist/images/$(f)) \
  vendor/three/three.module.js=$(THREE)/build/three.module.js \
  vendor/three/three.core.js=$(THREE)/build/three.core.js \
  vendor/three/OrbitControls.js=$(THREE)/examples/jsm/controls/OrbitControls.js \
  vendor/three/LICENSE=$(THREE)/LICENSE
WWW_VENDOR_SRC := $(foreach v,$(WWW_VENDOR),$(word 2,$(subst =, ,$(v))))
WWW_STATIC := $(shell find static -type f 2>/dev/null | LC_ALL=C sort)
# The list itself, rewritten only when it changes, so that adding or removing
# a file restages the viewer (npm gives every file the same old mtime).
WWW_LIST := $(BUILD)/www.list
$(shell mkdir -p $(BUILD); printf '%s\n' $(WWW_STATIC) $(WWW_VENDOR) | cmp -s - $(WWW_LIST) 2>/dev/null || printf '%s\n' $(WWW_STATIC) $(WWW_VENDOR) >$(WWW_LIST))
WWW_C := $(BUILD)/gen/www.c

$(BUILD)/.www: $(WWW_LIST) $(WWW_STATIC) $(WWW_VENDOR_SRC) package-lock.json
	$(call quiet,WWW,$(BUILD)/www)rm -rf $(BUILD)/www && mkdir -p $(BUILD)/www && cp -R static/. $(BUILD)/www/ && \
	for v in $(WWW_VENDOR); do mkdir -p "$(BUILD)/www/$$(dirname "$${v%%=*}")" && cp "$${v#*=}" "$(BUILD)/www/$${v%%=*}" || exit 1; done
	$(Q)touch $@

$(WWW_C): $(BUILD)/.www scripts/embed-www.sh
	@mkdir -p $(dir $@)
	$(call quiet,GEN,$@)scripts/embed-www.sh $(BUILD)/www $@

www: $(BUILD)/.www

# A library file of the viewer is missing: npm has not installed it.
node_modules/%:
	@echo "missing $@: the viewer's pinned libraries come from npm; run 'make deps' (or scripts/deps.sh build)" >&2; exit 1

# Headers and libraries present, or a message naming the command that
# installs them (instead of the compiler's "jansson.h: No such file").
$(BUILD)/.libs:
	@pkg-config --exists $(PKGS) 2>/dev/null || { PKGS="$(PKGS)" scripts/deps.sh --check build; exit 1; }
	@mkdir -p $(BUILD) && touch $@

# The patched libmicrohttpd, built once (about a minute; downloads cached in
# deps/downloads/). Only the objects that include its header wait for it.
MHD_PATCHES := $(wildcard deps/libmicrohttpd/*.patch)
$(MHD_A) $(MHD_H) &: scripts/libmicrohttpd.sh $(MHD_PATCHES) | $(BUILD)/.libs
	$(call quiet,MHD,$(MHD_A))CC="$(CC)" scripts/libmicrohttpd.sh $(MHD) $(if $(filter 1,$(V)),,>/dev/null)
MHD_USERS := $(basename $(shell grep -l '<microhttpd.h>\|"net/connguard.h"' server/*.c server/*/*.c tests/unit/*.c tests/fuzz/*.c 2>/dev/null))
$(foreach f,rel asan vg fuzz,$(MHD_USERS:%=$(BUILD)/$(f)/%.o)): $(MHD_H)

# ---- release build ----
# graphs/presets.json is built into graphs.o (.incbin, service/graphs.c)
$(foreach v,rel asan fuzz vg,$(BUILD)/$(v)/server/service/graphs.o): graphs/presets.json

$(BUILD)/rel/%.o: %.c | $(BUILD)/.libs
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(CFLAGS_ALL) $(OPT) -c $< -o $@

$(BUILD)/rel/www.o: $(WWW_C) | $(BUILD)/.libs
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(CFLAGS_ALL) $(OPT) -c $< -o $@

$(BUILD)/libnoise.a: $(REL_NOISE)
	$(call quiet,AR,$@)$(AR) rcs $@ $^

$(BUILD)/noisetile: $(BUILD)/rel/server/main.o $(REL_SERVER) $(BUILD)/rel/www.o $(BUILD)/libnoise.a $(MHD_A)
	$(call quiet,LINK,$@)$(CC) $(OPT) -o $@ $^ $(LIBS)

# ---- sanitizer build: the daemon and every unit test ----
$(BUILD)/asan/%.o: %.c | $(BUILD)/.libs
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(CFLAGS_ALL) $(SAN) -c $< -o $@

$(BUILD)/asan/www.o: $(WWW_C) | $(BUILD)/.libs
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(CFLAGS_ALL) $(SAN) -c $< -o $@

$(BUILD)/asan/noisetile: $(BUILD)/asan/server/main.o $(SAN_SERVER) $(BUILD)/asan/www.o $(SAN_NOISE) $(MHD_A)
	$(call quiet,LINK,$@)$(CC) $(SAN) -o $@ $^ $(LIBS)

$(BUILD)/asan/bin/%: $(BUILD)/asan/tests/unit/%.o $(SAN_SERVER) $(BUILD)/asan/www.o $(SAN_NOISE) $(MHD_A)
	@mkdir -p $(dir $@)
	$(call quiet,LINK,$@)$(CC) $(SAN) -o $@ $^ $(LIBS)

# The C code of Wikipedia's Perlin noise article, the reference of the classic
# kind, as printed: its `a *= 3284157443` multiplies in signed long and
# overflows for negative cells (tests/unit/wikipedia_perlin.c), so this one object
# is built without UBSan's signed-overflow check, and its `a >> w-s` without
# -Wparentheses.
$(BUILD)/asan/bin/test_noise_classic: $(BUILD)/asan/tests/unit/wikipedia_perlin.o
$(BUILD)/asan/tests/unit/wikipedia_perlin.o: SAN += -fno-sanitize=signed-integer-overflow
$(BUILD)/asan/tests/unit/wikipedia_perlin.o: CFLAGS_ALL += -Wno-parentheses

# The vector paths (noise_avx2.c, noise_avx512.c) are a few very large
# functions (every kernel inlined into its row and batch loops). Under
# ASan, gcc's inline checks and full variable tracking made noise_avx2.o
# an 11-minute compile (measured; noise_avx512.o was not), most of make
# test's time. Here the checks are calls
# (asan-instrumentation-with-call-threshold=0: the same checks, smaller
# code) and the debug information is line tables (-g1: reports keep file
# and line), which took noise_avx2.o from 670 to 284 s of CPU on the same
# machine (docs/development.md, "Tests").
SAN_VEC_OBJS := $(BUILD)/asan/noise/noise_avx2.o $(BUILD)/asan/noise/noise_avx512.o
$(SAN_VEC_OBJS): SAN := $(filter-out -g,$(SAN)) -g1 --param asan-instrumentation-with-call-threshold=0

# The cache and the render pool are also tested under ThreadSanitizer
# (each test links only its module).
TSAN_TESTS := $(BUILD)/tsan/bin/test_cache $(BUILD)/tsan/bin/test_pool
$(BUILD)/tsan/bin/test_cache: tests/unit/test_cache.c server/service/cache.c
$(BUILD)/tsan/bin/test_pool: tests/unit/test_pool.c server/service/pool.c
$(TSAN_TESTS): | $(BUILD)/.libs
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(CFLAGS_ALL) $(TSAN) -o $@ $(filter %.c,$^) -lpthread -lm

# Objects are kept: a second `make test` recompiles and relinks nothing.
.SECONDARY:

# ---- install what is missing, once (scripts/deps.sh: build < test < bench) ----
$(BUILD)/.deps-build: scripts/deps.sh package-lock.json
	@mkdir -p $(BUILD)
	$(Q)scripts/deps.sh build
	@touch $@

$(BUILD)/.deps-test: scripts/deps.sh package-lock.json
	@mkdir -p $(BUILD)
	$(Q)scripts/deps.sh test
	@touch $@ $(BUILD)/.deps-build

$(BUILD)/.deps-bench: scripts/deps.sh package-lock.json
	@mkdir -p $(BUILD)
	$(Q)scripts/deps.sh bench
	@touch $@ $(BUILD)/.deps-test $(BUILD)/.deps-build

deps: $(BUILD)/.deps-build
deps-test: $(BUILD)/.deps-test
deps-bench: $(BUILD)/.deps-bench

# ---- benchmarks, release flags (BENCHMARKS.md) ----
# Tile rendering and PNG encoding against libpng's defaults.
$(BUILD)/bench/bench_tiles: bench/bench_tiles.c $(BUILD)/rel/server/tiles/render.o $(BUILD)/rel/server/tiles/coarse.o $(BUILD)/rel/server/tiles/fieldsrc.o $(BUILD)/rel/server/tiles/webpenc.o $(BUILD)/rel/server/tiles/pngenc.o $(BUILD)/rel/server/tiles/fastz.o $(BUILD)/rel/server/base/scratch.o $(BUILD)/rel/server/base/failalloc.o $(BUILD)/libnoise.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(OPT) -o $@ $^ $(LIBS)

.PHONY: bench-tiles
bench-tiles: deps-bench
	$(MAKE) --no-print-directory $(BUILD)/bench/bench_tiles
	$(BUILD)/bench/bench_tiles

# The noise core against stb_perlin and libnoise (a C++ shim, -lnoise), and
# against "today": the core of commit $(TODAY) (before the vector paths),
# compiled from git into one object whose only global symbols are
# bench_today_* (bench/bench_noise_today.c), so both run in the same process.
TODAY := 117be87
$(BUILD)/bench/today.o: bench/bench_noise_today.c
	@mkdir -p $(BUILD)/bench/today
	$(Q)rm -rf $(BUILD)/bench/today/* && cd $(BUILD)/bench/today && \
	if git -C $(CURDIR) cat-file -e $(TODAY)^{commit} 2>/dev/null; then \
	  git -C $(CURDIR) archive $(TODAY) noise | tar -x && \
	  for f in noise/*.c $(CURDIR)/bench/bench_noise_today.c; do \
	    $(CC) $(CSTD) $(WARN) $(FP) $(OPT) -Inoise -c $$f -o $$(basename $$f .c).o || exit 1; done; \
	else \
	  echo "bench-noise: no commit $(TODAY) here (shallow clone?): no 'today' column"; \
	  $(CC) $(CSTD) $(WARN) $(OPT) -DBENCH_NO_TODAY -c $(CURDIR)/bench/bench_noise_today.c -o today.o; \
	fi && ld -r -o ../today-all.o *.o
	$(Q)objcopy -w --keep-global-symbol='bench_today_*' $(BUILD)/bench/today-all.o $@

$(BUILD)/bench/bench_noise: bench/bench_noise.c bench/bench_noise_libnoise.cpp $(BUILD)/libnoise.a $(BUILD)/bench/today.o
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(OPT) -c bench/bench_noise.c -o $@.o
	$(CXX) $(OPT) -Wall -Wextra -Werror -c bench/bench_noise_libnoise.cpp -o $@-libnoise.o
	$(CXX) -o $@ $@.o $@-libnoise.o $(BUILD)/bench/today.o $(BUILD)/libnoise.a -lnoise -lm

# FastNoise2 as a peer (its own table, last): FASTNOISE2_DIR names a
# FastNoise2 1.1.1 source tree (e.g. `git clone -b v1.1.1
# https://github.com/Auburn/FastNoise2`), FASTSIMD_DIR the FastSIMD commit it
# pins (default: FastSIMD beside it, $(FASTNOISE2_DIR)/../FastSIMD; if there
# is none, FastNoise2's CMake fetches it). It is built with its own release
# flags under $(BUILD)/fastnoise2, never in its sources, and linked into
# $(BUILD)/bench/bench_noise_fn2 (bench/bench_fastnoise2.cpp). Without
# FASTNOISE2_DIR the table says how to add it. To point at another tree:
# rm -rf $(BUILD)/fastnoise2.
FASTNOISE2_DIR ?=
FASTSIMD_DIR   ?= $(if $(FASTNOISE2_DIR),$(abspath $(FASTNOISE2_DIR)/../FastSIMD))
FN2_BUILD := $(BUILD)/fastnoise2
FN2_LIB   := $(FN2_BUILD)/Release/lib/libFastNoise.a
FN2_CMAKE_FLAGS := -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF -DFASTNOISE2_TOOLS=OFF \
  -DFASTNOISE2_TESTS=OFF -DFASTNOISE2_UTILITY=OFF -DFASTSIMD_TESTS=OFF -DFASTSIMD_EXAMPLES=OFF \
  $(if $(wildcard $(FASTSIMD_DIR)/CMakeLists.txt),-DCPM_FastSIMD_SOURCE=$(abspath $(FASTSIMD_DIR)) \
  -DCPM_USE_LOCAL_PACKAGES=OFF -DFETCHCONTENT_FULLY_DISCONNECTED=ON)

# FastNoise2's library, built once by its own cmake (delete build/fastnoise2 to rebuild it)
$(FN2_LIB):
	@test -f "$(FASTNOISE2_DIR)/CMakeLists.txt" || { echo "FASTNOISE2_DIR=$(FASTNOISE2_DIR): no FastNoise2 source tree there"; exit 1; }
	@command -v cmake >/dev/null || { echo "bench-noise: FastNoise2 needs cmake (scripts/deps.sh bench)"; exit 1; }
	$(Q)test -f $(FN2_BUILD)/CMakeCache.txt || cmake -S "$(abspath $(FASTNOISE2_DIR))" -B $(FN2_BUILD) $(FN2_CMAKE_FLAGS) >/dev/null
	$(Q)cmake --build $(FN2_BUILD) -j2 --target FastNoise >/dev/null

FN2_INC := -I$(FASTNOISE2_DIR)/include -I$(FASTSIMD_DIR)/include -I$(FN2_BUILD)/src/fastsimd/FastSIMD_FastNoise/include \
  $(if $(wildcard $(FASTSIMD_DIR)/CMakeLists.txt),,-I$(FN2_BUILD)/_deps/fastsimd-src/include)
$(BUILD)/bench/bench_noise_fn2: bench/bench_noise.c bench/bench_noise_libnoise.cpp bench/bench_fastnoise2.cpp bench/bench_fastnoise2.h bench/bench_graph_cases.h $(BUILD)/libnoise.a $(BUILD)/bench/today.o $(FN2_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(OPT) -DBENCH_FASTNOISE2 -c bench/bench_noise.c -o $@.o
	$(CXX) $(OPT) -Wall -Wextra -Werror -c bench/bench_noise_libnoise.cpp -o $@-libnoise.o
	$(CXX) -std=c++17 $(OPT) -Wall -Wextra -Werror $(FN2_INC) -c bench/bench_fastnoise2.cpp -o $@-fn2.o
	$(CXX) -o $@ $@.o $@-libnoise.o $@-fn2.o $(BUILD)/bench/today.o $(BUILD)/libnoise.a $(FN2_LIB) -lnoise -lm

BENCH_NOISE := $(BUILD)/bench/bench_noise$(if $(FASTNOISE2_DIR),_fn2)
.PHONY: bench-noise
bench-noise: deps-bench
	$(MAKE) --no-print-directory $(BENCH_NOISE)
	$(BENCH_NOISE)

# Field graphs against their kinds, per node and against their sources'
# fills (bench/bench_graph.c; the graphs: bench/bench_graph_cases.h).
$(BUILD)/bench/bench_graph: bench/bench_graph.c bench/bench_graph_cases.h bench/bench_util.h $(BUILD)/libnoise.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(OPT) -o $@ bench/bench_graph.c $(BUILD)/libnoise.a -lm

.PHONY: bench-graph
bench-graph:
	$(MAKE) --no-print-directory $(BUILD)/bench/bench_graph
	$(BUILD)/bench/bench_graph

bench: bench-graph

# A grid's encodings against the bare noise_eval_grid fill of its window.
GRID_OBJS := $(addprefix $(BUILD)/rel/server/,heights/grid.o heights/heights.o base/gzip.o heights/pngstream.o base/bytebuf.o tiles/render.o tiles/pngenc.o tiles/fastz.o base/scratch.o base/failalloc.o)
$(BUILD)/bench/bench_grid: bench/bench_grid.c $(GRID_OBJS) $(BUILD)/libnoise.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(OPT) -o $@ $^ $(LIBS)

.PHONY: bench-grid
bench-grid: deps-bench
	$(MAKE) --no-print-directory $(BUILD)/bench/bench_grid
	$(BUILD)/bench/bench_grid

# A 1025 x 1025 grid.npy against the same samples through POST /points, and
# the daemon's CPU per grid against the bare fill (bench/http/bench-grid.mjs).
.PHONY: bench-grid-http
bench-grid-http: deps-bench
	$(MAKE) --no-print-directory $(BUILD)/noisetile $(BUILD)/bench/bench_grid
	BUILD=$(BUILD) node bench/http/bench-grid.mjs

bench: bench-tiles bench-noise bench-grid bench-grid-http

# REST at the speed of JSON (issue 29): the number printer, the batch's
# parse and answer, and gzip and checksums, old against new in one process
# (bench/bench_rest.c); then a 10,000-point POST against an earlier daemon
# and Node's JSON.parse + JSON.stringify (bench/http/bench-rest.mjs; OLD=
# a release build of an earlier commit gives the same-run CPU ratio).
REST_OBJS := $(addprefix $(BUILD)/rel/server/,heights/batch.o base/jsonout.o base/gzip.o base/bytebuf.o base/errors.o base/failalloc.o)
$(BUILD)/bench/bench_rest: bench/bench_rest.c $(REST_OBJS) $(BUILD)/libnoise.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(OPT) -o $@ $^ $(LIBS)

.PHONY: bench-rest
bench-rest: deps-bench
	$(MAKE) --no-print-directory $(BUILD)/noisetile $(BUILD)/bench/bench_rest
	$(BUILD)/bench/bench_rest
	BUILD=$(BUILD) OLD=$(OLD) node bench/http/bench-rest.mjs

bench: bench-rest

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

# Cold tiles and grid windows through the daemon: its CPU time per tile and per
# grid (bench/http/cold-tiles.py; give it two binaries to compare, BENCHMARKS.md
# "Cold 6-octave terrain tile" and "Grid bands in one call").
.PHONY: bench-cold
bench-cold: deps-bench
	$(MAKE) --no-print-directory $(BUILD)/noisetile
	BUILD=$(BUILD) python3 bench/http/cold-tiles.py
	BUILD=$(BUILD) python3 bench/http/cold-tiles.py --grids --tiles 50

bench: bench-cold

# Export throughput (tiles/s, bytes/tile) against seeding the same tiles
# through the daemon over HTTP (bench/export/bench-export.mjs).
.PHONY: bench-export
bench-export: deps-bench
	$(MAKE) --no-print-directory $(BUILD)/noisetile
	BUILD=$(BUILD) node bench/export/bench-export.mjs

bench: bench-export

loadtest: deps-bench
	$(MAKE) --no-print-directory $(BUILD)/noisetile
	BUILD=$(BUILD) bench/http/loadtest.sh

# Two daemons behind deploy/nginx/noisetile.conf (Debian's nginx), 64
# clients, one replica killed under load; the Compose file and manifests
# checked against the Dockerfile (tests/deploy/, docs/deploy.md).
.PHONY: deploytest
deploytest: deps-bench
	$(MAKE) --no-print-directory $(BUILD)/noisetile
	NOISETILE_BIN=$(CURDIR)/$(BUILD)/noisetile timeout 200 node tests/deploy/deploytest.mjs

slowtest: deps-test
	$(MAKE) --no-print-directory $(BUILD)/noisetile
	NOISETILE_BIN=$(CURDIR)/$(BUILD)/noisetile timeout 60 node tests/http/slowclients.mjs

# ---- the commands of the README ----
# make run installs only what building and running need, and compiles on
# every core, so a fresh clone serves sooner. Sub-makes, so that pkg-config
# runs after deps installed the libraries.
NPROC   := $(shell nproc 2>/dev/null || echo 1)
run: deps
	@$(MAKE) --no-print-directory -j$(NPROC) $(BUILD)/noisetile
	$(BUILD)/noisetile --port $${NOISETILE_PORT:-8080}

test: deps-test
	@$(MAKE) --no-print-directory -j$(NPROC) test-build
	$(Q)BUILD=$(BUILD) tests/run.sh

# noise/ stands alone: every noise/*.c compiled with -Inoise only (the
# library's objects, below), linked with -lm only.
$(BUILD)/noise_standalone: tests/unit/noise_standalone.c $(PIC_NOISE)
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(CSTD) $(WARN) $(FP) $(OPT) -Inoise -o $@ tests/unit/noise_standalone.c $(PIC_NOISE) -lm
	$(Q)$@ >/dev/null || { $@; rm -f $@; exit 1; }

# The release daemon is built too (tests/http/strain.test.mjs measures the
# memory it gives back, which the sanitizer's allocator would keep).
# The installed library is built here too, so that tests/setup/test_install.sh
# (which runs `make install`, one job) only copies files and the compile
# shares the -j of this build.
test-build: $(BUILD)/noise_standalone $(BUILD)/asan/noisetile $(BUILD)/noisetile $(SAN_TESTS) $(TSAN_TESTS) $(LIB_FILES)
	@:


# ---- fuzzing (tests/fuzz/README.md): libFuzzer targets built by clang with
# ASan+UBSan; every noise and server object is instrumented for coverage.
# `make fuzz-build` builds them, `make fuzz` runs each for FUZZ_SECONDS on a
# working corpus under $(BUILD)/fuzz/corpus seeded from tests/fuzz/corpus.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_SAN     := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_SRC     := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS    := $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/fuzz/bin/%)
FUZZ_OBJS    := $(NOISE_SRC:%.c=$(BUILD)/fuzz/%.o) $(SERVER_SRC:%.c=$(BUILD)/fuzz/%.o) $(BUILD)/fuzz/www.o

$(BUILD)/fuzz/%.o: %.c | $(BUILD)/.libs
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(FUZZ_CC) $(CFLAGS_ALL) $(FUZZ_SAN) -fsanitize=fuzzer-no-link -c $< -o $@

$(BUILD)/fuzz/www.o: $(WWW_C) | $(BUILD)/.libs
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(FUZZ_CC) $(CFLAGS_ALL) $(FUZZ_SAN) -fsanitize=fuzzer-no-link -c $< -o $@

$(BUILD)/fuzz/bin/%: $(BUILD)/fuzz/tests/fuzz/%.o $(FUZZ_OBJS) $(MHD_A)
	@mkdir -p $(dir $@)
	$(call quiet,LINK,$@)$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^ $(LIBS)

fuzz-build: deps-test
	$(MAKE) --no-print-directory $(FUZZ_BINS)

fuzz: fuzz-build
	BUILD=$(BUILD) FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/run.sh

# ---- valgrind: the unit tests and the HTTP suite against a daemon built
# without sanitizers (-O1 -g, $(BUILD)/vg), all under valgrind memcheck:
# no error, no definite or indirect leak (tests/valgrind.sh).
VG_OBJS  := $(NOISE_SRC:%.c=$(BUILD)/vg/%.o) $(SERVER_SRC:%.c=$(BUILD)/vg/%.o) $(BUILD)/vg/www.o
VG_TESTS := $(TEST_SRC:tests/unit/%.c=$(BUILD)/vg/bin/%)

$(BUILD)/vg/%.o: %.c | $(BUILD)/.libs
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(CFLAGS_ALL) -O1 -g -c $< -o $@

$(BUILD)/vg/www.o: $(WWW_C) | $(BUILD)/.libs
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(CFLAGS_ALL) -O1 -g -c $< -o $@

$(BUILD)/vg/noisetile: $(BUILD)/vg/server/main.o $(VG_OBJS) $(MHD_A)
	$(call quiet,LINK,$@)$(CC) -O1 -g -o $@ $^ $(LIBS)

$(BUILD)/vg/bin/%: $(BUILD)/vg/tests/unit/%.o $(VG_OBJS) $(MHD_A)
	@mkdir -p $(dir $@)
	$(call quiet,LINK,$@)$(CC) -O1 -g -o $@ $^ $(LIBS)

# the article's code of test_noise_classic (see the sanitizer build above)
$(BUILD)/vg/bin/test_noise_classic: $(BUILD)/vg/tests/unit/wikipedia_perlin.o
$(BUILD)/vg/tests/unit/wikipedia_perlin.o: CFLAGS_ALL += -Wno-parentheses

valgrind: deps-test
	$(MAKE) --no-print-directory $(BUILD)/vg/noisetile $(VG_TESTS)
	BUILD=$(BUILD) tests/valgrind.sh

# ---- the AVX-512 path where the CPU has none: the noise tests, built
# statically without sanitizers, booted in bochs (which emulates AVX-512)
# with a Debian kernel and busybox, the AVX-512 path only
# (scripts/avx512-emu.sh; hours of emulation, so not part of make test).
.PHONY: test-avx512-emu
test-avx512-emu:
	BUILD=$(BUILD) OPT="$(OPT)" scripts/avx512-emu.sh

# ---- the noise core as a library (docs/library.md):
# `make install [PREFIX=/usr/local] [DESTDIR=]` installs libnoisetile.a,
# libnoisetile.so.2, include/noisetile/noise.h and noisetile.pc. Only the
# noise_* symbols are exported. `make lib` builds them under build/lib.
PREFIX      ?= /usr/local
LIBDIR      ?= $(PREFIX)/lib
INCLUDEDIR  ?= $(PREFIX)/include
# (LIB_MAJOR, LIB_VERSION, PIC_NOISE and LIB_FILES are set at the top:
# test-build needs them.)

$(BUILD)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(CSTD) $(WARN) $(FP) -MMD -MP -Inoise $(OPT) -fPIC -c $< -o $@

$(BUILD)/lib/libnoisetile.a: $(PIC_NOISE)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@
	$(call quiet,AR,$@)$(AR) rcs $@ $^

$(BUILD)/lib/noisetile.map:
	@mkdir -p $(dir $@)
	$(Q)printf '{\n  global: noise_*;\n  local: *;\n};\n' > $@

$(BUILD)/lib/libnoisetile.so.$(LIB_VERSION): $(PIC_NOISE) $(BUILD)/lib/noisetile.map
	$(call quiet,LINK,$@)$(CC) -shared -Wl,-soname,libnoisetile.so.$(LIB_MAJOR) -Wl,--version-script,$(BUILD)/lib/noisetile.map \
	  -o $@ $(PIC_NOISE) -lm

# The pkg-config file names PREFIX (DESTDIR is only where files are staged),
# so install writes it for the PREFIX of that run.
PC_LINES = 'prefix=$(PREFIX)' 'libdir=$(LIBDIR)' 'includedir=$(INCLUDEDIR)' '' 'Name: noisetile' \
  'Description: noisetile noise core: value, Perlin, simplex, improved and cellular noise with exact gradients' \
  'Version: $(LIB_VERSION)' 'Cflags: -I$${includedir}' 'Libs: -L$${libdir} -lnoisetile' 'Libs.private: -lm'

.PHONY: lib install uninstall
lib: $(LIB_FILES)

install: lib
	$(Q)install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR)/noisetile
	$(Q)install -m 644 noise/noise.h $(DESTDIR)$(INCLUDEDIR)/noisetile/noise.h
	$(Q)install -m 644 noise/noise_graph.h $(DESTDIR)$(INCLUDEDIR)/noisetile/noise_graph.h
	$(Q)install -m 644 $(BUILD)/lib/libnoisetile.a $(DESTDIR)$(LIBDIR)/libnoisetile.a
	$(Q)install -m 755 $(BUILD)/lib/libnoisetile.so.$(LIB_VERSION) $(DESTDIR)$(LIBDIR)/libnoisetile.so.$(LIB_VERSION)
	$(Q)ln -sf libnoisetile.so.$(LIB_VERSION) $(DESTDIR)$(LIBDIR)/libnoisetile.so.$(LIB_MAJOR)
	$(Q)ln -sf libnoisetile.so.$(LIB_MAJOR) $(DESTDIR)$(LIBDIR)/libnoisetile.so
	$(Q)printf '%s\n' $(PC_LINES) > $(DESTDIR)$(LIBDIR)/pkgconfig/noisetile.pc
	@# a real install (no DESTDIR), as root: refresh the loader's cache, so
	@# programs find libnoisetile.so.$(LIB_MAJOR) in a system directory like /usr/local/lib
	$(Q)if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && command -v ldconfig >/dev/null; then ldconfig; fi

uninstall:
	$(Q)rm -f $(DESTDIR)$(INCLUDEDIR)/noisetile/noise.h $(DESTDIR)$(INCLUDEDIR)/noisetile/noise_graph.h $(DESTDIR)$(LIBDIR)/libnoisetile.a \
	  $(DESTDIR)$(LIBDIR)/libnoisetile.so $(DESTDIR)$(LIBDIR)/libnoisetile.so.$(LIB_MAJOR) \
	  $(DESTDIR)$(LIBDIR)/libnoisetile.so.$(LIB_VERSION) $(DESTDIR)$(LIBDIR)/pkgconfig/noisetile.pc
	-$(Q)rmdir $(DESTDIR)$(INCLUDEDIR)/noisetile

# Builds the Dockerfile with buildah (no Docker engine), runs the image and
# checks it from the host (scripts/image-test.sh). Needs root.
image-test:
	scripts/image-test.sh

# make run and make test as a new user meets them: a clean Debian 12
# container (buildah, the base image-test makes), a copy of HEAD, root, the
# container's default limits (scripts/fresh-test.sh). Needs root and minutes.
fresh-test:
	scripts/fresh-test.sh

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
