package textedit

import "testing"

// The seventh red team of edits, against the sixth round's rules: blanks at the edge of
// a changed word taken from old_string (NAME = other became NAME= other, a command), a
// typo of a kept line written on a new line, a line split that lost the file's words,
// and a kept line of the opposite sense (> for <) anchoring the change.
func TestEditRedTeamRound7(t *testing.T) {
	const (
		head  = "def process_records(records, options):\n    normalized = normalize_all_records(records)\n"
		headT = "def process_records(records, options):\n    normalized = normalize_all_recrods(records)\n"
	)
	runWrongEditCases(t, []wrongEditCase{
		{name: "C1 a shell assignment's blanks", text: "#!/bin/sh\nset -eu\nexport DEPLOY_TARGET=production\nNAME=service\necho \"$NAME\"\n",
			edit: Edit{Fuzzy: true, Old: "#!/bin/sh\nset -eu\nexport DEPLOY_TARGT=production\nNAME = service\necho \"$NAME\"",
				New: "#!/bin/sh\nset -eu\nexport DEPLOY_TARGT=production\nNAME = other\necho \"$NAME\""}, fail: "refused"},
		{name: "WC1 a kept line's typo on a new line", text: "def fetch(url):\n    response = http.get(url, timeout=10)\n    return response.json()\n",
			edit: Edit{Fuzzy: true, Old: "def fetch(url):\n    reponse = http.get(url, timeout=10)\n    return response.json()",
				New: "def fetch(url):\n    reponse = http.get(url, timeout=10)\n    reponse.raise_for_status()\n    return response.json()"}, fail: "refused"},
		{name: "X1 a line split that drops the file's word", text: head + "    result = compute(alpha, beta, gamma)\n    return result\n",
			edit: Edit{Fuzzy: true, Old: headT + "    result = compute(alpha, gamma)\n    return result",
				New: headT + "    result = compute(\n        alpha,\n        gamma,\n    )\n    return result"}, fail: "refused"},
		{name: "KP2 a kept condition of the opposite sense", text: head + "    if len(records) < options.limit:\n        normalized = normalized[:10]\n    return normalized\n",
			edit: Edit{Fuzzy: true, Old: headT + "    if len(records) > options.limit:\n        normalized = normalized[:10]\n    return normalized",
				New: headT + "    if len(records) > options.limit:\n        normalized = normalized[:options.limit]\n    return normalized"}, fail: "refused"},
		{name: "D5b another host kept", text: "{\n  \"production\": {\n    \"host\": \"prod.example.com\",\n    \"port\": 443\n  },\n  \"staging\": {\n    \"host\": \"staging.example.com\",\n    \"port\": 443\n  }\n}\n",
			edit: Edit{Fuzzy: true, Old: "  \"stagin\": {\n    \"host\": \"prod.example.co\",\n    \"port\": 443", New: "  \"stagin\": {\n    \"host\": \"prod.example.co\",\n    \"port\": 8443"}, fail: "refused"},
		// Still made: a typo on a kept line far from the change.
		{name: "a typo two lines off", text: head + "    count = len(normalized)\n    return normalized\n",
			edit: Edit{Fuzzy: true, Old: headT + "    count = len(normalized)\n    return normalized", New: headT + "    count = len(normalized) + 1\n    return normalized"},
			want: head + "    count = len(normalized) + 1\n    return normalized\n"},
	})
}
