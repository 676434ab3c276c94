// Package reason gives every refusal a client may show a stable,
// machine-readable reason: a google.rpc.ErrorInfo whose Reason is an
// UPPER_SNAKE name (AIP-193) and whose Metadata holds its parameters (the
// rule "Q3.4", the wall "e5h", the seconds left), so that each client
// renders the refusal in its player's language. The status message stays
// English, for logs and tools. A caller that names a language (the
// accept-language metadata, or a browser's Accept-Language header) also gets
// a google.rpc.LocalizedMessage (Localize).
//
// The messages are the catalogs in locales/<tag>.json (the format of
// package i18n), keyed by reason name; a reason with sub-cases (an illegal
// ply's rule) may also have "NAME.detail" keys, chosen by its "detail"
// parameter. The web client bundles the same files.
package reason

import (
	"embed"
	"maps"
	"slices"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"tabuleiro.dev/pkg/platform/i18n"
)

// Domain is the ErrorInfo domain of every Tabuleiro reason.
const Domain = "tabuleiro.dev"

// DetailParam is the parameter whose value names a reason's sub-case: the
// message key "NAME.<detail>" is used when the catalog has it.
const DetailParam = "detail"

//go:embed locales/*.json
var locales embed.FS

// Catalog holds the reasons' messages in every language.
var Catalog = i18n.MustLoad(locales, "locales")

// Reason is one refusal reason and the parameters its metadata carries.
type Reason struct {
	Name   string   // UPPER_SNAKE, stable: clients key on it
	Params []string // metadata keys, always set when the reason is sent
	Doc    string   // when a service answers it, for docs/api.md
}

// registry holds every reason defined below, in order.
var registry []Reason

func def(name, doc string, params ...string) string {
	registry = append(registry, Reason{Name: name, Params: params, Doc: doc})
	return name
}

// All returns every reason the services can answer, in definition order.
func All() []Reason { return slices.Clone(registry) }

// The reasons. Each one's parameters are listed after its documentation.
var (
	// RateLimited: too many calls; the RetryInfo detail says when to try again.
	RateLimited = def("RATE_LIMITED", "too many calls or attempts in a short time; RetryInfo says when to try again", "retry_seconds")
)

// New returns a status of code with the English message msg and an
// ErrorInfo of reason name with params as its metadata.
func New(code codes.Code, name, msg string, params map[string]string) *status.Status {
	st := status.New(code, msg)
	info := &errdetails.ErrorInfo{Reason: name, Domain: Domain, Metadata: params}
	if withInfo, err := st.WithDetails(info); err == nil {
		return withInfo
	}
	return st
}

// Error is New as an error.
func Error(code codes.Code, name, msg string, params map[string]string) error {
	return New(code, name, msg, params).Err()
}

// Of returns the ErrorInfo of st, if it carries one of this Domain.
func Of(st *status.Status) (*errdetails.ErrorInfo, bool) {
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok && info.GetDomain() == Domain {
			return info, true
		}
	}
	return nil, false
}

// Text renders an ErrorInfo in lang: the "NAME.detail" message when the
// catalog has one, else NAME's, with the metadata as parameters; ok is
// false when the catalog has neither.
func Text(p *i18n.Printer, info *errdetails.ErrorInfo) (string, bool) {
	params := i18n.Params{}
	for k, v := range info.GetMetadata() {
		params[k] = v
	}
	if d := info.GetMetadata()[DetailParam]; d != "" && p.Has(info.GetReason()+"."+d) {
		return p.T(info.GetReason()+"."+d, params), true
	}
	if p.Has(info.GetReason()) {
		return p.T(info.GetReason(), params), true
	}
	return "", false
}

// Localize returns st with a LocalizedMessage in the language that best
// matches prefs (BCP 47 tags or Accept-Language values), when st carries an
// ErrorInfo with a message and prefs name a language; otherwise st.
func Localize(st *status.Status, prefs ...string) *status.Status {
	info, ok := Of(st)
	if !ok || len(slices.DeleteFunc(slices.Clone(prefs), func(s string) bool { return s == "" })) == 0 {
		return st
	}
	for _, d := range st.Details() {
		if _, ok := d.(*errdetails.LocalizedMessage); ok {
			return st
		}
	}
	p := Catalog.Printer(Catalog.Match(prefs...))
	text, ok := Text(p, info)
	if !ok {
		return st
	}
	if withMsg, err := st.WithDetails(&errdetails.LocalizedMessage{Locale: p.Lang(), Message: text}); err == nil {
		return withMsg
	}
	return st
}

// params returns the sorted metadata keys a reason's messages may use.
func params(r Reason) []string {
	set := map[string]bool{DetailParam: true}
	for _, p := range r.Params {
		set[p] = true
	}
	return slices.Sorted(maps.Keys(set))
}
