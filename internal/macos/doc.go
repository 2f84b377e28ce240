// Package macos is Reins' one set of bindings to the macOS C and
// Objective-C APIs it calls without cgo, through purego: loading frameworks
// and their symbols, CoreFoundation's basics (release, arrays,
// dictionaries, strings, numbers, data, run loops and Mach ports),
// CoreGraphics' geometry and displays, Objective-C autorelease pools and
// blocks, NSRunningApplication, the main dispatch queue, and the
// activation hand-off of macOS 14 that darwinkit does not have.
// Accessibility's bindings are in its package ax.
//
// The executor's input, window, hot key and keyboard layout bindings, and
// the desktop reader's, are built on it. The app's AppKit calls are typed, through
// darwinkit (cgo), except for what darwinkit lacks, which is here.
//
// Nothing here needs cgo, so `GOOS=darwin CGO_ENABLED=0 go vet` checks it
// on any machine. Outside macOS the package is empty.
//
// Ownership follows CoreFoundation's rule: what a Create or Copy function
// returns (and what the functions here say is +1) belongs to the caller,
// who releases it with [CFRelease]; what a Get function returns is
// borrowed.
package macos
