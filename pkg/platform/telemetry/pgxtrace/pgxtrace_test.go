package pgxtrace

import "testing"

func TestOperation(t *testing.T) {
	t.Parallel()
	for sql, want := range map[string]string{
		"SELECT 1":                             "SELECT",
		"  insert into games values ($1)":      "INSERT",
		"-- name: x\nUPDATE players SET r = 1": "UPDATE",
		"-- only a comment":                    "SQL",
		"":                                     "SQL",
	} {
		if got := operation(sql); got != want {
			t.Errorf("operation(%q) = %q, want %q", sql, got, want)
		}
	}
}
