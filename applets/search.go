package applets

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/agentbox/agentbox/core"
)

// Limits of search, used by the code and quoted in the descriptions.
const (
	SearchDefaultResults = 5
	SearchTimeout        = 15 * time.Second // reference 002 (AGENTBOX_SEARCH_TIMEOUT_MS overrides)
	SearchSessionCap     = 25               // reference 002 (AGENTBOX_SEARCH_CAP overrides)
	braveEndpoint        = "https://api.search.brave.com/res/v1/web/search"
)

// Search queries the web through a configured provider.
type Search struct {
	Query      string `json:"query" alias:"q" arg:"" required:"" schema:"minLength=1" help:"the search query"`
	MaxResults int    `json:"max_results" alias:"count,num_results" default:"5" schema:"min=1,max=20" help:"how many results to return"`
}

// SearchHit is one result.
type SearchHit struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	Snippet string `json:"snippet"`
}

// SearchResult is what search returns (reference 002's web_search shape).
type SearchResult struct {
	Query    string      `json:"query"`
	Provider string      `json:"provider"`
	Results  []SearchHit `json:"results"`
}

type searchProvider struct {
	kind, endpoint string
}

const searchSetupHelp = "no web search provider is configured. Set AGENTBOX_SEARCH_PROVIDERS to a comma-separated list of providers: `searxng=https://your-searxng/search` (a SearXNG instance with the JSON format enabled) and/or `brave` (Brave Search API; put the key in AGENTBOX_BRAVE_API_KEY). With several, each session sticks to one of them."

// searchProviders parses AGENTBOX_SEARCH_PROVIDERS.
func searchProviders(env *core.Env) ([]searchProvider, error) {
	var out []searchProvider
	for _, spec := range strings.Split(env.Getenv("AGENTBOX_SEARCH_PROVIDERS"), ",") {
		spec = strings.TrimSpace(spec)
		if spec == "" {
			continue
		}
		kind, endpoint, _ := strings.Cut(spec, "=")
		switch kind {
		case "searxng":
			if endpoint == "" {
				return nil, core.Errorf(core.CodeInvalidParams, "AGENTBOX_SEARCH_PROVIDERS: searxng needs its URL, as searxng=https://host/search")
			}
		case "brave":
			if endpoint == "" {
				endpoint = braveEndpoint
			}
			if env.Getenv("AGENTBOX_BRAVE_API_KEY") == "" {
				return nil, core.Errorf(core.CodeInvalidParams, "AGENTBOX_SEARCH_PROVIDERS names brave, but AGENTBOX_BRAVE_API_KEY is not set; put the Brave Search API key there")
			}
		default:
			return nil, core.Errorf(core.CodeInvalidParams, "AGENTBOX_SEARCH_PROVIDERS: unknown provider %q; use searxng=URL or brave", kind)
		}
		if u, err := url.Parse(endpoint); err != nil || (u.Scheme != "http" && u.Scheme != "https") {
			return nil, core.Errorf(core.CodeInvalidParams, "AGENTBOX_SEARCH_PROVIDERS: %q is not an http(s) URL", endpoint)
		}
		out = append(out, searchProvider{kind, endpoint})
	}
	if len(out) == 0 {
		return nil, core.Errorf(core.CodeInvalidParams, "%s", searchSetupHelp)
	}
	return out, nil
}

// Run implements core.Command.
func (s *Search) Run(ctx context.Context, env *core.Env) (*core.Result, error) {
	provs, err := searchProviders(env)
	if err != nil {
		return nil, err
	}
	// One provider per session (a hash of the session id): a flaky provider fails
	// consistently instead of alternating with a working one.
	h := fnv.New32a()
	h.Write([]byte(env.Session.ID))
	prov := provs[int(h.Sum32())%len(provs)]
	u, _ := url.Parse(prov.endpoint)
	// The gate sees host:port, as for fetch, so the same host rules apply to both.
	d, err := env.Authorize(ctx, core.Request{Capability: core.CapNetFetch, Target: hostTarget(u), Summary: fmt.Sprintf("web search %q via %s", s.Query, prov.kind)})
	if err != nil {
		return nil, err
	}
	timeout := SearchTimeout
	if v := env.Getenv("AGENTBOX_SEARCH_TIMEOUT_MS"); v != "" {
		ms, err := strconv.Atoi(v)
		if err != nil || ms <= 0 {
			return nil, core.Errorf(core.CodeInvalidParams, "AGENTBOX_SEARCH_TIMEOUT_MS=%q is not a positive number of milliseconds", v)
		}
		timeout = time.Duration(ms) * time.Millisecond
	}
	if err := capCalls(ctx, env, "search", "AGENTBOX_SEARCH_CAP", SearchSessionCap); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	q := u.Query()
	q.Set("q", s.Query)
	if prov.kind == "searxng" {
		q.Set("format", "json")
	} else {
		q.Set("count", strconv.Itoa(s.MaxResults))
	}
	u.RawQuery = q.Encode()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "agentbox-search/"+core.VersionString())
	if prov.kind == "brave" {
		req.Header.Set("X-Subscription-Token", env.Getenv("AGENTBOX_BRAVE_API_KEY"))
	}
	resp, err := (&http.Client{Timeout: timeout}).Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, core.Errorf(core.CodeTimeout, "the %s search provider did not answer within %s; try again later, or ask the user to raise AGENTBOX_SEARCH_TIMEOUT_MS", prov.kind, timeout)
		}
		return nil, core.Errorf(core.CodeIOError, "the %s search provider failed: %v", prov.kind, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return nil, core.Errorf(core.CodeIOError, "reading the %s answer: %v", prov.kind, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, core.Errorf(core.CodeIOError, "the %s search provider answered HTTP %s: %s", prov.kind, resp.Status, clipString(string(body), 300))
	}
	hits, err := parseSearch(prov.kind, body)
	if err != nil {
		return nil, core.Errorf(core.CodeIOError, "the %s search provider's answer is not the expected JSON (%v)", prov.kind, err)
	}
	if len(hits) > s.MaxResults {
		hits = hits[:s.MaxResults]
	}
	return &core.Result{Data: SearchResult{Query: s.Query, Provider: prov.kind, Results: hits}, Meta: map[string]any{"decision": d}}, nil
}

func parseSearch(kind string, body []byte) ([]SearchHit, error) {
	hits := []SearchHit{}
	switch kind {
	case "searxng":
		var r struct {
			Results []struct{ Title, URL, Content string } `json:"results"`
		}
		if err := json.Unmarshal(body, &r); err != nil {
			return nil, err
		}
		for _, x := range r.Results {
			hits = append(hits, SearchHit{x.Title, x.URL, x.Content})
		}
	case "brave":
		var r struct {
			Web struct {
				Results []struct{ Title, URL, Description string } `json:"results"`
			} `json:"web"`
		}
		if err := json.Unmarshal(body, &r); err != nil {
			return nil, err
		}
		for _, x := range r.Web.Results {
			hits = append(hits, SearchHit{x.Title, x.URL, x.Description})
		}
	}
	return hits, nil
}

// capCalls enforces a per-session call cap kept under a lock in the session.
func capCalls(ctx context.Context, env *core.Env, name, envVar string, def int) error {
	limit := def
	if v := env.Getenv(envVar); v != "" {
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			limit = n
		}
	}
	return env.Session.WithLock(ctx, name+"-count", func() error {
		var count struct {
			Calls int `json:"calls"`
		}
		if err := env.Session.LoadJSON(name+"-count.json", &count); err != nil {
			return err
		}
		if count.Calls >= limit {
			return core.Errorf(core.CodePermissionDenied, "this session has used all %d %s calls (%s); work with what you have, or ask the user to raise the cap", limit, name, envVar)
		}
		count.Calls++
		return env.Session.SaveJSON(name+"-count.json", count)
	})
}

// RenderText implements core.TextRenderer.
func (r SearchResult) RenderText(p *core.Printer) {
	if len(r.Results) == 0 {
		p.Println(p.Dim("No results for " + strconv.Quote(r.Query) + "."))
	}
	for i, h := range r.Results {
		p.Printf("%d. %s\n   %s\n   %s\n", i+1, p.OK(h.Title), p.Path(h.URL), h.Snippet)
	}
}
