package audit

import (
	"context"
	"io"
	"net"
	"testing"

	"github.com/reins-app/reins/audit/audittest"
	"github.com/reins-app/reins/vocab"
)

// Both benchmarks write to a real file with synchronous=FULL, so they
// measure the disk's flush as much as the code.

func BenchmarkRecord(b *testing.B) {
	l := openAt(b, testPath(b), nil)
	ctx := context.Background()
	e := Entry{Agent: agent, Act: vocab.Act{Kind: vocab.Read}, Target: tab, Outcome: vocab.OutcomeRead, Detail: "Snapshot of the tab."}
	for b.Loop() {
		if _, err := l.Record(ctx, e); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCommitFinish is one act's cost in the log: its two rows.
func BenchmarkCommitFinish(b *testing.B) {
	l := openAt(b, testPath(b), nil)
	ctx := context.Background()
	a := approve(vocab.Act{Kind: vocab.Click}, tab)
	p := Landing{X: 100, Y: 200, Scale: 2}
	for b.Loop() {
		tk, err := l.Commit(ctx, a, p)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := l.Finish(ctx, tk, vocab.OutcomeDone, "", ""); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCommitFinishAnchored is BenchmarkCommitFinish with the anchor
// on: the system log (rsyslogd's imuxsock standing in for /dev/log), a
// remote receiver over TCP marked required (rsyslogd's imtcp), and both;
// and, to tell Reins' cost from rsyslogd's on the same cores, a remote
// receiver in this process that discards what it reads.
func BenchmarkCommitFinishAnchored(b *testing.B) {
	rs := audittest.Start(b, 0)
	discard, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer discard.Close()
	go func() {
		for {
			c, err := discard.Accept()
			if err != nil {
				return
			}
			go io.Copy(io.Discard, c)
		}
	}()
	for _, c := range []struct {
		name string
		ao   AnchorOptions
	}{
		{"system-log", AnchorOptions{SystemLog: rs.Socket}},
		{"remote", AnchorOptions{SystemLog: "off", Remote: rs.Addr(), RemoteRequired: true}},
		{"both", AnchorOptions{SystemLog: rs.Socket, Remote: rs.Addr(), RemoteRequired: true}},
		{"remote-discarding", AnchorOptions{SystemLog: "off", Remote: discard.Addr().String(), RemoteRequired: true}},
	} {
		b.Run(c.name, func(b *testing.B) {
			path := testPath(b)
			l := openAnchored(b, path, c.ao)
			ctx := context.Background()
			a := approve(vocab.Act{Kind: vocab.Click}, tab)
			p := Landing{X: 100, Y: 200, Scale: 2}
			n := 0
			for b.Loop() {
				tk, err := l.Commit(ctx, a, p)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := l.Finish(ctx, tk, vocab.OutcomeDone, "", ""); err != nil {
					b.Fatal(err)
				}
				n++
			}
			b.StopTimer()
			if err := l.Close(); err != nil {
				b.Fatal(err)
			}
			file := rs.RemoteLog
			switch c.ao.Remote {
			case "":
				file = rs.LocalLog
			case discard.Addr().String():
				return
			}
			audittest.WaitLines(b, file, path, 2*n)
		})
	}
}
