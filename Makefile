# trainready: the two commands of the README are `make demo` and `make test`.
# Both install what is missing (Debian packages), build, and run; nothing by hand.

BUILD      ?= build
FUZZ_BUILD ?= build-fuzz
JOBS       ?= $(shell nproc)
BIN        := $(BUILD)/trainready
FUZZ_TARGETS := $(shell sed -n 's/^set(FUZZ_TARGETS \(.*\))/\1/p' fuzz/CMakeLists.txt)
FUZZ_SECONDS ?= 4
EXAMPLES   := nd-h100-healthy nc40-multinode nd-a100-ib-disabled
HPCPACK_SHARED := https://raw.githubusercontent.com/Azure/hpcpack-template/master/HPCPack2019/shared-resources
# mpirun refuses root unless told; --oversubscribe lets 4 ranks share this machine's cores.
MPIRUN     := OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun --oversubscribe
PLAN_JOBS  := examples/jobs/llama3-70b-64gpu.yaml examples/jobs/t5-3b-zero2.json
# Real NCCL logs (provenance in tests/data/SOURCES.md) for the demo.
NCCL_LOGS  := tests/data/fixtures/nccl-debug/bigscience-jz-16node-v100-netib-hfi1-nccl2.7.8.log \
              tests/data/fixtures/nccl-debug/mlengineering-azure-2node-ib-error12-timeout.log \
              tests/data/fixtures/nccl-debug/mlengineering-pytorch-watchdog-collective-timeout-desync.log

.PHONY: all deps configure build build-tool package demo test test-slurm slurm-up slurm-down unit torture golden loc fuzz-smoke fuzz sanitize bench lint format examples clean

all: build

deps:
	@bash scripts/setup-deps.sh

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTRAINREADY_TESTS=ON -DTRAINREADY_BENCH=OFF \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG"

configure: deps $(BUILD)/build.ninja

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# The binary and its MPI plugin only: what `make demo` runs. The test binary is about 45 % of a
# full build's compile time, so the demo does not wait for it (`make test` builds everything).
build-tool: configure
	cmake --build $(BUILD) -j $(JOBS) --target trainready

# A Debian package (cmake/packaging.cmake): $(BUILD)/trainready_VERSION_ARCH.deb, Depends computed
# by dpkg-shlibdeps. `dpkg -i` it.
package: build
	cd $(BUILD) && cpack -G DEB

# The main job: the doctor on this machine, a snapshot of it read back, every bundled example, then
# NCCL logs and nccl-tests results explained (alone and joined with a node).
demo: build-tool
	@echo "== trainready doctor (this machine) =="
	@$(BIN) doctor; echo "(exit $$?)"; echo
	@rm -rf $(BUILD)/demo-snapshot
	@echo "== trainready collect $(BUILD)/demo-snapshot --scrub, then doctor --root on it =="
	@$(BIN) collect $(BUILD)/demo-snapshot --scrub && $(BIN) doctor --root $(BUILD)/demo-snapshot | head -1; echo
	@for e in $(EXAMPLES); do \
	  echo "== trainready doctor --root examples/$$e =="; \
	  $(BIN) doctor --root examples/$$e; echo "(exit $$?)"; echo; \
	done
	@echo "== trainready doctor over three nodes: examples/nd-h100-split/node-{a,b,c} =="
	@$(BIN) doctor --root examples/nd-h100-split/node-a --root examples/nd-h100-split/node-b \
	  --root examples/nd-h100-split/node-c; echo "(exit $$?)"; echo
	@for l in $(NCCL_LOGS); do \
	  echo "== trainready nccl $$l =="; $(BIN) nccl $$l; echo "(exit $$?)"; echo; \
	done
	@echo "== trainready nccl-tests (one VM of 8 x A100 40GB, matched to ND96asr_v4 from its GPUs) =="
	@$(BIN) nccl-tests tests/data/fixtures/nccl-tests/superbench-1node-8xa100-40g-all_reduce_perf.txt; echo "(exit $$?)"; echo
	@echo "== trainready nccl-tests --sku Standard_ND96amsr_A100_v4 --nodes 2 (AzureML, 2 x NDm A100 v4) =="
	@$(BIN) nccl-tests tests/data/fixtures/nccl-tests/azureml-2node-nd96amsr_a100_v4-all_reduce_perf-excerpt.txt \
	  --sku Standard_ND96amsr_A100_v4 --nodes 2; echo "(exit $$?)"; echo
	@echo "== trainready nccl-tests on a gather run whose bandwidth collapses above 6 GiB =="
	@$(BIN) nccl-tests tests/data/fixtures/nccl-debug/nccltests350-2node-a100pcie-roce-ib-gdrdma-gather-dropoff-nccl2.16.5.log; echo "(exit $$?)"; echo
	@echo "== trainready doctor --root examples/nd-h100-split/node-c --nccl-log (ports Polling + NET/Socket: one finding) =="
	@$(BIN) doctor --root examples/nd-h100-split/node-c \
	  --nccl-log tests/data/nccl-debug-synthetic/no-ib-device-socket-2node.log; echo "(exit $$?)"; echo
	@echo "== trainready lint: Azure/hpcpack-template, 16 x ND96isr_H100_v5 without an availability set =="
	@$(BIN) lint tests/data/fixtures/deploy-templates/hpcpack-add-lnx-compute-nodes.arm.json \
	  tests/data/deploy/hpcpack-nd-standalone.parameters.json; echo "(exit $$?)"; echo
	@echo "== trainready lint: the same template as a scale set (clean) =="
	@$(BIN) lint tests/data/fixtures/deploy-templates/hpcpack-add-lnx-compute-nodes.arm.json \
	  tests/data/deploy/hpcpack-nd-vmss.parameters.json; echo "(exit $$?)"; echo
	@echo "== trainready lint: three copies of HPC Pack's linked scale-set template, 8 x ND96asr_v4 each =="
	@$(BIN) lint tests/data/deploy/linked/three-ib-scale-sets.json -p vmSize=Standard_ND96asr_v4 \
	  -p nodesPerSet=8; echo "(exit $$?)"; echo
	@echo "== trainready lint: HPC Pack 2019, the compute nodes' availability set not resolved (no clusterName) =="
	@$(BIN) lint tests/data/fixtures/deploy-templates/hpcpack2019/newcluster-templates/single-hn-lnxcn.json \
	  --template-uri-map $(HPCPACK_SHARED)=tests/data/fixtures/deploy-templates/hpcpack2019/shared-resources \
	  -p computeNodeVMSize=Standard_HB120rs_v3 -p computeNodeImage=CentOS_7.9_HPC; echo "(exit $$?)"; echo
	@echo "== trainready lint --format sarif: a Terraform plan of NC40ads H100 v5 partitions =="
	@$(BIN) lint tests/data/deploy/tf-confidential-gpu/plan.json --format sarif | head -40; echo
	@echo "== trainready lint on IMDS documents from two nodes =="
	@$(BIN) lint tests/data/fixtures/imds/walinuxagent-imds-compute-vmss-trustedlaunch.json \
	  tests/data/fixtures/imds/walinuxagent-imds-instance-valid.json; echo "(exit $$?)"; echo
	@echo "== trainready plan --model llama3-8b --gpus 16 =="
	@$(BIN) plan --model llama3-8b --gpus 16; echo "(exit $$?)"; echo
	@for j in $(PLAN_JOBS); do \
	  echo "== trainready plan --job $$j =="; $(BIN) plan --job $$j | head -24; echo; \
	done
	@echo "== trainready plan --model llama3-70b --gpus 64 (the layout searched: tp, pp, recomputation, micro-batch) =="
	@$(BIN) plan --model llama3-70b --gpus 64 --sku Standard_ND96isr_H100_v5 | head -12; echo
	@echo "== trainready plan --model llama3-8b --gpus 16 --sku Standard_ND96isr_H100_v5 --explain (memory) =="
	@$(BIN) plan --model llama3-8b --gpus 16 --sku Standard_ND96isr_H100_v5 --explain | sed -n '/^Memory per GPU/,/^Compute/p'
	@echo
	@echo "== trainready plan --job examples/jobs/llama3-70b-64gpu.yaml --emit arm / --emit bicep -o $(BUILD)/demo-infra, then lint the ARM (docs/deploy-path.md) =="
	@rm -rf $(BUILD)/demo-infra
	@$(BIN) plan --job examples/jobs/llama3-70b-64gpu.yaml --emit arm -o $(BUILD)/demo-infra > /dev/null && \
	  $(BIN) plan --job examples/jobs/llama3-70b-64gpu.yaml --emit bicep -o $(BUILD)/demo-infra > /dev/null 2>&1 && \
	  ls $(BUILD)/demo-infra && $(BIN) lint $(BUILD)/demo-infra/azuredeploy.json; echo "(exit $$?)"; echo
	@echo "== trainready plan --job examples/jobs/vision-64gpu-amlfs.yaml --emit arm: the plan chooses Azure Managed Lustre, the template carries it; lint it =="
	@rm -rf $(BUILD)/demo-infra-amlfs
	@$(BIN) plan --job examples/jobs/vision-64gpu-amlfs.yaml --emit arm -o $(BUILD)/demo-infra-amlfs 2>&1 >/dev/null | grep -e 'wrote' -e 'note: storage' ; \
	  grep -o '"Microsoft.StorageCache/amlFilesystems"' $(BUILD)/demo-infra-amlfs/azuredeploy.json | head -1 && \
	  $(BIN) lint $(BUILD)/demo-infra-amlfs/azuredeploy.json; echo "(exit $$?)"; echo
	@echo "== mpirun -np 4 trainready bench allreduce -b 8 -e 64M -f 2 (MPI back end: this machine's cores), read back by trainready nccl-tests =="
	@$(MPIRUN) -np 4 $(BIN) bench allreduce -b 8 -e 64M -f 2 --color never --output $(BUILD)/demo-allreduce.txt; echo "(exit $$?)"
	@grep -v -e '^#  Rank' -e 'B  out-of-place' $(BUILD)/demo-allreduce.txt
	@echo "-- the same sweep judged as a file by trainready nccl-tests, and as a bench with --sku: one rule, one finding --"
	@$(BIN) nccl-tests $(BUILD)/demo-allreduce.txt | head -3
	@$(MPIRUN) -np 4 $(BIN) bench allreduce -b 1M -e 64M -f 4 --sku Standard_ND96isr_H100_v5 --nodes 1 --json 2>/dev/null \
	  | python3 -c 'import json,sys; j=json.load(sys.stdin); [print("bench:", f["rule"], f["message"]) for f in j["findings"]]'
	@$(BIN) nccl-tests $(BUILD)/demo-allreduce.txt --sku Standard_ND96isr_H100_v5 --nodes 1 --json \
	  | python3 -c 'import json,sys; j=json.load(sys.stdin); [print("file: ", f["rule"], f["message"]) for f in j["findings"]]' 
	@echo
	@echo "== trainready bench storage: raw random 128 KiB reads, O_DIRECT, on 4 x 64 MiB created here =="
	@$(BIN) bench storage $(BUILD)/demo-storage --create 4 --file-size 64M --rw randread --bs 128K; echo "(exit $$?)"
	@echo
	@echo "== trainready bench storage --create 8 --feed --profile unet3d-h100: how many H100s can this disk feed? =="
	@$(BIN) bench storage $(BUILD)/demo-unet3d --create 8 --feed --profile unet3d-h100 --steps 6; echo "(exit $$?)"
	@echo
	@echo "== mpirun -np 4 trainready fleet --root $(BUILD)/demo-fleet/node-%r: a simulated cluster (port down on 1, pkey on 2, driver on 3) =="
	@python3 scripts/make-fleet-snapshots.py $(BUILD)/demo-fleet examples 4
	@$(MPIRUN) -np 4 $(BIN) fleet --root '$(BUILD)/demo-fleet/node-%r' --timeout 30 --probe-timeout 20 2>/dev/null; echo "(exit $$?)"
	@echo "== trainready watch --pid: a real bench storage run read while watch samples it (which path does it wait on?) =="
	@rm -rf $(BUILD)/demo-watch.jsonl $(BUILD)/demo-watch
	@$(BIN) bench storage $(BUILD)/demo-watch --create 4 --file-size 64M --runtime 1 > /dev/null 2>&1; \
	  $(BIN) bench storage $(BUILD)/demo-watch --rw read --bs 1M --runtime 4 > /dev/null 2>&1 & \
	  $(BIN) watch --pid $$! --interval 250ms --quiet --record $(BUILD)/demo-watch.jsonl; echo "(exit $$?)"; wait
	@echo
	@echo "== trainready stage: a generated dataset into $(BUILD)/, killed midway, resumed, verified (docs/stage.md) =="
	@bash scripts/demo-stage.sh $(BIN) $(BUILD); echo
	@echo "== trainready stage from Azure Blob (Azurite on 127.0.0.1): a generated dataset into $(BUILD)/demo-stage-blob, killed midway, resumed, verified =="
	@python3 scripts/demo-stage-blob.py $(BIN) $(BUILD); echo
	@echo "== Every report as one offline HTML page (--format html), checked in headless Chromium; PNGs in $(BUILD)/demo-screenshots =="
	@rm -rf $(BUILD)/demo-html && mkdir -p $(BUILD)/demo-html
	@$(BIN) doctor --root examples/nd-h100-split/node-c --nccl-log tests/data/nccl-debug-synthetic/no-ib-device-socket-2node.log --format html -o $(BUILD)/demo-html/doctor.html; true
	@$(BIN) nccl-tests tests/data/fixtures/nccl-tests/azureml-2node-nd96amsr_a100_v4-all_reduce_perf-excerpt.txt --sku Standard_ND96amsr_A100_v4 --nodes 2 --format html -o $(BUILD)/demo-html/nccl-tests.html; true
	@$(MPIRUN) -np 4 $(BIN) bench allreduce -b 8 -e 64M -f 2 --format html --output $(BUILD)/demo-html/bench-allreduce.html; true
	@$(BIN) bench storage $(BUILD)/demo-unet3d --feed --profile unet3d-h100 --steps 6 --format html -o $(BUILD)/demo-html/bench-storage.html; true
	@$(BIN) lint tests/data/fixtures/deploy-templates/hpcpack-add-lnx-compute-nodes.arm.json tests/data/deploy/hpcpack-nd-standalone.parameters.json --format html -o $(BUILD)/demo-html/lint.html; true
	@$(BIN) plan --model llama3-70b --gpus 64 --format html -o $(BUILD)/demo-html/plan.html; true
	@$(MPIRUN) -np 4 $(BIN) fleet --root '$(BUILD)/demo-fleet/node-%r' --timeout 30 --probe-timeout 20 --format html -o $(BUILD)/demo-html/fleet.html 2>/dev/null; true
	@$(BIN) watch --replay $(BUILD)/demo-watch.jsonl --html $(BUILD)/demo-html/watch.html --quiet > /dev/null; true
	@bash scripts/screenshot-reports.sh $(BUILD)/demo-html/*.html $(BUILD)/demo-screenshots && ls $(BUILD)/demo-screenshots

# The tests: build, then the whole CTest suite (unit, parser corpora, rules, probes, CLI end to
# end, MPI, every fuzz target's corpus replayed). Fuzzing itself under ASan/UBSan is `make
# fuzz-smoke` (seconds per target) and `make fuzz` (minutes): a second, clang-instrumented build
# of every parser would double the time `make test` takes.
test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The Slurm tests alone (CTest label slurm): a real munged + slurmctld + 3 slurmd on loopback,
# started and stopped by the test (tests/slurm/slurm_check.py).
test-slurm: build
	cd $(BUILD) && ctest --output-on-failure -L slurm

# A throw-away Slurm cluster to try trainready by hand: SLURM_CONF=$(SLURM_DIR)/slurm.conf srun ...
SLURM_DIR ?= $(BUILD)/slurm-cluster
slurm-up: deps
	bash tests/slurm/slurm-cluster.sh start $(SLURM_DIR)
slurm-down:
	bash tests/slurm/slurm-cluster.sh stop $(SLURM_DIR)

unit: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# Hostile inputs (issue 19) against the built binary: endless, huge, binary, deep, duplicated,
# interrupted, full disk, read-only, for every command that reads or writes. Fails on a hang, a
# peak RSS over its bound, an exit code outside 0/1/2, a partial file or a changed input. About
# a minute; .ci/run runs it after `make test` (it is not part of the test suite's time).
torture: build
	bash tests/torture/run.sh $(BIN)

# -O1 with line tables, as libFuzzer's docs suggest: a quarter less build time than -O2 -g.
$(FUZZ_BUILD)/build.ninja:
	CC=clang CXX=clang++ cmake -S . -B $(FUZZ_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=None \
	  -DTRAINREADY_FUZZ=ON -DTRAINREADY_TESTS=OFF -DTRAINREADY_BENCH=OFF \
	  -DCMAKE_CXX_FLAGS="-O1 -gline-tables-only -fsanitize=address,undefined"

fuzz-smoke: deps $(FUZZ_BUILD)/build.ninja
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target $(addprefix fuzz_,$(FUZZ_TARGETS))
	@for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(FUZZ_BUILD)/corpus/$$t; \
	  $(FUZZ_BUILD)/fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -rss_limit_mb=2048 \
	    -artifact_prefix=$(FUZZ_BUILD)/ \
	    $(FUZZ_BUILD)/corpus/$$t fuzz/corpus/$$t > $(FUZZ_BUILD)/fuzz_$$t.log 2>&1 \
	    || { echo "fuzz_$$t FAILED:"; tail -40 $(FUZZ_BUILD)/fuzz_$$t.log; exit 1; }; \
	  echo "fuzz_$$t: $$(grep -o 'Done [0-9]* runs' $(FUZZ_BUILD)/fuzz_$$t.log) without a crash"; \
	done

fuzz: FUZZ_SECONDS = 120
fuzz: fuzz-smoke

# The whole suite (CLI end to end included) against an ASan/UBSan build.
sanitize: deps
	cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DTRAINREADY_BENCH=OFF \
	  -DCMAKE_CXX_FLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer" \
	  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined"
	cmake --build build-asan -j $(JOBS)
	cd build-asan && UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ctest --output-on-failure -j $(JOBS)

# Google Benchmark and the bench helpers are built only when asked for: this turns them on in
# $(BUILD) (they stay on there) and builds them.
# Golden outputs (tests/golden): rewrite them after an intended change, then review the diff.
golden: build
	python3 tests/tools/golden.py --update $(BIN)
	@git diff --stat -- tests/golden || true

# Lines of code in src/report, src/cli and src/facts before issue 12 and now, side by side.
LOC_BASE ?= f8a53c2
loc:
	@bash scripts/loc-compare.sh $(LOC_BASE)

bench: configure
	cmake -S . -B $(BUILD) -DTRAINREADY_BENCH=ON > /dev/null
	cmake --build $(BUILD) -j $(JOBS)
	bash bench/doctor_ratio.sh $(BUILD)/bench/doctor_bench
	python3 bench/nccl_log_ratio.py --build $(BUILD)
	python3 tools/nccl_kb_coverage.py
	python3 tools/nccl_public_score.py --binary $(BIN) | grep -E '^(fit|holdout|holdout2|holdout3|holdout4|holdout5|holdout6|holdout7|holdout8|holdout9):'
	python3 bench/lint_ratio.py $(BIN)
	python3 bench/plan_ratio.py $(BIN)
	python3 bench/storage_fio_ratio.py $(BIN) $(BUILD)/bench-storage
	taskset -c 0 $(BUILD)/bench/fleet_bench 16384
	python3 bench/watch_overhead.py $(BUILD)
	python3 bench/health_overhead.py $(BIN)
	python3 bench/stage_ratio.py $(BIN) $(BUILD)/bench-stage
	taskset -c 0 $(BUILD)/bench/md5_lanes_bench 4 256 5
	python3 bench/blob_stage_ratio.py $(BIN) $(BUILD)/bench-blob

# clang-tidy reads a clang compile database without precompiled headers (GCC's .gch files and
# GCC-only warning flags mean nothing to it); configuring it builds only the embedded data.
lint: deps
	clang-format --dry-run --Werror $$(git ls-files '*.cpp' '*.h')
	CC=clang CXX=clang++ cmake -S . -B build-tidy -G Ninja -DTRAINREADY_PCH=OFF \
	  -DTRAINREADY_BENCH=OFF > /dev/null
	cmake --build build-tidy --target tr_core > /dev/null
	run-clang-tidy -p build-tidy -j $(JOBS) -quiet "$(CURDIR)/src/.*"

format:
	clang-format -i $$(git ls-files '*.cpp' '*.h')

examples:
	python3 scripts/make-examples.py

clean:
	rm -rf $(BUILD) $(FUZZ_BUILD) build-asan
