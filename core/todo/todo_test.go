package todo

import (
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	ok := []Item{{ID: "1", Content: "Run tests", Status: InProgress}, {Content: "Fix bug", Status: Pending}, {Content: "Read", Status: Completed}}
	if err := Validate(ok, false); err != nil {
		t.Fatal(err)
	}
	two := []Item{{Content: "a", Status: InProgress}, {Content: "b", Status: InProgress}}
	if err := Validate(two, false); err == nil || !strings.Contains(err.Error(), "both in_progress") {
		t.Errorf("two in progress: %v", err)
	}
	if err := Validate(two, true); err != nil {
		t.Errorf("allowMulti: %v", err)
	}
	bad := map[string][]Item{
		"share the id":     {{ID: "x", Content: "a", Status: Pending}, {ID: "x", Content: "b", Status: Pending}},
		"same item":        {{Content: "a", Status: Pending}, {Content: " a ", Status: Completed}},
		"has status":       {{Content: "a", Status: "done"}},
		"no content":       {{Content: "  ", Status: Pending}},
		"must be one line": {{Content: "a\nb", Status: Pending}},
	}
	for want, items := range bad {
		err := Validate(items, false)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v: err = %v, want %q", items, err, want)
		}
	}
	if err := Validate(make([]Item, MaxItems+1), false); err == nil {
		t.Error("accepted an oversized list")
	}
}
