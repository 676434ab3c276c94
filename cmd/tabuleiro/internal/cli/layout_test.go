package cli

import (
	"bytes"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// The command stays laid out as a package per command family: package
// main (main.go, which only wires the commands) under mainLines lines,
// and no Go file of cmd/tabuleiro over fileLines lines.
func TestCommandLayout(t *testing.T) {
	const mainLines, fileLines = 800, 500
	root := filepath.Join("..", "..") // cmd/tabuleiro
	mainTotal := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (name == "testdata" || name == "node_modules" || name[0] == '.') {
				return filepath.SkipDir
			}
			return nil
		}
		if filepath.Ext(path) != ".go" {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n := bytes.Count(src, []byte("\n"))
		rel, _ := filepath.Rel(root, path)
		if n > fileLines {
			t.Errorf("cmd/tabuleiro/%s: %d lines, more than %d: split it by what its parts do", filepath.ToSlash(rel), n, fileLines)
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, src, parser.PackageClauseOnly)
		if err != nil {
			return err
		}
		if f.Name.Name == "main" && filepath.Dir(path) == root {
			mainTotal += n
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if mainTotal > mainLines {
		t.Errorf("package main of cmd/tabuleiro: %d lines, more than %d: a command's code goes in its package of internal/command", mainTotal, mainLines)
	}
	if mainTotal == 0 {
		t.Errorf("found no package main in %s", root)
	}
}
