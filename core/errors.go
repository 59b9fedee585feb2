package core

import (
	"errors"
	"fmt"
)

// ErrorCode is the closed set of machine-readable failure kinds that appear as
// metadata.error_code. A harness can branch on it; the model reads error_text.
type ErrorCode string

// The error codes. The set is closed: adding one is a contract change.
const (
	CodeInvalidParams    ErrorCode = "invalid_params"
	CodeNotFound         ErrorCode = "not_found"
	CodeIsDirectory      ErrorCode = "is_directory"
	CodeBinaryFile       ErrorCode = "binary_file"
	CodeOutsideWorkspace ErrorCode = "outside_workspace"
	CodePermissionDenied ErrorCode = "permission_denied"
	CodeConflict         ErrorCode = "conflict"
	CodeNoMatch          ErrorCode = "no_match"
	CodeAmbiguousMatch   ErrorCode = "ambiguous_match"
	CodeTimeout          ErrorCode = "timeout"
	CodeInterrupted      ErrorCode = "interrupted" // a signal or the client's cancel ended the call
	CodeNeedsInput       ErrorCode = "needs_input"
	CodeTooLarge         ErrorCode = "too_large"
	CodeIOError          ErrorCode = "io_error"
	CodeInternal         ErrorCode = "internal"
)

// ErrorCodes lists every code, in documentation order.
var ErrorCodes = []ErrorCode{
	CodeInvalidParams, CodeNotFound, CodeIsDirectory, CodeBinaryFile, CodeOutsideWorkspace,
	CodePermissionDenied, CodeConflict, CodeNoMatch, CodeAmbiguousMatch, CodeTimeout,
	CodeInterrupted, CodeNeedsInput, CodeTooLarge, CodeIOError, CodeInternal,
}

// Error is a tool failure: it becomes an error envelope with exit status 1; an error
// raised before the applet ran (bad flags or request, an unusable environment) exits 2,
// an interrupted call 130. Message is written for a model: what
// went wrong and what to do next. Details, when set, is structured data that lands in
// metadata.details (for example which edit of a multi-edit failed).
type Error struct {
	Code    ErrorCode
	Message string
	Details any
	// Meta adds keys to the envelope's metadata (for example the policy decision).
	Meta map[string]any
}

func (e *Error) Error() string { return e.Message }

// Errorf builds an *Error with a formatted message.
func Errorf(code ErrorCode, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// WithDetails attaches structured details and returns e.
func (e *Error) WithDetails(d any) *Error {
	e.Details = d
	return e
}

// AsError converts any error into an *Error, classifying the common standard-library
// failures so that an applet can return a plain error and still get a useful code.
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: classify(err), Message: err.Error()}
}
