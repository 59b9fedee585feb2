package applets

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/core/coretest"
)

// TestGrepStreamsWhatEncodingJSONWrites: content lines are rendered and escaped as the
// envelope is written (core.JSONStreamer); every byte must be what encoding/json writes
// for the same lines held as strings, whatever the lines hold and whichever fields are
// set, and the envelope must read back as the same value.
func TestGrepStreamsWhatEncodingJSONWrites(t *testing.T) {
	env := coretest.Env(t, "grepjson")
	writeFile(t, env, "a.txt", "needle \"quoted\" back\\slash\tTAB\n"+
		"needle <html> & </html>\n"+
		"needle ctl \x01\x1f\x7f end\n"+
		"needle\u2028sep\u2029 end\n"+
		"needle bad utf8 \xff\xfe\xe2\x82 end\n"+
		"needle "+strings.Repeat("long ", 200)+"\n"+
		"plain line\nplain line\nplain line\nplain line\nneedle again\n")
	writeFile(t, env, "dir with space/b \"q\".go", "x\nneedle é ü ß\n")
	requests := []string{
		`{"pattern":"needle","output_mode":"content","head_limit":1000}`,
		`{"pattern":"needle","output_mode":"content","-C":1,"head_limit":1000}`,
		`{"pattern":"needle","output_mode":"content","-n":false,"head_limit":3,"offset":2}`,
		`{"pattern":"n[e]+dle","output_mode":"content","only_matching":true}`,
		`{"pattern":"needle","output_mode":"content","invert_match":true}`,
		`{"pattern":"no such text","output_mode":"content"}`,
		`{"pattern":"needle","output_mode":"files_with_matches"}`,
		`{"pattern":"needle","output_mode":"count"}`,
	}
	for _, req := range requests {
		res, err := coretest.Call(t, env, &Grep{}, req)
		if err != nil {
			t.Fatalf("%s: %v", req, err)
		}
		r := res.Data.(GrepResult)
		// The reference: the same result with its lines as strings, through encoding/json.
		type fields GrepResult
		plain := r
		plain.Lines, plain.lines = r.lineStrings(), nil
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(fields(plain)); err != nil {
			t.Fatal(err)
		}
		got, jerr := json.Marshal(r)
		if jerr != nil {
			t.Fatalf("%s: %v", req, jerr)
		}
		// json.Marshal re-escapes <, > and & in what MarshalJSON returns; compare the
		// streamed bytes themselves.
		var streamed bytes.Buffer
		if werr := core.OutputEnvelope(res, 7).WriteJSON(&streamed); werr != nil {
			t.Fatal(werr)
		}
		wantEnv := fmt.Sprintf(`{"type":"output","data":%s,"metadata":{"duration_ms":7}}`+"\n", bytes.TrimSuffix(want.Bytes(), []byte("\n")))
		if res.Truncated {
			wantEnv = strings.Replace(wantEnv, `{"duration_ms":7}`, fmt.Sprintf(`{"duration_ms":7,"output_path":%q,"truncated":true}`, res.OutputPath), 1)
		}
		if streamed.String() != wantEnv {
			t.Errorf("%s:\nstreamed %s\nwant     %s", req, streamed.String(), wantEnv)
		}
		var back, ref any
		if json.Unmarshal(got, &back) != nil || json.Unmarshal(want.Bytes(), &ref) != nil {
			t.Fatalf("%s: MarshalJSON wrote invalid JSON: %s", req, got)
		}
		if fmt.Sprint(back) != fmt.Sprint(ref) {
			t.Errorf("%s: MarshalJSON reads back as\n%v\nwant\n%v", req, back, ref)
		}
	}
}

// TestStreamedEnvelopeFallsBackWhole: metadata that cannot be encoded is found before
// anything is written, so the caller gets one whole error envelope, not half a result.
func TestStreamedEnvelopeFallsBackWhole(t *testing.T) {
	env := coretest.Env(t, "grepjson")
	writeFile(t, env, "a.txt", "needle\n")
	res, err := coretest.Call(t, env, &Grep{}, `{"pattern":"needle","output_mode":"content"}`)
	if err != nil {
		t.Fatal(err)
	}
	res.Meta = map[string]any{"bad": make(chan int)}
	var out bytes.Buffer
	_ = core.OutputEnvelope(res, 1).WriteJSON(&out)
	var e struct {
		Type      string `json:"type"`
		ErrorText string `json:"error_text"`
	}
	if json.Unmarshal(out.Bytes(), &e) != nil || e.Type != "error" || !strings.Contains(e.ErrorText, "could not be encoded") || strings.Count(out.String(), "\n") != 1 {
		t.Errorf("got %q; want one error envelope saying the result could not be encoded", out.String())
	}
}

// TestGrepPagesPastTheLineCap: paging with offset across and past the 100,000 lines one
// call keeps reads every line once, in order; a page that ends at the last line kept
// says where the next one starts (more cannot count lines that were not kept).
func TestGrepPagesPastTheLineCap(t *testing.T) {
	env := coretest.Env(t, "grepcap")
	const perFile = 40_000
	for i := 0; i < 3; i++ {
		var b strings.Builder
		for j := 1; j <= perFile; j++ {
			fmt.Fprintf(&b, "needle %d\n", j)
		}
		writeFile(t, env, fmt.Sprintf("f%d.txt", i), b.String())
	}
	page := func(offset, limit int) GrepResult {
		res, err := coretest.Call(t, env, &Grep{}, fmt.Sprintf(`{"pattern":"needle","output_mode":"content","-n":true,"offset":%d,"head_limit":%d}`, offset, limit))
		if err != nil {
			t.Fatal(err)
		}
		return res.Data.(GrepResult)
	}
	want := func(k int) string { // the k-th line of the whole output, from 0
		return fmt.Sprintf("f%d.txt:%d:needle %d", k/perFile, k%perFile+1, k%perFile+1)
	}
	for _, start := range []int{GrepMaxCollect - 2, GrepMaxCollect + 3, 3*perFile - 4} {
		offset := start
		for offset < start+10 && offset < 3*perFile {
			r := page(offset, 4)
			lines := r.lineStrings()
			if len(lines) == 0 {
				t.Fatalf("offset %d: no lines; partial %q", offset, r.Partial)
			}
			for i, l := range lines {
				if !strings.HasSuffix(l, want(offset+i)) {
					t.Fatalf("offset %d, line %d: %q, want …%s", offset, i, l, want(offset+i))
				}
			}
			if r.TotalMatches != 3*perFile {
				t.Errorf("offset %d: total_matches %d, want %d", offset, r.TotalMatches, 3*perFile)
			}
			next := offset + len(lines)
			if r.More == 0 && next < 3*perFile && !strings.Contains(r.Partial, fmt.Sprintf("offset %d reads on", next)) {
				t.Errorf("offset %d: more 0 before the end, partial %q does not say offset %d reads on", offset, r.Partial, next)
			}
			offset = next
		}
	}
}

// TestGrepKeepsTheFilesBytes: a line with bytes that are not UTF-8 prints them as the
// file holds them in text mode (as grep and rg do), and a JSON envelope shows each one
// as \ufffd, as encoding/json shows them in a path.
func TestGrepKeepsTheFilesBytes(t *testing.T) {
	env := coretest.Env(t, "grepbytes")
	writeFile(t, env, "a.txt", "needle \xff\xfe\xed\xa0\x80 end\n")
	res, err := coretest.Call(t, env, &Grep{}, `{"pattern":"needle","output_mode":"content"}`)
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	core.RenderText(core.NewPrinter(&text, false), res)
	if !strings.Contains(text.String(), ":1:needle \xff\xfe\xed\xa0\x80 end\n") {
		t.Errorf("text mode: %q; want the line's own bytes", text.String())
	}
	var out bytes.Buffer
	if err := core.OutputEnvelope(res, 0).WriteJSON(&out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `:1:needle \ufffd\ufffd\ufffd\ufffd\ufffd end"`) {
		t.Errorf("envelope: %s; want one \\ufffd per invalid byte", out.String())
	}
}
