// Package i18n reads Tabuleiro's message catalogs and renders their
// messages in a player's language. One format serves every speaker: the
// services (the google.rpc.LocalizedMessage of a refusal, package reason),
// the terminal client, and the web client, which bundles the same JSON files.
//
// A catalog is one file per language, <dir>/<tag>.json, named by its BCP 47
// tag ("en", "pt-BR", "es"); adding a file adds a language, with no code
// change. English ("en") must exist: it is the fallback for a missing
// language or key. The file is a JSON object from a key to a message:
//
//	{
//	  "language.name": "Português (Brasil)",
//	  "plies": {"one": "{count} lance", "other": "{count} lances"},
//	  "illegal": "Jogada ilegal {ply}: {why} ({rule})"
//	}
//
// A message is a string with {name} placeholders, or an object whose keys
// are CLDR plural categories (zero, one, two, few, many, other; "other"
// required), chosen by the language's plural rule for the parameter named
// "count". Placeholders are filled from the call's parameters; an integer
// parameter is printed with the language's digit grouping. A placeholder
// with no parameter is left as written, so a missing parameter shows.
//
// Every catalog must have the keys English has, with the same placeholders;
// Bundle.Problems lists where one does not (each client's tests call it).
package i18n

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/text/feature/plural"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Fallback is the language every catalog set must have, used for a
// language or key that has no message.
const Fallback = "en"

// CountParam is the parameter whose number chooses a plural form.
const CountParam = "count"

// PluralForms are the CLDR plural categories a message object may use.
var PluralForms = []string{"zero", "one", "two", "few", "many", "other"}

// message is one catalog entry: a plain text, or its plural forms.
type entry struct {
	text  string
	forms map[string]string // CLDR category -> text; nil for a plain text
}

func (e *entry) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &e.text); err == nil {
		return nil
	}
	if err := json.Unmarshal(b, &e.forms); err != nil {
		return fmt.Errorf("want a string or an object of plural forms: %w", err)
	}
	for k := range e.forms {
		if !slices.Contains(PluralForms, k) {
			return fmt.Errorf("plural form %q is not a CLDR category (%s)", k, strings.Join(PluralForms, ", "))
		}
	}
	if _, ok := e.forms["other"]; !ok {
		return fmt.Errorf("plural forms without \"other\"")
	}
	return nil
}

// texts are every text of e (its plural forms, or the one text).
func (e entry) texts() []string {
	if e.forms == nil {
		return []string{e.text}
	}
	return slices.Collect(maps.Values(e.forms))
}

// Bundle is a set of catalogs, one per language.
type Bundle struct {
	tags     []language.Tag // tags[0] is Fallback
	names    []string       // the tags as their files name them, in tags' order
	matcher  language.Matcher
	catalogs map[string]map[string]entry // tag -> key -> message
}

// Load reads every <dir>/*.json of fsys as a catalog.
func Load(fsys fs.FS, dir string) (*Bundle, error) {
	files, err := fs.Glob(fsys, path.Join(dir, "*.json"))
	if err != nil {
		return nil, fmt.Errorf("list catalogs in %s: %w", dir, err)
	}
	b := &Bundle{catalogs: map[string]map[string]entry{}}
	for _, f := range files {
		name := strings.TrimSuffix(path.Base(f), ".json")
		tag, err := language.Parse(name)
		if err != nil {
			return nil, fmt.Errorf("catalog %s: its name is not a language tag: %w", f, err)
		}
		if tag.String() != name {
			return nil, fmt.Errorf("catalog %s: name it %s.json", f, tag)
		}
		raw, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, fmt.Errorf("read catalog %s: %w", f, err)
		}
		c := map[string]entry{}
		if err := json.Unmarshal(raw, &c); err != nil {
			return nil, fmt.Errorf("catalog %s: %w", f, err)
		}
		b.catalogs[name] = c
		if name == Fallback {
			b.tags = slices.Insert(b.tags, 0, tag)
			b.names = slices.Insert(b.names, 0, name)
		} else {
			b.tags = append(b.tags, tag)
			b.names = append(b.names, name)
		}
	}
	if _, ok := b.catalogs[Fallback]; !ok {
		return nil, fmt.Errorf("no %s.json in %s: English is every catalog set's fallback", Fallback, dir)
	}
	b.matcher = language.NewMatcher(b.tags)
	return b, nil
}

// MustLoad is Load for catalogs embedded in the binary, which its tests
// have read: it panics on an error.
func MustLoad(fsys fs.FS, dir string) *Bundle {
	b, err := Load(fsys, dir)
	if err != nil {
		panic(err)
	}
	return b
}

// Languages returns the tags of the bundle's catalogs, English first.
func (b *Bundle) Languages() []string { return slices.Clone(b.names) }

// Match returns the bundle's language that best serves prefs, each a BCP
// 47 tag ("pt-BR"), an Accept-Language value ("pt-BR,pt;q=0.9,en;q=0.8")
// or a POSIX locale ("pt_BR.UTF-8"), the first preferred; Fallback when
// none is served. A Portuguese speaker from anywhere gets "pt-BR".
func (b *Bundle) Match(prefs ...string) string {
	lang, _ := b.match(prefs)
	return lang
}

// Speaks reports whether one of the bundle's languages serves pref (a
// tag, an Accept-Language value or a POSIX locale): "pt" and "pt_PT" do,
// "xx" does not.
func (b *Bundle) Speaks(pref string) bool {
	_, ok := b.match([]string{pref})
	return ok
}

func (b *Bundle) match(prefs []string) (string, bool) {
	var want []language.Tag
	for _, p := range prefs {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if tags, _, err := language.ParseAcceptLanguage(p); err == nil && len(tags) > 0 {
			want = append(want, tags...)
			continue
		}
		if t, err := language.Parse(posixTag(p)); err == nil {
			want = append(want, t)
		}
	}
	if len(want) == 0 {
		return Fallback, false
	}
	_, i, conf := b.matcher.Match(want...)
	if conf == language.No {
		return Fallback, false
	}
	return b.names[i], true
}

// posixTag turns a POSIX locale ("pt_BR.UTF-8@euro", "C") into a BCP 47 tag.
func posixTag(s string) string {
	if i := strings.IndexAny(s, ".@"); i >= 0 {
		s = s[:i]
	}
	if s == "C" || s == "POSIX" {
		return "en"
	}
	return strings.ReplaceAll(s, "_", "-")
}

// Params are a message's parameters by placeholder name.
type Params map[string]any

// Printer renders messages in one language.
type Printer struct {
	b    *Bundle
	lang string
	tag  language.Tag
	num  *message.Printer
}

// Printer returns the printer for lang, one of Languages (another
// language is matched as Match does).
func (b *Bundle) Printer(lang string) *Printer {
	if _, ok := b.catalogs[lang]; !ok {
		lang = b.Match(lang)
	}
	tag := language.MustParse(lang)
	return &Printer{b: b, lang: lang, tag: tag, num: message.NewPrinter(tag)}
}

// Lang returns the printer's language tag.
func (p *Printer) Lang() string { return p.lang }

// Has reports whether key has a message in the printer's language or in
// English.
func (p *Printer) Has(key string) bool {
	_, ok := p.lookup(key)
	return ok
}

func (p *Printer) lookup(key string) (entry, bool) {
	if e, ok := p.b.catalogs[p.lang][key]; ok {
		return e, true
	}
	e, ok := p.b.catalogs[Fallback][key]
	return e, ok
}

// T returns key's message with params filled in: in the printer's
// language, else English, else the key itself (so a missing message shows
// as its key, never as nothing).
func (p *Printer) T(key string, params Params) string {
	e, ok := p.lookup(key)
	if !ok {
		return key
	}
	text := e.text
	if e.forms != nil {
		text = e.forms["other"]
		if n, ok := params[CountParam]; ok {
			if f, ok := e.forms[p.category(n)]; ok {
				text = f
			}
		}
	}
	return placeholder.ReplaceAllStringFunc(text, func(m string) string {
		v, ok := params[m[1:len(m)-1]]
		if !ok {
			return m
		}
		return p.format(v)
	})
}

// Number prints n with the language's digit grouping and decimal mark.
func (p *Printer) Number(n any) string { return p.num.Sprint(n) }

// format prints one parameter: numbers as Number does, anything else as %v.
func (p *Printer) format(v any) string {
	switch v.(type) {
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32, float64:
		return p.num.Sprint(v)
	}
	return fmt.Sprint(v)
}

// category is the CLDR plural category of n (an integer, or its decimal
// text) in the printer's language.
func (p *Printer) category(n any) string {
	var digits string
	switch v := n.(type) {
	case string:
		digits = v
	default:
		digits = fmt.Sprint(v)
	}
	i, err := strconv.ParseInt(strings.TrimPrefix(digits, "-"), 10, 64)
	if err != nil {
		return "other"
	}
	// MatchPlural(tag, i, v, w, f, t): integer digits only.
	switch plural.Cardinal.MatchPlural(p.tag, int(i), 0, 0, 0, 0) {
	case plural.Zero:
		return "zero"
	case plural.One:
		return "one"
	case plural.Two:
		return "two"
	case plural.Few:
		return "few"
	case plural.Many:
		return "many"
	}
	return "other"
}

// placeholder is {name} in a message.
var placeholder = regexp.MustCompile(`\{[A-Za-z_][A-Za-z0-9_]*\}`)

// Placeholders returns the sorted placeholder names of key's message in
// lang (every plural form's together), nil when it has none or no message.
func (b *Bundle) Placeholders(lang, key string) []string {
	e, ok := b.catalogs[lang][key]
	if !ok {
		return nil
	}
	set := map[string]bool{}
	for _, t := range e.texts() {
		for _, m := range placeholder.FindAllString(t, -1) {
			set[m[1:len(m)-1]] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// Keys returns the sorted keys of lang's catalog.
func (b *Bundle) Keys(lang string) []string {
	return slices.Sorted(maps.Keys(b.catalogs[lang]))
}

// Problems lists what makes the catalogs disagree: a key one catalog has
// and another lacks, a placeholder that differs between languages, an
// empty message, and (for a plural message) a form the language's plural
// rule needs but the message lacks. Nil when they agree.
func (b *Bundle) Problems() []string {
	var out []string
	all := map[string]bool{}
	for _, c := range b.catalogs {
		for k := range c {
			all[k] = true
		}
	}
	for _, lang := range b.names {
		c := b.catalogs[lang]
		for _, k := range slices.Sorted(maps.Keys(all)) {
			e, ok := c[k]
			if !ok {
				out = append(out, fmt.Sprintf("%s.json lacks %q", lang, k))
				continue
			}
			for _, t := range e.texts() {
				if strings.TrimSpace(t) == "" {
					out = append(out, fmt.Sprintf("%s.json: %q is empty", lang, k))
				}
			}
			if lang != Fallback {
				if _, inEN := b.catalogs[Fallback][k]; inEN && !slices.Equal(b.Placeholders(lang, k), b.Placeholders(Fallback, k)) {
					out = append(out, fmt.Sprintf("%s.json: %q has placeholders %v, en.json %v", lang, k, b.Placeholders(lang, k), b.Placeholders(Fallback, k)))
				}
			}
			if e.forms != nil {
				p := b.Printer(lang)
				for n := range 200 {
					if _, ok := e.forms[p.category(n)]; !ok && p.category(n) != "other" {
						out = append(out, fmt.Sprintf("%s.json: %q lacks the plural form %q (for %d)", lang, k, p.category(n), n))
						break
					}
				}
			}
		}
	}
	return out
}
