// Package text holds what the terminal client says, in every language it
// speaks: the catalogs in locales/<tag>.json (the format of package
// tabuleiro.dev/pkg/platform/i18n), embedded whole, so that a new file
// there adds a language with no code change. It also chooses the player's
// language and renders the server's refusals in it.
//
// The language is, first found: the --lang flag, $TABULEIRO_LANG, the one
// `tabuleiro config lang` saved in the data directory, then the POSIX
// locale ($LC_ALL, $LC_MESSAGES, $LANG), else English. "C" and "POSIX"
// are English. A tag is matched to the catalogs (es-ES is es); a flag or
// variable that no catalog speaks is passed over, and the caller warns
// (Unspoken, LangWarning).
package text

import (
	"embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/status"

	"tabuleiro.dev/pkg/platform/i18n"
	"tabuleiro.dev/pkg/platform/reason"
)

//go:embed locales/*.json
var locales embed.FS

// Catalog is every message of the terminal client in every language.
var Catalog = i18n.MustLoad(locales, "locales")

// Printer renders the client's messages in one language.
type Printer = i18n.Printer

// Params are a message's parameters.
type Params = i18n.Params

// English is the printer of the fallback language, for callers given no
// printer (tests, and code that runs before the language is known).
var English = Catalog.Printer(i18n.Fallback)

// Or returns p, or English when p is nil.
func Or(p *Printer) *Printer {
	if p == nil {
		return English
	}
	return p
}

// EnvLang is the variable that names the player's language, before the
// saved setting and the locale.
const EnvLang = "TABULEIRO_LANG"

// SettingFile is the file in the data directory that keeps the language
// `tabuleiro config lang` saved: one tag.
const SettingFile = "lang"

// Choose returns the catalog language for the player: flag (--lang), else
// $TABULEIRO_LANG, else saved (the data directory's setting), else the
// POSIX locale: the first of LC_ALL, LC_MESSAGES, LANG that is set (POSIX
// order: LC_ALL overrides the others), else English.
func Choose(flag string, getenv func(string) string, saved string) string {
	// A setting no catalog speaks ("--lang xx") gives way to the next.
	for _, v := range []string{flag, getenv(EnvLang), saved} {
		if strings.TrimSpace(v) != "" && Catalog.Speaks(v) {
			return Catalog.Match(v)
		}
	}
	for _, k := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if v := strings.TrimSpace(getenv(k)); v != "" {
			return Catalog.Match(v)
		}
	}
	return i18n.Fallback
}

// Unspoken returns the languages the player named that no catalog speaks
// ("--lang xx", TABULEIRO_LANG=fr): flag, then $TABULEIRO_LANG. Choose
// passes over them; the caller warns (LangWarning). A tag a catalog
// serves is no such language: es-ES is es, pt-PT is pt-BR.
func Unspoken(flag string, getenv func(string) string) []string {
	var out []string
	for _, v := range []string{flag, getenv(EnvLang)} {
		if v = strings.TrimSpace(v); v != "" && !Catalog.Speaks(v) {
			out = append(out, v)
		}
	}
	return out
}

// LangWarning is the one line that says, in p's language (the one chosen
// instead), that no catalog speaks lang and which languages there are.
func LangWarning(p *Printer, lang string) string {
	return T(p, "lang.unspoken", "lang", lang, "languages", LanguageList(), "current", Or(p).Lang())
}

// LanguageList names the catalogs' languages, each with its own name:
// "en (English), es (Español), pt-BR (Português (Brasil))".
func LanguageList() string {
	var out []string
	for _, l := range Catalog.Languages() {
		out = append(out, l+" ("+T(Catalog.Printer(l), "language.name")+")")
	}
	return strings.Join(out, ", ")
}

// Saved reads the language kept in dir, "" when none is.
func Saved(dir string) string {
	if dir == "" {
		return ""
	}
	b, err := os.ReadFile(filepath.Join(dir, SettingFile))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// Save keeps lang in dir ("" removes the setting).
func Save(dir, lang string) error {
	path := filepath.Join(dir, SettingFile)
	if lang == "" {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(lang+"\n"), 0o600)
}

// Known reports whether lang names a language of the catalog, exactly or
// as Match would serve it with something better than English.
func Known(lang string) bool {
	m := Catalog.Match(lang)
	return m != i18n.Fallback || strings.HasPrefix(strings.ToLower(lang), "en") || lang == "C" || lang == "POSIX"
}

// rpcPrefix is what gRPC puts before a status's message.
var rpcPrefix = regexp.MustCompile(`rpc error: code = \w+ desc = `)

// Err is an error's text for the player: a server's refusal that carries a
// reason (google.rpc.ErrorInfo) in the player's language, wherever the
// status sits in the chain; else the error's text without gRPC's "rpc
// error: code = … desc = " before the status message.
func Err(p *Printer, err error) string {
	if err == nil {
		return ""
	}
	s := err.Error()
	var withStatus interface{ GRPCStatus() *status.Status }
	if errors.As(err, &withStatus) {
		st := withStatus.GRPCStatus()
		if t, ok := Refusal(p, st); ok {
			s = strings.Replace(s, st.Err().Error(), t, 1)
		}
	}
	return rpcPrefix.ReplaceAllString(s, "")
}

// Refusal renders a status's reason in p's language; ok is false for a
// status without a reason the catalogs know.
func Refusal(p *Printer, st *status.Status) (string, bool) {
	info, ok := reason.Of(st)
	if !ok {
		return "", false
	}
	if info.GetReason() == plySyntax {
		return plySyntaxText(p, info.GetMetadata()), true
	}
	return reason.Text(reason.Catalog.Printer(Or(p).Lang()), info)
}

// Decimal prints x with digits decimals and the language's decimal mark.
func Decimal(p *Printer, x float64, digits int) string {
	s := fmt.Sprintf("%.*f", digits, x)
	if strings.Contains(Or(p).Number(1.5), ",") {
		s = strings.Replace(s, ".", ",", 1)
	}
	return s
}

// Date prints a moment as the language writes a date and time of day
// (the "date.time" message is its Go layout).
func Date(p *Printer, t time.Time) string {
	return t.Format(Or(p).T("date.time", nil))
}

// DateThisYear is Date without the year, for a moment of this year.
func DateThisYear(p *Printer, t time.Time) string {
	return t.Format(Or(p).T("date.time_this_year", nil))
}

// T is p.T with the parameters as name, value pairs: T(p, "plies",
// "count", 3).
func T(p *Printer, key string, kv ...any) string {
	var params Params
	if len(kv) > 0 {
		params = Params{}
		for i := 0; i+1 < len(kv); i += 2 {
			params[fmt.Sprint(kv[i])] = kv[i+1]
		}
	}
	return Or(p).T(key, params)
}

// Capitalize upper-cases the first letter of s.
func Capitalize(s string) string {
	for i, r := range s {
		return strings.ToUpper(string(r)) + s[i+len(string(r)):]
	}
	return s
}

// Lower lower-cases the first letter of s, for a sentence said after a
// colon ("outcome: white wins by goal").
func Lower(s string) string {
	for i, r := range s {
		return strings.ToLower(string(r)) + s[i+len(string(r)):]
	}
	return s
}

// ReasonText renders a refusal's reason and parameters (a PlyRejected's
// error_reason and error_metadata) in p's language; ok is false when the
// reason catalogs do not know it. English keeps the server's own words,
// which the caller has.
func ReasonText(p *Printer, name string, metadata map[string]string) (string, bool) {
	if name == plySyntax {
		return plySyntaxText(p, metadata), true
	}
	if name == "" || Or(p).Lang() == i18n.Fallback {
		return "", false
	}
	info := &errdetails.ErrorInfo{Reason: name, Domain: reason.Domain, Metadata: metadata}
	return reason.Text(reason.Catalog.Printer(Or(p).Lang()), info)
}

// plySyntax is the reason of a ply whose notation does not parse.
const plySyntax = "PLY_SYNTAX"

// plySyntaxText says where a ply's notation goes wrong, counting
// characters from 1 (the reason's offset is the byte from 0), and what a
// ply of the refusal's game looks like.
func plySyntaxText(p *Printer, md map[string]string) string {
	ply := md["ply"]
	off, err := strconv.Atoi(md["offset"])
	if err != nil || off < 0 || off > len(ply) {
		off = 0
	}
	// The forms of the game's plies, or of every game's when the
	// refusal does not name its game.
	key, ok := map[string]string{
		"quoridor": "error.ply_forms.quoridor",
		"corners":  "error.ply_forms.corners",
		"banqi":    "error.ply_forms.banqi",
	}[md["game"]]
	if !ok {
		key = "error.ply_forms"
	}
	forms := T(p, key)
	if off == len(ply) {
		return T(p, "error.ply_syntax_end", "ply", ply, "forms", forms)
	}
	r, _ := utf8.DecodeRuneInString(ply[off:])
	return T(p, "error.ply_syntax", "ply", ply, "position", utf8.RuneCountInString(ply[:off])+1, "char", string(r), "forms", forms)
}
