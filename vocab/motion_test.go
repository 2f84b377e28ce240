package vocab

import "testing"

func TestPressesEnter(t *testing.T) {
	for a, want := range map[*Act]bool{
		{Kind: Key, Keys: "Enter"}:               true,
		{Kind: Key, Keys: "return"}:              true,
		{Kind: Key, Keys: "Control+Enter"}:       true,
		{Kind: Key, Keys: "Shift+Tab"}:           false,
		{Kind: Key, Keys: "Control++"}:           false,
		{Kind: Type, Text: "5000", Submit: true}: true,
		{Kind: Type, Text: "5000\n"}:             true,
		{Kind: Type, Text: "a\r\nb"}:             true,
		{Kind: Type, Text: "5000"}:               false,
		{Kind: Click}:                            false,
	} {
		if got := PressesEnter(*a); got != want {
			t.Errorf("%+v: %v, want %v", *a, got, want)
		}
	}
}

func TestDestinationIsWhereTheActSetsThePageOff(t *testing.T) {
	form := &Form{Action: "https://bank.example/transfer", Submit: "Next"}
	link := Target{Origin: "https://mail.example", Leads: "https://evil.example/x"}
	fieldIn := Target{Origin: "https://mail.example", Form: form}
	chat := Target{Origin: "https://mail.example", Form: &Form{Submit: "Send", Beside: true}}
	cases := []struct {
		a    Act
		t    Target
		want string
	}{
		{Act{Kind: Click}, link, link.Leads},
		{Act{Kind: Hover}, link, ""},
		{Act{Kind: Key, Keys: "Enter"}, link, link.Leads},
		{Act{Kind: Type, Text: "5", Submit: true}, fieldIn, form.Action},
		{Act{Kind: Type, Text: "5"}, fieldIn, ""},
		{Act{Kind: Click}, fieldIn, ""},
		{Act{Kind: Type, Text: "hi\n"}, chat, ""},
	}
	for _, c := range cases {
		if got := Destination(c.a, c.t); got != c.want {
			t.Errorf("%s: %q, want %q", c.a.Kind, got, c.want)
		}
	}
	if !LeavesOrigin(Act{Kind: Click}, link) || LeavesOrigin(Act{Kind: Click}, Target{Origin: "https://mail.example", Leads: "https://mail.example:443/a"}) {
		t.Error("LeavesOrigin")
	}
	if OriginOf("HTTPS://Mail.Example:443/x") != "https://mail.example" || OriginOf("javascript:x") != "" {
		t.Error("OriginOf")
	}
}
