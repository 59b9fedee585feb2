package textedit

import (
	"regexp"
	"strings"
	"sync"
)

// Models that tire of copying code write an omission placeholder instead
// ("// ... existing code ...", "(rest of methods ...)", "# rest unchanged", a bare
// "# ..."). Applied literally, it deletes the code it stands for, so an edit whose
// new_string brings in such a line that old_string did not hold is refused: always for
// the unmistakable forms (an ellipsis and the vocabulary first, "rest ... unchanged"),
// as gemini-cli refuses them; the looser forms ("// Existing code here", a bare "...",
// "// ... b() and c() unchanged ...") where new_string also drops a line of old_string.
var (
	// The unmistakable forms open the comment with the vocabulary: "// ... existing
	// code ...", not "// Loading existing config...".
	placeholderStrict = lazyRegexp(`(?i)^(\.\.\.|…)?\s*(keep |the |all )?(existing|rest|remaining|unchanged|previous|other|same|omitted|original)\b`)
	placeholderRest   = lazyRegexp(`(?i)^(the )?(rest|remainder)( of( the)? (file|code|methods|functions|class|implementation|body|lines|content))?( (is|are|remains?|stays?))? unchanged\.?$`)
	// With an ellipsis, one of these words anywhere marks a placeholder: "// ... existing
	// code ...", "// ... b() and c() unchanged ...", "// ... snip ...".
	placeholderWord = lazyRegexp(`(?i)\b(existing|rest|remaining|remainder|unchanged|previous|other|same|omitted|original|snip|snipped|elided|truncated)\b`)
	// Without one, the comment must say it outright: "// Existing code here", "// rest of
	// the function unchanged", "# [existing code]".
	placeholderPhrase = lazyRegexp(`(?i)^((keep|the|all) )?(existing|previous|original|remaining) (code|implementation|methods|functions|content|lines)\b|^(the )?(rest|remainder)\b.*\b(unchanged|same|as before|omitted|here|follows? unchanged)\.?$|^(snip|snipped|omitted|elided)\b`)
	commentLeader     = lazyRegexp(`^(//+|#+|/\*+|\*+|<!--|--|;+|%+|\(|\[)\s*`)
	commentTrailer    = lazyRegexp(`\s*(\*+/|-->|\)|\])$`)
	onlyDots          = lazyRegexp(`^(\.\s*){3,}$|^…+$`)
)

// lazyRegexp compiles a pattern on first use: case-insensitive patterns cost
// milliseconds to compile, which every applet's start-up would pay at package init.
func lazyRegexp(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}

// Placeholder returns the first line of text that is an omission placeholder and is
// not also a line of old, where text drops a line old holds; or "".
func Placeholder(old, text string) string {
	drops := dropsALine(old, text)
	// A bare "..." in place of one line deletes no more than that line, which the edit
	// replaces anyway: it is code (a Python stub's body, a doctest's continuation).
	oneLine := strings.Count(strings.TrimSpace(old), "\n") == 0
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		if t == "" || strings.Contains(old, t) {
			continue
		}
		if onlyDots().MatchString(t) && drops && !oneLine {
			return t // a bare "..." where code was
		}
		body := commentLeader().ReplaceAllString(t, "")
		if body == t {
			continue // code, not a comment: fmt.Println("loading existing data...")
		}
		body = strings.TrimSpace(commentTrailer().ReplaceAllString(body, ""))
		dots := strings.Contains(body, "...") || strings.Contains(body, "…")
		if dots && len(body) < 80 && placeholderStrict().MatchString(body) || placeholderRest().MatchString(body) {
			return t
		}
		if !drops {
			continue
		}
		body = strings.TrimSpace(strings.NewReplacer("(", " ", ")", " ", "[", " ", "]", " ").Replace(body))
		switch {
		case onlyDots().MatchString(body):
			return t // "# ...", "/* ... */" (a bare "#" is a character, or an empty comment)
		case dots && len(body) < 80 && placeholderWord().MatchString(body) && (strings.HasPrefix(body, ".") || strings.HasPrefix(body, "…") || placeholderWord().FindStringIndex(body)[0] == 0):
			// "... b() and c() unchanged ...", "existing code ...", not "Loading
			// existing config...".
			return t
		case placeholderPhrase().MatchString(strings.Trim(body, ".… ")):
			return t
		}
	}
	return ""
}

// dropsALine reports whether a non-blank line of old is missing from text.
func dropsALine(old, text string) bool {
	kept := map[string]bool{}
	for _, l := range strings.Split(text, "\n") {
		kept[strings.TrimSpace(l)] = true
	}
	for _, l := range strings.Split(old, "\n") {
		if t := strings.TrimSpace(l); t != "" && !kept[t] {
			return true
		}
	}
	return false
}
