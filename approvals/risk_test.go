package approvals

import (
	"context"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/reins-app/reins/internal/plain"
	"github.com/reins-app/reins/vocab"
)

const shopOrigin = "https://shop.example.com"

func on(name string) vocab.Target {
	return vocab.Target{Tab: "1", Origin: shopOrigin, Role: "button", Name: name}
}

var clickAct = vocab.Act{Kind: vocab.Click}

// leadsTo is an element of the shop's page that leads to dest.
func leadsTo(role, name, dest string) vocab.Target {
	return vocab.Target{Tab: "1", Origin: shopOrigin, Role: role, Name: name, Leads: dest}
}

// submitsTo is a submit control of the shop's page, with its form.
func submitsTo(name string, f *vocab.Form) vocab.Target {
	return vocab.Target{Tab: "1", Origin: shopOrigin, Role: "button", Name: name, Leads: f.Action, Form: f}
}

// inForm is a text field of the shop's page, with its form.
func inForm(name string, f *vocab.Form) vocab.Target {
	return vocab.Target{Tab: "1", Origin: shopOrigin, Role: "textbox", Name: name, Form: f}
}

// riskCase is one row's test: acts the row must match, and acts close to
// them that it must leave alone.
type riskCase struct {
	match []vocab.Request
	miss  []vocab.Request
}

func rq(a vocab.Act, t vocab.Target) vocab.Request { return vocab.Request{Act: a, Target: t} }

func commitCase(names []string, misses []string) riskCase {
	var c riskCase
	for _, n := range names {
		c.match = append(c.match, rq(clickAct, on(n)))
	}
	for _, n := range misses {
		c.miss = append(c.miss, rq(clickAct, on(n)))
	}
	return c
}

// rowCases has a case for every row of the table, by the row's name; a
// row added without one fails TestEveryRowOfTheRiskTable.
var rowCases = map[string]riskCase{
	"typing into a password or payment field": {
		match: []vocab.Request{
			rq(vocab.Act{Kind: vocab.Type, Text: "hunter2", Secret: true}, vocab.Target{Tab: "1", Origin: shopOrigin, Role: "textbox", Name: "Password"}),
			rq(vocab.Act{Kind: vocab.Type, Text: "4242 4242 4242 4242", Secret: true}, vocab.Target{Tab: "1", Origin: shopOrigin, Role: "textbox", Name: "Card number", FrameOrigin: "https://pay.stripe.com"}),
			// Secret whatever the page calls the field.
			rq(vocab.Act{Kind: vocab.Type, Text: "x", Secret: true}, vocab.Target{Tab: "1", Origin: shopOrigin, Role: "textbox", Name: "Search"}),
		},
		miss: []vocab.Request{
			rq(vocab.Act{Kind: vocab.Type, Text: "shoes"}, vocab.Target{Tab: "1", Origin: shopOrigin, Role: "textbox", Name: "Search"}),
			rq(clickAct, vocab.Target{Tab: "1", Origin: shopOrigin, Role: "textbox", Name: "Password"}),
		},
	},
	"navigation to another origin": {
		match: []vocab.Request{
			rq(vocab.Act{Kind: vocab.Navigate, URL: "https://evil.example/login"}, on("")),
			rq(vocab.Act{Kind: vocab.Navigate, URL: "http://shop.example.com/"}, on("")),       // another scheme
			rq(vocab.Act{Kind: vocab.Navigate, URL: "https://shop.example.com:8443/"}, on("")), // another port
			rq(vocab.Act{Kind: vocab.Navigate, URL: "https://shop.example.com.evil.example/"}, on("")),
			rq(vocab.Act{Kind: vocab.Navigate, URL: "https://shоp.example.com/"}, on("")), // a Cyrillic о
			rq(vocab.Act{Kind: vocab.Navigate, URL: "data:text/html,<h1>Sign in</h1>"}, on("")),
			rq(vocab.Act{Kind: vocab.Navigate, URL: "https://shop.example.com/"}, vocab.Target{Tab: "1"}), // the tab's origin unknown
		},
		miss: []vocab.Request{
			rq(vocab.Act{Kind: vocab.Navigate, URL: "https://shop.example.com/cart?x=1#top"}, on("")),
			rq(vocab.Act{Kind: vocab.Navigate, URL: "HTTPS://SHOP.EXAMPLE.COM:443/"}, on("")),
			rq(vocab.Act{Kind: vocab.Back}, on("")),
		},
	},
	"opening another origin in a new tab": {
		match: []vocab.Request{
			rq(vocab.Act{Kind: vocab.NewTab, URL: "https://evil.example/?iban=DE89370400440532013000"}, on("")),
			rq(vocab.Act{Kind: vocab.NewTab, URL: "http://shop.example.com/"}, on("")),
			rq(vocab.Act{Kind: vocab.NewTab, URL: "https://shop.example.com/"}, vocab.Target{Tab: "1"}), // the tab's origin unknown
		},
		miss: []vocab.Request{
			rq(vocab.Act{Kind: vocab.NewTab, URL: "https://shop.example.com/cart", Shares: true}, on("")),
		},
	},
	"a click or Enter that takes the tab to another origin": {
		match: []vocab.Request{
			rq(clickAct, leadsTo("link", "Details", "https://evil.example/collect?iban=DE89")),
			rq(vocab.Act{Kind: vocab.DoubleClick}, leadsTo("link", "Details", "https://evil.example/")),
			rq(clickAct, leadsTo("link", "Help", "data:text/html,<h1>Sign in</h1>")),
			rq(clickAct, submitsTo("Continue", &vocab.Form{Action: "https://evil.example/steal", Method: "post", Submit: "Continue", Control: true})),
			rq(vocab.Act{Kind: vocab.Type, Text: "4900", Submit: true}, inForm("Amount", &vocab.Form{Action: "https://evil.example/t", Submit: "Next"})),
			rq(vocab.Act{Kind: vocab.Type, Text: "4900\n"}, inForm("Amount", &vocab.Form{Action: "https://evil.example/t", Submit: "Next"})),
			rq(vocab.Act{Kind: vocab.Key, Keys: "Enter"}, vocab.Target{Tab: "1", Origin: shopOrigin, Leads: "https://evil.example/"}),
			rq(vocab.Act{Kind: vocab.Key, Keys: "Control+Return"}, vocab.Target{Tab: "1", Origin: shopOrigin, Form: &vocab.Form{Action: "https://evil.example/"}}),
		},
		miss: []vocab.Request{
			rq(clickAct, leadsTo("link", "Orders", "https://shop.example.com/orders")),
			rq(vocab.Act{Kind: vocab.Hover}, leadsTo("link", "Details", "https://evil.example/")),
			rq(vocab.Act{Kind: vocab.RightClick}, leadsTo("link", "Details", "https://evil.example/")),
			rq(vocab.Act{Kind: vocab.Type, Text: "4900"}, inForm("Amount", &vocab.Form{Action: "https://evil.example/t"})),
			rq(vocab.Act{Kind: vocab.Key, Keys: "Tab"}, vocab.Target{Tab: "1", Origin: shopOrigin, Leads: "https://evil.example/"}),
			rq(clickAct, inForm("Amount", &vocab.Form{Action: "https://evil.example/t"})), // clicking into a field submits nothing
		},
	},
	"submitting a form that pays, transfers or deletes": {
		match: []vocab.Request{
			rq(clickAct, submitsTo("Continue", &vocab.Form{Action: shopOrigin + "/payments/confirm", Method: "post", Submit: "Continue", Control: true})),
			rq(clickAct, submitsTo("Continue", &vocab.Form{Action: shopOrigin + "/api/placeOrder", Submit: "Continue", Control: true})),
			rq(clickAct, submitsTo("Weiter", &vocab.Form{Action: shopOrigin + "/konto/ueberweisung", Submit: "Weiter", Control: true})),
			rq(clickAct, submitsTo("Continue", &vocab.Form{Action: shopOrigin + "/step/2", Submit: "Continue", Control: true, Fields: []string{"card"}, Payment: true})),
			rq(vocab.Act{Kind: vocab.Type, Text: "4900", Submit: true}, inForm("Amount", &vocab.Form{Action: shopOrigin + "/step/2", Submit: "Next", Fields: []string{"amount"}})),
			rq(vocab.Act{Kind: vocab.Type, Text: "4900\n"}, inForm("Amount", &vocab.Form{Action: shopOrigin + "/step/2", Submit: "Next", Fields: []string{"amount"}})),
			rq(vocab.Act{Kind: vocab.Key, Keys: "Enter"}, vocab.Target{Tab: "1", Origin: shopOrigin, Form: &vocab.Form{Action: shopOrigin + "/x", Submit: "Confirm transfer"}}),
			// A chat box outside any form, judged by the button beside it.
			rq(vocab.Act{Kind: vocab.Type, Text: "DE89370400440532013000\n"}, inForm("Comment", &vocab.Form{Submit: "Send", Beside: true})),
			rq(vocab.Act{Kind: vocab.Type, Text: "hello", Submit: true}, inForm("Comment", &vocab.Form{Submit: "Post comment", Beside: true})),
		},
		miss: []vocab.Request{
			rq(vocab.Act{Kind: vocab.Type, Text: "4900"}, inForm("Amount", &vocab.Form{Action: shopOrigin + "/step/2", Fields: []string{"amount"}})),
			rq(clickAct, submitsTo("Search", &vocab.Form{Action: shopOrigin + "/search", Submit: "Search", Control: true})),
			rq(clickAct, inForm("Card number", &vocab.Form{Action: shopOrigin + "/pay", Payment: true})),
			rq(vocab.Act{Kind: vocab.Hover}, submitsTo("Continue", &vocab.Form{Action: shopOrigin + "/payments", Control: true})),
			rq(vocab.Act{Kind: vocab.Type, Text: "hi\n"}, inForm("Comment", &vocab.Form{Submit: "Reply", Beside: true})),
			// Beside a field there is no form: its path is nobody's.
			rq(vocab.Act{Kind: vocab.Type, Text: "hi\n"}, inForm("Comment", &vocab.Form{Action: shopOrigin + "/pay", Submit: "Reply", Beside: true})),
			rq(vocab.Act{Kind: vocab.Key, Keys: "Escape"}, vocab.Target{Tab: "1", Origin: shopOrigin, Form: &vocab.Form{Action: shopOrigin + "/x", Submit: "Confirm transfer"}}),
		},
	},
	"accepting a page's JavaScript dialog": {
		match: []vocab.Request{
			rq(vocab.Act{Kind: vocab.Dialog, Accept: true, Dialog: vocab.DialogConfirm}, vocab.Target{Tab: "1", Origin: shopOrigin, Role: "dialog", Name: "Continue?"}),
			rq(vocab.Act{Kind: vocab.Dialog, Accept: true, Dialog: vocab.DialogPrompt, Text: "Ada"}, vocab.Target{Tab: "1", Origin: shopOrigin, Role: "dialog", Name: "Your name?"}),
			rq(vocab.Act{Kind: vocab.Dialog, Accept: true, Dialog: vocab.DialogConfirm}, vocab.Target{Tab: "1", Origin: shopOrigin, Role: "dialog"}), // its message unread
		},
		miss: []vocab.Request{
			// Dismissing commits nothing, whatever the message says.
			rq(vocab.Act{Kind: vocab.Dialog, Dialog: vocab.DialogConfirm}, vocab.Target{Tab: "1", Origin: shopOrigin, Role: "dialog", Name: "Delete your account?"}),
		},
	},
	"a line break or Enter typed into a terminal": {
		match: []vocab.Request{
			rq(vocab.Act{Kind: vocab.Type, Text: "curl x | sh\n"}, vocab.Target{Desktop: true, App: "xterm (pid 9)", Terminal: true}),
			rq(vocab.Act{Kind: vocab.Type, Text: "ls", Submit: true}, vocab.Target{Desktop: true, App: "Terminal", Terminal: true}),
			rq(vocab.Act{Kind: vocab.Key, Keys: "Return"}, vocab.Target{Desktop: true, App: "xterm (pid 9)", Terminal: true}),
			rq(vocab.Act{Kind: vocab.Key, Keys: "Enter"}, vocab.Target{Desktop: true, App: "xterm (pid 9)", Terminal: true}),
			rq(vocab.Act{Kind: vocab.Key, Keys: "Control+j"}, vocab.Target{Desktop: true, App: "xterm (pid 9)", Terminal: true}),
			rq(vocab.Act{Kind: vocab.Key, Keys: "ctrl+M"}, vocab.Target{Desktop: true, App: "xterm (pid 9)", Terminal: true}),
		},
		miss: []vocab.Request{
			rq(vocab.Act{Kind: vocab.Type, Text: "ls"}, vocab.Target{Desktop: true, App: "xterm (pid 9)", Terminal: true}),
			rq(vocab.Act{Kind: vocab.Key, Keys: "Tab"}, vocab.Target{Desktop: true, App: "xterm (pid 9)", Terminal: true}),
			rq(vocab.Act{Kind: vocab.Key, Keys: "j"}, vocab.Target{Desktop: true, App: "xterm (pid 9)", Terminal: true}),
			rq(vocab.Act{Kind: vocab.Type, Text: "line\nline"}, vocab.Target{Desktop: true, App: "gedit (pid 9)"}),
		},
	},
	"giving a page files from the computer": {
		match: []vocab.Request{
			rq(vocab.Act{Kind: vocab.Upload, File: vocab.File{Path: "/home/p/Documents/cv.pdf", Size: 48213}}, vocab.Target{Tab: "1", Origin: shopOrigin, Role: "button", Name: "Attach"}),
			rq(vocab.Act{Kind: vocab.Upload}, vocab.Target{Tab: "1", Origin: shopOrigin, Role: "button"}),
		},
		miss: []vocab.Request{
			rq(vocab.Act{Kind: vocab.Click}, vocab.Target{Tab: "1", Origin: shopOrigin, Role: "button", Name: "Attach"}),
		},
	},
	"an element whose name says it commits something, in English": commitCase(
		[]string{"Buy now", "Place order", "Place your order", "Proceed to checkout", "Check out", "Pay £12.99", "Confirm payment",
			"Send", "Send money", "Transfer", "Delete", "Delete account", "Remove account", "Purchase", "Complete order", "Donate"},
		[]string{"Buyers' guide", "Order history", "Sort order", "Sender", "Deleted items", "Remove filter", "Add to cart", "Payload", "Next"},
	),
	"an element whose name says it commits something, in German": commitCase(
		[]string{"Jetzt kaufen", "Bestellen", "zahlungspflichtig bestellen", "Kostenpflichtig bestellen", "Zur Kasse", "Löschen",
			"Konto löschen", "Überweisen", "Überweisung ausführen", "Jetzt bezahlen", "Senden", "Absenden", "Kauf abschließen", "Bestellung abschließen"},
		[]string{"Zahlen und Fakten", "Sendung verfolgen", "Bestellungen", "Kaufberatung", "Einkaufswagen", "Weiter"},
	),
	"an element whose name says it commits something, in French": commitCase(
		[]string{"Acheter", "Payer", "Commander", "Passer la commande", "Valider ma commande", "Supprimer", "Supprimer le compte",
			"Envoyer", "Virement", "Effectuer le virement", "Procéder au paiement", "Confirmer le paiement", "Finaliser l’achat", "Transférer"},
		[]string{"Mes commandes", "Moyens de paiement", "Envoyé", "Acheteur", "Suivant", "Panier"},
	),
	"an element whose name says it commits something, in Spanish": commitCase(
		[]string{"Comprar", "Comprar ahora", "Pagar", "Realizar pedido", "Tramitar pedido", "Finalizar compra", "Eliminar", "Eliminar cuenta",
			"Enviar", "Transferir", "Realizar transferencia", "Confirmar pago", "Borrar"},
		[]string{"Mis pedidos", "Página siguiente", "Enviado", "Comprador", "Pagos recibidos", "Carrito"},
	),
}

func TestEveryRowOfTheRiskTable(t *testing.T) {
	rows := Tiers()
	if len(rows) != len(rowCases) {
		t.Errorf("the table has %d rows and the test %d cases", len(rows), len(rowCases))
	}
	for _, row := range rows {
		t.Run(row.Name, func(t *testing.T) {
			c, ok := rowCases[row.Name]
			if !ok {
				t.Fatal("no test for this row")
			}
			if row.Why == "" || row.Warning == "" {
				t.Fatalf("the row says neither why nor what the person reads: %+v", row)
			}
			for _, r := range c.match {
				got, ok := RiskOf(r.Act, r.Target)
				if !ok || got.Name != row.Name {
					t.Errorf("%s: matched %q (%v), want this row", vocab.SentenceOf(r.Act, r.Target), got.Name, ok)
				}
				if Risk(r.Act, r.Target) != row.Warning {
					t.Errorf("%s: warning %q, want the row's", vocab.SentenceOf(r.Act, r.Target), Risk(r.Act, r.Target))
				}
			}
			for _, r := range c.miss {
				if got, ok := RiskOf(r.Act, r.Target); ok && got.Name == row.Name {
					t.Errorf("%s on %q: this row matched it", vocab.SentenceOf(r.Act, r.Target), r.Target.Name)
				}
			}
		})
	}
}

// Every phrase a row lists matches a button named with it, however it is
// capitalised or set off.
func TestEveryListedPhraseMatchesItsButton(t *testing.T) {
	n := 0
	for _, row := range Tiers() {
		for _, p := range row.Words {
			n++
			for _, name := range []string{p, strings.ToUpper(p), capitalised(p), "  " + p + "!  ", "→ " + p} {
				if got, ok := RiskOf(clickAct, on(name)); !ok || got.Name != row.Name {
					t.Errorf("%s: %q is matched by %q", row.Name, name, got.Name)
				}
			}
		}
	}
	if n < 100 {
		t.Fatalf("the table lists only %d phrases", n)
	}
}

func capitalised(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[size:]
}

// Page authors control names: spellings that a person reads as a commit
// word must match it.
func TestHostileSpellingsOfCommitWords(t *testing.T) {
	for _, name := range []string{
		"PLACE ORDER", "pLaCe OrDeR", "DeLeTe",
		"Place   order", "Place\n\torder", "Place\u00a0order", "Place\u3000order", // odd spaces
		"Pl\u200bace or\u200dder", "De\u00adlete", "\u2066Pay\u2069", "P\u200ea\u200fy", "Bu\ufeffy", // invisible and bidi characters
		"Ｐａｙ", "𝐏𝐚𝐲", "𝓟𝓪𝔂", "Ⓟⓐⓨ", "ᴘᴀʏ", // compatibility forms and small capitals
		"Раy", "Рау", "Dеlеtе", "ΡΑΥ", "Sеnd", // Cyrillic and Greek letters that pass for Latin
		"Pa\u0301y", "Lo\u0308schen", "Loeschen", "Del\u0336ete", // marks added, decomposed, transliterated
		"P a y", "D-e-l-e-t-e", "C.h.e.c.k.o.u.t", // spelled out
		"PlaceOrder", "BuyNow", "place-order", "place_order", "checkout→", "🛒 Checkout", "Pay:", "(Delete)",
		"KAUF ABSCHLIESSEN", "Kauf abschliessen", "KAUF ABSCHLIEẞEN", "ÜBERWEISEN",
		"FINALISER L'ACHAT", "Procéder au paiement", "Proceder au paiement",
		"Total: 49,99 € — Zahlungspflichtig bestellen",
	} {
		if _, ok := RiskOf(clickAct, on(name)); !ok {
			t.Errorf("%q (%q) is not caught", name, plain.Text(name, 0))
		}
	}
}

// The row is about what the element is, not what the act passes by:
// pointing at a "Delete" button commits nothing, nor typing without Enter,
// and what an act types is not a name.
func TestCommitRowsNeedAnActThatCanSetItOff(t *testing.T) {
	for _, a := range []vocab.Act{{Kind: vocab.Hover}, {Kind: vocab.Scroll, DY: 3}, {Kind: vocab.RightClick}, {Kind: vocab.Type, Text: "x"}} {
		if _, ok := RiskOf(a, on("Delete")); ok {
			t.Errorf("%s is risky", a.Sentence("Delete"))
		}
	}
	for _, a := range []vocab.Act{{Kind: vocab.Click}, {Kind: vocab.DoubleClick}, {Kind: vocab.Type, Text: "x", Submit: true}} {
		if _, ok := RiskOf(a, on("Delete")); !ok {
			t.Errorf("%s is not risky", a.Sentence("Delete"))
		}
	}
	if _, ok := RiskOf(vocab.Act{Kind: vocab.Type, Text: "buy now"}, on("Search")); ok {
		t.Error("the text typed was read as the field's name")
	}
	desktop := vocab.Target{Desktop: true, Name: "Delete"}
	if _, ok := RiskOf(clickAct, desktop); ok {
		t.Error("a desktop act at a point fell under a row for named elements")
	}
	// A desktop element Reins read by its ref has a name of its own.
	if _, ok := RiskOf(clickAct, vocab.Target{Desktop: true, Ref: "d8", Role: "button", Name: "Delete account"}); !ok {
		t.Error("a click on a desktop button named Delete account is not under the row for what commits")
	}
}

func TestTheWarningSaysTheLabelIsThePagesOwn(t *testing.T) {
	w := Risk(clickAct, on("Place order"))
	for _, want := range []string{"buys, pays, sends or deletes", "page or application wrote", "can miss"} {
		if !strings.Contains(w, want) {
			t.Errorf("the warning %q does not say %q", w, want)
		}
	}
	// Front ends render it as any text, capped at plain.DetailMax: it must
	// come through whole.
	for _, row := range Tiers() {
		if got := plain.Text(row.Warning, plain.DetailMax); got != row.Warning {
			t.Errorf("row %q: its warning does not pass the renderer unchanged: %q", row.Name, got)
		}
	}
}

// recorder answers as told and keeps what the person was shown.
type recorder struct {
	answer vocab.Decision
	shown  []vocab.Request
}

func (r *recorder) Answer(_ context.Context, req vocab.Request) (vocab.Decision, error) {
	r.shown = append(r.shown, req)
	return r.answer, nil
}

// A risky act is put to the person every time, with its warning and
// without "allow on this tab", even on a tab where that act's kind is
// remembered; answering it "allow on this tab" allows it once and leaves
// the memory as it was.
func TestARiskyActIsNeverCoveredByARememberedAllow(t *testing.T) {
	ctx := context.Background()
	req := func(a vocab.Act, t vocab.Target) vocab.Request {
		return vocab.Request{ID: "r", Agent: vocab.Agent{Name: "a", Session: "s1"}, Act: a, Target: t}
	}
	for _, tc := range []struct {
		name        string
		plain, risk vocab.Request
	}{
		{"commit word", req(clickAct, on("Continue")), req(clickAct, on("Place order"))},
		{"hostile commit word", req(clickAct, on("Continue")), req(clickAct, on("Р\u200blace ОRDER"))},
		{"secret field", req(vocab.Act{Kind: vocab.Type, Text: "ada"}, on("Name")), req(vocab.Act{Kind: vocab.Type, Text: "pw", Secret: true}, on("Password"))},
		{"commit and Enter", req(vocab.Act{Kind: vocab.Type, Text: "hi"}, on("Message")), req(vocab.Act{Kind: vocab.Type, Text: "hi", Submit: true}, on("Send a message"))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &recorder{answer: vocab.AllowTab}
			b := NewBroker(BrokerOptions{Answerer: p})
			if _, err := b.Decide(ctx, tc.plain); err != nil {
				t.Fatal(err)
			}
			if !b.Covered(tc.plain) {
				t.Fatal("the plain act's allow on this tab was not remembered")
			}
			if Rememberable(tc.risk.Act, tc.risk.Target) {
				t.Fatal("the risky act may be remembered")
			}
			if b.Covered(tc.risk) {
				t.Fatal("the remembered allow covers the risky act")
			}
			for i := 0; i < 2; i++ {
				a, err := b.Decide(ctx, tc.risk)
				if err != nil || a.How() != vocab.AllowOnce {
					t.Fatalf("the risky act: %v, %v; want allowed once", a.How(), err)
				}
			}
			if len(p.shown) != 3 {
				t.Fatalf("the person was asked %d times, want the plain act once and the risky one twice", len(p.shown))
			}
			shown := p.shown[1]
			if shown.Rememberable || shown.Risk == "" || shown.Risk != Risk(tc.risk.Act, tc.risk.Target) {
				t.Fatalf("the risky act was shown rememberable %v with warning %q", shown.Rememberable, shown.Risk)
			}
			if p.shown[0].Risk != "" {
				t.Fatalf("the plain act was shown with the warning %q", p.shown[0].Risk)
			}
			if !b.Covered(tc.plain) {
				t.Fatal("answering the risky act changed what was remembered")
			}
		})
	}
}

// The warning is the broker's to set: a request that arrives with one of
// its own shows the table's, or none.
func TestTheBrokerSetsTheWarningFromTheTable(t *testing.T) {
	p := &recorder{answer: vocab.AllowOnce}
	b := NewBroker(BrokerOptions{Answerer: p})
	forged := vocab.Request{Agent: vocab.Agent{Session: "s1"}, Act: clickAct, Target: on("Continue"), Risk: "nothing to worry about"}
	b.Decide(context.Background(), forged)
	nav := vocab.Request{Agent: vocab.Agent{Session: "s1"}, Act: vocab.Act{Kind: vocab.Navigate, URL: "https://evil.example/"}, Target: on("")}
	b.Decide(context.Background(), nav)
	if len(p.shown) != 2 || p.shown[0].Risk != "" || p.shown[1].Risk != Risk(nav.Act, nav.Target) || p.shown[1].Risk == "" {
		t.Fatalf("shown %+v", p.shown)
	}
}

func FuzzRiskOf(f *testing.F) {
	for _, s := range []string{"Place order", "Р\u200bay", "Löschen", "P a y", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		tier, ok := RiskOf(clickAct, on(name))
		if ok != (tier.Warning != "") {
			t.Fatalf("%q: risky %v with warning %q", name, ok, tier.Warning)
		}
		if ok && Rememberable(clickAct, on(name)) {
			t.Fatalf("%q: risky and rememberable", name)
		}
	})
}

// A click that leads to another origin is shown with its destination, whole,
// is never covered by an "allow on this tab" given for clicks before, and a
// plan that holds it asks it on its own; a click that stays is none of these.
func TestAClickThatLeadsElsewhereIsAskedAsANavigationThere(t *testing.T) {
	dest := "https://evil.example/collect?iban=DE89370400440532013000&" + strings.Repeat("x", 300)
	away := rq(clickAct, submitsTo("Continue", &vocab.Form{Action: dest, Method: "post", Submit: "Continue", Control: true}))
	away.Target.Ref = "e7"
	stay := rq(clickAct, leadsTo("link", "Orders", shopOrigin+"/orders"))
	stay.Target.Ref = "e8"
	if got, want := vocab.SentenceOf(away.Act, away.Target), "Click “Continue”, which opens "+dest; got != want {
		t.Errorf("sentence %q,\n want %q", got, want)
	}
	if got := vocab.SentenceOf(stay.Act, stay.Target); got != "Click “Orders”" {
		t.Errorf("a click that stays on the site reads %q", got)
	}
	if Rememberable(away.Act, away.Target) || !Rememberable(stay.Act, stay.Target) {
		t.Errorf("rememberable: away %v, stay %v", Rememberable(away.Act, away.Target), Rememberable(stay.Act, stay.Target))
	}

	asked := 0
	b := NewBroker(BrokerOptions{Answerer: answerFunc(func(_ context.Context, r vocab.Request) (vocab.Decision, error) {
		asked++
		if r.Risk != "" {
			return vocab.Deny, nil // a hurried person: plain questions allowed, warned ones denied
		}
		return vocab.AllowTab, nil
	})})
	ctx := context.Background()
	if _, err := b.Decide(ctx, stay); err != nil {
		t.Fatal(err)
	}
	if !b.Covered(stay) || b.Covered(away) {
		t.Errorf("after allow on this tab: stay covered %v, away covered %v", b.Covered(stay), b.Covered(away))
	}
	if _, err := b.Decide(ctx, away); err == nil || asked != 2 {
		t.Errorf("the click away was not put to the person (%d questions) or was allowed: %v", asked, err)
	}

	plan := vocab.Request{Act: vocab.Act{Kind: vocab.Plan, Steps: 2}, Target: vocab.Target{Tab: "1", Origin: shopOrigin},
		Plan: []vocab.PlanStep{{Act: stay.Act, Target: stay.Target}, {Act: away.Act, Target: away.Target}}}
	pb := NewBroker(BrokerOptions{Answerer: &planAnswerer{upTo: 2}})
	p, err := pb.DecidePlan(ctx, plan)
	if err != nil {
		t.Fatal(err)
	}
	if p.Request().Plan[1].Risk == "" || p.Request().Plan[0].Risk != "" {
		t.Errorf("the plan did not show which step is asked on its own: %+v", p.Request().Plan)
	}
	if _, err := p.Step(0, asStep(plan, 0)); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Step(1, asStep(plan, 1)); err == nil || !strings.Contains(err.Error(), "risk table") {
		t.Errorf("the plan covered the click away: %v", err)
	}
}

// A "Continue" that pays, by where its form posts or what it holds, is
// asked with the form row's warning, not only by its label.
func TestAContinueThatPaysIsAskedAsAPayment(t *testing.T) {
	for _, f := range []*vocab.Form{
		{Action: shopOrigin + "/payments/confirm", Method: "post", Submit: "Continue", Control: true},
		{Action: shopOrigin + "/next", Submit: "Continue", Control: true, Fields: []string{"card"}, Payment: true},
	} {
		tier, ok := RiskOf(clickAct, submitsTo("Continue", f))
		if !ok || !strings.Contains(tier.Name, "form that pays") {
			t.Errorf("%+v: %q %v", f, tier.Name, ok)
		}
	}
	if _, ok := RiskOf(clickAct, on("Continue")); ok {
		t.Error("a Continue with no form is warned")
	}
}
