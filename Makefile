# Thin wrapper around CMake. `make test` and `make run` do all set-up on a fresh Debian machine.
BUILD    ?= build
ASAN_BUILD ?= build-asan
TSAN_BUILD ?= build-tsan
FUZZ_BUILD ?= build-fuzz
CLANG_BUILD ?= build-clang
FUZZ_SECONDS ?= 60
CMAKE_FLAGS ?=

.PHONY: all deps test run asan-test tsan-test clang-test valgrind-test fuzz bench clean

all: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DMBT_WERROR=ON $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j

deps:
	@scripts/install-deps.sh

test: all
	@ctest --test-dir $(BUILD) --output-on-failure -j2

run: all
	@$(BUILD)/mbt simulate --ground

asan-test: deps
	@cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DMBT_SANITIZE=ON -DMBT_WERROR=ON $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(ASAN_BUILD) -j
	@ctest --test-dir $(ASAN_BUILD) --output-on-failure -j2 -LE noasan

# The tests that run several threads (ctest label "threads"), under ThreadSanitizer;
# tests/tsan.supp holds the reports from uninstrumented third-party libraries (Open MPI).
tsan-test: deps
	@cmake -S . -B $(TSAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DMBT_TSAN=ON -DMBT_WERROR=ON -DMBT_BUILD_BENCH=OFF \
	  -DMBT_BUILD_PYTHON=OFF $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(TSAN_BUILD) -j2
	@TSAN_OPTIONS="suppressions=$(CURDIR)/tests/tsan.supp halt_on_error=1" \
	  ctest --test-dir $(TSAN_BUILD) --output-on-failure -j2 -L threads

# The suite built by clang, optimized (Release) and with AddressSanitizer and
# UndefinedBehaviorSanitizer, warnings as errors: another compiler's warnings, its own
# floating-point contraction and vector code in the kernels' AVX2/AVX-512 copies, and its
# stricter checks (pointer arithmetic past an array). The tests labelled noasan are left out.
clang-test:
	@scripts/install-deps.sh --fuzz
	@cmake -S . -B $(CLANG_BUILD) -DCMAKE_C_COMPILER=clang-14 -DCMAKE_BUILD_TYPE=Release -DMBT_SANITIZE=ON \
	  -DMBT_WERROR=ON $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(CLANG_BUILD) -j2
	@ctest --test-dir $(CLANG_BUILD) --output-on-failure -j2 -LE noasan

# The unit tests (but the 100,000-body scale test and the threaded ones) and the fuzz replays of
# the plain build under valgrind's memcheck: any error or definitely/indirectly lost block fails.
VALGRIND = valgrind -q --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite,indirect
valgrind-test: all
	@fail=0; for t in $(BUILD)/tests/test_*; do \
	  case $$t in *test_scale|*test_batch|*test_threads) continue;; esac; \
	  [ -x $$t ] || continue; $(VALGRIND) $$t > $$t.valgrind.log 2>&1 || { echo "FAIL $$t ($$t.valgrind.log)"; fail=1; }; \
	done; for t in urdf builder states derivatives contact; do \
	  $(VALGRIND) $(BUILD)/fuzz/replay_$$t fuzz/corpus/$$t > $(BUILD)/fuzz/replay_$$t.valgrind.log 2>&1 || \
	    { echo "FAIL replay_$$t"; fail=1; }; \
	done; exit $$fail

# Each libFuzzer target for FUZZ_SECONDS (clang, address and undefined sanitizers); fuzz/run.sh.
fuzz:
	@scripts/install-deps.sh --fuzz
	@cmake -S . -B $(FUZZ_BUILD) -DCMAKE_C_COMPILER=clang-14 -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMBT_FUZZ=ON \
	  -DMBT_BUILD_TESTS=OFF -DMBT_BUILD_TOOLS=OFF -DMBT_BUILD_BENCH=OFF -DMBT_BUILD_PYTHON=OFF -DMBT_WERROR=ON \
	  $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(FUZZ_BUILD) -j2
	@fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

bench: deps
	@scripts/install-deps.sh --bench
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DMBT_WERROR=ON $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j
	@$(BUILD)/mbt bench

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(TSAN_BUILD) $(FUZZ_BUILD)
