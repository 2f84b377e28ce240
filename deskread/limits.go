package deskread

import "time"

// The bounds of one read of an application's elements, the same for the
// AT-SPI reader and the AX reader: what an agent sees of a window does not
// depend on the system it runs on. 5,000 elements hold a whole browser or
// editor window; 64 levels are deeper than any toolkit nests; 1,000
// characters of a field's text are more than a line an agent reads; and 2 s
// is how long one call may wait on an application that has stopped answering
// before the read goes on without it.
const (
	defaultMaxElements = 5000
	defaultMaxDepth    = 64
	defaultMaxValue    = 1000
	defaultCallTimeout = 2 * time.Second
)

// fillBounds sets each bound of a read left at zero (or below) to its
// default.
func fillBounds(elements, depth, value *int, call *time.Duration) {
	for _, b := range []struct {
		n   *int
		def int
	}{{elements, defaultMaxElements}, {depth, defaultMaxDepth}, {value, defaultMaxValue}} {
		if *b.n <= 0 {
			*b.n = b.def
		}
	}
	if *call <= 0 {
		*call = defaultCallTimeout
	}
}
