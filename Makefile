# Thin wrapper around CMake. `make test` and `make run` do all set-up on a fresh Debian machine.
BUILD    ?= build
ASAN_BUILD ?= build-asan
CMAKE_FLAGS ?=

.PHONY: all deps test run asan-test bench clean

all: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DMBT_WERROR=ON $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j

deps:
	@scripts/install-deps.sh

test: all
	@ctest --test-dir $(BUILD) --output-on-failure -j2

run: all
	@$(BUILD)/mbt simulate

asan-test: deps
	@cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DMBT_SANITIZE=ON -DMBT_WERROR=ON $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(ASAN_BUILD) -j
	@ctest --test-dir $(ASAN_BUILD) --output-on-failure -j2 -LE noasan

bench: deps
	@scripts/install-deps.sh --bench
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DMBT_WERROR=ON $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j
	@$(BUILD)/mbt bench

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
