// Command bench measures Reins' snapshots against Playwright's AI-mode aria
// snapshot on saved real pages, in one Chromium run: each page is served from
// 127.0.0.1 with JavaScript off and every other host unreachable, read by
// Reins through the real extension and by Playwright over CDP.
//
//	go run ./bench -pages ../shared/corpus/pages [-md BENCHMARKS-table.md]
//
// The last line of output is the summary:
//
//	summary pages=N full_size=X interactive_size=X interactive_coverage=P time=X repeat_time=X role_agree=P name_agree=P
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/reins-app/reins/bench/rig"
	"github.com/reins-app/reins/grounding"
	"github.com/reins-app/reins/internal/testrig/chromium"
	"github.com/reins-app/reins/internal/testrig/xvfb"
)

func main() {
	pages := flag.String("pages", "../shared/corpus/pages", "folder of saved .html pages")
	md := flag.String("md", "", "also write the per-page table as Markdown to this file")
	only := flag.String("only", "", "only pages whose name contains this")
	flag.StringVar(&dumpDir, "dump", "", "write each page's snapshots (Playwright, full, interactive) into this folder")
	flag.Parse()
	if err := run(*pages, *md, *only); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// result is one page's measurements.
type result struct {
	name                       string
	pwChars, fullChars, iChars int
	pwMS, fullMS, repeatMS     float64
	pwInteractive, covered     int
	pwRefs, roleLCS, nameLCS   int
	pwAll, roleLCSAll          int
	err                        string
}

var dumpDir string

func run(dir, md, only string) error {
	ctx := context.Background()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var names []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".html") && strings.Contains(e.Name(), only) {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return fmt.Errorf("no .html pages in %s", dir)
	}
	base, err := servePages(dir)
	if err != nil {
		return err
	}
	x, err := xvfb.Start(ctx, xvfb.Options{Screen: "1366x768x24"})
	if err != nil {
		return err
	}
	defer x.Close()
	tmp, err := os.MkdirTemp("", "reins-bench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	reins, err := chromium.BuildReins(tmp)
	if err != nil {
		return err
	}
	first := base + "/__blank"
	r, err := rig.Start(ctx, rig.Options{
		Display: x.Display, Dir: tmp, Reins: reins, URL: first, DebugPort: true, Width: 1366, Height: 768,
		Args: []string{
			// The extension's content scripts still run with page scripts off.
			"--blink-settings=scriptEnabled=false",
			"--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
		},
	})
	if err != nil {
		return err
	}
	defer r.Close()
	tab, err := r.Tab(ctx, first)
	if err != nil {
		return err
	}
	port, err := r.CDPPort()
	if err != nil {
		return err
	}
	pw, err := startPlaywright(fmt.Sprintf("http://127.0.0.1:%d", port))
	if err != nil {
		return err
	}
	defer pw.close()
	fmt.Printf("chromium %s, playwright-core %s, %d pages\n", pw.version, playwrightVersion(), len(names))
	fmt.Printf("%-28s %8s %8s %8s %6s %6s %6s %7s %7s %7s %6s %6s %6s\n", "page", "pw", "full", "inter", "f/pw", "i/pw", "cover", "t_pw", "t_full", "t_rep", "role", "name", "role+g")
	var results []result
	for _, name := range names {
		res := measure(ctx, r, pw, tab, base+"/"+name)
		res.name = strings.TrimSuffix(name, ".html")
		results = append(results, res)
		if res.err != "" {
			fmt.Printf("%-28s error: %s\n", res.name, res.err)
			continue
		}
		fmt.Printf("%-28s %8d %8d %8d %6s %6s %6s %7.1f %7.1f %7.1f %6s %6s %6s\n", res.name, res.pwChars, res.fullChars, res.iChars,
			ratio(res.fullChars, res.pwChars), ratio(res.iChars, res.pwChars), pct(res.covered, res.pwInteractive),
			res.pwMS, res.fullMS, res.repeatMS, pct(res.roleLCS, res.pwRefs), pct(res.nameLCS, res.pwRefs), pct(res.roleLCSAll, res.pwAll))
	}
	sum := summarise(results)
	if md != "" {
		if err := os.WriteFile(md, []byte(markdown(results, sum)), 0o644); err != nil {
			return err
		}
	}
	fmt.Println(sum.line)
	return nil
}

func measure(ctx context.Context, r *rig.Rig, pw *playwright, tab int, url string) (res result) {
	fail := func(err error) result { res.err = err.Error(); return res }
	if err := pw.call(map[string]any{"goto": url}, nil); err != nil {
		return fail(err)
	}
	if err := r.WaitReady(ctx, tab, url); err != nil {
		return fail(err)
	}
	// Reins' first snapshot of the page: the content script reads the DOM
	// afresh (its live tree starts empty on a new document).
	refs := grounding.NewRefs()
	t0 := time.Now()
	snap, err := r.Read(ctx, tab, refs, "s1")
	if err != nil {
		return fail(err)
	}
	full, err := snap.Render(grounding.RenderOptions{Mode: grounding.ModeFull})
	if err != nil {
		return fail(err)
	}
	res.fullMS = ms(time.Since(t0))
	// The unchanged page again: only the live tree's serialisation.
	t0 = time.Now()
	snap2, err := r.Read(ctx, tab, refs, "s2")
	if err != nil {
		return fail(err)
	}
	if _, err := snap2.Render(grounding.RenderOptions{Mode: grounding.ModeFull}); err != nil {
		return fail(err)
	}
	res.repeatMS = ms(time.Since(t0))
	if os.Getenv("REINS_BENCH_PROFILE") != "" {
		var calls []time.Duration
		for range 3 {
			tc := time.Now()
			r.Snapshot(ctx, tab)
			calls = append(calls, time.Since(tc))
		}
		fmt.Fprintf(os.Stderr, "snapshot calls %v\n", calls)
		res1, _ := r.Snapshot(ctx, tab)
		t1 := time.Now()
		raw, _ := json.Marshal(res1)
		t2 := time.Now()
		grounding.Build(res1, refs, grounding.BuildOptions{ID: "p"})
		fmt.Fprintf(os.Stderr, "profile %s: frames=%d took=%.1fms json=%dKB marshal=%v build=%v\n", filepath.Base(url), len(res1.Frames), res1.Frames[0].Took, len(raw)/1024, t2.Sub(t1), time.Since(t2))
	}
	if snap2.Text != snap.Text {
		return fail(errors.New("the repeat snapshot of the unchanged page differs from the first"))
	}
	inter, err := snap.Render(grounding.RenderOptions{Mode: grounding.ModeInteractive})
	if err != nil {
		return fail(err)
	}
	// Playwright's first call installs its injected script; the second is
	// its steady state, the fairer reference.
	var p struct {
		Text string  `json:"text"`
		MS   float64 `json:"ms"`
	}
	if err := pw.call(map[string]any{"snap": true}, &p); err != nil {
		return fail(err)
	}
	if err := pw.call(map[string]any{"snap": true}, &p); err != nil {
		return fail(err)
	}
	res.pwChars, res.fullChars, res.iChars = len(p.Text), len(full.Text), len(inter.Text)
	res.pwMS = p.MS
	if dumpDir != "" {
		base := filepath.Join(dumpDir, strings.TrimSuffix(filepath.Base(url), ".html"))
		os.MkdirAll(dumpDir, 0o755)
		os.WriteFile(base+".pw.txt", []byte(p.Text), 0o644)
		os.WriteFile(base+".full.txt", []byte(full.Text), 0o644)
		os.WriteFile(base+".inter.txt", []byte(inter.Text), 0o644)
	}
	pwNodes := parsePlaywright(p.Text)
	ours := parseReins(full.Text, false)
	oursRef := parseReins(inter.Text, true)
	// Reins prints no line for a plain container (Playwright's "generic"
	// without cursor=pointer): agreement is over the nodes with a role.
	var pwRoled []node
	for _, n := range pwNodes {
		if n.role != "generic" {
			pwRoled = append(pwRoled, n)
		}
	}
	res.pwRefs = len(pwRoled)
	res.roleLCS = lcs(pwRoled, ours, func(a, b node) bool { return a.role == b.role })
	res.nameLCS = lcs(pwRoled, ours, func(a, b node) bool { return a.role == b.role && a.name == b.name })
	res.pwAll = len(pwNodes)
	res.roleLCSAll = lcs(pwNodes, ours, func(a, b node) bool { return a.role == b.role })
	// Coverage aligns Playwright's interactive nodes with Reins' ref'd ones
	// in document order; where Playwright found no name (it leaves nodes
	// inside aria-hidden unnamed) any name of the same role counts.
	var pwInter []node
	for _, n := range pwNodes {
		if interactiveRoles[n.role] {
			pwInter = append(pwInter, n)
		}
	}
	res.pwInteractive = len(pwInter)
	res.covered = lcs(pwInter, oursRef, func(a, b node) bool { return a.role == b.role && (a.name == b.name || a.name == "") })
	return res
}

var interactiveRoles = map[string]bool{
	"button": true, "link": true, "textbox": true, "searchbox": true, "checkbox": true, "radio": true,
	"combobox": true, "listbox": true, "option": true, "menuitem": true, "menuitemcheckbox": true,
	"menuitemradio": true, "tab": true, "switch": true, "slider": true, "spinbutton": true, "treeitem": true,
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

type node struct{ role, name string }

var pwRef = regexp.MustCompile(`\[ref=[a-z0-9]+\]`)

// parsePlaywright lists the nodes of an AI-mode snapshot that carry a ref,
// in document order. A key with YAML-special characters comes wrapped in
// single quotes; the name inside is a JSON string.
func parsePlaywright(text string) []node {
	var out []node
	for _, l := range strings.Split(text, "\n") {
		t := strings.TrimLeft(l, " ")
		t, ok := strings.CutPrefix(t, "- ")
		if !ok || !pwRef.MatchString(t) {
			continue
		}
		if strings.HasPrefix(t, "'") {
			end := strings.LastIndex(t, "'")
			if end <= 0 {
				continue
			}
			t = strings.ReplaceAll(t[1:end], "''", "'")
		}
		role, rest, _ := strings.Cut(t, " ")
		role = strings.TrimSuffix(role, ":")
		n := node{role: role}
		if strings.HasPrefix(rest, `"`) {
			if s, ok := jsonPrefix(rest); ok {
				n.name = s
			}
		}
		out = append(out, n)
	}
	return out
}

// jsonPrefix reads the JSON string at the start of s.
func jsonPrefix(s string) (string, bool) {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			var v string
			if json.Unmarshal([]byte(s[:i+1]), &v) == nil {
				return v, true
			}
			return "", false
		}
	}
	return "", false
}

// parseReins lists the element lines of a Reins snapshot (only those with
// a ref when refOnly), in document order.
func parseReins(text string, refOnly bool) []node {
	var out []node
	for _, l := range strings.Split(text, "\n") {
		t, ok := strings.CutPrefix(strings.TrimLeft(l, " "), "- ")
		if !ok || strings.HasPrefix(t, "text: ") || strings.HasPrefix(t, "/") {
			continue
		}
		role, rest, _ := strings.Cut(t, " ")
		role = strings.TrimSuffix(role, ":")
		n := node{role: role}
		if strings.HasPrefix(rest, `"`) {
			n.name, rest = unquote(rest)
		}
		if refOnly && !strings.Contains(rest, "[ref=") {
			continue
		}
		out = append(out, n)
	}
	return out
}

// unquote undoes grounding's quoting and returns what follows.
func unquote(s string) (string, string) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			return b.String(), s[i+1:]
		case '\\':
			if i+1 >= len(s) {
				return b.String(), ""
			}
			i++
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				if i+5 <= len(s) {
					v, _ := strconv.ParseUint(s[i+1:i+5], 16, 32)
					b.WriteRune(rune(v))
					i += 4
				}
			default:
				b.WriteByte(s[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), ""
}

// lcs is the length of the longest common subsequence of a and b.
func lcs(a, b []node, eq func(x, y node) bool) int {
	prev := make([]int32, len(b)+1)
	cur := make([]int32, len(b)+1)
	for i := range a {
		for j := range b {
			switch {
			case eq(a[i], b[j]):
				cur[j+1] = prev[j] + 1
			case prev[j+1] >= cur[j]:
				cur[j+1] = prev[j+1]
			default:
				cur[j+1] = cur[j]
			}
		}
		prev, cur = cur, prev
	}
	return int(prev[len(b)])
}

func ratio(a, b int) string {
	if b == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.2f", float64(a)/float64(b))
}

func pct(a, b int) string {
	if b == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(a)/float64(b))
}

type summary struct {
	pages                                                  int
	fullSize, iSize, coverage, time, repeat, role, nameAgr float64
	roleAll                                                float64
	line                                                   string
	skipped                                                []string
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	sort.Float64s(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

// summarise takes medians over the pages Playwright found something on: a
// page whose whole content is hidden until a script runs (JavaScript is
// off) has nothing to compare.
func summarise(rs []result) summary {
	var fs, is, cov, ts, rts, ra, na, rg []float64
	var s summary
	for _, r := range rs {
		if r.err != "" || r.pwRefs == 0 || r.pwChars == 0 {
			s.skipped = append(s.skipped, r.name)
			continue
		}
		s.pages++
		fs = append(fs, float64(r.fullChars)/float64(r.pwChars))
		is = append(is, float64(r.iChars)/float64(r.pwChars))
		if r.pwInteractive > 0 {
			cov = append(cov, float64(r.covered)/float64(r.pwInteractive))
		}
		ts = append(ts, r.fullMS/r.pwMS)
		rts = append(rts, r.repeatMS/r.pwMS)
		ra = append(ra, float64(r.roleLCS)/float64(r.pwRefs))
		na = append(na, float64(r.nameLCS)/float64(r.pwRefs))
		rg = append(rg, float64(r.roleLCSAll)/float64(r.pwAll))
	}
	s.roleAll = median(rg)
	s.fullSize, s.iSize, s.coverage = median(fs), median(is), median(cov)
	s.time, s.repeat, s.role, s.nameAgr = median(ts), median(rts), median(ra), median(na)
	s.line = fmt.Sprintf("summary pages=%d full_size=%.2f interactive_size=%.2f interactive_coverage=%.1f%% time=%.2f repeat_time=%.3f role_agree=%.1f%% name_agree=%.1f%%",
		s.pages, s.fullSize, s.iSize, 100*s.coverage, s.time, s.repeat, 100*s.role, 100*s.nameAgr)
	return s
}

func markdown(rs []result, s summary) string {
	var b strings.Builder
	b.WriteString("| page | Playwright chars | full chars | interactive chars | full/PW | interactive/PW | coverage | PW ms | full ms | repeat ms | role agree | name agree | role agree incl. generic |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rs {
		if r.err != "" {
			fmt.Fprintf(&b, "| %s | error: %s |||||||||||\n", r.name, r.err)
			continue
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %s | %s | %s | %.1f | %.1f | %.1f | %s | %s | %s |\n", r.name, r.pwChars, r.fullChars, r.iChars,
			ratio(r.fullChars, r.pwChars), ratio(r.iChars, r.pwChars), pct(r.covered, r.pwInteractive),
			r.pwMS, r.fullMS, r.repeatMS, pct(r.roleLCS, r.pwRefs), pct(r.nameLCS, r.pwRefs), pct(r.roleLCSAll, r.pwAll))
	}
	fmt.Fprintf(&b, "| **median** (%d pages) | | | | **%.2f** | **%.2f** | **%.1f%%** | | | | **%.1f%%** | **%.1f%%** | %.1f%% |\n",
		s.pages, s.fullSize, s.iSize, 100*s.coverage, 100*s.role, 100*s.nameAgr, 100*s.roleAll)
	fmt.Fprintf(&b, "\nMedian time ratios: full %.2f, repeat %.3f.\n", s.time, s.repeat)
	if len(s.skipped) > 0 {
		fmt.Fprintf(&b, "\nLeft out of the medians (Playwright saw nothing, or an error): %s.\n", strings.Join(s.skipped, ", "))
	}
	return b.String()
}

var jsFrame = regexp.MustCompile(`(?i)(<iframe\b[^>]*?\bsrc\s*=\s*)("\s*javascript:[^"]*"|'\s*javascript:[^']*'|javascript:[^\s>]*)`)

// servePages serves the corpus from 127.0.0.1, rewriting iframes whose src
// is a javascript: URL (which never commits a document with scripts off) to
// about:blank.
func servePages(dir string) (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/__blank", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "<!doctype html><title>bench</title><p>ready</p>")
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		name := filepath.Base(r.URL.Path)
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !strings.HasSuffix(name, ".html") {
			http.NotFound(w, r)
			return
		}
		b = jsFrame.ReplaceAll(b, []byte(`${1}"about:blank"`))
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(b)
	})
	go http.Serve(ln, mux)
	return "http://" + ln.Addr().String(), nil
}

// playwright is the Node helper, in its own process group.
type playwright struct {
	cmd     *exec.Cmd
	in      io.WriteCloser
	out     *bufio.Reader
	version string
}

func benchDir() string { return filepath.Join(chromium.ModuleRoot(), "bench") }

func playwrightVersion() string {
	b, err := os.ReadFile(filepath.Join(benchDir(), "node_modules", "playwright-core", "package.json"))
	if err != nil {
		return "?"
	}
	var p struct{ Version string }
	json.Unmarshal(b, &p)
	return p.Version
}

func startPlaywright(endpoint string) (*playwright, error) {
	if _, err := os.Stat(filepath.Join(benchDir(), "node_modules", "playwright-core")); err != nil {
		return nil, errors.New("playwright-core is not installed: run `npm ci` in bench/ (make bench does)")
	}
	cmd := exec.Command("node", "pw.mjs", endpoint)
	cmd.Dir = benchDir()
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &playwright{cmd: cmd, in: in, out: bufio.NewReaderSize(outPipe, 1<<20)}
	var hello struct {
		Ready   bool   `json:"ready"`
		Version string `json:"version"`
	}
	if err := p.read(&hello); err != nil {
		p.close()
		return nil, err
	}
	p.version = hello.Version
	return p, nil
}

func (p *playwright) read(v any) error {
	line, err := p.out.ReadBytes('\n')
	if err != nil {
		return fmt.Errorf("playwright helper: %w", err)
	}
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(line, &e) == nil && e.Error != "" {
		return errors.New(e.Error)
	}
	if v == nil {
		return nil
	}
	return json.Unmarshal(line, v)
}

func (p *playwright) call(req any, v any) error {
	b, _ := json.Marshal(req)
	if _, err := p.in.Write(append(b, '\n')); err != nil {
		return err
	}
	return p.read(v)
}

func (p *playwright) close() {
	p.in.Write([]byte(`{"quit":true}` + "\n"))
	p.in.Close()
	done := make(chan struct{})
	go func() { p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
}
