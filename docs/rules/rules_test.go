package rules

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/text/language"
)

// Every rule id the engine cites (in its refusals and outcome reasons)
// has a section in its game's document in every language, so that a
// citation leads somewhere whatever the reader's language.
func TestEngineCitationsHaveSections(t *testing.T) {
	cited := regexp.MustCompile(`"([QCB]\d+(?:\.\d+)?)"`)
	docOf := map[byte]string{'Q': "quoridor", 'C': "corners", 'B': "banqi"}
	seen := 0
	err := filepath.WalkDir("../../pkg/engine", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range cited.FindAllStringSubmatch(string(b), -1) {
			id := m[1]
			seen++
			game := docOf[id[0]]
			for _, lang := range Languages() {
				ids, err := SectionsIn(lang, game)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Contains(ids, id) {
					t.Errorf("%s cites %s, which the %s %s document has no section for", path, id, lang, game)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen < 20 {
		t.Fatalf("found only %d citations in pkg/engine: is the path right?", seen)
	}
}

func TestSection(t *testing.T) {
	s, err := Section("quoridor", "q3.2")
	if err != nil || !strings.HasPrefix(s, "### Q3.2 No overlap") || strings.Contains(s, "Q3.3") {
		t.Fatalf("Section(quoridor, q3.2) = %q, %v", s, err)
	}
	s, err = Section("banqi", "B4")
	if err != nil || !strings.Contains(s, "B4.1") || !strings.Contains(s, "B4.2") || strings.Contains(s, "B5") {
		t.Fatalf("Section(banqi, B4) = %q, %v", s, err)
	}
	if _, err := Section("corners", "C99"); err == nil {
		t.Fatal("unknown section: no error")
	}
	if _, err := Text("chess"); err == nil || !strings.Contains(err.Error(), "quoridor") {
		t.Fatalf("unknown game: %v", err)
	}
}

// The languages are the embedded directories' names, each a canonical
// BCP 47 tag, and each has a document for every game (not English's by
// fallback: its own file).
func TestEveryLanguageHasEveryGame(t *testing.T) {
	langs := Languages()
	if langs[0] != English || !slices.Contains(langs, "pt-BR") || !slices.Contains(langs, "es") {
		t.Fatalf("Languages() = %v, want en first, pt-BR and es among them", langs)
	}
	for _, lang := range langs[1:] {
		if got := language.Make(lang).String(); got != lang {
			t.Errorf("directory %s is not a canonical BCP 47 tag (%s)", lang, got)
		}
		for _, game := range Games {
			if _, err := files.ReadFile(lang + "/" + game + ".md"); err != nil {
				t.Errorf("%s has no %s document: %v", lang, game, err)
			}
		}
		entries, err := files.ReadDir(lang)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if !slices.Contains(Games, strings.TrimSuffix(e.Name(), ".md")) {
				t.Errorf("%s/%s is the rules of no game (want %s)", lang, e.Name(), strings.Join(Games, ", "))
			}
		}
	}
}

// heading is one Markdown heading of a document: its level and section id
// ("" for the title).
type heading struct {
	level int
	id    string
}

// outline is what a translation keeps of the English document: its
// headings in order, its inline code (the notation, variant ids, commands)
// and its marks (bold "Decision"s, the "not on the web" paragraph, the
// variants table's rows).
type outline struct {
	headings    []heading
	code        []string
	bold        int
	notOnTheWeb int
	tableRows   []string
}

var (
	codeSpan = regexp.MustCompile("`[^`]+`")
	tableRow = regexp.MustCompile("(?m)^\\| (`[^`]+`|[-a-z]+) \\|")
)

func outlineOf(t *testing.T, lang, game string) outline {
	t.Helper()
	text, err := TextIn(lang, game)
	if err != nil {
		t.Fatal(err)
	}
	var o outline
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		if strings.HasPrefix(line, "#") {
			h := heading{level: len(line) - len(strings.TrimLeft(line, "#"))}
			if m := sectionID.FindStringSubmatch(line); m != nil {
				h.id = m[1]
			} else if h.level > 1 {
				t.Errorf("%s %s: heading %q has no section id", lang, game, line)
			}
			if strings.TrimSpace(strings.TrimLeft(line, "#")) == h.id {
				t.Errorf("%s %s: heading %q has no title after its id", lang, game, line)
			}
			o.headings = append(o.headings, h)
		}
		if strings.TrimSpace(line) == "<!-- not on the web -->" {
			o.notOnTheWeb++
			// The web drops the mark and the lines after it up to a blank
			// line: a mark followed by a blank line would hide nothing.
			if i+1 >= len(lines) || strings.TrimSpace(lines[i+1]) == "" {
				t.Errorf("%s %s: the not-on-the-web mark on line %d marks no paragraph", lang, game, i+1)
			}
		}
	}
	o.code = codeSpan.FindAllString(text, -1)
	slices.Sort(o.code)
	o.code = slices.Compact(o.code)
	o.bold = strings.Count(text, "**")
	for _, m := range tableRow.FindAllStringSubmatch(text, -1) {
		o.tableRows = append(o.tableRows, m[1])
	}
	return o
}

// Each translation has exactly the English document's section ids, at the
// same heading levels and in the same order, keeps its notation and ids
// (every inline code span), its Decisions (as many bold marks), its
// "not on the web" paragraph and its table rows.
func TestTranslationsFollowTheEnglishDocuments(t *testing.T) {
	for _, game := range Games {
		en := outlineOf(t, English, game)
		if len(en.headings) < 5 || en.notOnTheWeb != 1 || en.bold == 0 {
			t.Fatalf("English %s: outline %+v: is the parsing right?", game, en)
		}
		for _, lang := range Languages()[1:] {
			o := outlineOf(t, lang, game)
			if !slices.Equal(o.headings, en.headings) {
				t.Errorf("%s %s: headings (level, id)\n%v\nwant the English\n%v", lang, game, o.headings, en.headings)
			}
			for _, c := range en.code {
				if !slices.Contains(o.code, c) {
					t.Errorf("%s %s: the English %s is missing", lang, game, c)
				}
			}
			for _, c := range o.code {
				if !slices.Contains(en.code, c) {
					t.Errorf("%s %s: %s is not in the English document", lang, game, c)
				}
			}
			if o.bold != en.bold {
				t.Errorf("%s %s: %d bold marks (**), the English has %d: a Decision lost or added?", lang, game, o.bold, en.bold)
			}
			if o.notOnTheWeb != en.notOnTheWeb {
				t.Errorf("%s %s: %d not-on-the-web marks, the English has %d", lang, game, o.notOnTheWeb, en.notOnTheWeb)
			}
			if !slices.Equal(o.tableRows, en.tableRows) {
				t.Errorf("%s %s: table rows %v, want %v", lang, game, o.tableRows, en.tableRows)
			}
		}
	}
}

func TestMatch(t *testing.T) {
	for _, c := range []struct {
		prefs []string
		want  string
	}{
		{nil, "en"},
		{[]string{""}, "en"},
		{[]string{"C"}, "en"},
		{[]string{"en-GB"}, "en"},
		{[]string{"pt-BR"}, "pt-BR"},
		{[]string{"pt"}, "pt-BR"},
		{[]string{"pt-PT"}, "pt-BR"},
		{[]string{"pt_BR.UTF-8"}, "pt-BR"},
		{[]string{"es"}, "es"},
		{[]string{"es-MX"}, "es"},
		{[]string{"es-419"}, "es"},
		{[]string{"es_AR.UTF-8@euro"}, "es"},
		{[]string{"fr"}, "en"},
		{[]string{"fr-FR,es;q=0.8,en;q=0.5"}, "es"},
		{[]string{"de", "pt-BR"}, "pt-BR"},
		{[]string{"not a tag!", "es"}, "es"},
	} {
		if got := Match(c.prefs...); got != c.want {
			t.Errorf("Match(%q) = %q, want %q", c.prefs, got, c.want)
		}
	}
}

func TestTextIn(t *testing.T) {
	en, err := Text("quoridor")
	if err != nil {
		t.Fatal(err)
	}
	pt, err := TextIn("pt-BR", "quoridor")
	if err != nil || !strings.Contains(pt, "### Q3.2 Sem sobreposição") {
		t.Fatalf("TextIn(pt-BR, quoridor) = %.80q…, %v", pt, err)
	}
	for _, lang := range []string{"fr", "", "en-US", "xx-not-a-tag"} {
		if got, err := TextIn(lang, "quoridor"); err != nil || got != en {
			t.Errorf("TextIn(%q, quoridor): not the English document (%v)", lang, err)
		}
	}
	if _, err := TextIn("es", "chess"); err == nil || !strings.Contains(err.Error(), "quoridor") {
		t.Fatalf("unknown game in es: %v", err)
	}
	s, err := SectionIn("es", "banqi", "b4")
	if err != nil || !strings.HasPrefix(s, "## B4 Capturas") || !strings.Contains(s, "B4.2 El cañón") || strings.Contains(s, "B5") {
		t.Fatalf("SectionIn(es, banqi, b4) = %q, %v", s, err)
	}
	if _, err := SectionIn("pt-BR", "corners", "C99"); err == nil {
		t.Fatal("unknown section in pt-BR: no error")
	}
	ids, err := SectionsIn("pt", "corners")
	if en, _ := Sections("corners"); err != nil || !slices.Equal(ids, en) {
		t.Fatalf("SectionsIn(pt, corners) = %v, %v; want %v", ids, err, en)
	}
	// Languages returns a copy: a caller's change does not reach the package.
	Languages()[0] = "xx"
	if Languages()[0] != English {
		t.Fatal("Languages() shares its slice")
	}
}

// The Quoridor documents name the variants as the clients do (the id is
// for --variant, given once in brackets): a reader meets "Padrão", not
// "standard".
func TestQuoridorNamesItsVariants(t *testing.T) {
	names := map[string][]string{
		English: {"Standard (`standard`)", "Draw at 200 plies (`limit200`)"},
		"pt-BR": {"Padrão (`standard`)", "Empate aos 200 lances (`limit200`)"},
		"es":    {"Estándar (`standard`)", "Empate a las 200 jugadas (`limit200`)"},
	}
	for lang, want := range names {
		text, err := TextIn(lang, "quoridor")
		if err != nil {
			t.Fatal(err)
		}
		flat := strings.Join(strings.Fields(text), " ")
		for _, w := range want {
			if !strings.Contains(flat, w) {
				t.Errorf("%s quoridor: %q missing", lang, w)
			}
		}
		if n := strings.Count(text, "`standard`") + strings.Count(text, "`limit200`"); n != 2 {
			t.Errorf("%s quoridor: the variants' ids appear %d times, want once each (names elsewhere)", lang, n)
		}
	}
}
