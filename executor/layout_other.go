//go:build !darwin

package executor

// currentMacLayout is the US layout: off macOS no Mac keyboard exists, and
// the macOS key tables are only exercised by tests.
func currentMacLayout() (*macLayout, error) { return macUSLayout, nil }
