// Package web serves the Tabuleiro web client: the bundle in dist/, built
// from src/ by `npm run build` in this directory and committed, so that a
// Go build needs no Node.js. `tabuleiro serve` mounts Handler at the root
// of its address, next to the API (Connect, gRPC-Web and gRPC).
package web

import (
	"embed"
	"io/fs"
	"net/http"
	"path"
	"strings"
)

//go:embed dist
var dist embed.FS

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
		fileServer.ServeHTTP(w, r)
	})
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
