package suggest

import "testing"

func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"read", "read", 0}, {"", "abc", 3}, {"abc", "", 3},
		{"grep", "gerp", 2}, {"kitten", "sitting", 3}, {"rea", "read", 1}, {"fs.raed", "fs.read", 2},
	} {
		if got := EditDistance(c.a, c.b); got != c.want {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := EditDistance(c.b, c.a); got != c.want {
			t.Errorf("EditDistance(%q, %q) = %d, want %d (symmetric)", c.b, c.a, got, c.want)
		}
	}
}
