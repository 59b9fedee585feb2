package applets

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2"
	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/core/gate"
	"github.com/agentbox/agentbox/core/netguard"
	"github.com/agentbox/agentbox/core/policy"
	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
)

// Limits of fetch, used by the code and quoted in the descriptions.
const (
	FetchDefaultTimeoutMs = 15000     // reference 002: 15 s per call
	FetchDefaultMaxBytes  = 200 << 10 // reference 002: 200 KB after extraction
	FetchSessionCap       = 25        // reference 002: calls per session (AGENTBOX_FETCH_CAP overrides)
	FetchMaxRedirects     = 10
	FetchMaxBodyBytes     = 10 << 20  // raw body read for extraction
	FetchMaxDownloadBytes = 100 << 20 // raw body saved with download_to
)

// Fetch gets a URL and returns readable text.
type Fetch struct {
	URL        string `json:"url" alias:"uri,link" arg:"" required:"" schema:"maxLength=8192" help:"the http(s) URL to fetch"`
	Method     string `json:"method" enum:"GET,HEAD" default:"GET" help:"GET, or HEAD for the headers only"`
	Format     string `json:"format" enum:"markdown,raw" default:"markdown" help:"markdown turns HTML into readable Markdown; raw returns the decoded body as it is"`
	TimeoutMs  int    `json:"timeout_ms" alias:"timeout" default:"15000" schema:"min=1000,max=120000" help:"timeout for the whole call in milliseconds"`
	MaxBytes   int    `json:"max_bytes" default:"204800" schema:"min=1024" help:"output cap in bytes after extraction; the whole text then goes to a sidecar file"`
	DownloadTo string `json:"download_to" alias:"save_to,output" help:"save the body (any type, up to 100 MiB) to this workspace path instead of returning it"`
}

// FetchResult is what fetch returns.
type FetchResult struct {
	URL         string   `json:"url"`
	FinalURL    string   `json:"final_url"`
	Status      int      `json:"status"`
	ContentType string   `json:"content_type"`
	Title       string   `json:"title,omitempty"`
	Redirects   []string `json:"redirects,omitempty"`
	Content     string   `json:"content"`
	Bytes       int      `json:"bytes"` // raw body bytes received
	SavedTo     string   `json:"saved_to,omitempty"`
}

// Run implements core.Command.
func (f *Fetch) Run(ctx context.Context, env *core.Env) (*core.Result, error) {
	u, err := url.Parse(f.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, core.Errorf(core.CodeInvalidParams, "%q is not an http(s) URL; pass a full URL such as https://example.com/page", f.URL)
	}
	target := hostTarget(u)
	d, err := env.Authorize(ctx, core.Request{Capability: core.CapNetFetch, Target: target, Summary: f.Method + " " + u.String()})
	if err != nil {
		return nil, err
	}
	// download_to is decided before anything is fetched: a refused destination costs
	// no request, and nothing downloaded waits on a question.
	var saveTo core.Path
	var saveDecision core.Decision
	if f.DownloadTo != "" {
		if saveTo, err = env.Resolve(f.DownloadTo); err != nil {
			return nil, err
		}
		if saveDecision, err = env.Authorize(ctx, core.Request{Capability: core.CapFSWrite, Target: saveTo.Abs, Summary: fmt.Sprintf("save %s to %s", u.String(), saveTo.Abs)}); err != nil {
			return nil, err
		}
	}
	if err := capCalls(ctx, env, "fetch", "AGENTBOX_FETCH_CAP", FetchSessionCap); err != nil {
		return nil, err
	}
	timeout := time.Duration(f.TimeoutMs) * time.Millisecond
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res := FetchResult{URL: u.String()}
	raw, err := f.get(ctx, guardedClient(env, u, target, d, &res, timeout), u, timeout, &res)
	if err != nil {
		return nil, err
	}
	meta := map[string]any{"decision": d}
	if f.DownloadTo != "" {
		meta["download_decision"] = saveDecision
		info, err := env.WS.WriteAtomic(saveTo, raw, core.WriteOptions{CreateDirs: true})
		if err != nil {
			return nil, err
		}
		res.SavedTo = info.Target.Abs
		res.Content = fmt.Sprintf("Saved %d bytes (%s) to %s.", len(raw), res.ContentType, info.Target.Abs)
		return &core.Result{Data: res, Meta: meta}, nil
	}
	if f.Method == "HEAD" {
		res.Content = ""
		return &core.Result{Data: res, Meta: meta}, nil
	}
	return f.textResult(env, raw, res, meta)
}

// guardedClient is the HTTP client of one fetch: netguard's, with the gate's decision
// for every host:port the fetch reaches. A redirect to a new host is authorized like
// the first one, so a host rule that denies (or would ask for) a host holds however the
// fetch gets there; a private address is reached only for a host a rule names.
func guardedClient(env *core.Env, u *url.URL, target string, first core.Decision, res *FetchResult, timeout time.Duration) *http.Client {
	var mu sync.Mutex
	decisions := map[string]core.Decision{target: first}
	return netguard.NewClient(netguard.Options{
		Timeout: timeout, MaxRedirects: FetchMaxRedirects,
		AllowPrivate: func(host, port string) bool {
			mu.Lock()
			hd := decisions[net.JoinHostPort(host, port)]
			mu.Unlock()
			return privateAllowed(env, hd, host, port)
		},
		Refuse: func(host, port string, addr netip.Addr) error { return addressDenied(env, host, port, addr) },
		OnRedirect: func(next *http.Request) error {
			prev := lastHop(res.Redirects, u.String())
			res.Redirects = append(res.Redirects, next.URL.String())
			t := hostTarget(next.URL)
			mu.Lock()
			_, known := decisions[t]
			mu.Unlock()
			if known {
				return nil
			}
			hd, err := env.Authorize(next.Context(), core.Request{Capability: core.CapNetFetch, Target: t,
				Summary: fmt.Sprintf("follow the redirect from %s to %s", prev, next.URL)})
			if err != nil {
				return err
			}
			mu.Lock()
			decisions[t] = hd
			mu.Unlock()
			return nil
		},
	})
}

// get sends the request and reads the body, up to the size limit; an HTTP error status
// is an error with the start of the body in its details.
func (f *Fetch) get(ctx context.Context, client *http.Client, u *url.URL, timeout time.Duration, res *FetchResult) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, f.Method, u.String(), nil)
	if err != nil {
		return nil, core.Errorf(core.CodeInvalidParams, "cannot build a request for %s: %v", u, err)
	}
	req.Header.Set("User-Agent", "agentbox-fetch/"+core.VersionString())
	req.Header.Set("Accept", "text/html,text/markdown,text/plain,application/json;q=0.9,*/*;q=0.5")
	resp, err := client.Do(req)
	if err != nil {
		return nil, fetchError(u.String(), timeout, err)
	}
	defer resp.Body.Close()
	res.FinalURL = resp.Request.URL.String()
	res.Status = resp.StatusCode
	res.ContentType = resp.Header.Get("Content-Type")

	limit := int64(FetchMaxBodyBytes)
	if f.DownloadTo != "" {
		limit = FetchMaxDownloadBytes
	}
	body, err := decodeContent(resp.Body, resp.Header.Get("Content-Encoding"))
	if err != nil {
		return nil, core.Errorf(core.CodeIOError, "%s sent its body encoded as %q, which fetch cannot decode (%v); download it with bash (curl --compressed -o FILE URL) and read the file", res.FinalURL, resp.Header.Get("Content-Encoding"), err)
	}
	// A body of known length is read into one buffer of that size: growing one by
	// doubling held two and a half times a 100 MB download (red team).
	var buf bytes.Buffer
	if n := resp.ContentLength; n > 0 && n <= limit && resp.Header.Get("Content-Encoding") == "" {
		buf.Grow(int(n) + 1)
	}
	_, err = buf.ReadFrom(io.LimitReader(body, limit+1))
	raw := buf.Bytes()
	if err != nil {
		return nil, fetchError(u.String(), timeout, err)
	}
	if int64(len(raw)) > limit {
		return nil, core.Errorf(core.CodeTooLarge, "%s is larger than %d MiB; fetch a smaller resource, or download it with bash (curl -o)", res.FinalURL, limit>>20)
	}
	res.Bytes = len(raw)
	if resp.StatusCode >= 400 {
		code := core.CodeIOError
		if resp.StatusCode == 404 || resp.StatusCode == 410 {
			code = core.CodeNotFound
		}
		return nil, (&core.Error{Code: code, Message: fmt.Sprintf("%s answered HTTP %s; check the URL (the first part of the body is in details)", res.FinalURL, resp.Status)}).
			WithDetails(map[string]any{"status": resp.StatusCode, "final_url": res.FinalURL, "body_head": clipString(string(raw), 500)})
	}
	return raw, nil
}

// textResult turns a textual body into the result: decoded to UTF-8, HTML as Markdown
// unless format is raw, capped at max_bytes with the whole text in output_path.
func (f *Fetch) textResult(env *core.Env, raw []byte, res FetchResult, meta map[string]any) (*core.Result, error) {
	mediaType, _, _ := mime.ParseMediaType(res.ContentType)
	if mediaType == "" {
		mediaType = http.DetectContentType(raw)
		mediaType, _, _ = mime.ParseMediaType(mediaType)
	}
	if !isTextual(mediaType) {
		return nil, core.Errorf(core.CodeBinaryFile, "%s is %s (%d bytes), not text; pass download_to with a workspace path to save it", res.FinalURL, mediaType, len(raw))
	}
	text := decodeCharset(raw, res.ContentType)
	if mediaType == "text/html" || mediaType == "application/xhtml+xml" {
		res.Title = htmlTitle(text)
		if f.Format == "markdown" {
			md, err := htmltomarkdown.ConvertString(text)
			if err != nil {
				return nil, core.Errorf(core.CodeIOError, "could not turn the HTML of %s into Markdown: %v; try format raw", res.FinalURL, err)
			}
			text = md
		}
	}
	result := &core.Result{Meta: meta}
	if len(text) > f.MaxBytes {
		result.Truncated = true
		where := "the whole text is in output_path"
		if path, err := env.Session.Spill("fetch", []byte(text)); err == nil {
			result.OutputPath = path
		} else {
			where = fmt.Sprintf("the rest could not be saved (%v); fetch with format raw or download_to for the whole body", err)
		}
		cut := f.MaxBytes
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut] + fmt.Sprintf("\n… [cut at %d bytes of %d; %s]", cut, len(text), where)
	}
	res.Content = text
	result.Data = res
	return result, nil
}

// hostTarget is what the gate sees for a URL: host:port, with the scheme's port when
// the URL names none, so a rule naming a port (127.0.0.1:8080) matches, and a bare-host
// rule matches every port.
func hostTarget(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// lastHop is the last URL of the redirect chain so far, or first.
func lastHop(redirects []string, first string) string {
	if n := len(redirects); n > 0 {
		return redirects[n-1]
	}
	return first
}

// privateAllowed says whether host may be reached at a private, loopback, link-local or
// metadata address on port: when the permission rule (or grant) that allowed reaching
// this host:port names it (d is the gate's decision for exactly this host:port, so a
// rule that matched it and is not a catch-all names it), or when
// AGENTBOX_FETCH_ALLOW_HOSTS lists it (names, host:port, *.suffix patterns, or *). A
// catch-all rule does not count: reaching an internal address takes naming it.
func privateAllowed(env *core.Env, d core.Decision, host, port string) bool {
	if d.Action == "allow" && d.Pattern != "" {
		h := d.Pattern
		if hh, _, err := net.SplitHostPort(h); err == nil {
			h = hh
		}
		if h != "*" {
			return true
		}
	}
	for _, pat := range strings.Split(env.Getenv("AGENTBOX_FETCH_ALLOW_HOSTS"), ",") {
		pat = strings.ToLower(strings.TrimSpace(pat))
		// host:port allows that port only; a bare host allows every port.
		if h, p, err := net.SplitHostPort(pat); err == nil {
			if p != port {
				continue
			}
			pat = h
		}
		pat = strings.TrimSuffix(strings.TrimPrefix(pat, "["), "]") // [::1] as a URL writes it
		switch {
		case pat == "":
		case pat == "*" || pat == host:
			return true
		case strings.HasPrefix(pat, "*.") && strings.HasSuffix(host, pat[1:]):
			return true
		}
	}
	return false
}

func fetchError(u string, timeout time.Duration, err error) error {
	var blocked *netguard.BlockedAddressError
	var refused *core.Error
	switch {
	case errors.As(err, &refused):
		return refused // the gate refused a redirect's host
	case errors.As(err, &blocked):
		return core.Errorf(core.CodePermissionDenied, "%s", blocked.Error())
	case errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "Client.Timeout") || strings.Contains(err.Error(), "timeout"):
		return core.Errorf(core.CodeTimeout, "fetching %s took longer than %s; raise timeout_ms or try again later", u, timeout)
	}
	return core.Errorf(core.CodeIOError, "fetching %s failed: %v", u, err)
}

func isTextual(mediaType string) bool {
	switch {
	case strings.HasPrefix(mediaType, "text/"),
		strings.HasSuffix(mediaType, "+json"), strings.HasSuffix(mediaType, "+xml"):
		return true
	}
	switch mediaType {
	case "application/json", "application/xml", "application/javascript", "application/x-javascript",
		"application/ecmascript", "application/x-yaml", "application/yaml", "application/toml", "application/x-ndjson", "application/xhtml+xml":
		return true
	}
	return false
}

// decodeCharset turns the body into UTF-8 using the declared (or sniffed) charset.
func decodeCharset(raw []byte, contentType string) string {
	r, err := charset.NewReader(bytes.NewReader(raw), contentType)
	if err != nil {
		return strings.ToValidUTF8(string(raw), "\uFFFD")
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return strings.ToValidUTF8(string(raw), "\uFFFD")
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

// decodeContent undoes the Content-Encoding a server applied that Go's transport left in
// place (it decodes a lone gzip it asked for itself): gzip and deflate, in any stack, so
// that compressed bytes are never passed off as text. The caller's limit on what it
// reads bounds a bomb.
func decodeContent(r io.Reader, encoding string) (io.Reader, error) {
	codings := strings.Split(encoding, ",")
	for i := len(codings) - 1; i >= 0; i-- { // listed in the order they were applied
		switch c := strings.ToLower(strings.TrimSpace(codings[i])); c {
		case "", "identity":
		case "gzip", "x-gzip":
			zr, err := gzip.NewReader(r)
			if err != nil {
				return nil, err
			}
			r = zr
		case "deflate":
			// HTTP's deflate is zlib's format; some servers send raw deflate.
			br := bufio.NewReader(r)
			if head, _ := br.Peek(2); len(head) == 2 && head[0]&0x0f == 8 && (uint16(head[0])<<8|uint16(head[1]))%31 == 0 {
				zr, err := zlib.NewReader(br)
				if err != nil {
					return nil, err
				}
				r = zr
			} else {
				r = flate.NewReader(br)
			}
		default:
			return nil, fmt.Errorf("%s is not supported", c)
		}
	}
	return r, nil
}

// maxTitleBytes bounds the title a fetch reports.
const maxTitleBytes = 512

func htmlTitle(doc string) string {
	z := html.NewTokenizer(strings.NewReader(doc))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return ""
		case html.StartTagToken:
			if name, _ := z.TagName(); string(name) == "title" {
				if z.Next() == html.TextToken {
					// A page's title is a line, not a body: a page that puts megabytes
					// there must not carry them past max_bytes and the output cap.
					return clipString(strings.Join(strings.Fields(string(z.Text())), " "), maxTitleBytes)
				}
				return ""
			}
		}
	}
}

func clipString(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// RenderText implements core.TextRenderer.
func (r FetchResult) RenderText(p *core.Printer) {
	if r.Title != "" {
		p.Printf("%s\n", p.OK(r.Title))
	}
	p.Printf("%s\n", p.Dim(fmt.Sprintf("%d %s %s", r.Status, r.ContentType, r.FinalURL)))
	for _, hop := range r.Redirects {
		p.Printf("%s\n", p.Dim("redirected to "+hop))
	}
	p.Printf("%s\n", r.Content)
}

// addressDenied refuses an address a deny rule names, by any of its spellings: the
// address itself (an IPv4-mapped IPv6 address as its IPv4 one), and for loopback and
// the unspecified address (which Linux dials as loopback) 127.0.0.1, ::1 and localhost.
// Rules are decided on the URL's host first; this holds them for [::ffff:127.0.0.1],
// 0.0.0.0 or a name that resolves to a denied address.
func addressDenied(env *core.Env, host, port string, addr netip.Addr) error {
	pol, _, err := gate.PolicyFor(env)
	if err != nil {
		return err
	}
	a := addr.Unmap()
	names := []string{a.String()}
	if a.IsLoopback() || a.IsUnspecified() {
		names = append(names, "127.0.0.1", "::1", "localhost")
	}
	for _, n := range names {
		for _, t := range []string{net.JoinHostPort(n, port), n} {
			d := pol.Evaluate(policy.Request{Applet: "fetch", Capability: core.CapNetFetch, Target: t})
			if d.Action == policy.Deny {
				return core.Errorf(core.CodePermissionDenied, "%s resolves to %s, which %s refuses; do not retry it under another name", host, a, d.Reason)
			}
		}
	}
	return nil
}
