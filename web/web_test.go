package web

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func get(t *testing.T, h http.Handler, method, target string) *http.Response {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, target, nil))
	return rec.Result()
}

func TestHandlerServesTheBundle(t *testing.T) {
	h := Handler()
	res := get(t, h, http.MethodGet, "/")
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK || !strings.Contains(string(body), `src="app.js"`) {
		t.Fatalf("GET / = %d, body %.200q; want index.html loading app.js", res.StatusCode, body)
	}
	if cc := res.Header.Get("Cache-Control"); cc != "no-cache" {
		t.Errorf("Cache-Control = %q, want no-cache", cc)
	}
	for path, ctype := range map[string]string{"/app.js": "text/javascript", "/app.css": "text/css", "/favicon.svg": "image/svg+xml"} {
		res := get(t, h, http.MethodGet, path)
		if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), ctype) {
			t.Errorf("GET %s = %d %q, want 200 %s", path, res.StatusCode, res.Header.Get("Content-Type"), ctype)
		}
	}
}

func TestHandlerRefusesOtherRequests(t *testing.T) {
	h := Handler()
	if res := get(t, h, http.MethodGet, "/nope.js"); res.StatusCode != http.StatusNotFound {
		t.Errorf("GET /nope.js = %d, want 404", res.StatusCode)
	}
	if res := get(t, h, http.MethodGet, "/../go.mod"); res.StatusCode != http.StatusNotFound && res.StatusCode != http.StatusOK {
		t.Errorf("GET /../go.mod = %d", res.StatusCode)
	} else if res.StatusCode == http.StatusOK {
		body, _ := io.ReadAll(res.Body)
		if strings.Contains(string(body), "module tabuleiro.dev/web") {
			t.Error("GET /../go.mod served a file outside dist")
		}
	}
	if res := get(t, h, http.MethodPost, "/"); res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST / = %d, want 405", res.StatusCode)
	}
}

func TestIsClientPath(t *testing.T) {
	cases := []struct {
		method, path string
		want         bool
	}{
		{http.MethodGet, "/", true},
		{http.MethodGet, "/app.js", true},
		{http.MethodHead, "/index.html", true},
		{http.MethodGet, "/tabuleiro.lobby.v1.LobbyService/ListVariants", false},
		{http.MethodPost, "/tabuleiro.lobby.v1.LobbyService/SignInGuest", false},
		{http.MethodPost, "/", false},
	}
	for _, c := range cases {
		if got := IsClientPath(httptest.NewRequest(c.method, c.path, nil)); got != c.want {
			t.Errorf("IsClientPath(%s %s) = %v, want %v", c.method, c.path, got, c.want)
		}
	}
}

// What shows before the script runs is in the browser's language: the
// page's lang, its description and the no-script notice.
func TestIndexSpeaksTheBrowsersLanguage(t *testing.T) {
	h := Handler()
	for _, tc := range []struct{ accept, lang, key string }{
		{"pt-BR,pt;q=0.9,en;q=0.8", "pt-BR", "pt-BR"},
		{"pt-PT", "pt-BR", "pt-BR"},
		{"es-AR,es;q=0.9", "es", "es"},
		{"de-DE, en;q=0.5", "en", "en"},
		{"", "en", "en"},
		{"fr", "en", "en"},
	} {
		for _, target := range []string{"/", "/index.html"} {
			req := httptest.NewRequest(http.MethodGet, target, nil)
			req.Header.Set("Accept-Language", tc.accept)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			body := rec.Body.String()
			msgs := catalog(tc.key)
			for _, want := range []string{`<html lang="` + tc.lang + `">`, `content="` + msgs["meta.description"] + `"`, "<noscript>" + msgs["meta.noscript"] + "</noscript>", `src="app.js"`} {
				if !strings.Contains(body, want) {
					t.Errorf("GET %s, Accept-Language %q: the page lacks %q:\n%s", target, tc.accept, want, body)
				}
			}
			if v := rec.Header().Get("Vary"); v != "Accept-Language" {
				t.Errorf("Vary = %q, want Accept-Language", v)
			}
		}
	}
}
