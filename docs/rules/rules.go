// Package rules holds the rules documents of the games Tabuleiro serves,
// embedded so that the terminal client can show them (its rules screen,
// `tabuleiro rules show`). Each rule has a section id (Q3.2, C5, B4…) that
// the engine's errors cite: "illegal ply e3h: walls may not cross (Q3.2)"
// points to the heading "Q3.2" of quoridor.md.
//
// The documents are written in several languages, each named by its BCP 47
// tag: English ("en") at docs/rules/<game>.md, every other language at
// docs/rules/<tag>/<game>.md ("pt-BR/quoridor.md", "es/banqi.md"). Every
// language has the same section ids in the same order, so a citation
// leads to the same rule in any of them. A directory of the three
// documents adds a language: Languages finds it, no code names it.
package rules

import (
	"embed"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/text/language"
)

//go:embed *.md */*.md
var files embed.FS

// Games are the games with a rules document, in the order of the docs.
var Games = []string{"quoridor", "corners", "banqi"}

// English is the language of the documents at docs/rules/<game>.md, and the
// one an unknown language falls back to.
const English = "en"

// languages are the tags of the documents' languages, English first, and
// matcher chooses among them; both are found from the embedded files.
var languages, matcher = findLanguages()

func findLanguages() ([]string, language.Matcher) {
	tags := []string{English}
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		panic(err) // the embedded root always reads
	}
	for _, e := range entries {
		if e.IsDir() {
			tags = append(tags, e.Name()) // ReadDir sorts them
		}
	}
	supported := make([]language.Tag, len(tags))
	for i, t := range tags {
		supported[i] = language.Make(t)
	}
	return tags, language.NewMatcher(supported)
}

// Languages returns the BCP 47 tags of the languages the rules are written
// in: "en" first, then the others in order ("en", "es", "pt-BR").
func Languages() []string {
	return slices.Clone(languages)
}

// Match returns the language of Languages that best serves a reader's
// preferences, most preferred first. Each preference is a BCP 47 tag
// ("pt-BR", "es-MX"), an Accept-Language value ("pt-BR,pt;q=0.9,en;q=0.8")
// or a POSIX locale as LANG holds it ("pt_BR.UTF-8"); unparsable ones
// ("C", "") are ignored. A language's
// regional forms are served by the one written ("pt-PT" and "pt" read
// "pt-BR", "es-419" reads "es"); with no match, or no preference, Match
// returns English.
func Match(prefs ...string) string {
	var want []language.Tag
	for _, p := range prefs {
		if !strings.ContainsAny(p, ",;") {
			// A POSIX locale's codeset and modifier: pt_BR.UTF-8@euro.
			p, _, _ = strings.Cut(p, ".")
			p, _, _ = strings.Cut(p, "@")
		}
		parsed, _, err := language.ParseAcceptLanguage(strings.ReplaceAll(p, "_", "-"))
		if err == nil {
			want = append(want, parsed...)
		}
	}
	if len(want) == 0 {
		return English
	}
	_, i, conf := matcher.Match(want...)
	if conf == language.No {
		return English
	}
	return languages[i]
}

// TextIn returns the rules document of game ("quoridor", "corners" or
// "banqi") in the language lang as Markdown. lang is chosen as Match does:
// a language without documents, or an empty one, reads English.
func TextIn(lang, game string) (string, error) {
	name := game + ".md"
	if l := Match(lang); l != English {
		name = l + "/" + name
	}
	b, err := files.ReadFile(name)
	if err != nil || !slices.Contains(Games, game) {
		return "", fmt.Errorf("no rules document for game %q (want %s)", game, strings.Join(Games, ", "))
	}
	return string(b), nil
}

// Text returns the English rules document of game, as TextIn(English, game).
func Text(game string) (string, error) {
	return TextIn(English, game)
}

// sectionID finds the section id at the start of a heading: "### Q3.2 …".
var sectionID = regexp.MustCompile(`^#+ ([QCB]\d+(?:\.\d+)*)\b`)

// SectionsIn returns the section ids of game's document in lang, in order;
// they are the same in every language.
func SectionsIn(lang, game string) ([]string, error) {
	t, err := TextIn(lang, game)
	if err != nil {
		return nil, err
	}
	var ids []string
	for line := range strings.SplitSeq(t, "\n") {
		if m := sectionID.FindStringSubmatch(line); m != nil {
			ids = append(ids, m[1])
		}
	}
	return ids, nil
}

// Sections returns the section ids of game's English document in order.
func Sections(game string) ([]string, error) {
	return SectionsIn(English, game)
}

// SectionIn returns the part of game's document in lang under the heading
// of id (with its subsections), or an error naming the game and the id.
func SectionIn(lang, game, id string) (string, error) {
	t, err := TextIn(lang, game)
	if err != nil {
		return "", err
	}
	lines := strings.Split(t, "\n")
	start, level := -1, 0
	for i, line := range lines {
		m := sectionID.FindStringSubmatch(line)
		h := len(line) - len(strings.TrimLeft(line, "#"))
		switch {
		case start < 0 && m != nil && strings.EqualFold(m[1], id):
			start, level = i, h
		case start >= 0 && h > 0 && h <= level && strings.HasPrefix(line, "#"):
			return strings.TrimSpace(strings.Join(lines[start:i], "\n")), nil
		}
	}
	if start >= 0 {
		return strings.TrimSpace(strings.Join(lines[start:], "\n")), nil
	}
	return "", fmt.Errorf("%s rules have no section %q", game, id)
}

// Section returns the part of game's English document under the heading
// of id, as SectionIn(English, game, id).
func Section(game, id string) (string, error) {
	return SectionIn(English, game, id)
}
