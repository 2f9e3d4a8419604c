# baretrace — top-level build. `make help` lists the targets.
#
# Out-of-tree in build/, incremental (gcc -MMD dependencies), `make V=1` shows every command.

BUILD	?= build
V	?= 0
ifeq ($(V),1)
Q :=
else
Q := @
endif

# make's built-in default for CC is `cc`; Debian's gcc package provides both, but say gcc.
ifeq ($(origin CC),default)
CC	:= gcc
endif
LD	:= ld
OBJCOPY	:= objcopy

WARN	:= -Wall -Wextra -Werror -Wstrict-prototypes -Wmissing-prototypes -Wshadow
CSTD	:= -std=gnu11

# ---- kernel: freestanding, higher half, no red zone, no SSE, no stack protector ----------------
# The compiler's own header directory (stddef.h, stdint.h) is asked for the first time a kernel
# object is compiled, never while the Makefile is read: on a fresh machine the compiler is not
# there until `deps` has installed it (a recursive variable that replaces itself once computed).
GCC_INCLUDE = $(eval GCC_INCLUDE := $(shell $(CC) -print-file-name=include))$(GCC_INCLUDE)
KERNEL_CFLAGS = $(CSTD) $(WARN) -O2 -g -ffreestanding -fno-builtin -nostdinc \
	-isystem $(GCC_INCLUDE) -I. \
	-m64 -mcmodel=kernel -mno-red-zone -mgeneral-regs-only -fno-pic -fno-pie \
	-fno-stack-protector -fno-omit-frame-pointer -fno-asynchronous-unwind-tables \
	-fno-strict-aliasing -fcf-protection=none -MMD -MP
KERNEL_ASFLAGS := -g -I. -MMD -MP -D__ASSEMBLY__
KERNEL_LDFLAGS := -nostdlib -static --build-id=sha1 -z max-page-size=0x1000 -z noexecstack \
	-T linker.ld

# arch/x86 is built from its sub-folders without listing files (arch/x86/README.md).
ARCH_DIRS := arch/x86 $(patsubst %/,%,$(sort $(wildcard arch/x86/*/)))
KERNEL_SRCS := $(sort $(wildcard kernel/*.c kernel/*.S lib/*.c $(foreach d,$(ARCH_DIRS),$(d)/*.c $(d)/*.S)))
KERNEL_OBJS := $(patsubst %,$(BUILD)/kernel-obj/%.o,$(KERNEL_SRCS))

# ---- example user programs (include/baretrace/user.h; docs/programs.md) ------------------------
# Static, at the user window (-fpie: RIP-relative data, since the window lies above 2 GiB), general
# registers only (the kernel keeps no SSE state for them). DWARF 4: the AutoFDO of Debian 12
# (create_gcov 0.19) reads no DWARF 5 (".debug_info mangled", no .debug_ranges).
USER_WINDOW := 0x7e0000000000
USER_CFLAGS := $(CSTD) $(WARN) -O2 -gdwarf-4 -ffreestanding -fpie -fno-stack-protector \
	-fcf-protection=none -mgeneral-regs-only -I. -Wno-missing-prototypes
USER_LDFLAGS := -nostdlib -static -no-pie -Wl,-Ttext-segment=$(USER_WINDOW) -Wl,--build-id
# The same example as a static PIE (ET_DYN: the kernel places it at the window's start and
# applies its R_X86_64_RELATIVE relocations).
USER_PIE_LDFLAGS := -nostdlib -static-pie -Wl,--build-id
EXAMPLES := $(BUILD)/examples/branches.elf $(BUILD)/examples/branches-pie.elf
# Programs the tests run (tests/qemu/program.t): built the same way.
TEST_PROGRAMS := $(patsubst %.c,$(BUILD)/%.elf,$(wildcard tests/programs/*.c))

define user_program
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@  (user program)")
	$(Q)$(CC) $(USER_CFLAGS) $(USER_LDFLAGS) examples/crt0.S $< -o $@
endef
# (The Makefile is a prerequisite: USER_CFLAGS changes rebuild them.)
$(BUILD)/examples/%.elf: examples/%.c examples/crt0.S include/baretrace/user.h Makefile | deps-build
	$(user_program)
$(BUILD)/tests/programs/%.elf: tests/programs/%.c examples/crt0.S include/baretrace/user.h Makefile | deps-build
	$(user_program)
$(BUILD)/examples/%-pie.elf: examples/%.c examples/crt0.S include/baretrace/user.h Makefile | deps-build
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@  (user program, static PIE)")
	$(Q)$(CC) $(USER_CFLAGS) $(USER_PIE_LDFLAGS) examples/crt0.S $< -o $@

# ---- loader: gnu-efi application ---------------------------------------------------------------
EFI_INC   := /usr/include/efi
EFI_LIB   := /usr/lib
EFI_CFLAGS := $(CSTD) $(WARN) -O2 -ffreestanding -fpic -fshort-wchar -fno-stack-protector \
	-mno-red-zone -mgeneral-regs-only -maccumulate-outgoing-args -DGNU_EFI_USE_MS_ABI \
	-DEFI_FUNCTION_WRAPPER -I$(EFI_INC) -I$(EFI_INC)/x86_64 -I$(EFI_INC)/protocol -I. -MMD -MP \
	-Wno-missing-prototypes -Wno-strict-prototypes
EFI_LDFLAGS := -nostdlib -znocombreloc -shared -Bsymbolic -T $(EFI_LIB)/elf_x86_64_efi.lds \
	-L$(EFI_LIB)
BOOT_SRCS := $(sort $(wildcard boot/*.c boot/*.S)) lib/elf.c lib/config.c
BOOT_OBJS := $(patsubst %,$(BUILD)/boot-obj/%.o,$(BOOT_SRCS))

# ---- host: unit tests of lib/ and pure functions, cmocka, ASan + UBSan -------------------------
HOST_CFLAGS := $(CSTD) $(WARN) -O1 -g -I. -DBT_HOST -fsanitize=address,undefined \
	-fno-sanitize-recover=all -fno-omit-frame-pointer
# One gcc call compiles and links several sources, so -MMD would record only the last one's
# headers: every host test depends on every header instead (a header change rebuilds them all).
HOST_HDRS := $(wildcard lib/*.h kernel/*.h $(foreach d,$(ARCH_DIRS),$(d)/*.h) boot/*.h tests/unit/*.h)
HOST_LDLIBS := -lcmocka
# Each tests/unit/test_<name>.c links with the sources listed in its `// UNIT-SOURCES:` line.
UNIT_TESTS := $(patsubst tests/unit/%.c,$(BUILD)/host/%,$(sort $(wildcard tests/unit/test_*.c)))

# ---- host: the kernel's option parser as a checker (scripts/check-options.c, for mkimage) -------
# The same sources the kernel builds its options from; self-test names come from the kernel
# sources' SELFTEST(name) lines (in link order), as the kernel's .selftests section has them.
# The workload tables (kernel/workloads.c, arch/x86/workloads/table.c) give their names alone
# there (-DBT_HOST: no code pointers, kernel/arch_workloads.h).
CHECK_OPTIONS_SRCS := scripts/check-options.c kernel/options.c kernel/workloads.c lib/shell_words.c \
	arch/x86/workloads/table.c lib/config.c lib/fmt.c lib/string.c boot/text.c \
	arch/x86/model/personality.c
HOST_TOOL_CFLAGS := $(CSTD) $(WARN) -O2 -I. -DBT_HOST

# ---- a test build: build/test-knobs/ (make test-knobs) ------------------------------------------
# The same kernel with the test knobs among its options (kernel/options.c, BT_TEST_KNOBS:
# test.ss.skip), which no user's configuration can name: only tests boot it
# (tests/long/rebuild.t). In a folder of its own, so that no object of one build is taken for
# the other's; `make test-knobs` is the way to build it.
ifeq ($(BT_TEST_KNOBS),1)
KERNEL_CFLAGS += -DBT_TEST_KNOBS
HOST_TOOL_CFLAGS += -DBT_TEST_KNOBS
endif
TEST_KNOBS_BUILD := $(BUILD)/test-knobs

.PHONY: all deps deps-build run record test unit-test qemu-test long-check bench format format-check fresh-check help clean usb \
	debug report fuzz decode-check lava-job lava-check test-knobs
all: deps-build $(BUILD)/BOOTX64.EFI $(BUILD)/kernel.elf $(BUILD)/check-options $(BUILD)/mkgpt \
	$(BUILD)/btdecode \
	$(EXAMPLES) $(TEST_PROGRAMS)

test-knobs: deps
	$(Q)$(MAKE) --no-print-directory BUILD=$(TEST_KNOBS_BUILD) BT_TEST_KNOBS=1 \
		$(TEST_KNOBS_BUILD)/BOOTX64.EFI $(TEST_KNOBS_BUILD)/kernel.elf \
		$(TEST_KNOBS_BUILD)/check-options

help:
	@echo "make            build build/BOOTX64.EFI (kernel inside) and build/kernel.elf (symbols),"
	@echo "                and the example user program build/examples/branches.elf; trace it with"
	@echo "                make run ARGS='--program build/examples/branches.elf -- workload=program"
	@echo "                trace=bts' (docs/programs.md 'Trace your own program')"
	@echo "make record PROG=ELF [ARGS='...'] [OUT=DIR]  profile a static Linux program: LBR sampling,"
	@echo "                then perf.data, report.html, gcc/clang profiles in OUT (scripts/record)"
	@echo "make run        boot the default session under QEMU on 2 vCPUs: every facility over the"
	@echo "                workload library, self-checked, with a summary table"
	@echo "                (docs/sessions.md 'The default session'); ARGS='--smp 2 -- trace=bts,pebs'"
	@echo "                runs another; the kernel's options: ARGS='-- help=1',"
	@echo "                docs/options.md 'Options'"
	@echo "make usb        build/baretrace.img: a GPT disk with an EFI System Partition for a USB"
	@echo "                stick (dd it; docs/usb-stick.md 'Real hardware: a USB stick');"
	@echo "                SIGN_KEY=K.pem SIGN_CERT=C.pem signs the loader for Secure Boot"
	@echo "make lava-job   build/lava-job.yaml: a LAVA job running the USB image on a lab's x86 UEFI"
	@echo "                machine (DEVICE_TYPE=x86-uefi-usb; qemu: LAVA's qemu type), its result"
	@echo "                lines as test cases; OPTIONS='trace=bts' the kernel's, IMAGE_URL= where"
	@echo "                the worker fetches the image (docs/lava.md 'A lab of machines: LAVA')"
	@echo "make lava-check the qemu job run here by lava-dispatcher's lava-run (about a minute)"
	@echo "make report     the hardware report of a QEMU boot (option report=1 on a lab machine:"
	@echo "                docs/hardware.md 'The hardware report'); also in build/report.txt"
	@echo "make debug      QEMU paused with its gdbstub and gdb with build/kernel.elf loaded: break"
	@echo "                kernel_main, continue; ARGS='--program ELF -- workload=program' adds"
	@echo "                a user program's symbols (scripts/debug --help)"
	@echo "make run ARGS='--kvm'  boot under KVM with the PMU passed through"
	@echo "                (docs/kvm.md 'KVM'); ARGS='--kvm --dry-run' prints the QEMU command line"
	@echo "make run ARGS='--serial pci --screenshot F -- screen.hold=2'  console on a PCI UART,"
	@echo "                a screen, its last image in F (docs/hardware.md 'Consoles')"
	@echo "make fuzz       the record decoder's libFuzzer harness for FUZZ_SECONDS (default 300)"
	@echo "                build/btdecode [--view text|json|perf|perf.data|html|folded|trace|stats|raw|verify]"
	@echo "                [-o FILE] [--elf ELF] [--program ELF] [--debug-dir DIR] CAPTURE reads the stream (option"
	@echo "                stream=text or binary; stream.live=on streams btsint/pebs records"
	@echo "                while the run goes on); scripts/capture DEVICE records one"
	@echo "                (docs/record-stream.md)"
	@echo "make test       host unit tests (cmocka, ASan+UBSan) and QEMU tests, under prove"
	@echo "make unit-test  host unit tests only;  make qemu-test  QEMU tests only"
	@echo "make test-knobs build/test-knobs/: the kernel with test-only options (test.ss.skip),"
	@echo "                which only tests boot (tests/long/rebuild.t)"
	@echo "make long-check 10,000,000-branch captures, whole, a kernel workload, a user program"
	@echo "                and one through a stalled serial reader (minutes; LONG_BRANCHES=N)"
	@echo "make decode-check  lib/x86_decode.c against Zydis over all of /usr/lib's x86-64 code,"
	@echo "                the kernel, the user programs and busybox (about a minute)"
	@echo "make bench      boot timing, AP bring-up, single-step speed (trap floor, bare, full model),"
	@echo "                real programs (SQLite, Lua, zlib, busybox) as Nx the single-step floor and"
	@echo "                Mx slower than untraced, translated blocks' hand-backs (ss.xlate),"
	@echo "                PMI/DS service routine instructions per PMI and per record, stream"
	@echo "                bytes per record, serial console throughput (RUNS=N)"
	@echo "make format     clang-format the tree;  make format-check  fail on unformatted code"
	@echo "make fresh-check  make test, then make run, as the first commands in a throw-away"
	@echo "                minimal Debian 12 root (debootstrap; root, network, ~10 min)"
	@echo "make V=1        show the commands"
	@echo "Missing Debian packages are installed first by scripts/install-deps (it says what)."

deps:
	$(Q)scripts/install-deps

# What the build, make run and make record need, and only that (make test installs the rest
# first: its own deps)
deps-build:
	$(Q)scripts/install-deps build

# ---- kernel rules ------------------------------------------------------------------------------
# The screen console's font: generated from Debian's psf-unifont (docs/hardware.md "Consoles").
FONT_PSF := /usr/share/consolefonts/Unifont-APL8x16.psf.gz
$(BUILD)/gen/font8x16.h: scripts/psf2c | deps-build
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  GEN     $@")
	$(Q)scripts/psf2c $(FONT_PSF) > $@.tmp && mv $@.tmp $@
FBCON_OBJ := $(filter %/fbcon.c.o,$(KERNEL_OBJS))
$(FBCON_OBJ): KERNEL_CFLAGS += -I$(BUILD)/gen
$(FBCON_OBJ): $(BUILD)/gen/font8x16.h
# Linux's x86-64 system call names, for the report of an unsupported one: from Debian's
# linux-libc-dev asm/unistd_64.h (tests/unit/test_linux_abi.c pins our numbers to it).
UNISTD_64 := /usr/include/x86_64-linux-gnu/asm/unistd_64.h
$(BUILD)/gen/linux_syscall_names.h: | deps-build
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  GEN     $@")
	$(Q)awk '$$2 ~ /^__NR_/ { printf "[%s] = \"%s\",\n", $$3, substr($$2, 6) }' \
		$(UNISTD_64) > $@.tmp && mv $@.tmp $@
SYSNAMES_OBJ := $(filter %/linux_start.c.o,$(KERNEL_OBJS))
$(SYSNAMES_OBJ): KERNEL_CFLAGS += -I$(BUILD)/gen
$(SYSNAMES_OBJ): $(BUILD)/gen/linux_syscall_names.h

$(BUILD)/kernel-obj/%.c.o: %.c | deps-build
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(KERNEL_CFLAGS) -c $< -o $@

$(BUILD)/kernel-obj/%.S.o: %.S | deps-build
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  AS      $<")
	$(Q)$(CC) $(KERNEL_ASFLAGS) -c $< -o $@

$(BUILD)/kernel.elf: $(KERNEL_OBJS) linker.ld
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(LD) $(KERNEL_LDFLAGS) -o $@ $(KERNEL_OBJS)

# The copy carried inside the EFI image loses only DWARF; build/kernel.elf keeps it for the host.
$(BUILD)/kernel.payload: $(BUILD)/kernel.elf
	$(Q)$(OBJCOPY) --strip-debug $< $@

# ---- loader rules ------------------------------------------------------------------------------
$(BUILD)/boot-obj/%.c.o: %.c | deps-build
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<  (efi)")
	$(Q)$(CC) $(EFI_CFLAGS) -c $< -o $@

$(BUILD)/boot-obj/%.S.o: %.S $(BUILD)/kernel.payload | deps-build
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  AS      $<  (efi)")
	$(Q)$(CC) -c -I. -DKERNEL_PAYLOAD='"$(BUILD)/kernel.payload"' $< -o $@

$(BUILD)/loader.so: $(BOOT_OBJS)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(LD) $(EFI_LDFLAGS) $(EFI_LIB)/crt0-efi-x86_64.o $(BOOT_OBJS) -o $@ -lefi -lgnuefi

$(BUILD)/BOOTX64.EFI: $(BUILD)/loader.so
	@$(if $(Q),echo "  OBJCOPY $@")
	$(Q)$(OBJCOPY) -j .text -j .sdata -j .data -j .dynamic -j .dynsym -j .rel -j .rela \
		-j .rel.* -j .rela.* -j .reloc --target efi-app-x86_64 --subsystem=10 $< $@

$(BUILD)/host/selftest_names.c: $(KERNEL_SRCS) | deps-build
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  GEN     $@")
	$(Q){ echo '/* Generated by the Makefile from the SELFTEST() lines of the kernel sources. */'; \
	  echo '#include "kernel/selftest.h"'; \
	  echo 'static const char *const names[] = {'; \
	  sed -n 's/^SELFTEST(\([A-Za-z0-9_]*\)).*/"\1",/p' $(KERNEL_SRCS); \
	  echo '};'; \
	  echo 'const char *selftest_name(unsigned i, bool *explicit_only)'; \
	  echo '{'; \
	  echo '	*explicit_only = false;'; \
	  echo '	return i < sizeof(names) / sizeof(names[0]) ? names[i] : 0;'; \
	  echo '}'; } >$@

$(BUILD)/check-options: $(CHECK_OPTIONS_SRCS) $(BUILD)/host/selftest_names.c $(HOST_HDRS) | deps-build
	@$(if $(Q),echo "  HOSTCC  $@")
	$(Q)$(CC) $(HOST_TOOL_CFLAGS) -o $@ $(filter %.c,$^)

# ---- host: the GPT writer of make usb (scripts/mkimage --gpt) -----------------------------------
$(BUILD)/mkgpt: scripts/mkgpt.c lib/gpt.c lib/trace_part.c lib/crc32.c lib/string.c $(HOST_HDRS) | deps-build
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  HOSTCC  $@")
	$(Q)$(CC) $(HOST_TOOL_CFLAGS) -o $@ $(filter %.c,$^)

# ---- host: the stream decoder (tools/, docs/record-stream.md "Records off the machine") ---------
BTDECODE_SRCS := tools/btdecode.c tools/bt_views.c tools/bt_stats.c tools/bt_calls.c tools/bt_verdict.c tools/bt_outfile.c \
	tools/bt_symbols.c tools/bt_dwarf.c tools/bt_afdo.c tools/bt_diff.c tools/bt_perfdata.c tools/bt_perfdata_file.c tools/bt_output.c tools/bt_progress.c tools/bt_stick.c tools/bt_stick_scan.c lib/gpt.c lib/trace_part.c lib/stream.c lib/stream_path.c \
	tools/bt_crc32.c lib/string.c lib/x86_decode.c \
	lib/x86_decode_tables.c
BTDECODE_LIBS := -ldw -lelf -lm -lstdc++ -lz
# the HTML view (tools/bt_html.h): its disassembly is Zydis's
BTDECODE_SRCS += tools/bt_html.c tools/bt_html_map.c tools/bt_html_page.c \
	tools/bt_html_timeline.c tools/bt_html_threads.c tools/bt_html_flame.c tools/bt_html_asm.c
BTDECODE_LIBS += -lZydis -lZycore
$(BUILD)/btdecode $(BUILD)/fuzz_btdecode: tools/bt_html.h tools/bt_dwarf.h tools/bt_perfdata.h
$(BUILD)/btdecode: $(BTDECODE_SRCS) tools/btdecode.h $(HOST_HDRS) | deps-build
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  HOSTCC  $@")
	$(Q)$(CC) $(HOST_TOOL_CFLAGS) -o $@ $(filter %.c,$^) $(BTDECODE_LIBS)

# ---- host: the decoder's fuzzer (clang's libFuzzer, ASan, UBSan; tests/fuzz) ------------------
FUZZ_CFLAGS := $(CSTD) $(WARN) -O1 -g -I. -DBT_HOST -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=all
$(BUILD)/fuzz_btdecode: tests/fuzz/fuzz_btdecode.c $(BTDECODE_SRCS) tools/btdecode.h \
		$(HOST_HDRS) | deps
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  FUZZ    $@")
	$(Q)clang $(FUZZ_CFLAGS) -o $@ tests/fuzz/fuzz_btdecode.c \
		$(filter-out tools/btdecode.c,$(BTDECODE_SRCS)) $(BTDECODE_LIBS)

# The view tests' capture writer (tests/views/mkcapture.c: the kernel's own stream writer).
$(BUILD)/host/mkcapture: tests/views/mkcapture.c lib/stream.c lib/stream_path.c lib/crc32.c \
		lib/string.c lib/x86_decode.c lib/x86_decode_tables.c $(HOST_HDRS) | deps
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  HOSTCC  $@")
	$(Q)$(CC) $(HOST_TOOL_CFLAGS) -o $@ $(filter %.c,$^)

# make fuzz: a longer run (FUZZ_SECONDS, default 300), new inputs kept in build/fuzz-corpus.
FUZZ_SECONDS ?= 300
fuzz: $(BUILD)/fuzz_btdecode
	@mkdir -p $(BUILD)/fuzz-corpus
	$(Q)$(BUILD)/fuzz_btdecode -max_total_time=$(FUZZ_SECONDS) -max_len=8192 \
		-artifact_prefix=$(BUILD)/ \
		$(BUILD)/fuzz-corpus tests/fuzz/corpus/btdecode

# ---- host unit tests ---------------------------------------------------------------------------
# Recorded-shape ACPI tables (tests/unit/acpi/*.dsl) compiled by iasl, an encoder independent of
# the decoder under test, into one header of byte arrays (table_<name>[]).
ACPI_DSL := $(sort $(wildcard tests/unit/acpi/*.dsl))
$(BUILD)/gen/acpi_tables.h: $(ACPI_DSL) scripts/bin2c | deps
	@mkdir -p $(BUILD)/gen/acpi
	@$(if $(Q),echo "  IASL    $@")
	$(Q)for f in $(ACPI_DSL); do n=$$(basename $$f .dsl); \
	  iasl -p $(BUILD)/gen/acpi/$$n $$f >$(BUILD)/gen/acpi/$$n.log 2>&1 || \
	    { cat $(BUILD)/gen/acpi/$$n.log; exit 1; }; done
	$(Q)scripts/bin2c $(patsubst tests/unit/acpi/%.dsl,$(BUILD)/gen/acpi/%.aml,$(ACPI_DSL)) \
	  > $@.tmp && mv $@.tmp $@
$(BUILD)/host/test_acpi_console: $(BUILD)/gen/acpi_tables.h
$(BUILD)/host/test_acpi_console: HOST_CFLAGS += -I$(BUILD)/gen
# zlib's crc32() is the independent CRC the slicing-by-8 one is checked against.
$(BUILD)/host/test_crc32: HOST_LDLIBS += -lz
$(BUILD)/host/test_workloads_c: HOST_LDLIBS += -lz
# The record store: one producer and one consumer thread.
$(BUILD)/host/test_record_store: HOST_LDLIBS += -lpthread
# Zydis (libzydis-dev): the independent decoder lib/x86_decode.c is checked against.
$(BUILD)/host/test_x86_decode: HOST_LDLIBS += -lZydis -lZycore

# The sources a test links come from its `// UNIT-SOURCES: a.c b.c` line.
unit_sources = $(shell sed -n 's|^// UNIT-SOURCES:||p' $(1))

.SECONDEXPANSION:
$(BUILD)/host/test_%: tests/unit/test_%.c $$(call unit_sources,tests/unit/test_%.c) $(HOST_HDRS) | deps
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  HOSTCC  $@")
	$(Q)$(CC) $(HOST_CFLAGS) -o $@ $(filter %.c,$^) $(HOST_LDLIBS)

unit-test: deps $(UNIT_TESTS)
	$(Q)prove --exec '' $(UNIT_TESTS)

# The longest QEMU tests start first: prove -j2 runs files in the order given, and one long file
# started last would leave the other core idle for minutes.
SLOW_QEMU_TESTS := tests/qemu/threads.t tests/qemu/trace.t tests/qemu/sstrace.t tests/qemu/selfcheck.t \
	tests/qemu/program_runs.t tests/qemu/program.t tests/qemu/stream.t tests/qemu/badinput.t \
	tests/qemu/config.t tests/qemu/console.t tests/qemu/linux.t tests/qemu/perfdata.t \
	tests/qemu/block.t tests/qemu/xlate.t tests/qemu/compat.t tests/qemu/lossless.t
QEMU_TESTS := $(SLOW_QEMU_TESTS) $(filter-out $(SLOW_QEMU_TESTS),$(sort $(wildcard tests/qemu/*.t)))

# The decoder against Zydis over every byte of every x86-64 shared object in /usr/lib (about a
# minute; make test's unit test takes a 12 MiB slice): tests/unit/test_x86_decode_zydis.h, with
# the rest of test_x86_decode.c (objdump's comparisons).
decode-check: all $(BUILD)/host/test_x86_decode
	$(Q)BUILD=$(BUILD) ZYDIS_LIB_BYTES=all ZYDIS_LIB_FILE_BYTES=all ZYDIS_RANDOM=3000000 \
		$(BUILD)/host/test_x86_decode

# Captures of 10,000,000 branches (nothing lost at any length): minutes, so not in make test.
long-check: all test-knobs
	$(Q)BUILD=$(BUILD) prove tests/long/*.t
	$(Q)BUILD=$(BUILD) SS_BLOCK=off prove tests/qemu/exact.t tests/qemu/sstrace.t tests/qemu/trace.t \
		tests/qemu/threads.t
	$(Q)BUILD=$(BUILD) COMPAT_PROGRAM=1 prove tests/qemu/compat.t
	$(Q)BUILD=$(BUILD) XLATE_ALL=1 prove tests/qemu/xlate.t

qemu-test: all $(BUILD)/gen/acpi_tables.h
	$(Q)BUILD=$(BUILD) prove -j2 $(QEMU_TESTS)

# make test builds what it runs with one job per CPU (a fresh clone: ~90 s of building serially on
# a 2-core machine; the packages come first, alone: scripts/install-deps may ask apt), then runs.
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
TEST_PREREQUISITES := $(UNIT_TESTS) all $(BUILD)/fuzz_btdecode $(BUILD)/host/mkcapture
# The tests' awk is mawk, Debian's default (Priority: required): a machine that also has gawk as
# awk would pass tests that fail on a fresh Debian (strtonum; 0x... strings that mawk reads as
# lossy numbers), as make fresh-check found.
TEST_AWK_DIR := $(BUILD)/test-awk
test:
	$(Q)$(MAKE) --no-print-directory deps
	$(Q)$(MAKE) --no-print-directory -j$(JOBS) $(TEST_PREREQUISITES)
	$(Q)mkdir -p $(TEST_AWK_DIR) && ln -sf "$$(command -v mawk || command -v awk)" $(TEST_AWK_DIR)/awk
	$(Q)PATH="$(abspath $(TEST_AWK_DIR)):$$PATH" BUILD=$(BUILD) prove -j2 $(SLOW_QEMU_TESTS) tests/fuzz/*.t \
		tests/repo/*.t $(filter-out $(SLOW_QEMU_TESTS),$(QEMU_TESTS)) $(UNIT_TESTS) \
		tests/views/*.t tests/lava/contract.t

# The kernel's default session (no config file, no options): every facility over the workload
# library on every CPU, self-checked (the software PMU where the CPU lacks a facility, as under
# QEMU's TCG). ARGS replaces it: make run ARGS='--smp 4 -- selftest=all'
RUN_DEFAULT := --smp 2
run: all
	$(Q)scripts/run --brief $(if $(ARGS),$(ARGS),$(RUN_DEFAULT))

# Profile a program in one command (scripts/record): make record PROG=./mybench ARGS='-n 100'
record: all
	$(if $(PROG),,$(error make record needs PROG=FILE, a static Linux x86-64 ELF; ARGS='...' its arguments, OUT=DIR the folder))
	$(Q)scripts/record $(if $(OUT),-o $(call shq,$(OUT))) -- $(call shq,$(PROG)) $(ARGS)

# A USB stick image: GPT, one EFI System Partition (FAT32) with EFI/BOOT/BOOTX64.EFI and a
# commented example baretrace.cfg (docs/usb-stick.md "Real hardware").
# SIGN_KEY and SIGN_CERT (PEM): sign the loader for Secure Boot (docs/usb-stick.md "Secure Boot");
# PROGRAM=ELF: put a user program on it, traced by every facility (docs/usb-stick.md "Real
# hardware");
# TRACE_MIB=N: the trace partition's size in MiB (default 448; 0: none; lib/trace_part.h).
# $(call shq,VALUE): VALUE as one shell word, whatever it holds: in '...', where nothing is
# special but the quote itself (POSIX, Shell Command Language 2.2.2), each ' written '\''.
shq = '$(subst ','\'',$(1))'
MKIMAGE_USB = scripts/mkimage --gpt $(if $(TRACE_MIB),--trace-mib $(call shq,$(TRACE_MIB)) )$(if $(SIGN_KEY)$(SIGN_CERT),--sign $(call shq,$(SIGN_KEY)) $(call shq,$(SIGN_CERT)) )$(if $(PROGRAM),--program $(call shq,$(PROGRAM)) )$(BUILD)/baretrace.img
usb: all
	$(Q)$(MKIMAGE_USB)

# A LAVA job (docs/lava.md "A lab of machines: LAVA"): the USB image with the kernel options
# OPTIONS in its baretrace.cfg (none: the default session; SIGN_KEY, SIGN_CERT and PROGRAM as for
# make usb), and build/lava-job.yaml for the lab's DEVICE_TYPE (qemu: LAVA's qemu device type
# with OVMF), fetching the image from IMAGE_URL (default file:// of build/baretrace.img), checked
# against LAVA's own job schema. make lava-check runs the qemu job here with lava-run.
DEVICE_TYPE ?= x86-uefi-usb
LAVA_JOB = scripts/lava-job --device-type $(call shq,$(DEVICE_TYPE)) $(if $(IMAGE_URL),--image $(call shq,$(IMAGE_URL)) )
lava-job: all
	$(Q)$(LAVA_JOB)--check
	$(Q)scripts/install-deps lava
	$(Q)$(MKIMAGE_USB) $(OPTIONS)
	$(Q)$(LAVA_JOB)--output $(BUILD)/lava-job.yaml
	$(Q)scripts/lava/validate $(BUILD)/lava-job.yaml

lava-check: all
	$(Q)scripts/install-deps lava
	$(Q)BUILD=$(BUILD) prove tests/lava/*.t

# The hardware report (option report=1) of a QEMU boot: the default session, then only the
# report's lines on the terminal and in build/report.txt (the whole log in build/report.log).
report: all
	$(Q)scripts/run --log $(BUILD)/report.log $(if $(ARGS),$(ARGS),$(RUN_DEFAULT)) \
	$(if $(filter --,$(ARGS)),,--) report=1 >/dev/null; \
	st=$$?; sed -n 's/\r$$//; /^report: /p' $(BUILD)/report.log | tee $(BUILD)/report.txt; \
	echo "make report: the whole log is $(BUILD)/report.log"; exit $$st

# gdb on the kernel under QEMU (docs/running.md "Debugging"): ARGS are scripts/debug's.
debug: all
	$(Q)scripts/debug $(ARGS)

bench: all
	$(Q)scripts/bench

format: deps
	$(Q)clang-format -i $(shell git ls-files '*.c' '*.h')

format-check: deps
	$(Q)clang-format --dry-run -Werror $(shell git ls-files '*.c' '*.h')

# What a newcomer's first commands do on a minimal Debian 12 (docs/testing.md, Testing). Not part
# of `make test`: it downloads a Debian root and takes minutes.
fresh-check:
	$(Q)scripts/fresh-check $(if $(FIRST),--first $(FIRST))

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
