# Reins — build, run and test. `make test` installs what it needs on Debian.
SHELL := /bin/bash
GO ?= go
DEB_PACKAGES := chromium xvfb dbus-daemon gcc pkg-config libgl1-mesa-dev libx11-dev libxcursor-dev \
	libxrandr-dev libxinerama-dev libxi-dev libxxf86vm-dev xfce4-panel xfconf rsyslog rsyslog-gnutls nodejs xterm \
	at-spi2-core python3-gi gir1.2-gtk-3.0 openbox
PAGES ?= ../shared/corpus/pages
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# Packages whose tests need a display and a browser run one at a time.
E2E_PKGS := ./e2e/...
UNIT_PKGS = $(shell $(GO) list ./... | grep -v '/e2e')
# What `go vet` checks for macOS without cgo: everything outside the cgo UI.
DARWIN_PKGS = $(shell GOOS=darwin CGO_ENABLED=0 $(GO) list ./... | grep -v -e '/app$$' -e '/app/cmd/' -e '/app/ui')

define timed
	@start=$$(date +%s); echo "== $(1)"; $(2); rc=$$?; echo "== $(1): $$(( $$(date +%s) - start ))s"; exit $$rc
endef

.PHONY: all build run demo test deps vet unit e2e bench fuzz screenshots clean app dmg otelcol crx

# The OpenTelemetry Collector the audit tests send rows to, built by the
# collector's own builder (pinned in tools/otelcol/go.mod) afresh in each
# `make test`; the tests find it through REINS_OTELCOL.
OTELCOL_DIR := $(CURDIR)/bin/otelcol
OTELCOL := $(OTELCOL_DIR)/otelcol-reins-test

all: build

build: deps
	$(GO) build -o bin/reins ./app/cmd/reins

## run: start Reins in the tray (a stand-in window where no tray host exists).
run: build
	./bin/reins

## demo: Xvfb + Chromium + Reins + a scripted agent; no display needed.
demo: deps
	$(GO) run -tags reinsdemo ./app/cmd/reins demo -out demo-out

## deps: install the Debian packages the tests and the demo need (idempotent).
deps:
	@missing=""; for p in $(DEB_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	command -v npm >/dev/null 2>&1 || missing="$$missing npm"; \
	if [ -n "$$missing" ]; then \
		echo "== installing:$$missing"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	else echo "== Debian packages present"; fi

## test: everything, end-to-end tests in a real Chromium included.
test: deps
	$(call timed,go mod download,$(GO) mod download)
	$(call timed,vet,$(MAKE) --no-print-directory vet)
	$(call timed,OpenTelemetry Collector for the audit tests,rm -rf $(OTELCOL_DIR) && $(MAKE) --no-print-directory otelcol)
	$(call timed,unit tests,REINS_OTELCOL=$(OTELCOL) $(GO) test -race -count=1 $(UNIT_PKGS))
	$(call timed,end-to-end tests,$(GO) test -count=1 -p 1 -timeout 20m $(E2E_PKGS))

## vet: go vet, and for macOS: go vet without cgo, then a type check of the
## code that needs cgo (the tray, fyne, darwinkit), which only a Mac can build.
vet:
	$(GO) vet ./...
	$(GO) vet -tags reinsdemo ./app/cmd/reins
	$(GO) vet -tags reinstest ./app/cmd/reins
	GOOS=darwin GOARCH=arm64 CGO_ENABLED=0 $(GO) vet $(DARWIN_PKGS)
	GOOS=darwin GOARCH=amd64 CGO_ENABLED=0 $(GO) vet $(DARWIN_PKGS)
	$(GO) run ./internal/cmd/darwincheck -arch arm64 -test ./...
	$(GO) run ./internal/cmd/darwincheck -arch amd64 -test ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1; }

## otelcol: the OpenTelemetry Collector (OTLP receiver, debug and OTLP/HTTP
## exporters) that the audit tests start, in bin/otelcol.
otelcol:
	mkdir -p $(OTELCOL_DIR)
	cd tools/otelcol && $(GO) tool builder --config builder-config.yaml --output-path $(OTELCOL_DIR)

## screenshots: every window rendered with fyne's test driver, and a real
## desktop under Xvfb: xfce4-panel with Reins' icon and its menu open.
SCREENSHOTS_DIR ?= screenshots
screenshots: deps
	$(GO) run ./app/cmd/screenshots -out $(SCREENSHOTS_DIR)

## bench: benchmarks, outside `make test`. `make bench AB=<commit>` runs only
## the snapshot benchmark, of that commit and of this tree, alternating on the
## same pages, and prints their ratio (AB_FLAGS: e.g. -every 3 for a third).
bench: deps
	cd bench && npm ci --no-audit --no-fund
ifdef AB
	$(GO) run ./bench/ab -commit $(AB) -pages $(PAGES) $(AB_FLAGS)
else
	$(GO) test -run '^$$' -bench . -benchmem ./bridge/... ./audit/... ./grounding/... ./core/... ./internal/plain/
	$(GO) test -run '^$$' -bench ToolsList -benchtime 1x ./mcp/
	$(GO) test -run '^$$' -bench . -skip AgentTask -benchtime 50x -p 1 $(E2E_PKGS)
	REINS_TASK_PAGES=$(abspath $(PAGES)) $(GO) test -run '^$$' -bench AgentTask -benchtime 1x ./e2e/
	$(GO) run ./bench -pages $(PAGES)
endif

## fuzz: a short run of each fuzz target.
fuzz:
	$(GO) test -run '^$$' -fuzz FuzzDecode -fuzztime 30s ./bridge/protocol/
	$(GO) test -run '^$$' -fuzz FuzzCheck -fuzztime 30s ./grounding/
	$(GO) test -run '^$$' -fuzz FuzzText -fuzztime 30s ./internal/plain/
	$(GO) test -run '^$$' -fuzz FuzzEscape -fuzztime 30s ./grounding/quote/
	$(GO) test -run '^$$' -fuzz FuzzOpenSealed -fuzztime 30s ./bridge/
	$(GO) test -run '^$$' -fuzz FuzzCheckHello -fuzztime 30s ./bridge/

## app: dist/Reins.app on macOS: a universal binary for macOS 12 and later,
## assembled by packaging/cmd/bundle, signed by packaging/sign.sh (ad hoc
## unless SIGN_IDENTITY names a certificate). ICON=… adds a .icns.
VERSION ?= 0.0.0
BUILD_NUMBER ?= 0
SIGN_IDENTITY ?= -
ICON ?=
MAC_BUILD := dist
app:
	@[ "$$(uname -s)" = Darwin ] || { echo "make app needs macOS: the program links Cocoa through cgo"; exit 1; }
	for arch in arm64 amd64; do \
		CGO_ENABLED=1 GOOS=darwin GOARCH=$$arch MACOSX_DEPLOYMENT_TARGET=12.0 \
			$(GO) build -trimpath -o $(MAC_BUILD)/$$arch/reins ./app/cmd/reins || exit 1; \
	done
	lipo -create -output $(MAC_BUILD)/reins $(MAC_BUILD)/arm64/reins $(MAC_BUILD)/amd64/reins
	$(GO) run ./packaging/cmd/bundle -binary $(MAC_BUILD)/reins -version $(VERSION) -build $(BUILD_NUMBER) \
		-out $(MAC_BUILD) $(if $(ICON),-icon $(ICON))
	packaging/sign.sh $(MAC_BUILD)/Reins.app "$(SIGN_IDENTITY)"

## dmg: dist/Reins-$(VERSION).dmg, Reins.app and a link to Applications.
dmg: app
	packaging/dmg.sh $(MAC_BUILD)/Reins.app $(MAC_BUILD)/Reins-$(VERSION).dmg "$(SIGN_IDENTITY)"

## crx: dist/reins.crx, the Chrome extension as a CRX3 for an organisation to
## host and force-install (ExtensionInstallForcelist; packaging/policy/), and
## dist/updates.xml for its update URL. CRX_KEY is the private key whose
## public half is manifest.json's "key", which the repository does not hold;
## without it a key made for the run signs, and the CRX installs under another
## extension id, which Reins does not pair with. CRX_URL is where reins.crx
## will be served.
CRX_KEY ?=
CRX_URL ?= https://intranet.example/reins/reins.crx
crx:
	$(GO) run ./packaging/cmd/crx -out dist -codebase $(CRX_URL) $(if $(CRX_KEY),-key $(CRX_KEY),-test-key)

clean:
	rm -rf bin demo-out
