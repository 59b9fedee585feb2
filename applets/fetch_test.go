package applets

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/core/coretest"
	"github.com/agentbox/agentbox/core/gate"
)

func fetchEnv(t *testing.T, vars map[string]string) *core.Env {
	env := coretest.Env(t, "fetch")
	base := env.Getenv
	env.Getenv = func(k string) string {
		if v, ok := vars[k]; ok {
			return v
		}
		return base(k)
	}
	return env
}

func fetchServer(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<html><head><title>The Title</title></head><body><h1>Hello</h1><p>Some <b>bold</b> text.</p><script>evil()</script></body></html>`)
	})
	mux.HandleFunc("/bigtitle", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<html><head><title>"+strings.Repeat("t", 2<<20)+"</title></head><body>x</body></html>")
	})
	mux.HandleFunc("/encoded", func(w http.ResponseWriter, r *http.Request) {
		// Sent whatever the request accepted, as the red team's server did.
		var body bytes.Buffer
		switch enc := r.URL.Query().Get("as"); enc {
		case "deflate":
			zw := zlib.NewWriter(&body)
			zw.Write([]byte("plain words here"))
			zw.Close()
		case "gzip, gzip":
			var inner bytes.Buffer
			g := gzip.NewWriter(&inner)
			g.Write([]byte("plain words here"))
			g.Close()
			g = gzip.NewWriter(&body)
			g.Write(inner.Bytes())
			g.Close()
		case "br":
			body.WriteString("\x1b\x0b\x00\xf8\xa5")
		}
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Content-Encoding", r.URL.Query().Get("as"))
		w.Write(body.Bytes())
	})
	mux.HandleFunc("/latin1", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=iso-8859-1")
		w.Write([]byte("caf\xe9"))
	})
	mux.HandleFunc("/hop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/page", http.StatusFound) })
	mux.HandleFunc("/sneaky", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, strings.Replace("http://"+r.Host+"/page", "127.0.0.1", "localhost", 1), http.StatusFound)
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop", http.StatusFound) })
	mux.HandleFunc("/mislabelled", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=no-such-charset")
		w.Write([]byte("caf\xc3\xa9 \xff"))
	})
	mux.HandleFunc("/meta-charset", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><head><meta charset=\"iso-8859-1\"><title>Caf\xe9</title></head><body><p>na\xefve</p></body></html>"))
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(5 * time.Second):
		case <-r.Context().Done():
		}
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte(strings.Repeat("0123456789\n", 30000)))
	})
	mux.HandleFunc("/huge", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		chunk := []byte(strings.Repeat("x", 1<<20))
		for i := 0; i < 12; i++ {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	mux.HandleFunc("/img", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG\r\n\x1a\n\x00\x00"))
	})
	mux.HandleFunc("/gone", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no such page", http.StatusNotFound) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestFetch(t *testing.T) {
	srv := fetchServer(t)
	env := fetchEnv(t, map[string]string{"AGENTBOX_FETCH_ALLOW_HOSTS": "127.0.0.1"})
	call := func(req string) (*core.Result, *core.Error) { return coretest.Call(t, env, &Fetch{}, req) }

	res, err := call(fmt.Sprintf(`{"url":%q}`, srv.URL+"/hop"))
	if err != nil {
		t.Fatal(err)
	}
	r := res.Data.(FetchResult)
	if r.Title != "The Title" || !strings.Contains(r.Content, "# Hello") || !strings.Contains(r.Content, "**bold**") || strings.Contains(r.Content, "evil") {
		t.Errorf("markdown: title %q content %q", r.Title, r.Content)
	}
	if len(r.Redirects) != 1 || !strings.HasSuffix(r.FinalURL, "/page") {
		t.Errorf("redirect chain %v final %s", r.Redirects, r.FinalURL)
	}
	// A body the server compressed unasked is decoded, or refused: never passed off as
	// text (red team: deflate and a doubled gzip came back as mojibake).
	for _, as := range []string{"deflate", "gzip,%20gzip"} {
		if res, err := call(fmt.Sprintf(`{"url":%q}`, srv.URL+"/encoded?as="+as)); err != nil || !strings.Contains(res.Data.(FetchResult).Content, "plain words here") {
			t.Errorf("%s: %v %+v", as, err, res)
		}
	}
	if _, err := call(fmt.Sprintf(`{"url":%q}`, srv.URL+"/encoded?as=br")); err == nil || !strings.Contains(err.Message, "cannot decode") {
		t.Errorf("br: %v", err)
	}
	// A 2 MB title is a line, not a body carried past every cap (red team).
	if res, err := call(fmt.Sprintf(`{"url":%q,"max_bytes":1024}`, srv.URL+"/bigtitle")); err != nil || len(res.Data.(FetchResult).Title) > maxTitleBytes+len("…") {
		t.Errorf("big title: %v, %d bytes", err, len(res.Data.(FetchResult).Title))
	}

	res, err = call(fmt.Sprintf(`{"url":%q}`, srv.URL+"/latin1"))
	if err != nil || res.Data.(FetchResult).Content != "café" {
		t.Errorf("charset: %v %+v", err, res)
	}

	res, err = call(fmt.Sprintf(`{"url":%q,"max_bytes":2048}`, srv.URL+"/big"))
	if err != nil || !res.Truncated || res.OutputPath == "" {
		t.Fatalf("cap: %v %+v", err, res)
	}
	if spill, _ := os.ReadFile(res.OutputPath); len(spill) != 330000 {
		t.Errorf("sidecar has %d bytes, want the whole 330000", len(spill))
	}

	for path, code := range map[string]core.ErrorCode{"/huge": core.CodeTooLarge, "/img": core.CodeBinaryFile, "/gone": core.CodeNotFound} {
		if _, err := call(fmt.Sprintf(`{"url":%q}`, srv.URL+path)); err == nil || err.Code != code {
			t.Errorf("%s: got %v, want %s", path, err, code)
		}
	}

	res, err = call(fmt.Sprintf(`{"url":%q,"download_to":"assets/x.png"}`, srv.URL+"/img"))
	if err != nil || res.Data.(FetchResult).SavedTo == "" {
		t.Fatalf("download: %v", err)
	}
	if b, _ := os.ReadFile(res.Data.(FetchResult).SavedTo); !strings.HasPrefix(string(b), "\x89PNG") {
		t.Errorf("saved %q", b)
	}

	start := time.Now()
	if _, err := call(fmt.Sprintf(`{"url":%q,"timeout_ms":1000}`, srv.URL+"/slow")); err == nil || err.Code != core.CodeTimeout {
		t.Errorf("timeout: %v", err)
	}
	if time.Since(start) > 3*time.Second {
		t.Errorf("the timeout took %v", time.Since(start))
	}
}

func TestFetchRefusesPrivateAddresses(t *testing.T) {
	srv := fetchServer(t)
	// No allowance: loopback is refused outright.
	env := fetchEnv(t, nil)
	if _, err := coretest.Call(t, env, &Fetch{}, fmt.Sprintf(`{"url":%q}`, srv.URL+"/page")); err == nil || err.Code != core.CodePermissionDenied {
		t.Fatalf("loopback: %v", err)
	}
	// 127.0.0.1 allowed, but a redirect to "localhost" (also loopback) is not.
	env = fetchEnv(t, map[string]string{"AGENTBOX_FETCH_ALLOW_HOSTS": "127.0.0.1"})
	_, err := coretest.Call(t, env, &Fetch{}, fmt.Sprintf(`{"url":%q}`, srv.URL+"/sneaky"))
	if err == nil || err.Code != core.CodePermissionDenied || !strings.Contains(err.Message, "localhost") {
		t.Fatalf("redirect into loopback: %v", err)
	}
	for _, u := range []string{"http://169.254.169.254/latest/meta-data/", "http://[::1]/", "http://10.0.0.1/", "http://0.0.0.0/",
		"http://[::7f00:1]/", "http://[64:ff9b::7f00:1]/", "http://[2002:7f00:1::]/", "http://[::ffff:7f00:1]/"} {
		for _, mode := range []string{"default", "bypass"} {
			if _, err := coretest.Call(t, fetchEnv(t, map[string]string{"AGENTBOX_MODE": mode}), &Fetch{}, fmt.Sprintf(`{"url":%q,"timeout_ms":2000}`, u)); err == nil || err.Code != core.CodePermissionDenied {
				t.Errorf("%s in %s mode: %v", u, mode, err)
			}
		}
	}
}

func TestFetchSessionCap(t *testing.T) {
	srv := fetchServer(t)
	env := fetchEnv(t, map[string]string{"AGENTBOX_FETCH_ALLOW_HOSTS": "127.0.0.1", "AGENTBOX_FETCH_CAP": "2"})
	for i := 0; i < 2; i++ {
		if _, err := coretest.Call(t, env, &Fetch{}, fmt.Sprintf(`{"url":%q}`, srv.URL+"/latin1")); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := coretest.Call(t, env, &Fetch{}, fmt.Sprintf(`{"url":%q}`, srv.URL+"/latin1")); err == nil || err.Code != core.CodePermissionDenied || !strings.Contains(err.Message, "all 2 fetch calls") {
		t.Fatalf("cap: %v", err)
	}
}

// A net.fetch rule or an allowance that names host:port matches only that port (issue 8:
// the gate used to see the bare host, so such rules never matched).
func TestFetchHostRuleWithPort(t *testing.T) {
	srv := fetchServer(t)
	u, _ := url.Parse(srv.URL)
	_, port, _ := net.SplitHostPort(u.Host)
	ruleEnv := func(pattern string) *core.Env {
		env := fetchEnv(t, map[string]string{"AGENTBOX_MODE": "default"})
		env.Gate = &gate.PolicyGate{}
		dir := filepath.Join(env.Getenv("HOME"), ".config", "agentbox")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		cfg := fmt.Sprintf(`{"permissions":{"rules":[{"permission":"net.fetch","pattern":%q,"action":"allow"}]}}`, pattern)
		if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		return env
	}
	req := fmt.Sprintf(`{"url":%q}`, srv.URL+"/page")
	for _, pat := range []string{"127.0.0.1:" + port, "127.0.0.1"} {
		if _, err := coretest.Call(t, ruleEnv(pat), &Fetch{}, req); err != nil {
			t.Errorf("rule %q: %v", pat, err)
		}
	}
	// Another port's rule does not match, so the call needs approval no one can give here.
	if _, err := coretest.Call(t, ruleEnv("127.0.0.1:1"), &Fetch{}, req); err == nil || err.Code != core.CodeNeedsInput {
		t.Errorf("a rule for another port allowed the call: %v", err)
	}
	allow := func(list string) *core.Error {
		_, err := coretest.Call(t, fetchEnv(t, map[string]string{"AGENTBOX_FETCH_ALLOW_HOSTS": list}), &Fetch{}, req)
		return err
	}
	if err := allow("127.0.0.1:" + port); err != nil {
		t.Errorf("AGENTBOX_FETCH_ALLOW_HOSTS with the port: %v", err)
	}
	if err := allow("127.0.0.1:1"); err == nil || err.Code != core.CodePermissionDenied {
		t.Errorf("AGENTBOX_FETCH_ALLOW_HOSTS with another port allowed the call: %v", err)
	}
	// An IPv6 address written as a URL writes it (red team: [::1] was not recognised).
	for _, list := range []string{"[::1]", "::1", "[::1]:8080"} {
		if !privateAllowed(fetchEnv(t, map[string]string{"AGENTBOX_FETCH_ALLOW_HOSTS": list}), core.Decision{}, "::1", "8080") {
			t.Errorf("AGENTBOX_FETCH_ALLOW_HOSTS=%s does not allow ::1", list)
		}
	}
}

// The redirect bound, and charsets that are wrong or only declared in the document.
func TestFetchRedirectBoundAndCharsets(t *testing.T) {
	srv := fetchServer(t)
	env := fetchEnv(t, map[string]string{"AGENTBOX_FETCH_ALLOW_HOSTS": "127.0.0.1"})
	_, err := coretest.Call(t, env, &Fetch{}, fmt.Sprintf(`{"url":%q}`, srv.URL+"/loop"))
	if err == nil || !strings.Contains(err.Message, fmt.Sprintf("more than %d redirects", FetchMaxRedirects)) {
		t.Errorf("redirect loop: %v", err)
	}
	res, err := coretest.Call(t, env, &Fetch{}, fmt.Sprintf(`{"url":%q}`, srv.URL+"/mislabelled"))
	if err != nil || res.Data.(FetchResult).Content != "café \uFFFD" {
		t.Errorf("unknown charset label: %v %+v", err, res)
	}
	res, err = coretest.Call(t, env, &Fetch{}, fmt.Sprintf(`{"url":%q}`, srv.URL+"/meta-charset"))
	if err != nil || res.Data.(FetchResult).Title != "Café" || !strings.Contains(res.Data.(FetchResult).Content, "naïve") {
		t.Errorf("charset from <meta>: %v %+v", err, res)
	}
}

// A redirect to another host goes through the gate like the first URL: a host rule that
// denies it holds; and reaching a private address after a redirect takes a rule naming
// that host (not any rule whose text happens to contain the host's name).
func TestFetchRedirectHostsAreAuthorized(t *testing.T) {
	srv := fetchServer(t)
	ruleEnv := func(configHome string, vars map[string]string, rules ...string) *core.Env {
		vars["AGENTBOX_MODE"] = "default"
		vars["XDG_CONFIG_HOME"] = configHome
		env := fetchEnv(t, vars)
		env.Gate = &gate.PolicyGate{}
		if err := os.MkdirAll(filepath.Join(configHome, "agentbox"), 0o755); err != nil {
			t.Fatal(err)
		}
		cfg := `{"permissions":{"rules":[` + strings.Join(rules, ",") + `]}}`
		if err := os.WriteFile(filepath.Join(configHome, "agentbox", "config.json"), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		return env
	}
	rule := func(pattern, action string) string {
		return fmt.Sprintf(`{"permission":"net.fetch","pattern":%q,"action":%q}`, pattern, action)
	}
	sneaky := fmt.Sprintf(`{"url":%q}`, srv.URL+"/sneaky") // 127.0.0.1 → localhost

	// Both hosts may hold private addresses, but a rule denies localhost.
	env := ruleEnv(t.TempDir(), map[string]string{"AGENTBOX_FETCH_ALLOW_HOSTS": "127.0.0.1,localhost"}, rule("127.0.0.1", "allow"), rule("localhost", "deny"))
	if _, err := coretest.Call(t, env, &Fetch{}, sneaky); err == nil || err.Code != core.CodePermissionDenied || !strings.Contains(err.Message, "localhost") {
		t.Errorf("a redirect to a denied host was followed: %v", err)
	}
	// No rule for localhost, no one to ask: the redirect needs input.
	env = ruleEnv(t.TempDir(), map[string]string{"AGENTBOX_FETCH_ALLOW_HOSTS": "127.0.0.1,localhost"}, rule("127.0.0.1", "allow"))
	if _, err := coretest.Call(t, env, &Fetch{}, sneaky); err == nil || err.Code != core.CodeNeedsInput {
		t.Errorf("a redirect to a host no rule allows was followed: %v", err)
	}
	// Rules naming both hosts: followed, with the chain reported.
	env = ruleEnv(t.TempDir(), map[string]string{}, rule("127.0.0.1", "allow"), rule("localhost", "allow"))
	res, err := coretest.Call(t, env, &Fetch{}, sneaky)
	if err != nil || len(res.Data.(FetchResult).Redirects) != 1 || res.Data.(FetchResult).Title != "The Title" {
		t.Fatalf("allowed redirect: %v %+v", err, res)
	}
	// A deny rule naming an address holds however the URL spells it (an IPv4-mapped
	// IPv6 literal, the unspecified address Linux dials as loopback, a name that
	// resolves to it), even where every host is allowed.
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	for _, host := range []string{"[::ffff:127.0.0.1]", "0.0.0.0", "localhost"} {
		env = ruleEnv(t.TempDir(), map[string]string{"AGENTBOX_FETCH_ALLOW_HOSTS": "*"}, rule("*", "allow"), rule("127.0.0.1", "deny"))
		_, err := coretest.Call(t, env, &Fetch{}, fmt.Sprintf(`{"url":"http://%s:%s/"}`, host, port))
		if err == nil || err.Code != core.CodePermissionDenied || !strings.Contains(err.Message, "127.0.0.1") {
			t.Errorf("deny 127.0.0.1, fetch of %s: %v; want permission_denied naming the address", host, err)
		}
	}
	// localhost allowed only by a catch-all rule: it is loopback, and no rule names it,
	// even though the rule file's own path contains "localhost".
	env = ruleEnv(filepath.Join(t.TempDir(), "localhost"), map[string]string{}, rule("127.0.0.1", "allow"), rule("*", "allow"))
	if _, err := coretest.Call(t, env, &Fetch{}, sneaky); err == nil || err.Code != core.CodePermissionDenied || !strings.Contains(err.Message, "loopback") {
		t.Errorf("a catch-all rule let a redirect reach loopback: %v", err)
	}
}
