package textedit

import (
	"regexp"
	"strings"
)

// Models that tire of copying code write an omission placeholder instead
// ("// ... existing code ...", "(rest of methods ...)", "# rest unchanged"). Applied
// literally, it deletes the code it stands for, so an edit whose new_string brings in
// such a line that old_string did not hold is refused.
var (
	// The placeholder vocabulary opens the comment: "// ... existing code ...", not
	// "// Loading existing config...".
	placeholderWords = regexp.MustCompile(`(?i)^(\.\.\.|…)?\s*(keep |the |all )?(existing|rest|remaining|unchanged|previous|other|same|omitted|original)\b`)
	placeholderRest  = regexp.MustCompile(`(?i)^(the )?(rest|remainder)( of( the)? (file|code|methods|functions|class|implementation|body|lines|content))?( (is|are|remains?|stays?))? unchanged\.?$`)
	commentLeader    = regexp.MustCompile(`^(//+|#+|/\*+|\*+|<!--|--|;+|%+|\(|\[)\s*`)
	commentTrailer   = regexp.MustCompile(`\s*(\*+/|-->|\)|\])$`)
)

// Placeholder returns the first line of text that is an omission placeholder and is
// not also a line of old, or "".
func Placeholder(old, text string) string {
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		if t == "" || strings.Contains(old, t) {
			continue
		}
		body := commentLeader.ReplaceAllString(t, "")
		if body == t {
			continue // code, not a comment: fmt.Println("loading existing data...")
		}
		body = strings.TrimSpace(commentTrailer.ReplaceAllString(body, ""))
		dots := strings.Contains(body, "...") || strings.Contains(body, "…")
		if dots && placeholderWords.MatchString(body) && len(body) < 80 {
			return t
		}
		if placeholderRest.MatchString(body) {
			return t
		}
	}
	return ""
}
