// Command swprobe shows where a snapshot request's time goes on one saved
// page, in the corpus benchmark's setting (bench/rig, page scripts off):
// full reads (each frame's own time against the whole call), back-to-back
// repeat reads (the bridge call against building and rendering, and which
// frames the service worker answered without asking them), then, inside the
// service worker over CDP (probe.mjs), the share-table check before every
// request, sealing an answer, opening a request, and the snapshot handler.
//
//	go run ./bench/swprobe ../shared/corpus/pages/daringfireball-1.html
//
// Run it in a worktree of an earlier commit too (git worktree add) to
// compare; the worker's parts it does not have are left out.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	"github.com/reins-app/reins/bench/rig"
	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/grounding"
	"github.com/reins-app/reins/internal/testrig/chromium"
	"github.com/reins-app/reins/internal/testrig/xvfb"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: swprobe page.html")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "swprobe:", err)
		os.Exit(1)
	}
}

func run(page string) error {
	ctx := context.Background()
	page, err := filepath.Abs(page)
	if err != nil {
		return err
	}
	x, err := xvfb.Start(ctx, xvfb.Options{Screen: "1366x768x24"})
	if err != nil {
		return err
	}
	defer x.Close()
	tmp, err := os.MkdirTemp("", "reins-swprobe")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	reins, err := chromium.BuildReins(tmp)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go http.Serve(ln, http.FileServer(http.Dir(filepath.Dir(page))))
	url := "http://" + ln.Addr().String() + "/" + filepath.Base(page)
	r, err := rig.Start(ctx, rig.Options{Display: x.Display, Dir: tmp, Reins: reins, URL: url, DebugPort: true, Width: 1366, Height: 768,
		Args: []string{"--blink-settings=scriptEnabled=false", "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"}})
	if err != nil {
		return err
	}
	defer r.Close()
	tab, err := r.Tab(ctx, url)
	if err != nil {
		return err
	}
	if err := r.WaitReady(ctx, tab, url); err != nil {
		return err
	}
	call := func(reader *grounding.Reader) (*protocol.SnapshotResult, error) {
		var res protocol.SnapshotResult
		err := r.Bridge.Call(ctx, "", protocol.MethodSnapshot, protocol.SnapshotParams{Tab: tab, Known: reader.Known()}, &res)
		return &res, err
	}
	refs := grounding.NewRefs()
	// Full reads, each followed at once by a repeat, a quiet second apart.
	for round := range 5 {
		reader := grounding.NewReader()
		t0 := time.Now()
		res1, err := call(reader)
		if err != nil {
			return err
		}
		if _, err := reader.Build(res1, refs, grounding.BuildOptions{ID: "f" + strconv.Itoa(round), Tab: strconv.Itoa(tab)}); err != nil {
			return err
		}
		t1 := time.Now()
		res2, err := call(reader)
		if err != nil {
			return err
		}
		t2 := time.Now()
		var took, top float64
		for _, f := range res1.Frames {
			took += f.Took
			top = max(top, f.Took)
		}
		raw, _ := json.Marshal(res1)
		var quiet, asked, read, failed []int
		for _, f := range res2.Frames {
			switch {
			case f.Error != "":
				failed = append(failed, f.Frame)
			case f.Same && f.Took == 0:
				quiet = append(quiet, f.Frame)
			case f.Same:
				asked = append(asked, f.Frame)
			default:
				read = append(read, f.Frame)
			}
		}
		fmt.Printf("full read %d: %d frames, %d KB, the frames' own time %.1f ms (the longest %.1f), call and build %.1f ms; repeat %.2f ms: frames answered by the worker %v, by themselves %v, read again %v, failed %v\n",
			round, len(res1.Frames), len(raw)/1024, took, top, ms(t1.Sub(t0)), ms(t2.Sub(t1)), quiet, asked, read, failed)
		time.Sleep(1100 * time.Millisecond) // past the worker's quiet second
	}
	// Repeats back to back.
	var whole, bridged, built []float64
	reader := grounding.NewReader()
	for i := range 31 {
		t0 := time.Now()
		res, err := call(reader)
		if err != nil {
			return err
		}
		t1 := time.Now()
		s, err := reader.Build(res, refs, grounding.BuildOptions{ID: "r" + strconv.Itoa(i), Tab: strconv.Itoa(tab)})
		if err != nil {
			return err
		}
		s.Render(grounding.RenderOptions{Mode: grounding.ModeFull})
		if i > 0 {
			whole = append(whole, ms(time.Since(t0)))
			bridged = append(bridged, ms(t1.Sub(t0)))
			built = append(built, ms(time.Since(t1)))
		}
	}
	fmt.Printf("30 repeats back to back, ms: whole read %s; bridge call %s; build and render %s\n", spread(whole), spread(bridged), spread(built))
	port, err := r.CDPPort()
	if err != nil {
		return err
	}
	cmd := exec.Command("node", filepath.Join("swprobe", "probe.mjs"), fmt.Sprintf("http://127.0.0.1:%d", port), strconv.Itoa(tab))
	cmd.Dir = filepath.Join(chromium.ModuleRoot(), "bench")
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	return cmd.Run()
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// spread is the median, 10th and 90th percentiles of v.
func spread(v []float64) string {
	sort.Float64s(v)
	return fmt.Sprintf("median %.2f (p10 %.2f, p90 %.2f)", v[len(v)/2], v[len(v)/10], v[len(v)*9/10])
}
