package envconfig

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"strings"
	"testing"
)

// Vars returns the names of the variables that load reads through its
// getenv, in the order it reads them (every value empty).
func Vars(load func(getenv func(string) string)) []string {
	var names []string
	seen := map[string]bool{}
	load(func(name string) string {
		if !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
		return ""
	})
	return names
}

// Describe reads the Go source file and returns, for each variable named
// prefix+… in the comments of the fields of struct typeName, those
// comments as one line: the documentation lives next to the field it
// fills.
func Describe(file, typeName, prefix string) (map[string]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	name := regexp.MustCompile(regexp.QuoteMeta(prefix) + `[A-Z0-9_]+`)
	out := map[string]string{}
	ast.Inspect(f, func(n ast.Node) bool {
		ts, ok := n.(*ast.TypeSpec)
		if !ok || ts.Name.Name != typeName {
			return true
		}
		st, ok := ts.Type.(*ast.StructType)
		if !ok {
			return false
		}
		for _, fld := range st.Fields.List {
			text := strings.Join(strings.Fields(fld.Doc.Text()+" "+fld.Comment.Text()), " ")
			for _, v := range name.FindAllString(text, -1) {
				if out[v] == "" {
					out[v] = text
				}
			}
		}
		return false
	})
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no %s… variable in the comments of struct %s", file, prefix, typeName)
	}
	return out, nil
}

// Markdown renders the variables as a table, with a heading; missing lists
// the variables that have no description.
func Markdown(heading string, names []string, desc map[string]string) (doc string, missing []string) {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s\n\n| variable | what it sets (from the configuration code) |\n|---|---|\n", heading)
	for _, n := range names {
		d := desc[n]
		if d == "" {
			missing = append(missing, n)
			d = "(undocumented)"
		}
		fmt.Fprintf(&b, "| `%s` | %s |\n", n, strings.ReplaceAll(d, "|", `\|`))
	}
	return b.String(), missing
}

// CheckDoc fails t unless the file at path holds exactly doc, and no
// variable is undocumented. With TABULEIRO_UPDATE_DOCS=1 it writes the file
// instead.
func CheckDoc(t testing.TB, path, doc string, missing []string) {
	t.Helper()
	if len(missing) > 0 {
		t.Errorf("variables read by the configuration code but named in no comment of its struct: %v", missing)
	}
	const header = "<!-- Generated from the configuration code by its tests; TABULEIRO_UPDATE_DOCS=1 go test … rewrites it. Do not edit. -->\n\n"
	doc = header + doc
	if os.Getenv("TABULEIRO_UPDATE_DOCS") == "1" {
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v: generate it with TABULEIRO_UPDATE_DOCS=1 go test", err)
	}
	if string(got) != doc {
		t.Errorf("%s is out of date with the configuration code: run the test with TABULEIRO_UPDATE_DOCS=1 and commit it", path)
	}
}
