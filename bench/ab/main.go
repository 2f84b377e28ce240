// Command ab runs the snapshot benchmark (go run ./bench) of an earlier
// commit and of the working tree on the same pages, alternating in chunks
// of pages under the same load, and prints each run's summary, both sides'
// medians over every page and their ratio, so that a regression shows as a
// ratio in one run:
//
//	go run ./bench/ab -commit 7d3a6f6 -pages ../shared/corpus/pages [-every 3] [-chunk 8]
//
// The earlier commit is checked out in a temporary git worktree, which is
// removed afterwards; it uses this tree's bench/node_modules when its
// bench/package.json is the same. The last line is the ratio:
//
//	ab commit=C pages=N time=X/Y (Z×) repeat_time=X/Y (Z×)
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

func main() {
	commit := flag.String("commit", "", "the earlier commit to compare with (required)")
	pages := flag.String("pages", "../shared/corpus/pages", "folder of saved .html pages")
	every := flag.Int("every", 1, "take every n-th page of the folder, in name order")
	chunk := flag.Int("chunk", 10, "pages per run; the two sides alternate run by run")
	flag.Parse()
	if *commit == "" {
		fmt.Fprintln(os.Stderr, "ab: -commit is required")
		os.Exit(2)
	}
	if err := run(*commit, *pages, *every, *chunk); err != nil {
		fmt.Fprintln(os.Stderr, "ab:", err)
		os.Exit(1)
	}
}

// side is one tree's benchmark binary and what its runs measured.
type side struct {
	name, bin string
	pages     map[string]page
	summaries []string
}

// page is one page's times from a per-page line of the benchmark.
type page struct{ pw, full, repeat float64 }

func run(commit, pagesDir string, every, chunk int) error {
	root, err := gitOut("", "rev-parse", "--show-toplevel")
	if err != nil {
		return err
	}
	full, err := gitOut(root, "rev-parse", "--verify", commit+"^{commit}")
	if err != nil {
		return fmt.Errorf("no commit %s: %w", commit, err)
	}
	pagesDir, err = filepath.Abs(pagesDir)
	if err != nil {
		return err
	}
	names, err := pageNames(pagesDir, every)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "reins-ab")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	old := filepath.Join(tmp, "tree")
	if _, err := gitOut(root, "worktree", "add", "--detach", old, full); err != nil {
		return err
	}
	defer gitOut(root, "worktree", "remove", "--force", old)
	if err := nodeModules(root, old); err != nil {
		return err
	}
	a := &side{name: commit, bin: filepath.Join(tmp, "bench-a"), pages: map[string]page{}}
	b := &side{name: "HEAD", bin: filepath.Join(tmp, "bench-b"), pages: map[string]page{}}
	for _, s := range []struct {
		dir string
		sd  *side
	}{{old, a}, {root, b}} {
		cmd := exec.Command("go", "build", "-o", s.sd.bin, "./bench")
		cmd.Dir = s.dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("building the benchmark of %s: %v\n%s", s.sd.name, err, out)
		}
	}
	head, _ := gitOut(root, "rev-parse", "--short", "HEAD")
	if dirty, _ := gitOut(root, "status", "--porcelain", "--untracked-files=no"); dirty != "" {
		head += " and the changes not yet committed"
	}
	fmt.Printf("A: %s (%s); B: HEAD, %s; %d pages of %s, %d a run\n", commit, full[:12], head, len(names), pagesDir, chunk)
	// The sides take turns, chunk by chunk, each chunk's first turn going
	// to the side that went second before: A B, B A, A B, …
	for i, n := 0, 0; i < len(names); i, n = i+chunk, n+1 {
		set := names[i:min(i+chunk, len(names))]
		dir := filepath.Join(tmp, fmt.Sprintf("pages%d", n))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		for _, name := range set {
			if err := os.Symlink(filepath.Join(pagesDir, name), filepath.Join(dir, name)); err != nil {
				return err
			}
		}
		order := []*side{a, b}
		if n%2 == 1 {
			order = []*side{b, a}
		}
		for _, s := range order {
			if err := s.measure(dir); err != nil {
				return err
			}
		}
	}
	fmt.Println()
	for _, s := range []*side{a, b} {
		for _, l := range s.summaries {
			fmt.Printf("%-8s %s\n", s.name, l)
		}
	}
	// Both sides over the pages both measured.
	var common []string
	for name := range a.pages {
		if _, ok := b.pages[name]; ok {
			common = append(common, name)
		}
	}
	sort.Strings(common)
	if len(common) == 0 {
		return errors.New("no page was measured by both sides")
	}
	ta, ra := a.medians(common)
	tb, rb := b.medians(common)
	fmt.Printf("%-8s pages=%d time=%.3f repeat_time=%.3f (medians over the pages of every run)\n", a.name, len(common), ta, ra)
	fmt.Printf("%-8s pages=%d time=%.3f repeat_time=%.3f\n", b.name, len(common), tb, rb)
	fmt.Printf("ab commit=%s pages=%d time=%.3f/%.3f (%.2f×) repeat_time=%.3f/%.3f (%.2f×)\n", commit, len(common), tb, ta, tb/ta, rb, ra, rb/ra)
	return nil
}

// measure runs the side's benchmark on the pages of dir and keeps each
// page's times and the summary.
func (s *side) measure(dir string) error {
	fmt.Printf("== %s on %s\n", s.name, dir)
	cmd := exec.Command(s.bin, "-pages", dir)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	os.Stdout.Write(out)
	if err != nil {
		return fmt.Errorf("the benchmark of %s: %w", s.name, err)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) > 0 && f[0] == "summary":
			s.summaries = append(s.summaries, sc.Text())
		case len(f) == 13:
			// page pw full inter f/pw i/pw cover t_pw t_full t_rep role name role+g
			pw, e1 := strconv.ParseFloat(f[7], 64)
			fl, e2 := strconv.ParseFloat(f[8], 64)
			rp, e3 := strconv.ParseFloat(f[9], 64)
			if e1 == nil && e2 == nil && e3 == nil && pw > 0 {
				s.pages[f[0]] = page{pw: pw, full: fl, repeat: rp}
			}
		}
	}
	return sc.Err()
}

// medians are the side's median time ratios against Playwright over names.
func (s *side) medians(names []string) (time, repeat float64) {
	var t, r []float64
	for _, n := range names {
		p := s.pages[n]
		t = append(t, p.full/p.pw)
		r = append(r, p.repeat/p.pw)
	}
	return median(t), median(r)
}

func median(v []float64) float64 {
	sort.Float64s(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

func pageNames(dir string, every int) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	i := 0
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".html") {
			continue
		}
		if i%max(every, 1) == 0 {
			names = append(names, e.Name())
		}
		i++
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no .html pages in %s", dir)
	}
	return names, nil
}

// nodeModules gives the earlier tree Playwright: this tree's packages when
// its bench/package.json asks for the same playwright-core, else its own.
func nodeModules(root, old string) error {
	here := filepath.Join(root, "bench", "node_modules")
	if _, err := os.Stat(filepath.Join(here, "playwright-core")); err != nil {
		return errors.New("playwright-core is not installed: run `npm ci` in bench/ (make bench does)")
	}
	want := func(dir string) string {
		var p struct {
			Dependencies map[string]string `json:"dependencies"`
		}
		b, _ := os.ReadFile(filepath.Join(dir, "bench", "package.json"))
		json.Unmarshal(b, &p)
		return p.Dependencies["playwright-core"]
	}
	if want(root) == want(old) {
		return os.Symlink(here, filepath.Join(old, "bench", "node_modules"))
	}
	cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund")
	cmd.Dir = filepath.Join(old, "bench")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	return cmd.Run()
}

func gitOut(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}
