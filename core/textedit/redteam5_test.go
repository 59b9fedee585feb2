package textedit

import "testing"

// The fifth red team of edits. N1, N2: a fuzzy match paired old_string's lines with the
// file's by position, so a line old_string has in another order, or lacks, cost the
// file another line (lost, duplicated, deleted). N3: a changed line carried old_string's
// typo into the file.
func TestEditRedTeamRound5(t *testing.T) {
	const (
		imports = "import os\nimport sys\nimport json\nimport time\n"
		af      = "a = 1\nb = 2\nc = 3\nd = 4\ne = 5\nf = 6\n"
		blk     = "def configure(app):\n    app.config['A'] = compute_alpha_value()\n    app.config['B'] = compute_beta_value()\n    app.config['C'] = compute_gamma_value()\n    app.config['D'] = compute_delta_value()\n    app.config['E'] = compute_epsilon_value()\n    return app\n"
		blkC    = "def configure(app):\n    app.config['A'] = compute_alpha_value()\n    app.config['B'] = compute_beta_value()\n    app.config['D'] = compute_delta_value()\n    app.config['E'] = compute_epsilon_value()\n    app.config['C'] = compute_gamma_value()\n    return app"
		svc     = "class Service:\n    def run(self, items):\n        total = 0\n        for item in items:\n            total += item.value\n        return total\n"
		f1b     = "class A:\n    def f(self):\n        if x:\n            a = 1\n            b = 2\n        return a\n"
		fsave   = "def f():\n    validate(data)\n    save(data)\n    notify(user)\n    return data\n"
	)
	runWrongEditCases(t, []wrongEditCase{
		// N1
		{name: "N1 imports swapped, one changed", text: imports,
			edit: Edit{Fuzzy: true, Old: "import os\nimport json\nimport sys\nimport time", New: "import os\nimport json\nimport sys as system\nimport time"}, fail: "refused"},
		{name: "N1 imports swapped, CRLF", text: "import os\r\nimport sys\r\nimport json\r\nimport time\r\n",
			edit: Edit{Fuzzy: true, Old: "import os\nimport json\nimport sys\nimport time", New: "import os\nimport json\nimport sys as system\nimport time"}, fail: "refused"},
		{name: "N1 assignments swapped, one changed", text: af,
			edit: Edit{Fuzzy: true, Old: "a = 1\nc = 3\nb = 2\nd = 4\ne = 5\nf = 6", New: "a = 1\nc = 3\nb = 20\nd = 4\ne = 5\nf = 6"}, fail: "refused"},
		{name: "N1 a line moved down, it changed", text: blk,
			edit: Edit{Fuzzy: true, Old: blkC, New: replaceOnce(blkC, "compute_gamma_value()", "compute_gamma_value(1)")}, fail: "refused"},
		{name: "N1 a line moved down, the next changed", text: blk,
			edit: Edit{Fuzzy: true, Old: blkC, New: replaceOnce(blkC, "compute_delta_value()", "compute_delta_value(1)")}, fail: "refused"},
		{name: "N1 a line moved down, one above changed", text: blk,
			edit: Edit{Fuzzy: true, Old: blkC, New: replaceOnce(blkC, "compute_alpha_value()", "compute_alpha_value(1)")},
			fail: "refused"}, // the sixth round: lines in another order are refused
		{name: "N1 a line added among lines out of order", text: blk,
			edit: Edit{Fuzzy: true, Old: blkC, New: replaceOnce(blkC, "    app.config['E']", "    x = 1\n    app.config['E']")}, fail: "refused"},
		// N2
		{name: "N2 a debug print the file lacks", text: fsave,
			edit: Edit{Fuzzy: true, Old: "def f():\n    validate(data)\n    print(data)\n    notify(user)\n    return data", New: "def f():\n    validate(data)\n    notify(user)\n    return data"}, fail: "refused"},
		{name: "N2 a debug print the file lacks, replaced", text: fsave,
			edit: Edit{Fuzzy: true, Old: "def f():\n    validate(data)\n    print(data)\n    notify(user)\n    return data", New: "def f():\n    validate(data)\n    log.debug(data)\n    notify(user)\n    return data"}, fail: "refused"},
		{name: "N2 a duplicate import the file lacks", text: imports,
			edit: Edit{Fuzzy: true, Old: "import os\nimport sys\nimport sys\nimport time", New: "import os\nimport sys\nimport time"}, fail: "refused"},
		{name: "N2 a duplicate assignment the file lacks", text: af,
			edit: Edit{Fuzzy: true, Old: "a = 1\nb = 2\nb = 2\nd = 4\ne = 5\nf = 6", New: "a = 1\nb = 2\nd = 4\ne = 5\nf = 6"}, fail: "refused"},
		{name: "N2 which of two calls", text: "register_handler(primary_queue, 1)\nregister_handler(primary_queue, 2)\nstart()\n",
			edit: Edit{Fuzzy: true, Old: "register_handler(primary_queue, 1)\nregister_handler(primary_queue, 1)\nstart()", New: "register_handler(primary_queue, 1)\nstart()"}, fail: "refused"},
		// N3
		{name: "N3 a parameter added to a misremembered signature", text: svc,
			edit: Edit{Fuzzy: true, Old: "    def run(self, item):\n        total = 0\n        for item in items:\n            total += item.value",
				New: "    def run(self, item, scale=1):\n        total = 0\n        for item in items:\n            total += item.value * scale"}, fail: "refused"},
		{name: "N3 a stale version kept on a changed line", text: "{\n  \"dependencies\": {\n    \"lodash\": \"^4.17.21\"\n  }\n}\n",
			edit: Edit{Fuzzy: true, Old: "  \"dependencies\": {\n    \"lodash\": \"^4.17.2\"\n  }", New: "  \"dependencies\": {\n    \"lodash\": \"^4.17.2\",\n    \"axios\": \"^1.6.0\"\n  }"},
			fail: "refused"}, // the sixth round: the model's change touches the file's difference
		{name: "N3 an if unwrapped, a stale value", text: f1b,
			edit: Edit{Fuzzy: true, Old: "if x:\n    a = 1\n    b = 22", New: "a = 1\nb = 22"},
			fail: "refused"}, // the seventh round: a stale value is no typo
		{name: "N3 a line with a typo wrapped in an if", text: "def f():\n    x = compute_delta_value()\n    return x\n",
			edit: Edit{Fuzzy: true, Old: "    x = compute_deltta_value()\n    return x", New: "    if debug:\n        x = compute_deltta_value()\n    return x"},
			want: "def f():\n    if debug:\n        x = compute_delta_value()\n    return x\n"},
		{name: "N3 a line with a typo duplicated", text: "def f():\n    x = compute_delta_value()\n    return x\n",
			edit: Edit{Fuzzy: true, Old: "    x = compute_deltta_value()\n    return x", New: "    x = compute_deltta_value()\n    y = compute_deltta_value()\n    return x"},
			fail: "refused"}, // the sixth round: a copy of a misremembered line carries old_string's text
		{name: "N3 go, a typo in a line re-indented", text: "func f() {\n\tx()\n\ty()\n\tz()\n}\n",
			edit: Edit{Fuzzy: true, Old: "\tx()\n\tyy()\n\tz()", New: "\tx()\n\tif ok {\n\t\tyy()\n\t}\n\tz()"},
			fail: "refused"}, // the seventh round: a word this short cannot be told to be a typo
		{name: "N3 a value changed over a stale one", text: "x = 1\ny = 2\nz = 3\n",
			edit: Edit{Fuzzy: true, Old: "x = 1\ny = 5\nz = 3", New: "x = 1\ny = 55\nz = 3"}, want: "x = 1\ny = 55\nz = 3\n"},
	})
}

func replaceOnce(s, old, new string) string {
	for i := 0; i+len(old) <= len(s); i++ {
		if s[i:i+len(old)] == old {
			return s[:i] + new + s[i+len(old):]
		}
	}
	panic("replaceOnce: " + old + " not in " + s)
}

// N8: an exact match that ends inside a word, with lines added after it, glued the rest
// of the word onto the last added line.
func TestEditRedTeamRound5WordEnd(t *testing.T) {
	runWrongEditCases(t, []wrongEditCase{
		{name: "N8 an import after a cut word", text: "import os\nimport sys\n",
			edit: Edit{Old: "import os\nimport sy", New: "import os\nimport sy\nimport json"}, fail: "refused"},
		{name: "N8 fuzzy asked, exact found", text: "import os\nimport sys\n",
			edit: Edit{Fuzzy: true, Old: "import os\nimport sy", New: "import os\nimport sy\nimport json"}, fail: "refused"},
		{name: "N8 a line after a cut argument", text: "x = compute(alpha)\ny = 2\n",
			edit: Edit{Old: "x = compute(alph", New: "x = compute(alph\nz = 3"}, fail: "refused"},
		{name: "N8 a keyword cut from its module", text: "import os\nimport sys\nimport re\n",
			edit: Edit{Old: "import os\nimport", New: "import os\nimport\nimport json"}, fail: "refused"},
		// Guards: still applied.
		{name: "N8 lines before the cut line finish the word", text: "import os\nimport sys\n",
			edit: Edit{Old: "import os\nimport sy", New: "import os\nimport json\nimport sy"}, want: "import os\nimport json\nimport sys\n"},
		{name: "N8 a word changed in place", text: "x = compute_alpha(1)\n",
			edit: Edit{Old: "compute_al", New: "compute_ALPHA_al"}, want: "x = compute_ALPHA_alpha(1)\n"},
	})
}

// N4, N5, N9: old_string copied from its first word on, its later lines mapped by their
// own shift (a hanging indent, a copy at the model's absolute columns), placed a new
// line at an indentation those lines do not show off the file's grid.
func TestEditRedTeamRound5LaterLines(t *testing.T) {
	const (
		hang = "head:\n    x = foo(\n            a)\n    tail()\n"
		abs  = "def main():\n    if a:\n        if b:\n            x = 1\n    return None\n"
		tabs = "def main():\n\tif a:\n\t\tif b:\n\t\t\tx = 1\n\treturn None\n"
	)
	runWrongEditCases(t, []wrongEditCase{
		{name: "N4 a line after a hanging indent", text: hang,
			edit: Edit{Old: "x = foo(\n    a)", New: "x = foo(\n    a)\ny = 1"}, fail: "refused"},
		{name: "N4 a line after a hanging indent of 12", text: "head:\n    x = foo(\n                a)\n    tail()\n",
			edit: Edit{Old: "x = foo(\n  a)", New: "x = foo(\n  a)\ny = 1"}, fail: "refused"},
		{name: "N4 an if after a hanging indent", text: "def f():\n    x = foo(\n            a)\n    return x\n",
			edit: Edit{Old: "x = foo(\n    a)", New: "x = foo(\n    a)\nif x:\n  x += 1"}, fail: "refused"},
		{name: "N5 a sibling in a 2-space view", text: abs,
			edit: Edit{Old: "if b:\n      x = 1", New: "if b:\n      x = 1\n    y = 2"}, fail: "refused"},
		{name: "N5 a line between in a 2-space view", text: abs,
			edit: Edit{Old: "x = 1\n  return None", New: "x = 1\n    y = 2\n  return None"}, fail: "refused"},
		{name: "N5 tabs in an 8-column view", text: tabs,
			edit: Edit{Old: "x = 1\n        return None", New: "x = 1\n                        y = 2\n        return None"}, fail: "refused"},
		{name: "N9 an 8-space copy nests in a 4-space file", text: "class A:\n    def f(self):\n        if x:\n            a = 1\n            b = 2\n        return a\n",
			edit: Edit{Old: "if x:\n        a = 1\n        b = 2", New: "if x:\n        a = 1\n        if y:\n                b = 2"}, fail: "refused"},
		// Guards: still applied.
		{name: "N4 a line inside the continuation", text: hang,
			edit: Edit{Old: "x = foo(\n    a)", New: "x = foo(\n    a,\n    b)"}, want: "head:\n    x = foo(\n            a,\n            b)\n    tail()\n"},
		{name: "N5 tabs in a 4-column view, a line after x", text: tabs,
			edit: Edit{Old: "x = 1\n    return None", New: "x = 1\n            y = 2\n    return None"}, want: "def main():\n\tif a:\n\t\tif b:\n\t\t\tx = 1\n\t\t\ty = 2\n\treturn None\n"},
	})
}

// N6: a bare copy of tab-indented lines, new nesting written in spaces: tabs and spaces.
func TestEditRedTeamRound5MixedIndent(t *testing.T) {
	const gofile = "func f() {\n\tif a {\n\t\tx()\n\t\ty()\n\t}\n}\n"
	runWrongEditCases(t, []wrongEditCase{
		{name: "N6 go, 2 spaces", text: gofile, edit: Edit{Old: "x()\ny()", New: "x()\nif b {\n  y()\n}"}, fail: "refused"},
		{name: "N6 go, 3 spaces", text: gofile, edit: Edit{Old: "x()\ny()", New: "x()\nif b {\n   y()\n}"}, fail: "refused"},
		{name: "N6 python", text: "def f():\n\tif a:\n\t\tx()\n\t\ty()\n", edit: Edit{Old: "x()\ny()", New: "x()\nif b:\n  y()"}, fail: "refused"},
		// Guard: 4-space nesting is converted.
		{name: "N6 go, 4 spaces", text: gofile, edit: Edit{Old: "x()\ny()", New: "x()\nif b {\n    y()\n}"},
			want: "func f() {\n\tif a {\n\t\tx()\n\t\tif b {\n\t\t\ty()\n\t\t}\n\t}\n}\n"},
	})
}
