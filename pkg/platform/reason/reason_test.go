package reason

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Every reason has a message in every language, using only its own
// parameters; every message is a reason's; the catalogs agree.
func TestEveryReasonHasItsMessages(t *testing.T) {
	if p := Catalog.Problems(); len(p) != 0 {
		t.Errorf("the catalogs disagree:\n%s", strings.Join(p, "\n"))
	}
	upperSnake := regexp.MustCompile(`^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$`)
	byName := map[string]Reason{}
	for _, r := range All() {
		if !upperSnake.MatchString(r.Name) {
			t.Errorf("reason %q is not UPPER_SNAKE", r.Name)
		}
		if _, dup := byName[r.Name]; dup {
			t.Errorf("reason %q defined twice", r.Name)
		}
		byName[r.Name] = r
	}
	for _, lang := range Catalog.Languages() {
		for _, r := range All() {
			if !slices.Contains(Catalog.Keys(lang), r.Name) {
				t.Errorf("%s.json has no message for %s", lang, r.Name)
			}
		}
		for _, key := range Catalog.Keys(lang) {
			if term, ok := strings.CutPrefix(key, TermPrefix); ok {
				param, _, _ := strings.Cut(term, ".")
				if !slices.ContainsFunc(Catalog.Keys(lang), func(k string) bool {
					return !strings.HasPrefix(k, TermPrefix) && slices.Contains(Catalog.Placeholders(lang, k), param)
				}) {
					t.Errorf("%s.json: term %q is for {%s}, which no message uses", lang, key, param)
				}
				continue
			}
			name, detail, _ := strings.Cut(key, ".")
			r, ok := byName[name]
			if !ok {
				t.Errorf("%s.json: %q is no reason's message", lang, key)
				continue
			}
			if detail != "" && r.Detailed {
				continue // the engine's parameters: the services' tests render each against the engine's text
			}
			for _, ph := range Catalog.Placeholders(lang, key) {
				if !slices.Contains(params(r), ph) {
					t.Errorf("%s.json: %q uses {%s}, which %s does not carry (%v)", lang, key, ph, r.Name, r.Params)
				}
			}
		}
	}
}

func TestLocalize(t *testing.T) {
	st := New(codes.ResourceExhausted, RateLimited, "too many sign-ins", map[string]string{"retry_seconds": "12"})
	tests := []struct {
		name   string
		prefs  []string
		locale string
		want   string
	}{
		{name: "portuguese", prefs: []string{"pt-BR,pt;q=0.9"}, locale: "pt-BR", want: "Muitas tentativas em pouco tempo: tente de novo em 12 s."},
		{name: "spanish", prefs: []string{"es-AR"}, locale: "es", want: "Demasiados intentos en poco tiempo: vuelve a intentarlo en 12 s."},
		{name: "unserved is english", prefs: []string{"de"}, locale: "en", want: "Too many attempts in a short time: try again in 12 s."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Localize(st, tt.prefs...)
			if got.Message() != "too many sign-ins" {
				t.Errorf("message = %q, want the English one kept", got.Message())
			}
			var lm *errdetails.LocalizedMessage
			for _, d := range got.Details() {
				if m, ok := d.(*errdetails.LocalizedMessage); ok {
					lm = m
				}
			}
			if lm == nil || lm.GetLocale() != tt.locale || lm.GetMessage() != tt.want {
				t.Errorf("LocalizedMessage = %v, want %s %q", lm, tt.locale, tt.want)
			}
			if again := Localize(got, "es"); len(again.Details()) != len(got.Details()) {
				t.Errorf("a second Localize added another LocalizedMessage")
			}
		})
	}
	if got := Localize(st); len(got.Details()) != 1 {
		t.Errorf("no language named, but details are %v", got.Details())
	}
	if got := Localize(status.New(codes.NotFound, "no such match"), "pt-BR"); len(got.Details()) != 0 {
		t.Errorf("a status without ErrorInfo got %v", got.Details())
	}
	info, ok := Of(st)
	if !ok || info.GetReason() != "RATE_LIMITED" || info.GetDomain() != Domain || info.GetMetadata()["retry_seconds"] != "12" {
		t.Errorf("Of = %v, %v", info, ok)
	}
}

// Text fills a parameter through its term in the language and chooses a
// plural form by count: the words a player of the game uses.
func TestTextUsesTermsAndPlurals(t *testing.T) {
	info := func(md map[string]string) *errdetails.ErrorInfo {
		return &errdetails.ErrorInfo{Reason: IllegalPly, Domain: Domain, Metadata: md}
	}
	outranked := info(map[string]string{"ply": "c3xc4", "rule": "B4.1", "detail": "outranked", "attacker": "horse", "target": "chariot"})
	screens := func(n string) *errdetails.ErrorInfo {
		return info(map[string]string{"ply": "a1xa4", "rule": "B4.2", "detail": "cannon_screens", "count": n, "from": "a1", "to": "a4"})
	}
	tests := []struct {
		lang string
		info *errdetails.ErrorInfo
		want string
	}{
		{"en", outranked, "Illegal ply c3xc4: a horse cannot capture a chariot, which ranks higher (B4.1)"},
		{"pt-BR", outranked, "Lance ilegal c3xc4: o cavalo não pode capturar o carro, que é de patente mais alta (B4.1)"},
		{"es", outranked, "Jugada ilegal c3xc4: el caballo no puede capturar al carro, que tiene más rango (B4.1)"},
		{"en", screens("1"), "Illegal ply a1xa4: a cannon captures by jumping exactly one piece, and there is 1 between a1 and a4 (B4.2)"},
		{"en", screens("2"), "Illegal ply a1xa4: a cannon captures by jumping exactly one piece, and there are 2 between a1 and a4 (B4.2)"},
		{"pt-BR", screens("2"), "Lance ilegal a1xa4: o canhão captura saltando exatamente uma peça, e há 2 peças entre a1 e a4 (B4.2)"},
		// 0 is Portuguese's "one" form (CLDR: i = 0..1), and a cannon is
		// refused with 0 or 2+ screens, never 1: "no piece", not "0 peça".
		{"pt-BR", screens("0"), "Lance ilegal a1xa4: o canhão captura saltando exatamente uma peça, e não há nenhuma peça entre a1 e a4 (B4.2)"},
		{"es", screens("1"), "Jugada ilegal a1xa4: el cañón captura saltando exactamente una pieza, y hay 1 pieza entre a1 y a4 (B4.2)"},
		{"pt-BR", info(map[string]string{"ply": "e5h", "rule": "Q3.2", "detail": "no_such_detail"}), "Lance ilegal e5h (Q3.2)."},
	}
	for _, tt := range tests {
		got, ok := Text(Catalog.Printer(tt.lang), tt.info)
		if !ok || got != tt.want {
			t.Errorf("%s %v:\n got %q\nwant %q", tt.lang, tt.info.GetMetadata(), got, tt.want)
		}
	}
}
