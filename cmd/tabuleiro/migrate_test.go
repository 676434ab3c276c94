package main

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"strings"
	"testing"
)

// freshSchemaURL returns TABULEIRO_TEST_DATABASE_URL with a new, empty
// schema first on the search path, dropped when the test ends.
func freshSchemaURL(t *testing.T) string {
	t.Helper()
	dsn := os.Getenv("TABULEIRO_TEST_DATABASE_URL")
	if dsn == "" {
		t.Fatal("TABULEIRO_TEST_DATABASE_URL is not set: run ./scripts/test.sh, which starts PostgreSQL and sets it")
	}
	admin, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = admin.Close() })
	schema := fmt.Sprintf("test_tabuleiro_cmd_%d", rand.Uint64())
	if _, err := admin.ExecContext(t.Context(), "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		_, _ = admin.ExecContext(context.WithoutCancel(t.Context()), "DROP SCHEMA "+schema+" CASCADE")
	})
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

func runWithEnv(t *testing.T, vars map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(t.Context(), args, func(k string) string { return vars[k] }, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestMigrateAppliesOnce(t *testing.T) {
	t.Parallel()
	vars := map[string]string{"TABULEIRO_DATABASE_URL": freshSchemaURL(t)}
	code, out, errOut := runWithEnv(t, vars, "migrate")
	if code != 0 || out == "applied 0 migrations\n" {
		t.Fatalf("first migrate: exit %d, stdout %q, stderr %q; want exit 0 and some migrations applied", code, out, errOut)
	}
	code, out, errOut = runWithEnv(t, vars, "migrate")
	if code != 0 || out != "applied 0 migrations\n" {
		t.Fatalf("second migrate: exit %d, stdout %q, stderr %q; want nothing applied", code, out, errOut)
	}
}

func TestMigrateNeedsURL(t *testing.T) {
	t.Parallel()
	code, _, errOut := runWithEnv(t, nil, "migrate")
	if code != 2 || !strings.Contains(errOut, "TABULEIRO_DATABASE_URL") {
		t.Fatalf("exit %d, stderr %q; want 2 naming TABULEIRO_DATABASE_URL", code, errOut)
	}
}
