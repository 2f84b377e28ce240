package bridge_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/reins-app/reins/bridge/protocol"
)

// BenchmarkRoundTrip measures one Call through a real socket to a paired
// fake extension and back, the floor under every tool call an agent makes.
// DESIGN.md measured 0.3–0.8 ms against Chromium.
func BenchmarkRoundTrip(b *testing.B) {
	h := start(b, nil)
	h.connect("p", func(string, json.RawMessage) (any, *protocol.Error) { return struct{}{}, nil })
	ctx := context.Background()
	b.ReportAllocs()
	began := time.Now()
	n := 0
	for b.Loop() {
		if err := h.s.Call(ctx, "p", "ping", struct{}{}, nil); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64(time.Since(began).Microseconds())/float64(n), "µs/op")
}
