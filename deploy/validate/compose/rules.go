package main

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// requiredAlerts are the alerts an operator must have (deploy/README.md,
// "Alerts and runbooks").
var requiredAlerts = []string{
	"TabuleiroServiceDown", "TabuleiroBotDown", "TabuleiroRedisPrimaryLost", "TabuleiroRedisReplicaMissing",
	"TabuleiroSentinelQuorumLost", "TabuleiroPostgresDown", "TabuleiroEdge5xx", "TabuleiroOutboxBacklog",
}

var runbookHeading = regexp.MustCompile(`(?m)^### Runbook: (\S+)\s*$`)

// CheckRules checks the Prometheus rule file against the runbooks of the
// operator's guide: every alert has an expression, a duration, a severity
// (page or ticket), a summary and a runbook_url naming its own section
// "### Runbook: <alert>" of deploy/README.md, which must exist; every
// runbook section names an alert; the required alerts are there.
func CheckRules(rulesYAML, readme []byte) ([]string, error) {
	var f struct {
		Groups []struct {
			Name  string `yaml:"name"`
			Rules []struct {
				Alert       string            `yaml:"alert"`
				Expr        string            `yaml:"expr"`
				For         string            `yaml:"for"`
				Labels      map[string]string `yaml:"labels"`
				Annotations map[string]string `yaml:"annotations"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	dec := yaml.NewDecoder(strings.NewReader(string(rulesYAML)))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("rules: %w", err)
	}
	sections := map[string]bool{}
	for _, m := range runbookHeading.FindAllStringSubmatch(string(readme), -1) {
		sections[m[1]] = true
	}
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	var alerts []string
	for _, g := range f.Groups {
		for _, r := range g.Rules {
			if r.Alert == "" {
				continue // a recording rule
			}
			alerts = append(alerts, r.Alert)
			if strings.TrimSpace(r.Expr) == "" || r.For == "" {
				bad("alert %s: needs expr and for", r.Alert)
			}
			if s := r.Labels["severity"]; s != "page" && s != "ticket" {
				bad("alert %s: severity %q, want page or ticket", r.Alert, s)
			}
			if r.Annotations["summary"] == "" {
				bad("alert %s: no summary", r.Alert)
			}
			want := "deploy/README.md#runbook-" + strings.ToLower(r.Alert)
			if got := r.Annotations["runbook_url"]; got != want {
				bad("alert %s: runbook_url %q, want %q", r.Alert, got, want)
			}
			if !sections[r.Alert] {
				bad("alert %s: deploy/README.md has no section \"### Runbook: %s\"", r.Alert, r.Alert)
			}
		}
	}
	for s := range sections {
		if !slices.Contains(alerts, s) {
			bad("deploy/README.md: runbook %s names no alert of the rules", s)
		}
	}
	for _, a := range requiredAlerts {
		if !slices.Contains(alerts, a) {
			bad("alert %s is missing", a)
		}
	}
	return alerts, errors.Join(errs...)
}
