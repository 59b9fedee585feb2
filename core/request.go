package core

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxRequestBytes bounds a JSON request. A write of a larger file should be split, or
// done by a person from the shell (write reads its content from stdin there).
const MaxRequestBytes = 64 << 20

// DecodeRequest reads exactly one JSON object from r into cmd, strictly: malformed JSON,
// a non-object, trailing data, duplicate or unknown fields are invalid_params errors
// that say what and where; oversized input is too_large. Dialect aliases are mapped to canonical
// names, defaults are applied, and the result is validated against the schema before it
// is decoded into cmd. Empty input counts as {}.
func DecodeRequest(r io.Reader, cmd Command) error {
	return DecodeDialectRequest(r, cmd, nil)
}

// DecodeDialectRequest is DecodeRequest for a call in a dialect's shape: the request is
// first rewritten into the applet's canonical names (see DialectTool.ToCanonical). A nil
// tool is agentbox's own dialect.
func DecodeDialectRequest(r io.Reader, cmd Command, tool *DialectTool) error {
	data, err := io.ReadAll(io.LimitReader(r, MaxRequestBytes+1))
	if err != nil {
		return Errorf(CodeIOError, "could not read the JSON request from stdin: %v", err)
	}
	if len(data) > MaxRequestBytes {
		return Errorf(CodeTooLarge, "the JSON request is larger than %d MiB; send less data per call (for example write a large file in parts, or read a file by path instead of passing it inline)", MaxRequestBytes>>20)
	}
	obj, err := parseObject(data)
	if err != nil {
		return err
	}
	return FillDialectParams(obj, cmd, tool)
}

// FillDialectParams is FillParams for a call in a dialect's shape (nil: agentbox's own).
// A refused call names the dialect's parameters, which are the ones the model knows.
func FillDialectParams(obj map[string]any, cmd Command, tool *DialectTool) error {
	if tool == nil {
		return FillParams(obj, cmd)
	}
	p := ParamsOf(cmd)
	if err := tool.ToCanonical(obj, p); err != nil {
		return err
	}
	if err := FillParams(obj, cmd); err != nil {
		e := AsError(err)
		if e.Code == CodeInvalidParams {
			e = &Error{Code: e.Code, Message: e.Message + fmt.Sprintf(" (the parameters of %s: %s)", tool.Name, tool.ParamNames(p)), Meta: e.Meta, Details: e.Details}
		}
		return e
	}
	return nil
}

// FillParams canonicalises, defaults, validates and decodes an already-parsed request
// object into cmd. MCP and tests use it directly.
func FillParams(obj map[string]any, cmd Command) error {
	p := ParamsOf(cmd)
	dropNulls(obj)
	if err := p.Canonicalize(obj, ""); err != nil {
		return err
	}
	present := make(map[string]bool, len(obj))
	for k := range obj {
		present[k] = true
	}
	p.ApplyDefaults(obj)
	if err := p.Validate(obj); err != nil {
		return err
	}
	action, _ := obj["action"].(string)
	if err := checkActionFields(cmd, present, action); err != nil {
		return err
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return Errorf(CodeInternal, "re-encoding the request failed: %v", err)
	}
	if err := json.Unmarshal(b, cmd); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) {
			if k := ute.Type.Kind(); strings.HasPrefix(ute.Value, "number") && k >= reflect.Int && k <= reflect.Uint64 {
				return Errorf(CodeInvalidParams, "field %q: %s is not a whole number in range; write it in digits (1000, not 1e3 or 1.5)", ute.Field, strings.TrimPrefix(ute.Value, "number "))
			}
			return Errorf(CodeInvalidParams, "field %q: %s does not fit a %s; pass a value of the right type", ute.Field, ute.Value, ute.Type)
		}
		return Errorf(CodeInvalidParams, "invalid parameters: %v", err)
	}
	if pc, ok := cmd.(RequestChecker); ok {
		return pc.CheckRequest(present)
	}
	return nil
}

// RequestChecker is implemented by an applet whose request has rules its schema cannot
// state: a field needed unless another is given (edit's new_string, so that a call cut
// short is refused instead of read as the field's zero value), two fields that must not
// both be given, values no schema keyword describes (a NUL in a command line). Both the
// JSON and the shell path call it.
type RequestChecker interface {
	// CheckRequest is given the fields the request set (before defaults), after the
	// request was decoded into the applet.
	CheckRequest(present map[string]bool) error
}

// dropNulls removes null members from obj and the objects inside it: null means "not
// given". Strict tool schemas (OpenAI's) make every parameter required and the optional
// ones nullable, so a model fills the parameters it does not use with null.
func dropNulls(obj map[string]any) {
	for k, v := range obj {
		switch vv := v.(type) {
		case nil:
			delete(obj, k)
		case map[string]any:
			dropNulls(vv)
		case []any:
			for _, item := range vv {
				if m, ok := item.(map[string]any); ok {
					dropNulls(m)
				}
			}
		}
	}
}

func parseObject(data []byte) (map[string]any, error) {
	// A UTF-8 byte order mark before the object (PowerShell and Notepad write one) is
	// no part of it, as RFC 8259 lets a parser ignore it.
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return map[string]any{}, nil
	}
	if trimmed[0] != '{' {
		return nil, Errorf(CodeInvalidParams, "the request must be one JSON object ({\"field\": value, ...}); got input starting with %q", clip(string(trimmed), 20))
	}
	if !utf8.Valid(data) {
		// encoding/json would turn the bad bytes into U+FFFD silently: a path would
		// then name another file.
		off := 0
		for off < len(data) {
			r, size := utf8.DecodeRune(data[off:])
			if r == utf8.RuneError && size == 1 {
				break
			}
			off += size
		}
		line, col := lineCol(data, int64(off))
		return nil, Errorf(CodeInvalidParams, "the request is not valid UTF-8 (byte 0x%02x at line %d, column %d); JSON must be UTF-8, so send text (and file names) as UTF-8", data[off], line, col)
	}
	if off := loneSurrogate(data); off >= 0 {
		line, col := lineCol(data, int64(off))
		return nil, Errorf(CodeInvalidParams, "the request has a lone UTF-16 surrogate escape (%s at line %d, column %d), which is no character: encoding/json would read it as U+FFFD and a path or an edit would name other text; escape characters outside the BMP as a pair (\\ud83d\\ude00) or send them as UTF-8", data[off:off+6], line, col)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec, "", 0)
	if err != nil {
		return nil, syntaxError(data, dec, err)
	}
	if off := dec.InputOffset(); len(bytes.TrimSpace(data[off:])) > 0 {
		off += int64(len(data[off:]) - len(bytes.TrimLeft(data[off:], " \t\r\n")))
		line, col := lineCol(data, off)
		return nil, Errorf(CodeInvalidParams, "trailing data after the JSON object at line %d, column %d (%q); send exactly one object per call", line, col, clip(string(bytes.TrimSpace(data[off:])), 20))
	}
	return v.(map[string]any), nil
}

// maxDepth bounds the nesting of a request; the deepest applet parameter is 3 levels.
const maxDepth = 32

// decodeValue builds a JSON value from tokens so that duplicate keys, which
// encoding/json would silently resolve to the last one, are reported.
func decodeValue(dec *json.Decoder, path string, depth int) (any, error) {
	if depth > maxDepth {
		return nil, Errorf(CodeInvalidParams, "the request is nested more than %d levels deep%s; no applet takes such a structure", maxDepth, where(path))
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			obj := map[string]any{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, _ := kt.(string)
				if _, dup := obj[key]; dup {
					return nil, Errorf(CodeInvalidParams, "field %q appears twice%s; give each field once", key, where(path))
				}
				v, err := decodeValue(dec, join(path, key), depth+1)
				if err != nil {
					return nil, err
				}
				obj[key] = v
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return obj, nil
		case '[':
			arr := []any{}
			for dec.More() {
				v, err := decodeValue(dec, fmt.Sprintf("%s[%d]", path, len(arr)), depth+1)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return arr, nil
		}
	}
	return tok, nil
}

func syntaxError(data []byte, dec *json.Decoder, err error) error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	off := dec.InputOffset()
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = se.Offset
	}
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		off = int64(len(data))
		err = errors.New("unexpected end of input (is the object closed?)")
	}
	line, col := lineCol(data, off)
	return Errorf(CodeInvalidParams, "malformed JSON request at line %d, column %d: %v; send one valid JSON object", line, col, err)
}

func lineCol(data []byte, off int64) (int, int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(off) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}

func decodeNumber(b []byte, out *any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return dec.Decode(out)
}

func clip(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// loneSurrogate returns the offset of a \uD800-\uDFFF escape in data's strings that is
// not a high surrogate followed by a low one, or -1. Only the escapes are looked at:
// an escaped backslash (\\u...) is text, not an escape.
func loneSurrogate(data []byte) int {
	surrogate := func(i int) (hi, lo bool) {
		if i+6 > len(data) || data[i] != '\\' || data[i+1] != 'u' {
			return false, false
		}
		v, err := strconv.ParseUint(string(data[i+2:i+6]), 16, 16)
		if err != nil {
			return false, false
		}
		return v >= 0xD800 && v < 0xDC00, v >= 0xDC00 && v < 0xE000
	}
	for i := 0; i < len(data); i++ {
		if data[i] != '\\' {
			continue
		}
		if i+1 < len(data) && data[i+1] != 'u' {
			i++ // \\, \", \n...: skip the escaped byte
			continue
		}
		switch hi, lo := surrogate(i); {
		case hi:
			if _, lo2 := surrogate(i + 6); !lo2 {
				return i
			}
			i += 11
		case lo:
			return i
		default:
			i += 5
		}
	}
	return -1
}
