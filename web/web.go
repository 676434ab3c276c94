// Package web serves the Tabuleiro web client: the bundle in dist/, built
// from src/ by `npm run build` in this directory and committed, so that a
// Go build needs no Node.js. `tabuleiro serve` mounts Handler at the root
// of its address, next to the API (Connect, gRPC-Web and gRPC).
package web

import (
	"bytes"
	"embed"
	"encoding/json"
	"html"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"time"

	"golang.org/x/text/language"
)

//go:embed dist
var dist embed.FS

// The client's catalogs: index.html is served in the language the
// browser asks for, so that what shows before the script runs (the
// page's language, its description, the no-script notice) is the
// player's too.
//
//go:embed src/locales/*.json
var locales embed.FS

// Files is the built client: index.html, app.js, app.css and the icons.
func Files() fs.FS {
	sub, err := fs.Sub(dist, "dist")
	if err != nil {
		panic(err) // dist is embedded at build time
	}
	return sub
}

// Handler serves the client. GET and HEAD only; every file is revalidated
// (no-cache: the names are fixed, so a new build must not be hidden by a
// cache), and "/" is index.html. Unknown paths are 404: the client routes
// in the URL's fragment, which never reaches the server.
func Handler() http.Handler {
	files := Files()
	fileServer := http.FileServerFS(files)
	pages, matcher := indexPages(files)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		name := strings.TrimPrefix(path.Clean("/"+r.URL.Path), "/")
		if name != "" {
			if _, err := fs.Stat(files, name); err != nil {
				http.NotFound(w, r)
				return
			}
		}
		h := w.Header()
		h.Set("Cache-Control", "no-cache")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'")
		if name == "" || name == "index.html" {
			_, i := language.MatchStrings(matcher, r.Header.Get("Accept-Language"))
			page := pages[i]
			h.Set("Vary", "Accept-Language")
			h.Set("Content-Type", "text/html; charset=utf-8")
			http.ServeContent(w, r, "index.html", time.Time{}, bytes.NewReader(page))
			return
		}
		fileServer.ServeHTTP(w, r)
	})
}

// indexPages is index.html in each language of the client's catalogs, in
// the order of the matcher of those languages, English first (what a
// browser that asks for none of them gets).
func indexPages(files fs.FS) ([][]byte, language.Matcher) {
	index, err := fs.ReadFile(files, "index.html")
	if err != nil {
		panic(err) // dist is embedded at build time
	}
	english := catalog("en")
	var pages [][]byte
	var tags []language.Tag
	names, _ := fs.Glob(locales, "src/locales/*.json")
	langs := []string{"en"}
	for _, n := range names {
		if tag := strings.TrimSuffix(path.Base(n), ".json"); tag != "en" {
			langs = append(langs, tag)
		}
	}
	for _, tag := range langs {
		msgs := catalog(tag)
		page := string(index)
		for _, r := range []struct{ en, key string }{
			{`<html lang="en">`, ""},
			{english["meta.description"], "meta.description"},
			{english["meta.noscript"], "meta.noscript"},
		} {
			to := `<html lang="` + html.EscapeString(tag) + `">`
			if r.key != "" {
				r.en, to = html.EscapeString(r.en), html.EscapeString(msgs[r.key])
			}
			page = strings.Replace(page, r.en, to, 1)
		}
		pages = append(pages, []byte(page))
		tags = append(tags, language.MustParse(tag))
	}
	return pages, language.NewMatcher(tags)
}

// catalog is the client's messages in lang (its file in src/locales).
func catalog(lang string) map[string]string {
	b, err := locales.ReadFile("src/locales/" + lang + ".json")
	if err != nil {
		panic(err) // embedded at build time
	}
	var all map[string]any
	if err := json.Unmarshal(b, &all); err != nil {
		panic(err)
	}
	msgs := map[string]string{}
	for k, v := range all {
		if s, ok := v.(string); ok {
			msgs[k] = s
		}
	}
	return msgs
}

// IsClientPath reports whether a request is for the web client rather than
// the API: a GET or HEAD whose path is not an RPC's, /package.Service/Method
// (gRPC, gRPC-Web and Connect calls are POSTs, Connect's GETs use RPC paths).
func IsClientPath(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	service, method, rpc := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	return !(rpc && method != "" && strings.Contains(service, "."))
}
