package main

import (
	"os"
	"strings"
	"testing"
)

// The repository's rules all have runbooks; a rule or a section changed
// the ways an operator's guide drifts is named.
func TestRulesHaveRunbooks(t *testing.T) {
	rules, err := os.ReadFile("../../prometheus/rules.yml")
	if err != nil {
		t.Fatal(err)
	}
	guide, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	alerts, err := CheckRules(rules, guide)
	if err != nil {
		t.Fatal(err)
	}
	if len(alerts) < len(requiredAlerts) {
		t.Fatalf("%d alerts", len(alerts))
	}
	for _, tt := range []struct {
		name           string
		rules, guide   string
		old, new, want string
	}{
		{"section missing", "", "guide", "### Runbook: TabuleiroEdge5xx\n", "### Edge 5xx\n", "no section \"### Runbook: TabuleiroEdge5xx\""},
		{"orphan section", "", "guide", "### Runbook: TabuleiroBotBusy\n", "### Runbook: TabuleiroBotBusy\n\n### Runbook: TabuleiroGone\n", "runbook TabuleiroGone names no alert"},
		{"severity", "rules", "", "severity: ticket", "severity: low", "want page or ticket"},
		{"runbook url", "rules", "", "#runbook-tabuleiropostgresdown", "#postgres", "runbook_url"},
		{"required alert gone", "rules", "", "alert: TabuleiroSentinelQuorumLost", "alert: TabuleiroSentinels", "TabuleiroSentinelQuorumLost is missing"},
		{"misspelled field", "rules", "", "annotations:", "anotations:", "anotations"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, g := string(rules), string(guide)
			target := &g
			if tt.rules != "" {
				target = &r
			}
			if !strings.Contains(*target, tt.old) {
				t.Fatalf("%q not found", tt.old)
			}
			*target = strings.Replace(*target, tt.old, tt.new, 1)
			_, err := CheckRules([]byte(r), []byte(g))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one mentioning %q", err, tt.want)
			}
		})
	}
}
