package docs

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// root is the repository's top directory.
const root = ".."

// skipDirs are trees whose Markdown is not ours (packages, build output).
var skipDirs = map[string]bool{"node_modules": true, ".git": true, "dist": true, ".build": true}

// markdownFiles returns the repository's Markdown files, relative to root.
func markdownFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && skipDirs[d.Name()] {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 5 {
		t.Fatalf("found only %d Markdown files under %s", len(files), root)
	}
	return files
}

// link is a Markdown link or image target: [text](target) or ![alt](target).
var link = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)

// codeSpan is inline code, whose brackets are not links.
var codeSpan = regexp.MustCompile("`[^`]*`")

// anchors returns the GitHub anchors of a Markdown file's headings.
func anchors(t *testing.T, path string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	fenced := false
	for line := range strings.SplitSeq(string(b), "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		out[slug(strings.TrimLeft(line, "# "))] = true
	}
	return out
}

// slug is GitHub's anchor for a heading: lower case, punctuation dropped,
// spaces turned into hyphens.
func slug(heading string) string {
	var sb strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			sb.WriteRune('-')
		case r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r > 127:
			sb.WriteRune(r)
		}
	}
	return sb.String()
}

func TestSlug(t *testing.T) {
	tests := []struct{ give, want string }{
		{give: "Calling the API by hand", want: "calling-the-api-by-hand"},
		{give: "Q3.2 Walls may not cross", want: "q32-walls-may-not-cross"},
		{give: "Redis durability: `appendfsync` and acknowledged plies", want: "redis-durability-appendfsync-and-acknowledged-plies"},
	}
	for _, tt := range tests {
		if got := slug(tt.give); got != tt.want {
			t.Errorf("slug(%q) = %q, want %q", tt.give, got, tt.want)
		}
	}
}

// Every relative link of every Markdown file leads to a file that exists,
// and its #fragment to a heading of that file.
func TestRelativeLinksResolve(t *testing.T) {
	checked := 0
	for _, file := range markdownFiles(t) {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		n, fenced := 0, false
		for sc.Scan() {
			n++
			line := sc.Text()
			if strings.HasPrefix(strings.TrimSpace(line), "```") {
				fenced = !fenced
			}
			if fenced {
				continue
			}
			for _, m := range link.FindAllStringSubmatch(codeSpan.ReplaceAllString(line, ""), -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				path, frag, _ := strings.Cut(target, "#")
				dest := file
				if path != "" {
					dest = filepath.Join(filepath.Dir(file), path)
				}
				checked++
				info, err := os.Stat(dest)
				if err != nil {
					t.Errorf("%s:%d: link %q: %s does not exist", file, n, target, dest)
					continue
				}
				if frag != "" && !info.IsDir() && strings.HasSuffix(dest, ".md") && !anchors(t, dest)[frag] {
					t.Errorf("%s:%d: link %q: %s has no heading #%s", file, n, target, dest, frag)
				}
			}
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	if checked < 20 {
		t.Errorf("checked only %d links: is the link pattern right?", checked)
	}
}

// The README is a front door: short, with the command that plays and the
// command that tests near its top.
func TestReadmeIsShort(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > 120 {
		t.Errorf("README.md has %d lines; keep it under 120 and move the rest to docs/", len(lines))
	}
	top := strings.Join(lines[:min(30, len(lines))], "\n")
	for _, cmd := range []string{"go run -v ./cmd/tabuleiro play", "./scripts/test.sh"} {
		if !strings.Contains(top, cmd) {
			t.Errorf("README.md's first 30 lines lack %q", cmd)
		}
	}
}
