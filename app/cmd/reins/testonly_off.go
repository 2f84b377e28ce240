//go:build cgo && !reinstest

package main

import (
	"context"
	"flag"

	"github.com/reins-app/reins/app/ui"
	"github.com/reins-app/reins/core"
)

// testOnlyHooks are absent from release builds: no flag, no effect.
type testOnlyHooks struct{}

func testOnlyFlags(*flag.FlagSet) testOnlyHooks { return testOnlyHooks{} }

func (testOnlyHooks) start(context.Context, *core.Runtime, *ui.UI) {}

func (testOnlyHooks) coreOptions(*core.StartOptions) {}
