package core

import (
	"context"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/audit/audittest"
)

func TestDoctorSaysWhetherTheAuditAnchorCanBeReached(t *testing.T) {
	rs := audittest.Start(t, 0)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gone := ln.Addr().String()
	ln.Close()

	ok := anchorChecks(context.Background(), audit.AnchorOptions{SystemLog: rs.Socket, Remote: rs.Addr(), RemoteRequired: true})
	if len(ok) != 2 || !ok[0].OK || !ok[1].OK {
		t.Fatalf("with rsyslogd on both: %+v", ok)
	}
	bad := anchorChecks(context.Background(), audit.AnchorOptions{SystemLog: filepath.Join(t.TempDir(), "none.sock"), Remote: gone, RemoteRequired: true})
	if len(bad) != 3 || bad[0].OK || !bad[0].Optional || !strings.Contains(bad[0].Fix, "cannot be reached") {
		t.Fatalf("without a system log: %+v", bad[0])
	}
	if bad[1].OK || bad[1].Optional || !strings.Contains(bad[1].Fix, "audit_anchor_unreachable") {
		t.Fatalf("without the required receiver: %+v", bad[1])
	}
	if bad[2].OK || !bad[2].Optional || !strings.Contains(bad[2].What, "not anchored") {
		t.Fatalf("with no copy at all: %+v", bad[2])
	}
	optional := anchorChecks(context.Background(), audit.AnchorOptions{SystemLog: "off", Remote: gone})
	if len(optional) != 2 || optional[0].OK || !optional[0].Optional {
		t.Fatalf("without an optional receiver: %+v", optional)
	}
	required := anchorChecks(context.Background(), audit.AnchorOptions{SystemLog: "off", RequireAnchor: true})
	if len(required) != 1 || required[0].OK || required[0].Optional || !strings.Contains(required[0].Fix, "refuses every act") {
		t.Fatalf("with no copy and an anchor required: %+v", required)
	}
	for _, c := range append(bad, optional...) {
		t.Logf("%s — %s", c.What, c.Fix)
	}
}
