package core

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
)

// Envelope is the one shape every call returns (reference 002):
// {type, data | error_text, metadata}.
type Envelope struct {
	Type      string         `json:"type"` // "output" or "error"
	Data      any            `json:"data,omitempty"`
	ErrorText string         `json:"error_text,omitempty"`
	Metadata  map[string]any `json:"metadata"`
}

// OutputEnvelope wraps a result.
func OutputEnvelope(r *Result, d int64) Envelope {
	md := map[string]any{}
	for k, v := range r.Meta {
		md[k] = v
	}
	md["duration_ms"] = d
	if r.Truncated {
		md["truncated"] = true
		if r.OutputPath != "" {
			md["output_path"] = r.OutputPath
		}
	}
	data := r.Data
	if data == nil {
		data = map[string]any{}
	}
	return Envelope{Type: "output", Data: data, Metadata: md}
}

// ErrorEnvelope wraps a failure.
func ErrorEnvelope(e *Error, d int64) Envelope {
	md := map[string]any{}
	for k, v := range e.Meta {
		md[k] = v
	}
	md["duration_ms"] = d
	md["error_code"] = string(e.Code)
	if e.Details != nil {
		md["details"] = e.Details
	}
	return Envelope{Type: "error", ErrorText: ClipMiddle(e.Message, MaxErrorText), Metadata: boundMeta(md)}
}

// WriteJSON prints the envelope as one line of JSON. HTML escaping is off: the reader
// is a program or a model, not a browser. The encoder builds the whole line before its
// one Write (no second copy of a large result), so an envelope that cannot be encoded
// has written nothing when the fallback is written. Data that is a JSONStreamer is
// written through a buffer as it is encoded instead, after the metadata has been
// encoded (the one part that could fail).
func (env Envelope) WriteJSON(w io.Writer) error {
	cw := &countingWriter{w: w}
	if s, ok := env.Data.(JSONStreamer); ok && env.ErrorText == "" {
		meta, err := encodeNoHTML(env.Metadata)
		if err == nil {
			bw := bufio.NewWriterSize(cw, 64<<10)
			bw.WriteString(`{"type":`)
			bw.Write(AppendJSONString(nil, []byte(env.Type)))
			bw.WriteString(`,"data":`)
			if err = s.StreamJSON(bw); err == nil {
				bw.WriteString(`,"metadata":`)
				bw.Write(meta)
				bw.WriteString("}\n")
				return bw.Flush()
			}
		}
		if cw.wrote {
			return err
		}
		return env.writeFallback(w, err)
	}
	enc := json.NewEncoder(cw)
	enc.SetEscapeHTML(false)
	err := enc.Encode(env)
	if err != nil && !cw.wrote {
		return env.writeFallback(w, err)
	}
	return err
}

// writeFallback answers with an error envelope when the data could not be encoded (an
// applet bug).
func (Envelope) writeFallback(w io.Writer, err error) error {
	fallback := ErrorEnvelope(Errorf(CodeInternal, "the result could not be encoded as JSON: %v", err), 0)
	return json.NewEncoder(w).Encode(fallback)
}

// encodeNoHTML is json.Marshal with HTML escaping off, as envelopes are written.
func encodeNoHTML(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// countingWriter tells a write error from an encoding error.
type countingWriter struct {
	w     io.Writer
	wrote bool
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.wrote = true
	return c.w.Write(p)
}
