package ui

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// BenchmarkPage is the server's part of opening the page: index.html with
// the state (servers, skills, runs, the servers/ listing) in it.
func BenchmarkPage(b *testing.B) {
	eng := newTestEngine(b)
	s, err := New(eng, Options{Token: testToken})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	req := httptest.NewRequest("GET", "http://127.0.0.1:8080/", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req.Clone(req.Context()))
		if w.Code != http.StatusOK {
			b.Fatalf("GET /: %d", w.Code)
		}
	}
}

// BenchmarkCheck is one type-check as the editor sends it while typing.
func BenchmarkCheck(b *testing.B) {
	eng := newTestEngine(b)
	s, err := New(eng, Options{Token: testToken})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	body := `{"source":"package main\n\nimport (\n\t\"fmt\"\n\n\t\"mcpfs/servers/notes\"\n)\n\nfunc main() {\n\tres, err := notes.Search(notes.SearchArgs{Query: \"go\"})\n\tfmt.Println(res, err)\n}\n"}`
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest("POST", "http://127.0.0.1:8080/api/check", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+testToken)
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
		if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"ok":true`) {
			b.Fatalf("check: %d %s", w.Code, w.Body)
		}
	}
}
