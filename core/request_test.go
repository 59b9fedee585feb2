package core

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

type editItem struct {
	Old string `json:"old_string" alias:"old_str,oldText" required:""`
	New string `json:"new_string" alias:"new_str,newText"`
	All bool   `json:"replace_all" alias:"allow_multiple"`
}

type testParams struct {
	FilePath string     `json:"file_path" alias:"path,filePath" required:"" help:"the file" schema:"minLength=1"`
	Limit    int        `json:"limit" default:"2000" schema:"min=1,max=100000" help:"lines"`
	Mode     string     `json:"mode" enum:"a,b" default:"a"`
	Edits    []editItem `json:"edits" type:"json" schema:"maxItems=3"`
	Env      map[string]string
	Opt      *int `json:"opt"`
}

func (p *testParams) Run(context.Context, *Env) (*Result, error) { return nil, nil }

func TestDecodeRequest(t *testing.T) {
	cases := []struct {
		name, in string
		wantErr  string // substring; empty = success
		check    func(t *testing.T, p *testParams)
	}{
		{"minimal with defaults", `{"file_path":"a.go"}`, "", func(t *testing.T, p *testParams) {
			if p.FilePath != "a.go" || p.Limit != 2000 || p.Mode != "a" || p.Opt != nil {
				t.Errorf("got %+v", p)
			}
		}},
		{"alias", `{"path":"a.go","limit":5}`, "", func(t *testing.T, p *testParams) {
			if p.FilePath != "a.go" || p.Limit != 5 {
				t.Errorf("got %+v", p)
			}
		}},
		{"nested alias", `{"file_path":"a","edits":[{"old_str":"x","newText":"y","allow_multiple":true}]}`, "", func(t *testing.T, p *testParams) {
			if len(p.Edits) != 1 || p.Edits[0] != (editItem{"x", "y", true}) {
				t.Errorf("got %+v", p.Edits)
			}
		}},
		{"pointer presence", `{"file_path":"a","opt":0}`, "", func(t *testing.T, p *testParams) {
			if p.Opt == nil || *p.Opt != 0 {
				t.Errorf("opt = %v", p.Opt)
			}
		}},
		{"byte order mark", "\ufeff{\"file_path\":\"a.go\"}", "", func(t *testing.T, p *testParams) {
			if p.FilePath != "a.go" {
				t.Errorf("got %+v", p)
			}
		}},
		{"empty input is {}", ``, "file_path", nil},
		{"whitespace only is {}", " \n\t", "file_path", nil},
		{"missing required", `{}`, `missing properties: ["file_path"]`, nil},
		{"unknown field", `{"file_path":"a","fiel":1}`, `unknown field "fiel"; accepted fields: file_path (also path, filePath)`, nil},
		{"unknown nested field", `{"file_path":"a","edits":[{"old_string":"x","bogus":1}]}`, `unknown field "bogus" in edits[0]`, nil},
		{"alias and canonical", `{"file_path":"a","path":"b"}`, `name the same parameter`, nil},
		{"duplicate key", `{"file_path":"a","file_path":"b"}`, `appears twice`, nil},
		{"wrong type", `{"file_path":1}`, `file_path: type: 1 has type "integer", want "string"`, nil},
		{"below minimum", `{"file_path":"a","limit":0}`, "limit: minimum", nil},
		{"beyond int64", `{"file_path":"a","opt":9223372036854775807}`, "opt: 9223372036854775807 is out of range", nil},
		{"beyond 2^53", `{"file_path":"a","opt":-9007199254740993}`, "is out of range", nil},
		{"1e309", `{"file_path":"a","opt":1e309}`, "opt", nil},
		{"2^53-1 is fine", `{"file_path":"a","opt":9007199254740991}`, "", nil},
		{"fraction for integer", `{"file_path":"a","limit":1.5}`, `limit: type: 1.5 has type "number", want "integer"`, nil},
		{"huge integer", `{"file_path":"a","limit":1e400}`, "limit", nil},
		{"enum", `{"file_path":"a","mode":"c"}`, "mode: enum: c does not equal any of: [a b]", nil},
		{"too many items", `{"file_path":"a","edits":[{"old_string":"1"},{"old_string":"2"},{"old_string":"3"},{"old_string":"4"}]}`, "maxItems", nil},
		{"empty string violates minLength", `{"file_path":""}`, "file_path: minLength", nil},
		{"not an object", `[1,2]`, "must be one JSON object", nil},
		{"a string", `"hello"`, "must be one JSON object", nil},
		{"null", `null`, "must be one JSON object", nil},
		{"trailing data", `{"file_path":"a"} x`, "trailing data after the JSON object at line 1, column 19", nil},
		{"second object", "{\"file_path\":\"a\"}\n{}", "trailing data after the JSON object at line 2, column 1", nil},
		{"truncated", `{"file_path":"a"`, "malformed JSON request", nil},
		{"bad syntax position", "{\n  \"file_path\": a\n}", "line 2, column", nil},
		{"map field has no json tag so is not a field", `{"file_path":"a","Env":{}}`, `unknown field "Env"`, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var p testParams
			err := DecodeRequest(strings.NewReader(c.in), &p)
			if c.wantErr == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				if c.check != nil {
					c.check(t, &p)
				}
				return
			}
			if err == nil {
				t.Fatalf("want error containing %q, got success: %+v", c.wantErr, p)
			}
			e := AsError(err)
			if e.Code != CodeInvalidParams {
				t.Errorf("code = %s, want invalid_params", e.Code)
			}
			if !strings.Contains(e.Message, c.wantErr) {
				t.Errorf("error %q does not contain %q", e.Message, c.wantErr)
			}
		})
	}
}

func TestDecodeRequestTooLarge(t *testing.T) {
	big := `{"file_path":"` + strings.Repeat("x", MaxRequestBytes) + `"}`
	var p testParams
	err := DecodeRequest(strings.NewReader(big), &p)
	if err == nil || AsError(err).Code != CodeTooLarge || !strings.Contains(err.Error(), "larger than 64 MiB") {
		t.Fatalf("got %v", err)
	}
}

func TestSchemaFromTags(t *testing.T) {
	s := ParamsOf(&testParams{}).Schema()
	props := s["properties"].(map[string]any)
	limit := props["limit"].(map[string]any)
	if limit["default"] != int64(2000) || limit["minimum"] != float64(1) || limit["type"] != "integer" {
		t.Errorf("limit schema = %v", limit)
	}
	if s["additionalProperties"] != false {
		t.Error("additionalProperties must be false")
	}
	if req := s["required"].([]any); len(req) != 1 || req[0] != "file_path" {
		t.Errorf("required = %v", req)
	}
	edits := props["edits"].(map[string]any)
	items := edits["items"].(map[string]any)
	if items["additionalProperties"] != false || items["required"].([]any)[0] != "old_string" {
		t.Errorf("edits items = %v", items)
	}
}

func FuzzDecodeRequest(f *testing.F) {
	for _, s := range []string{`{"file_path":"a"}`, `{"path":"a","limit":3,"edits":[{"old_str":"x"}]}`, `{`, `[]`, `{"a":1}{"b":2}`, "\xff", `{"file_path":"\u0000"}`, `{"limit":-1e999}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var p testParams
		err := DecodeRequest(strings.NewReader(in), &p)
		if err != nil {
			e := AsError(err)
			if e.Code != CodeInvalidParams || e.Message == "" {
				t.Fatalf("input %q: error with code %s: %v", in, e.Code, err)
			}
			return
		}
		if p.FilePath == "" || p.Limit < 1 {
			t.Fatalf("input %q accepted but violates the schema: %+v", in, p)
		}
	})
}

// BenchmarkDecodeDialectRequest compares decoding a call in a dialect's shape (renamed
// parameters translated first) with decoding the canonical call.
func BenchmarkDecodeDialectRequest(b *testing.B) {
	tool := &DialectTool{Dialect: "x", Name: "Read", Params: []string{"file_path", "offset=start_line", "limit"}}
	b.Run("canonical", func(b *testing.B) {
		for b.Loop() {
			var p benchRead
			if err := DecodeRequest(strings.NewReader(`{"file_path":"a.go","start_line":2,"limit":5}`), &p); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("dialect", func(b *testing.B) {
		for b.Loop() {
			var p benchRead
			if err := DecodeDialectRequest(strings.NewReader(`{"file_path":"a.go","offset":2,"limit":5}`), &p, tool); err != nil {
				b.Fatal(err)
			}
		}
	})
}

type benchRead struct {
	FilePath  string `json:"file_path" required:""`
	StartLine int    `json:"start_line"`
	Limit     int    `json:"limit" default:"2000"`
}

func (*benchRead) Run(context.Context, *Env) (*Result, error) { return nil, nil }

// An envelope whose data cannot be encoded answers with an internal error envelope and
// nothing else on the line; a failing writer's error is returned, not papered over.
func TestWriteJSONFallbackAndWriteErrors(t *testing.T) {
	var buf bytes.Buffer
	if err := OutputEnvelope(&Result{Data: map[string]any{"f": func() {}}}, 0).WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil || got["type"] != "error" || !strings.Contains(got["error_text"].(string), "could not be encoded") {
		t.Fatalf("want one internal error envelope, got %q (%v)", buf.String(), err)
	}
	if strings.Count(buf.String(), "\n") != 1 {
		t.Fatalf("want one line, got %q", buf.String())
	}
	if err := OutputEnvelope(&Result{Data: "x"}, 0).WriteJSON(failingWriter{}); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("want the writer's error, got %v", err)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// TestLoneSurrogatesRefused: a \uD800-\uDFFF escape that is not a high surrogate
// followed by a low one is no character; encoding/json would read it as U+FFFD, so an
// edit would write, or match, text that was never sent.
func TestLoneSurrogatesRefused(t *testing.T) {
	for req, bad := range map[string]bool{
		`{"msg":"\ud800"}`:               true,
		`{"msg":"\udfff\ud800"}`:         true,
		`{"msg":"x\udfffy"}`:             true,
		`{"msg":"\ud800\u0041"}`:         true,
		`{"msg":"a\\\ud800"}`:            true,
		`{"msg":"\ud83d\ude00"}`:         false,
		`{"msg":"\\ud800 is text"}`:      false,
		`{"msg":"\u00e9 \uffff \u0000"}`: false,
		`{"msg":"\"\ud83d\ude00\""}`:     false,
	} {
		_, err := parseObject([]byte(req))
		if got := err != nil && strings.Contains(err.Error(), "lone UTF-16 surrogate"); got != bad {
			t.Errorf("%s: refused %v (%v), want %v", req, got, err, bad)
		}
	}
}
