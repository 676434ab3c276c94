// Package rules holds the rules documents of the games Tabuleiro serves,
// docs/rules/<game>.md, embedded so that the terminal client can show them
// (its rules screen, `tabuleiro rules show`). Each rule has a section id
// (Q3.2, C5, B4…) that the engine's errors cite: "illegal ply e3h: walls
// may not cross (Q3.2)" points to the heading "Q3.2" of quoridor.md.
package rules

import (
	"embed"
	"fmt"
	"regexp"
	"strings"
)

//go:embed quoridor.md corners.md banqi.md
var files embed.FS

// Games are the games with a rules document, in the order of the docs.
var Games = []string{"quoridor", "corners", "banqi"}

// Text returns the rules document of game ("quoridor", "corners" or
// "banqi") as Markdown.
func Text(game string) (string, error) {
	b, err := files.ReadFile(game + ".md")
	if err != nil {
		return "", fmt.Errorf("no rules document for game %q (want %s)", game, strings.Join(Games, ", "))
	}
	return string(b), nil
}

// sectionID finds the section id at the start of a heading: "### Q3.2 …".
var sectionID = regexp.MustCompile(`^#+ ([QCB]\d+(?:\.\d+)*)\b`)

// Sections returns the section ids of game's document in order.
func Sections(game string) ([]string, error) {
	t, err := Text(game)
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

// Section returns the part of game's document under the heading of id
// (with its subsections), or an error naming the known ids.
func Section(game, id string) (string, error) {
	t, err := Text(game)
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
