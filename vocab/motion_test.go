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

func TestTheSentenceSaysWhatEnterPressesAndWhereAnActGoes(t *testing.T) {
	here := "https://bank.example"
	for _, c := range []struct {
		a    Act
		t    Target
		want string
	}{
		{Act{Kind: Key, Keys: "Enter"}, Target{Origin: here, Form: &Form{Action: here + "/t", Submit: "Confirm transfer"}}, "Press Enter, which presses “Confirm transfer”"},
		{Act{Kind: Type, Text: "hi", Submit: true}, Target{Origin: here, Name: "Comment", Form: &Form{Submit: "Send", Beside: true}}, "Type “hi” into “Comment” and press Enter, next to “Send”"},
		{Act{Kind: Type, Text: "hi"}, Target{Origin: here, Name: "Comment", Form: &Form{Submit: "Send", Beside: true}}, "Type “hi” into “Comment”"},
		{Act{Kind: Click}, Target{Origin: here, Name: "Continue", Leads: here + "/pay", Form: &Form{Action: here + "/pay", Submit: "Continue", Control: true}}, "Click “Continue”"},
		{Act{Kind: Click}, Target{Origin: here, Name: "Go", Leads: "https://evil.example/\u202ex"}, "Click “Go”, which opens https://evil.example/x"},
		{Act{Kind: Key, Keys: "Enter"}, Target{Origin: here, Form: &Form{Action: "https://evil.example/t", Submit: "Next"}}, "Press Enter, which opens https://evil.example/t"},
	} {
		if got := SentenceOf(c.a, c.t); got != c.want {
			t.Errorf("got  %q\nwant %q", got, c.want)
		}
	}
}
