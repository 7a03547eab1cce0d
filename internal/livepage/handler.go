package livepage

import (
	"embed"
	"encoding/json"
	"net/http"
)

// static holds the page: plain HTML, a script and a style sheet, served
// as they are, with nothing fetched from elsewhere.
//
//go:embed static
var static embed.FS

// Handler returns the handler of the page: GET / answers with the page,
// GET /live.json with the [Live] document, and GET /live.js and
// /live.css with the page's script and style.
func (p *Page) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", file("static/index.html", "text/html; charset=utf-8"))
	mux.HandleFunc("GET /live.js", file("static/live.js", "text/javascript; charset=utf-8"))
	mux.HandleFunc("GET /live.css", file("static/live.css", "text/css; charset=utf-8"))
	mux.HandleFunc("GET /live.json", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		_ = json.NewEncoder(w).Encode(p.Live()) // a client gone is no error of ours
	})
	return mux
}

// file serves the embedded file name as type ctype.
func file(name, ctype string) http.HandlerFunc {
	b, err := static.ReadFile(name)
	if err != nil {
		panic("livepage: " + err.Error()) // embedded at build time
	}
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", ctype)
		_, _ = w.Write(b)
	}
}
