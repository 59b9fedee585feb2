package core

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// Caps on what an error envelope may carry, whatever the input: a model that sends a
// 20 MB path or an edit that matches 200,000 places still gets an answer it can read.
// The whole error envelope stays under MaxErrorEnvelope.
const (
	MaxErrorText     = 8 << 10  // error_text: head and tail kept, the middle cut with a note
	MaxErrorMeta     = 32 << 10 // metadata (details, decision, ...) before its parts are clipped
	maxMetaString    = 1 << 10  // a string in clipped metadata
	maxMetaList      = 50       // items of a list in clipped metadata
	MaxErrorEnvelope = 64 << 10
	// MaxPathBytes is Linux's PATH_MAX: a longer path cannot name a file, so it is
	// refused before anything is created or echoed.
	MaxPathBytes = 4096
)

// ClipMiddle shortens s to about n bytes, keeping its head and tail and saying how
// much was cut; it never splits a UTF-8 sequence.
func ClipMiddle(s string, n int) string {
	if len(s) <= n {
		return s
	}
	head, tail := n*3/4, n/4
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	start := len(s) - tail
	for start < len(s) && !utf8.RuneStart(s[start]) {
		start++
	}
	return fmt.Sprintf("%s… [%d bytes cut] …%s", s[:head], start-head, s[start:])
}

// boundMeta returns md as it will be encoded, with long strings and lists clipped
// when the whole would be larger than MaxErrorMeta.
func boundMeta(md map[string]any) map[string]any {
	b, err := json.Marshal(md)
	if err != nil || len(b) <= MaxErrorMeta {
		return md
	}
	var generic map[string]any
	if json.Unmarshal(b, &generic) != nil {
		return md
	}
	out, _ := boundValue(generic).(map[string]any)
	if b, err := json.Marshal(out); err == nil && len(b) > MaxErrorMeta {
		// Still too large (a wide object): keep only what a model needs.
		return map[string]any{"error_code": md["error_code"], "duration_ms": md["duration_ms"],
			"details_omitted": fmt.Sprintf("the metadata was %d bytes; it was left out", len(b))}
	}
	return out
}

func boundValue(v any) any {
	switch x := v.(type) {
	case string:
		return ClipMiddle(x, maxMetaString)
	case []any:
		n := len(x)
		if n > maxMetaList {
			x = append(x[:maxMetaList:maxMetaList], fmt.Sprintf("… and %d more", n-maxMetaList))
		}
		for i := range x {
			x[i] = boundValue(x[i])
		}
		return x
	case map[string]any:
		for k, e := range x {
			x[k] = boundValue(e)
		}
		return x
	}
	return v
}
