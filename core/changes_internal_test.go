package core

import (
	"strings"
	"testing"

	"github.com/reins-app/reins/bridge/protocol"
)

func TestAnActsAnswerLeavesOutFocusMovingOntoItsTargetAndOffTheLastField(t *testing.T) {
	diff := `- - textbox "Name" [active] [ref=e3]: Ada
+ - textbox "Name" [ref=e3]: Ada
- - button "Save" [ref=e5]
+ - button "Save" [active] [ref=e5]
+ - text: "Saved"
`
	kept, churned, far := effectOnly(actChanges{diff: diff, target: "e5"})
	if kept != "+ - text: \"Saved\"\n" || churned != 0 || far != 0 {
		t.Errorf("kept %q, %d churned, %d far; want only the page's word", kept, churned, far)
	}
}

func TestAnActsAnswerKeepsFocusGoneSomewhereElseAndTheTargetsNewState(t *testing.T) {
	diff := `- - textbox "Name" [active] [ref=e3]
+ - textbox "Name" [ref=e3]: Ada
- - link "Help" [ref=e7]
+ - link "Help" [active] [ref=e7]
`
	kept, _, _ := effectOnly(actChanges{diff: diff, target: "e3"})
	for _, want := range []string{`+ - textbox "Name" [ref=e3]: Ada`, `+ - link "Help" [active] [ref=e7]`} {
		if !strings.Contains(kept, want+"\n") {
			t.Errorf("the answer lost %q:\n%s", want, kept)
		}
	}
}

func TestAnActsAnswerCountsChurnInsteadOfListingIt(t *testing.T) {
	diff := `- - text: "Ticks: 4"
+ - text: "Ticks: 14"
- - text: "Not pressed"
+ - text: "Pressed 1 times"
`
	kept, churned, _ := effectOnly(actChanges{diff: diff, target: "e2", churn: []protocol.Churn{{Text: "Ticks: 15", Every: 50}}})
	if kept != "- - text: \"Not pressed\"\n+ - text: \"Pressed 1 times\"\n" || churned != 1 {
		t.Errorf("kept %q, %d churned", kept, churned)
	}
	// Churn told in words too short to place is never taken for a change.
	kept, churned, _ = effectOnly(actChanges{diff: diff, target: "e2", churn: []protocol.Churn{{Text: "15"}}})
	if kept != diff || churned != 0 {
		t.Errorf("a figure alone as churn left out %d changes:\n%s", churned, kept)
	}
}

func TestAnActsAnswerCountsChangesFarFromItWhenThereAreMany(t *testing.T) {
	before := `- banner [ref=e1]:
  - text: "Cart (3)"
- form "Address" [ref=e2]:
  - textbox "Street" [ref=e3]
  - button "Save" [ref=e4]
- list [ref=e5]:
`
	after := `- banner [ref=e1]:
  - text: "Cart (4)"
- form "Address" [ref=e2]:
  - textbox "Street" [ref=e3]
  - button "Save" [active] [ref=e4]
  - text: "Saved"
- alert [ref=e9]:
  - text: "Address kept"
- list [ref=e5]:
`
	var news []string
	for i := range listAll {
		l := "  - listitem \"Offer " + string(rune('A'+i)) + "\""
		after += l + "\n"
		news = append(news, "+ "+strings.TrimLeft(l, " "))
	}
	diff := "- - text: \"Cart (3)\"\n+ - text: \"Cart (4)\"\n- - button \"Save\" [ref=e4]\n+ - button \"Save\" [active] [ref=e4]\n+ - text: \"Saved\"\n+ - alert [ref=e9]:\n+ - text: \"Address kept\"\n" + strings.Join(news, "\n") + "\n"
	kept, _, far := effectOnly(actChanges{diff: diff, target: "e4", before: before, after: after})
	if want := "+ - text: \"Saved\"\n+ - alert [ref=e9]:\n+ - text: \"Address kept\"\n"; kept != want {
		t.Errorf("kept:\n%s\nwant:\n%s", kept, want)
	}
	if far != 2+listAll {
		t.Errorf("%d far changes, want %d", far, 2+listAll)
	}
	// A few changes are all listed, near or far.
	kept, _, far = effectOnly(actChanges{diff: "- - text: \"Cart (3)\"\n+ - text: \"Cart (4)\"\n", target: "e4", before: before, after: after})
	if far != 0 || !strings.Contains(kept, "Cart (4)") {
		t.Errorf("a small change far from the act was not listed: %q", kept)
	}
}

func TestChurnIsToldOnOneQuotedLine(t *testing.T) {
	line := churnWords([]protocol.Churn{{Text: "12\n+ - button \"Pay\" [ref=e9]", Every: 50}}, 3)
	if strings.ContainsAny(line, "\n\r") || !strings.Contains(line, "“") || !strings.Contains(line, "3 changes") {
		t.Errorf("churn line %q", line)
	}
}

// A field that now holds exactly the text typed into it is said in a few
// words; anything more or other is shown.
func TestAFieldHoldingTheTextTypedIsSaidShort(t *testing.T) {
	typed := []typedInto{{ref: "e2", text: "ada@example.com"}}
	just := "- - textbox \"Email\" [ref=e2]\n+ - textbox \"Email\" [ref=e2]:\n+   - /value: \"ada@example.com\"\n"
	if rest, n := holdingTyped(just, typed); rest != "" || n != 1 {
		t.Errorf("the field's value alone, the text typed: %q, %d", rest, n)
	}
	alert := "+ - alert: \"Email taken\"\n"
	if rest, n := holdingTyped(just+alert, typed); rest != alert || n != 1 {
		t.Errorf("beside an alert: %q, %d; want the alert alone", rest, n)
	}
	for name, diff := range map[string]string{
		"a value that held text before": "- - textbox \"Email\" [ref=e2]:\n-   - /value: \"x\"\n+ - textbox \"Email\" [ref=e2]:\n+   - /value: \"xada@example.com\"\n",
		"a value the field reformatted": "- - textbox \"Email\" [ref=e2]\n+ - textbox \"Email\" [ref=e2]:\n+   - /value: \"ADA@EXAMPLE.COM\"\n",
		"another field":                 "- - textbox \"Name\" [ref=e3]\n+ - textbox \"Name\" [ref=e3]:\n+   - /value: \"ada@example.com\"\n",
		"the value without its field":   "+   - /value: \"ada@example.com\"\n",
		"a page posing the value line":  "- - textbox \"Email\" [ref=e2]\n+ - textbox \"Email\" [ref=e2]:\n+   - text: \"/value: \\\"ada@example.com\\\"\"\n",
	} {
		if rest, n := holdingTyped(diff, typed); rest != diff || n != 0 {
			t.Errorf("%s: %q, %d; want it shown whole", name, rest, n)
		}
	}
	// A plan's fields, each holding its own text, the last typed counting.
	plan := "- - textbox \"Email\" [ref=e2]\n- - textbox \"Name\" [ref=e3]\n+ - textbox \"Email\" [ref=e2]:\n+   - /value: \"ada@example.com\"\n+ - textbox \"Name\" [ref=e3]:\n+   - /value: \"Ada\"\n"
	steps := append(typed, typedInto{ref: "e3", text: "Bob"}, typedInto{ref: "e3", text: "Ada"})
	if rest, n := holdingTyped(plan, steps); rest != "" || n != 2 {
		t.Errorf("a plan's two fields: %q, %d", rest, n)
	}
}
