package applets

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/core/coretest"
)

func TestSearchProviders(t *testing.T) {
	var gotKey, gotQuery string
	mux := http.NewServeMux()
	mux.HandleFunc("/searx", func(w http.ResponseWriter, r *http.Request) {
		gotQuery = r.URL.Query().Get("q")
		if r.URL.Query().Get("format") != "json" {
			http.Error(w, "format=json required", 400)
			return
		}
		fmt.Fprint(w, `{"results":[{"title":"A","url":"https://a.example","content":"first"},{"title":"B","url":"https://b.example","content":"second"},{"title":"C","url":"https://c.example","content":"third"}]}`)
	})
	mux.HandleFunc("/brave", func(w http.ResponseWriter, r *http.Request) {
		gotKey = r.Header.Get("X-Subscription-Token")
		fmt.Fprint(w, `{"web":{"results":[{"title":"Brave hit","url":"https://brave.example","description":"from brave"}]}}`)
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(5 * time.Second):
		case <-r.Context().Done():
		}
	})
	mux.HandleFunc("/broken", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `<html>`) })
	srv := httptest.NewServer(mux)
	defer srv.Close()

	env := fetchEnv(t, map[string]string{"AGENTBOX_SEARCH_PROVIDERS": "searxng=" + srv.URL + "/searx"})
	res, err := coretest.Call(t, env, &Search{}, `{"query":"go generics","max_results":2}`)
	if err != nil {
		t.Fatal(err)
	}
	r := res.Data.(SearchResult)
	if gotQuery != "go generics" || r.Provider != "searxng" || len(r.Results) != 2 || r.Results[0] != (SearchHit{"A", "https://a.example", "first"}) {
		t.Errorf("searxng: %q %+v", gotQuery, r)
	}

	env = fetchEnv(t, map[string]string{"AGENTBOX_SEARCH_PROVIDERS": "brave=" + srv.URL + "/brave", "AGENTBOX_BRAVE_API_KEY": "k123"})
	res, err = coretest.Call(t, env, &Search{}, `{"query":"x"}`)
	if err != nil || gotKey != "k123" || res.Data.(SearchResult).Results[0].Snippet != "from brave" {
		t.Errorf("brave: %v key %q %+v", err, gotKey, res)
	}

	// A session always gets the same provider.
	env = fetchEnv(t, map[string]string{"AGENTBOX_SEARCH_PROVIDERS": "searxng=" + srv.URL + "/searx,brave=" + srv.URL + "/brave", "AGENTBOX_BRAVE_API_KEY": "k"})
	first := ""
	for i := 0; i < 4; i++ {
		res, err := coretest.Call(t, env, &Search{}, `{"query":"x"}`)
		if err != nil {
			t.Fatal(err)
		}
		if p := res.Data.(SearchResult).Provider; first == "" {
			first = p
		} else if p != first {
			t.Fatalf("provider changed within a session: %s then %s", first, p)
		}
	}

	for vars, want := range map[string]string{
		"":                               "no web search provider is configured",
		"brave":                          "AGENTBOX_BRAVE_API_KEY is not set",
		"google":                         `unknown provider "google"`,
		"searxng=" + srv.URL + "/broken": "not the expected JSON",
	} {
		env := fetchEnv(t, map[string]string{"AGENTBOX_SEARCH_PROVIDERS": vars})
		_, err := coretest.Call(t, env, &Search{}, `{"query":"x"}`)
		if err == nil || !strings.Contains(err.Message, want) {
			t.Errorf("%q: got %v, want %q", vars, err, want)
		}
	}

	// The per-call timeout is host configuration.
	env = fetchEnv(t, map[string]string{"AGENTBOX_SEARCH_PROVIDERS": "searxng=" + srv.URL + "/slow", "AGENTBOX_SEARCH_TIMEOUT_MS": "300"})
	start := time.Now()
	if _, err := coretest.Call(t, env, &Search{}, `{"query":"x"}`); err == nil || err.Code != core.CodeTimeout || !strings.Contains(err.Message, "300ms") {
		t.Errorf("timeout: %v", err)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("the 300 ms timeout took %v", took)
	}

	env = fetchEnv(t, map[string]string{"AGENTBOX_SEARCH_PROVIDERS": "searxng=" + srv.URL + "/searx", "AGENTBOX_SEARCH_CAP": "1"})
	coretest.Call(t, env, &Search{}, `{"query":"x"}`)
	if _, err := coretest.Call(t, env, &Search{}, `{"query":"x"}`); err == nil || err.Code != core.CodePermissionDenied {
		t.Errorf("cap: %v", err)
	}
}
