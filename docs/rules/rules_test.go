package rules

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Every rule id the engine cites (in its refusals and outcome reasons)
// has a section in its game's document, so that a citation leads
// somewhere.
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
			ids, err := Sections(game)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(ids, id) {
				t.Errorf("%s cites %s, which %s.md has no section for", path, id, game)
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
