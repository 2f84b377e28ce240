package approvals

import (
	"net/url"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/reins-app/reins/internal/plain"
	"github.com/reins-app/reins/vocab"
)

// A Tier is one rule of the acts Reins always puts to the person on their
// own: never covered by a remembered "allow on this tab", never offered
// it, and shown with a warning.
type Tier struct {
	Name    string // what the rule matches, in a few words
	Why     string // why such an act is always asked
	Warning string // what the person reads beside the act
	// Words are, for a row that reads an element's name, the phrases it
	// looks for, as a person writes them; nil for other rows.
	Words []string
}

// tier is a row of the table: a Tier and the acts it matches.
type tier struct {
	Tier
	match func(*subject) bool
}

// subject is an act on its target as the rows look at it; the words of
// the target's name are read once, for all the rows that need them.
type subject struct {
	act   vocab.Act
	t     vocab.Target
	names [][]string // the name's words, as written and with camel case split; nil until read
}

func (s *subject) nameWords() [][]string {
	if s.names == nil {
		s.names = [][]string{words(s.t.Name, false), words(s.t.Name, true)}
	}
	return s.names
}

// The warning for acts the page's labels mark: the person must know the
// label is the page's, so that its absence reassures nobody.
const commitWarning = "Its label says it buys, pays, sends or deletes, so it is asked every time. " +
	"The page or application wrote that label and Reins can miss such buttons: look before you allow."

// tiers is the table, checked in order; the first row that matches gives
// the warning. Rows for other acts (file upload, accepting a dialog,
// desktop acts) join it here.
var tiers = []tier{
	{
		Tier: Tier{
			Name:    "typing into a password or payment field",
			Why:     "what is typed there opens accounts and spends money, and the person cannot read it back in the popup",
			Warning: "Typing into a password or payment field is asked every time; only the length is shown.",
		},
		match: func(s *subject) bool { return s.act.Kind == vocab.Type && s.act.Secret },
	},
	{
		Tier: Tier{
			Name:    "navigation to another origin",
			Why:     "the tab was shared on one site; another site was never shared, and its address is the one thing to check",
			Warning: "This leaves the shared site for another one, so it is asked every time. Check the address: the tab is not shared there.",
		},
		match: func(s *subject) bool {
			// An address with no origin of its own (data:, about:…) is
			// another origin too.
			return s.act.Kind == vocab.Navigate && (s.t.Origin == "" || Origin(s.act.URL) != s.t.Origin)
		},
	},
	{
		Tier: Tier{
			Name:    "opening another origin in a new tab",
			Why:     "the new tab loads another site with whatever its address carries, as a navigation there would, and that site was never shared",
			Warning: "This opens another site in a new tab, so it is asked every time. Read the whole address: whatever it carries goes to that site.",
		},
		match: func(s *subject) bool {
			return s.act.Kind == vocab.NewTab && (s.t.Origin == "" || Origin(s.act.URL) != s.t.Origin)
		},
	},
	{
		Tier: Tier{
			Name: "a click or Enter that takes the tab to another origin",
			Why: "a link's address or a form's destination is the page's own markup: the act navigates there as an address typed in would, " +
				"with whatever the address or the form carries",
			Warning: "This takes the tab to another site (shown above), so it is asked every time. Check the address: the tab is not shared there, and what the page sends goes with it.",
		},
		match: func(s *subject) bool { return vocab.LeavesOrigin(s.act, s.t) },
	},
	{
		Tier: Tier{
			Name:    "accepting a page's JavaScript dialog",
			Why:     "OK confirms whatever the page's message asks (a deletion, a payment, leaving unsaved work), and the message is the page's own text",
			Warning: "Accepting a page's dialog is asked every time: OK does what its message says, and the page wrote that message. Read it before you allow.",
		},
		match: func(s *subject) bool { return s.act.Kind == vocab.Dialog && s.act.Accept },
	},
	{
		Tier: Tier{
			Name:    "a line break or Enter typed into a terminal",
			Why:     "Enter in a terminal runs whatever command is on its line, with the person's own rights",
			Warning: "This presses Enter in a terminal, which runs the command on its line. Read every line of the text before you allow.",
		},
		match: func(s *subject) bool {
			return s.t.Desktop && s.t.Terminal && vocab.PressesEnter(s.act)
		},
	},
	{
		Tier: Tier{
			Name:    "giving a page files from the computer",
			Why:     "a file sent to a site cannot be taken back, and only the person knows whether that file belongs there",
			Warning: "Uploading files is asked every time: check each file's name and folder, and that this site should have it.",
		},
		match: func(s *subject) bool { return s.act.Kind == vocab.Upload },
	},
	{
		Tier: Tier{
			Name: "submitting a form that pays, transfers or deletes",
			Why: "what a form does is said by where it submits and what it holds, not by the button's label: " +
				"a \"Continue\" that posts to /payments or sends a card number pays",
			Warning: "This submits a form whose address, fields or button say it pays, transfers, orders or deletes, " +
				"whatever the label of what is pressed says, so it is asked every time. Look before you allow.",
		},
		match: formCommits,
	},
	commitTier("English", englishCommits),
	commitTier("German", germanCommits),
	commitTier("French", frenchCommits),
	commitTier("Spanish", spanishCommits),
}

// The phrases of each language's commit row, as a person writes them.
var (
	englishCommits = []string{
		"buy", "buy now", "purchase", "complete purchase", "confirm purchase",
		"place order", "place your order", "order now", "complete order", "confirm order", "submit order",
		"checkout", "check out", "pay", "pay now", "make payment", "make a payment", "submit payment", "confirm payment",
		"donate", "send", "send money", "transfer", "transfer money", "confirm transfer",
		"post comment", "post reply", "post message", "publish",
		"delete", "delete account", "remove account", "close account", "deactivate account", "cancel subscription",
	}
	germanCommits = []string{
		"kaufen", "jetzt kaufen", "kauf abschließen", "kauf bestätigen",
		"bestellen", "jetzt bestellen", "zahlungspflichtig bestellen", "kostenpflichtig bestellen",
		"bestellung abschicken", "bestellung absenden", "bestellung abschließen", "bestellung bestätigen",
		"zur kasse", "bezahlen", "jetzt bezahlen", "zahlung bestätigen", "jetzt zahlen", "spenden",
		"senden", "absenden", "abschicken", "versenden", "veröffentlichen",
		"löschen", "loeschen", "konto löschen", "konto entfernen", "konto schließen",
		"überweisen", "ueberweisen", "überweisung ausführen", "ueberweisung ausfuehren", "überweisung bestätigen",
		"abo kündigen", "abonnement kündigen",
	}
	frenchCommits = []string{
		"acheter", "acheter maintenant", "finaliser l'achat", "valider l'achat", "confirmer l'achat",
		"commander", "passer la commande", "passer commande", "valider la commande", "valider ma commande",
		"confirmer la commande", "finaliser la commande",
		"payer", "payer maintenant", "procéder au paiement", "confirmer le paiement", "valider le paiement", "effectuer le paiement",
		"faire un don", "envoyer", "publier", "supprimer", "supprimer le compte", "supprimer mon compte", "fermer le compte",
		"virement", "effectuer le virement", "transférer", "résilier l'abonnement",
	}
	spanishCommits = []string{
		"comprar", "comprar ahora", "finalizar compra", "confirmar compra", "realizar compra",
		"realizar pedido", "hacer pedido", "finalizar pedido", "confirmar pedido", "tramitar pedido",
		"pagar", "pagar ahora", "confirmar pago", "realizar pago", "donar",
		"enviar", "publicar", "eliminar", "eliminar cuenta", "borrar", "borrar cuenta", "cerrar cuenta",
		"transferir", "realizar transferencia", "confirmar transferencia", "cancelar suscripción",
	}
)

// commitTier is the row for one language's words for committing something:
// an act on an element whose accessible name holds one of the phrases, as
// whole words, however the page spelled them.
func commitTier(language string, phrases []string) tier {
	// Each phrase, folded, under its first word.
	folded := map[string][][]string{}
	for _, p := range phrases {
		ws := words(p, false)
		folded[ws[0]] = append(folded[ws[0]], ws)
	}
	return tier{
		Tier: Tier{
			Name: "an element whose name says it commits something, in " + language,
			Why: "a purchase, a payment, a message sent or an account deleted cannot be taken back; " +
				"the name is the page's own, so this row is an extra layer, not a boundary",
			Warning: commitWarning,
			Words:   phrases,
		},
		match: func(s *subject) bool {
			// On the desktop only an element Reins read by its ref has a
			// name of its own; a point's "name" is Reins' words.
			if !commits(s.act) || (s.t.Desktop && s.t.Ref == "") || s.t.Name == "" {
				return false
			}
			return holdsPhrase(s.nameWords(), folded)
		},
	}
}

// submits reports whether a, done to t, submits t's form: a click on its
// submit control, or Enter pressed in one of its fields (for a field
// outside any form, what presses the button beside it).
func submits(a vocab.Act, t vocab.Target) bool {
	if t.Form == nil || t.Desktop {
		return false
	}
	switch a.Kind {
	case vocab.Click, vocab.DoubleClick:
		return t.Form.Control
	}
	return vocab.PressesEnter(a)
}

// formCommits reports whether s submits a form that, by what it holds, where
// it goes or the name of what submits it, pays, transfers, orders or
// deletes: a field for an amount, a card, an IBAN or an account number; a
// word of the commit phrases, or of pathWords, in its action's path; a
// commit phrase in the name of the control that submits it (the button
// beside a field outside any form included).
func formCommits(s *subject) bool {
	if !submits(s.act, s.t) {
		return false
	}
	f := s.t.Form
	if f.Payment || len(f.Fields) > 0 {
		return true
	}
	if f.Submit != "" && holdsPhrase([][]string{words(f.Submit, false), words(f.Submit, true)}, allCommits) {
		return true
	}
	return !f.Beside && pathCommits(f.Action)
}

// pathCommits reports whether the path of a form's action holds a commit
// phrase or one of pathWords ("/payments/confirm", "/api/placeOrder").
func pathCommits(action string) bool {
	u, err := url.Parse(action)
	if err != nil || u.Path == "" {
		return false
	}
	return holdsPhrase([][]string{words(u.Path, false), words(u.Path, true)}, pathPhrases)
}

// pathWords are the words an address's path uses for what commits, beside
// the commit phrases of the table's languages: plurals and nouns that a
// button would not be labelled with.
var pathWords = []string{
	"payment", "payments", "pay", "paying", "transfer", "transfers", "checkout", "order", "orders",
	"purchase", "purchases", "buy", "delete", "remove", "destroy", "donate", "donation", "withdraw", "withdrawal",
	"send", "wire", "remit", "remittance", "payout", "charge", "subscribe", "unsubscribe",
	"zahlung", "zahlungen", "bezahlen", "ueberweisung", "überweisung", "bestellung", "bestellen", "kasse", "kaufen",
	"loeschen", "löschen", "paiement", "payer", "virement", "commande", "achat", "supprimer",
	"pago", "pagos", "pagar", "transferencia", "pedido", "compra", "eliminar", "borrar",
}

// allCommits and pathPhrases are the commit phrases of every language of the
// table, folded and filed under their first word; pathPhrases adds
// pathWords.
var allCommits, pathPhrases = commitPhrases()

func commitPhrases() (all, path map[string][][]string) {
	all, path = map[string][][]string{}, map[string][][]string{}
	add := func(m map[string][][]string, p string) {
		if ws := words(p, false); len(ws) > 0 {
			m[ws[0]] = append(m[ws[0]], ws)
		}
	}
	for _, phrases := range [][]string{englishCommits, germanCommits, frenchCommits, spanishCommits} {
		for _, p := range phrases {
			add(all, p)
			add(path, p)
		}
	}
	for _, p := range pathWords {
		add(path, p)
	}
	return all, path
}

// commits reports whether a, done to an element, can set off what the
// element's name says: pointing at it, scrolling over it or opening its
// context menu cannot, nor typing into it without pressing Enter.
func commits(a vocab.Act) bool {
	switch a.Kind {
	case vocab.Hover, vocab.Scroll, vocab.RightClick:
		return false
	case vocab.Type:
		return vocab.PressesEnter(a)
	case vocab.Dialog:
		return a.Accept
	}
	return true
}

// Tiers lists the table's rules in the order they are checked.
func Tiers() []Tier {
	out := make([]Tier, len(tiers))
	for i, t := range tiers {
		out[i] = t.Tier
		out[i].Words = slices.Clone(t.Words)
	}
	return out
}

// RiskOf returns the first rule that act on t falls under, and whether
// there is one. Such an act is always asked on its own.
func RiskOf(act vocab.Act, t vocab.Target) (Tier, bool) {
	s := &subject{act: act, t: t}
	for _, row := range tiers {
		if row.match(s) {
			return row.Tier, true
		}
	}
	return Tier{}, false
}

// Risk is the warning the person reads with act on t, or "" when no rule
// of the table matches it.
func Risk(act vocab.Act, t vocab.Target) string {
	tier, _ := RiskOf(act, t)
	return tier.Warning
}

// holdsPhrase reports whether a name, as readings of its words, holds one
// of phrases, each a run of folded words filed under its first, as
// consecutive whole words. Reading the words both as written and with camel
// case split ("PlaceOrder") lets neither a mixed-case spelling ("DeLeTe")
// nor a run-together one hide a phrase; letters spelled out one by one
// ("P a y", "D-e-l-e-t-e") count as the word they spell.
func holdsPhrase(readings [][]string, phrases map[string][][]string) bool {
	for _, ws := range readings {
		if holds(ws, phrases) || holds(joinLetters(ws), phrases) {
			return true
		}
	}
	return false
}

func holds(ws []string, phrases map[string][][]string) bool {
	for i, w := range ws {
		for _, p := range phrases[w] {
			if len(ws)-i >= len(p) && slices.Equal(ws[i:i+len(p)], p) {
				return true
			}
		}
	}
	return false
}

// joinLetters returns ws with each run of one-letter words joined into one
// word.
func joinLetters(ws []string) []string {
	out := make([]string, 0, len(ws))
	run := ""
	for _, w := range ws {
		if utf8.RuneCountInString(w) == 1 {
			run += w
			continue
		}
		if run != "" {
			out = append(out, run)
			run = ""
		}
		out = append(out, w)
	}
	if run != "" {
		out = append(out, run)
	}
	return out
}

// words splits text a page wrote into the words a person reads in it,
// folded so that spellings that look alike compare equal: the text as the
// renderer shows it (no invisible or format characters, spaces folded),
// compatibility forms made plain (fullwidth, mathematical and circled
// letters, ligatures), accents and other marks dropped, letters from other
// scripts that pass for Latin ones read as those, and lower case, with ß as
// ss. A word is a run of letters and digits; with camel, a capital after a
// small letter starts a new one.
func words(text string, camel bool) []string {
	s := norm.NFKD.String(plain.Text(text, 0))
	var out []string
	var w strings.Builder
	end := func() {
		if w.Len() > 0 {
			out = append(out, w.String())
			w.Reset()
		}
	}
	prevLower := false
	for _, r := range s {
		if unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r) || unicode.Is(unicode.Cf, r) {
			continue
		}
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			end()
			prevLower = false
			continue
		}
		if camel && unicode.IsUpper(r) && prevLower {
			end() // "PlaceOrder" is two words
		}
		prevLower = unicode.IsLower(r)
		if l, ok := lookalike[r]; ok {
			r = l
		} else {
			r = unicode.ToLower(r)
		}
		if r == 'ß' {
			w.WriteString("ss")
			continue
		}
		w.WriteRune(r)
	}
	end()
	return out
}

// lookalike maps letters of other scripts, and Latin small capitals, that
// are drawn like a Latin letter to that letter, lower case: a page can
// write "Раy" with a Cyrillic Р and а, which no person tells from "Pay".
var lookalike = map[rune]rune{
	// Cyrillic
	'А': 'a', 'а': 'a', 'В': 'b', 'в': 'b', 'Е': 'e', 'е': 'e', 'Ѕ': 's', 'ѕ': 's',
	'І': 'i', 'і': 'i', 'Ј': 'j', 'ј': 'j', 'К': 'k', 'к': 'k', 'М': 'm', 'м': 'm',
	'Н': 'h', 'н': 'h', 'һ': 'h', 'О': 'o', 'о': 'o', 'Р': 'p', 'р': 'p', 'С': 'c', 'с': 'c',
	'Т': 't', 'т': 't', 'У': 'y', 'у': 'y', 'Ү': 'y', 'ү': 'y', 'Х': 'x', 'х': 'x',
	'Ԁ': 'd', 'ԁ': 'd', 'Ԛ': 'q', 'ԛ': 'q', 'Ԝ': 'w', 'ԝ': 'w', 'Ӏ': 'l', 'ӏ': 'l',
	// Greek
	'Α': 'a', 'α': 'a', 'Β': 'b', 'Ε': 'e', 'ε': 'e', 'Ζ': 'z', 'Η': 'h', 'Ι': 'i', 'ι': 'i',
	'Κ': 'k', 'κ': 'k', 'Μ': 'm', 'Ν': 'n', 'ν': 'v', 'Ο': 'o', 'ο': 'o', 'Ρ': 'p', 'ρ': 'p',
	'Τ': 't', 'τ': 't', 'Υ': 'y', 'υ': 'u', 'γ': 'y', 'Χ': 'x', 'χ': 'x',
	// Armenian
	'օ': 'o', 'ս': 'u', 'հ': 'h', 'ց': 'g',
	// Latin letters drawn like others, and small capitals
	'ı': 'i', 'ȷ': 'j', 'ɑ': 'a', 'ɡ': 'g', 'ᴀ': 'a', 'ʙ': 'b', 'ᴄ': 'c', 'ᴅ': 'd', 'ᴇ': 'e',
	'ɢ': 'g', 'ʜ': 'h', 'ɪ': 'i', 'ᴊ': 'j', 'ᴋ': 'k', 'ʟ': 'l', 'ᴍ': 'm', 'ɴ': 'n', 'ᴏ': 'o',
	'ᴘ': 'p', 'ʀ': 'r', 'ꜱ': 's', 'ᴛ': 't', 'ᴜ': 'u', 'ᴠ': 'v', 'ᴡ': 'w', 'ʏ': 'y', 'ᴢ': 'z',
}
