package e2e

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/core"
	"github.com/reins-app/reins/core/coretest"
	"github.com/reins-app/reins/internal/testrig/browsertest"
	"github.com/reins-app/reins/internal/testrig/testenv"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// checkoutPage is a single-page checkout of twenty steps in one document:
// a sign-in with a password, an address form, a delivery choice, a promo
// code, the terms and "Place order". It reports every input and click to
// the witness. With ?relabel the page renames "Save address" once the
// phone number is typed; with ?leave it opens another page when "Save
// address" is clicked.
func checkoutPage() string {
	return strings.NewReplacer("{{REPORT}}", reportJS).Replace(`<!doctype html>
<html><head><title>Checkout — Shop</title>
<style>
  body { margin: 0; font: 14px sans-serif; }
  h1 { margin: 4px 8px; font-size: 18px; }
  .grid { display: grid; grid-template-columns: repeat(4, 270px); gap: 10px 12px; padding: 8px; }
  input[type=text], input[type=password], input:not([type]) { width: 240px; height: 26px; }
  button { width: 200px; height: 32px; }
  fieldset { border: 1px solid #ccc; padding: 6px; }
</style></head>
<body>
<h1>Checkout</h1>
<div class="grid">
  <input id="email" aria-label="Email">
  <input id="password" type="password" aria-label="Password">
  <button id="signin">Sign in</button>
  <span id="who">Not signed in</span>
  <input id="name" aria-label="Full name">
  <input id="company" aria-label="Company">
  <input id="street" aria-label="Street">
  <input id="number" aria-label="House number">
  <input id="line2" aria-label="Address line 2">
  <input id="postcode" aria-label="Postcode">
  <input id="city" aria-label="City">
  <input id="country" aria-label="Country">
  <input id="phone" aria-label="Phone">
  <button id="save">Save address</button>
  <label><input type="radio" name="delivery" id="standard" aria-label="Standard delivery"> Standard</label>
  <label><input type="radio" name="delivery" id="express" aria-label="Express delivery"> Express</label>
  <label><input type="checkbox" id="door" aria-label="Leave at the door"> Leave at the door</label>
  <input id="gift" aria-label="Gift message">
  <input id="promo" aria-label="Promo code">
  <button id="apply">Apply code</button>
  <label><input type="checkbox" id="terms" aria-label="I accept the terms"> Terms</label>
  <button id="order">Place order</button>
</div>
<script>
{{REPORT}}
const run = location.search;
document.querySelectorAll('button, input[type=radio], input[type=checkbox]').forEach((b) => watch(b, 'top'));
document.querySelectorAll('input:not([type=radio]):not([type=checkbox])').forEach((el) => {
  el.addEventListener('input', (e) => report({type: 'input', id: el.id, trusted: e.isTrusted,
    value: el.type === 'password' ? String(el.value.length) : el.value}));
});
document.getElementById('signin').addEventListener('click', () => {
  document.getElementById('who').textContent = 'Signed in';
});
if (run.includes('relabel')) {
  document.getElementById('phone').addEventListener('input', () => {
    document.getElementById('save').textContent = 'Subscribe to offers';
  });
}
if (run.includes('leave')) {
  document.getElementById('save').addEventListener('click', () => { location.href = '/elsewhere.html'; });
}
window.addEventListener('load', () => report({type: 'loaded', page: 'checkout', run}));
</script>
</body></html>`)
}

// checkoutSteps are the page's twenty steps, by role and name.
var checkoutSteps = []struct {
	role, name string
	act        vocab.Act
}{
	{"textbox", "Email", vocab.Act{Kind: vocab.Type, Text: "ada@example.com"}},
	{"textbox", "Password", vocab.Act{Kind: vocab.Type, Text: "correct-horse"}},
	{"button", "Sign in", vocab.Act{Kind: vocab.Click}},
	{"textbox", "Full name", vocab.Act{Kind: vocab.Type, Text: "Ada Lovelace"}},
	{"textbox", "Company", vocab.Act{Kind: vocab.Type, Text: "Analytical"}},
	{"textbox", "Street", vocab.Act{Kind: vocab.Type, Text: "St James's Square"}},
	{"textbox", "House number", vocab.Act{Kind: vocab.Type, Text: "12"}},
	{"textbox", "Address line 2", vocab.Act{Kind: vocab.Type, Text: "Flat 3"}},
	{"textbox", "Postcode", vocab.Act{Kind: vocab.Type, Text: "SW1Y 4JH"}},
	{"textbox", "City", vocab.Act{Kind: vocab.Type, Text: "London"}},
	{"textbox", "Country", vocab.Act{Kind: vocab.Type, Text: "United Kingdom"}},
	{"textbox", "Phone", vocab.Act{Kind: vocab.Type, Text: "020 7946 0000"}},
	{"button", "Save address", vocab.Act{Kind: vocab.Click}},
	{"radio", "Standard delivery", vocab.Act{Kind: vocab.Click}},
	{"checkbox", "Leave at the door", vocab.Act{Kind: vocab.Click}},
	{"textbox", "Gift message", vocab.Act{Kind: vocab.Type, Text: "Happy birthday"}},
	{"textbox", "Promo code", vocab.Act{Kind: vocab.Type, Text: "SPRING"}},
	{"button", "Apply code", vocab.Act{Kind: vocab.Click}},
	{"checkbox", "I accept the terms", vocab.Act{Kind: vocab.Click}},
	{"button", "Place order", vocab.Act{Kind: vocab.Click}},
}

// checkoutRig is Chromium on the checkout page, a Reins, and a person who
// answers as decide says and counts what they were asked.
type checkoutRig struct {
	t       *testing.T
	rt      *core.Runtime
	exec    *checkedExecutor
	witness *browsertest.Witness
	origin  string
	tab     string
	agent   agentdoor.Session

	mu     sync.Mutex
	asked  []vocab.Request
	decide func(vocab.Request) (vocab.Decision, int)
}

func newCheckoutRig(t *testing.T) *checkoutRig {
	return newPageRig(t, map[string]string{"/checkout.html": checkoutPage(), "/elsewhere.html": "<!doctype html><title>Elsewhere</title><p>Elsewhere"}, "/checkout.html", "?first")
}

// newPageRig is Chromium on page (one of files, served on 127.0.0.1, which
// reports {type: "loaded", run} once loaded with ?run), shared at Control.
func newPageRig(t *testing.T, files map[string]string, page, run string) *checkoutRig {
	return newPageRigWith(t, func(func(map[string]string) string) (map[string]string, string) { return files, page }, run)
}

// newPageRigWith is newPageRig for pages that name other servers: pages
// is given a way to serve files on another origin first.
func newPageRigWith(t *testing.T, pages func(serve func(map[string]string) string) (map[string]string, string), run string) *checkoutRig {
	base := reinsOn(t, "1280x800x24", 20*time.Second)
	base.answer.set("silent") // this rig's person answers below
	x, data := base.x, base.data
	r := &checkoutRig{t: t, rt: base.rt, exec: base.exec, witness: base.witness}
	events, stop := r.rt.Subscribe(64)
	t.Cleanup(stop)
	go func() {
		for ev := range events {
			if ev.Kind != persondoor.EventApproval {
				continue
			}
			q := *ev.Request
			r.mu.Lock()
			r.asked = append(r.asked, q)
			decide := r.decide
			r.mu.Unlock()
			d, upTo := decide(q)
			if q.Act.Kind == vocab.Plan && d != vocab.Deny {
				r.rt.PersonDoor().AnswerPlan(q.ID, upTo)
				continue
			}
			r.rt.Answer(q.ID, d)
		}
	}()
	r.decide = func(vocab.Request) (vocab.Decision, int) { return vocab.AllowOnce, len(checkoutSteps) }
	files, page := pages(func(f map[string]string) string { return browsertest.Serve(t, r.witness, f) })
	r.origin = browsertest.Serve(t, r.witness, files)
	browsertest.Start(t, browsertest.Options{X: x, DataDir: data, Reins: reinsBinary.path, URL: r.origin + page + run, Width: 1200, Height: 780})
	r.agent = coretest.Admitted(t, r.rt.AgentDoor(), r.rt.PersonDoor(), vocab.Agent{Name: "e2e planner", PID: os.Getpid(), Exe: os.Args[0]})
	testenv.WaitWithin(t, 30*time.Second, "the extension to report the tab", func() bool {
		for _, tab := range r.rt.Tabs() {
			if tab.Connected && strings.HasPrefix(tab.URL, r.origin+page) {
				r.tab = tab.ID
				return true
			}
		}
		return false
	})
	r.loaded(run)
	if err := r.rt.SetShare(r.tab, vocab.Control); err != nil {
		t.Fatal(err)
	}
	return r
}

func (r *checkoutRig) loaded(run string) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if _, err := r.witness.Wait(ctx, "loaded", func(m map[string]any) bool { return m["run"] == run }); err != nil {
		r.t.Fatalf("the page %s did not load: %v", run, err)
	}
}

// fresh opens the checkout page anew for a run, as the agent would, and
// forgets what the person was asked and what the page reported.
func (r *checkoutRig) fresh(run string) {
	r.t.Helper()
	r.setDecide(func(vocab.Request) (vocab.Decision, int) { return vocab.AllowOnce, 0 })
	if _, err := r.agent.Act(context.Background(), agentdoor.ActRequest{Tab: r.tab, Act: vocab.Act{Kind: vocab.Navigate, URL: r.origin + "/checkout.html" + run}}); err != nil {
		r.t.Fatalf("opening the page for %s: %v", run, err)
	}
	r.loaded(run)
	r.witness.Reset("input")
	r.witness.Reset("click")
	r.mu.Lock()
	r.asked = nil
	r.mu.Unlock()
	r.exec.fired.Store(0)
}

func (r *checkoutRig) setDecide(f func(vocab.Request) (vocab.Decision, int)) {
	r.mu.Lock()
	r.decide = f
	r.mu.Unlock()
}

func (r *checkoutRig) questions() []vocab.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]vocab.Request(nil), r.asked...)
}

// steps reads the page and returns the twenty steps with their refs, and
// the snapshot they come from.
func (r *checkoutRig) steps() ([]agentdoor.PlanStepRequest, string) {
	r.t.Helper()
	s, err := r.agent.Snapshot(context.Background(), r.tab)
	if err != nil {
		r.t.Fatal(err)
	}
	var out []agentdoor.PlanStepRequest
	for _, st := range checkoutSteps {
		out = append(out, agentdoor.PlanStepRequest{Ref: ref(r.t, s, st.role, st.name), Act: st.act, Element: st.name})
	}
	return out, s.ID
}

// pageSaw is what the page's own handlers reported: the ids clicked, and
// each field's last value (a password's as its length), from real input
// only.
func (r *checkoutRig) pageSaw() (clicked []string, values map[string]string) {
	values = map[string]string{}
	for _, e := range r.witness.Events("click") {
		if e["trusted"] == true {
			clicked = append(clicked, fmt.Sprint(e["id"]))
		}
	}
	for _, e := range r.witness.Events("input") {
		if e["trusted"] == true {
			values[fmt.Sprint(e["id"])] = fmt.Sprint(e["value"])
		}
	}
	return clicked, values
}

// waitClicks waits for the page to report n trusted clicks.
func (r *checkoutRig) waitClicks(n int) {
	r.t.Helper()
	testenv.WaitWithin(r.t, 10*time.Second, fmt.Sprintf("the page to report %d clicks", n), func() bool {
		c, _ := r.pageSaw()
		return len(c) >= n
	})
}

// TestACheckoutPlanAsksThreeQuestionsWhereSingleActsAskTwenty counts the
// questions a person is asked on a checkout of twenty steps, done as single
// acts (each allowed once; or "allow on this tab" wherever it is offered)
// and as one plan, and checks that the plan fired nothing it did not name:
// not a relabelled step, nothing after a navigation.
func TestACheckoutPlanAsksThreeQuestionsWhereSingleActsAskTwenty(t *testing.T) {
	r := newCheckoutRig(t)
	ctx := context.Background()
	count := map[string]int{}

	// Today: each step on its own, each allowed once.
	r.fresh("?single")
	steps, snap := r.steps()
	for i, st := range steps {
		if _, err := r.agent.Act(ctx, agentdoor.ActRequest{Tab: r.tab, Ref: st.Ref, Snapshot: snap, Act: st.Act, Element: st.Element}); err != nil {
			t.Fatalf("single step %d: %v", i+1, err)
		}
	}
	count["single acts, each allowed once"] = len(r.questions())

	// One plan.
	r.fresh("?plan")
	r.setDecide(func(q vocab.Request) (vocab.Decision, int) { return vocab.AllowOnce, len(q.Plan) })
	steps, snap = r.steps()
	res, err := r.agent.RunPlan(ctx, agentdoor.PlanRequest{Tab: r.tab, Snapshot: snap, Summary: "check out", Steps: steps})
	if err != nil {
		t.Fatal(err)
	}
	if res.Ended != "" {
		t.Fatalf("the plan ended early: %s\n%+v", res.Ended, res.Steps)
	}
	qs := r.questions()
	count["one plan"] = len(qs)
	var names []string
	for _, q := range qs {
		names = append(names, q.Sentence())
	}
	if len(qs) != 3 || qs[0].Act.Kind != vocab.Plan || qs[1].Target.Name != "Password" || qs[2].Target.Name != "Place order" {
		t.Fatalf("the plan asked %d questions, want the plan, the password and Place order: %q", len(qs), names)
	}
	r.waitClicks(7)
	clicked, values := r.pageSaw()
	if got, want := strings.Join(clicked, " "), "signin save standard door apply terms order"; !strings.HasSuffix(got, want) || len(clicked) != 7 {
		t.Errorf("the page saw clicks on %q, want %q", got, want)
	}
	if values["password"] != "13" || values["city"] != "London" || values["promo"] != "SPRING" || len(values) != 13 {
		t.Errorf("the page's fields: %v", values)
	}
	if n := r.exec.fired.Load(); n != int64(len(checkoutSteps)) {
		t.Errorf("%d acts fired for a plan of %d steps", n, len(checkoutSteps))
	}

	// A step relabelled between the plan and its turn is asked, not fired.
	r.fresh("?relabel")
	r.setDecide(func(q vocab.Request) (vocab.Decision, int) {
		if q.Target.Name == "Subscribe to offers" {
			return vocab.Deny, 0
		}
		return vocab.AllowOnce, len(q.Plan)
	})
	steps, snap = r.steps()
	res, err = r.agent.RunPlan(ctx, agentdoor.PlanRequest{Tab: r.tab, Snapshot: snap, Steps: steps})
	if err != nil {
		t.Fatal(err)
	}
	if st := res.Steps[12]; !st.Asked || st.Code != vocab.CodeDenied || !strings.Contains(res.Ended, "step 13") {
		t.Fatalf("the relabelled step: %+v; ended: %s", st, res.Ended)
	}
	count["one plan, a step relabelled before its turn (denied)"] = len(r.questions())
	var relabelled int
	for _, q := range r.questions() {
		if q.Target.Name == "Subscribe to offers" {
			relabelled++
		}
	}
	clicked, _ = r.pageSaw()
	if relabelled != 1 || len(clicked) != 1 || r.exec.fired.Load() != 12 {
		t.Fatalf("relabelled step asked %d times; the page saw clicks %v; %d acts fired (want 12)", relabelled, clicked, r.exec.fired.Load())
	}

	// A navigation mid-plan ends it: nothing after the step that left.
	r.fresh("?leave")
	r.setDecide(func(q vocab.Request) (vocab.Decision, int) { return vocab.AllowOnce, len(q.Plan) })
	steps, snap = r.steps()
	res, err = r.agent.RunPlan(ctx, agentdoor.PlanRequest{Tab: r.tab, Snapshot: snap, Steps: steps})
	if err != nil {
		t.Fatal(err)
	}
	count["one plan, the tab navigating at step 13"] = len(r.questions())
	if res.Ended == "" || res.Steps[13].Audit != 0 || r.exec.fired.Load() != 13 {
		t.Fatalf("the plan went on after the tab left: ended %q, %d fired, step 14 %+v", res.Ended, r.exec.fired.Load(), res.Steps[13])
	}
	// Today, with "allow on this tab" wherever the popup offers it: last,
	// since the broker remembers it for ten minutes.
	r.fresh("?remember")
	r.setDecide(func(q vocab.Request) (vocab.Decision, int) {
		if q.Rememberable {
			return vocab.AllowTab, 0
		}
		return vocab.AllowOnce, 0
	})
	steps, snap = r.steps()
	for i, st := range steps {
		if _, err := r.agent.Act(ctx, agentdoor.ActRequest{Tab: r.tab, Ref: st.Ref, Snapshot: snap, Act: st.Act, Element: st.Element}); err != nil {
			t.Fatalf("remembered step %d: %v", i+1, err)
		}
	}
	count["single acts, allow on this tab where offered"] = len(r.questions())

	for name, n := range count {
		t.Logf("prompts on a checkout of %d steps, %s: %d", len(checkoutSteps), name, n)
	}
	if count["single acts, each allowed once"] != 20 || count["single acts, allow on this tab where offered"] != 4 {
		t.Errorf("prompts without a plan: %v", count)
	}
	if problems := r.exec.problems(); len(problems) > 0 {
		t.Fatal(problems)
	}
}
