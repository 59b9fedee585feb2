package textedit

import "testing"

// The fourth red team of edits. F1: a whitespace match of an old_string copied from its
// first word on in 2-space steps, for a file of 4: lines at the first line's level went
// 2 columns too deep. F4, F7: a fuzzy match wrote the model's wrong copy of lines
// new_string leaves unchanged. F6: a fuzzy window with a blank line old_string lacks
// indented the first line twice. F9: 2-space nesting in a tab file became tabs and
// spaces. F2, F3: a one-line old_string whose later lines nest plausibly either way.
// F5: blanks inside a line carried into text the model typed. F8: an exact match from
// mid-line whose new_string goes on at column 0.
func TestEditRedTeamRound4(t *testing.T) {
	const (
		f1b = "class A:\n    def f(self):\n        if x:\n            a = 1\n            b = 2\n        return a\n"
		f7  = "def configure(app):\n    app.config['A'] = compute_alpha_value()\n    app.config['B'] = compute_beta_value()\n    app.config['C'] = compute_gamma_value()\n    app.config['D'] = compute_delta_value()\n    app.config['E'] = compute_epsilon_value()\n    return app\n"
		f7s = "def configure(app):\n    app.config['A'] = compute_alpha_value()\n    app.config['C'] = compute_gamma_value()\n    app.config['B'] = compute_beta_value()\n    app.config['D'] = compute_delta_value()\n    app.config['E'] = compute_epsilon_value()\n    return app"
		f8  = "def f():\n    if x:\n        foo()\n"
	)
	runWrongEditCases(t, []wrongEditCase{
		// F1
		{name: "F1 a method added after a 2-space copy", text: "class A:\n    def f(self):\n        return 1\n\n    def h(self):\n        pass\n",
			edit: Edit{Old: "def f(self):\n  return 1", New: "def f(self):\n  return 1\n\ndef g(self):\n  return 2"},
			want: "class A:\n    def f(self):\n        return 1\n\n    def g(self):\n        return 2\n\n    def h(self):\n        pass\n"},
		{name: "F1 an if unwrapped", text: f1b, edit: Edit{Old: "if x:\n  a = 1\n  b = 2", New: "a = 1\nb = 2"},
			want: "class A:\n    def f(self):\n        a = 1\n        b = 2\n        return a\n"},
		{name: "F1 an else added", text: f1b, edit: Edit{Old: "if x:\n  a = 1\n  b = 2", New: "if x:\n  a = 1\n  b = 2\nelse:\n  a = 0"},
			want: "class A:\n    def f(self):\n        if x:\n            a = 1\n            b = 2\n        else:\n            a = 0\n        return a\n"},
		{name: "F1 a line before", text: f1b, edit: Edit{Old: "if x:\n  a = 1\n  b = 2", New: "a = 0\nif x:\n  a = 1\n  b = 2"},
			want: "class A:\n    def f(self):\n        a = 0\n        if x:\n            a = 1\n            b = 2\n        return a\n"},
		{name: "F1 a line moved out", text: f1b, edit: Edit{Old: "if x:\n  a = 1\n  b = 2", New: "if x:\n  a = 1\nb = 2"},
			want: "class A:\n    def f(self):\n        if x:\n            a = 1\n        b = 2\n        return a\n"},
		{name: "F1 a decorator", text: "class A:\n    def f(self):\n        return 1\n",
			edit: Edit{Old: "def f(self):\n  return 1", New: "@property\ndef f(self):\n  return 1"},
			want: "class A:\n    @property\n    def f(self):\n        return 1\n"},
		{name: "F1 a new nesting level", text: f1b, edit: Edit{Old: "if x:\n  a = 1\n  b = 2", New: "if x:\n  a = 1\n  if y:\n    b = 2"},
			want: "class A:\n    def f(self):\n        if x:\n            a = 1\n            if y:\n                b = 2\n        return a\n"},
		{name: "F1 yaml", text: "services:\n    web:\n        image: nginx\n",
			edit: Edit{Old: "web:\n  image: nginx", New: "web:\n  image: nginx\ndb:\n  image: postgres"},
			want: "services:\n    web:\n        image: nginx\n    db:\n        image: postgres\n"},
		{name: "F1 a line before a 2-space copy", text: f8, edit: Edit{Old: "if x:\n  foo()", New: "y = 1\nif x:\n  foo()"},
			want: "def f():\n    y = 1\n    if x:\n        foo()\n"},
		{name: "F1 one line, a step of 2 or a shift of 4", text: "def f():\n    if a:\n        b()\n    c()\n",
			edit: Edit{Old: "    b()", New: "    b()\n  else:\n    d()"}, fail: "refused"},
		// F4, F7
		{name: "F4 a typo in an unchanged line", text: "def load(path):\n    with open(path) as fh:\n        data = fh.read()\n    return parse(data)\n",
			edit: Edit{Fuzzy: true, Old: "def load(path):\n    with open(path) as fh:\n        data = fh.raed()\n    return parse(data)",
				New: "def load(path):\n    with open(path) as fh:\n        data = fh.raed()\n    return parse(data, strict=True)"},
			want: "def load(path):\n    with open(path) as fh:\n        data = fh.read()\n    return parse(data, strict=True)\n"},
		{name: "F4 a stale value in an unchanged line", text: "x = 1\nname = \"prod\"\ny = 2\n",
			edit: Edit{Fuzzy: true, Old: "x = 1\nname = \"dev\"\ny = 2", New: "x = 10\nname = \"dev\"\ny = 2"},
			fail: "refused"}, // the seventh round: a stale value is no typo; the edit may rest on it
		// The sixth round: an old line the file has as it is, paired with another one,
		// is refused (old_string reorders or leaves out lines), not put back in order.
		{name: "F7 swapped lines stay in the file's order", text: f7,
			edit: Edit{Fuzzy: true, Old: f7s, New: f7s + "  # done"}, fail: "refused"},
		{name: "F7 a typo in an unchanged line", text: f7,
			edit: Edit{Fuzzy: true, Old: "    app.config['B'] = compute_bteta_value()\n    app.config['C'] = compute_gamma_value()\n    app.config['D'] = compute_delta_value()",
				New: "    app.config['B'] = compute_bteta_value()\n    app.config['C'] = compute_gamma_value(1)\n    app.config['D'] = compute_delta_value()"},
			want: "def configure(app):\n    app.config['A'] = compute_alpha_value()\n    app.config['B'] = compute_beta_value()\n    app.config['C'] = compute_gamma_value(1)\n    app.config['D'] = compute_delta_value()\n    app.config['E'] = compute_epsilon_value()\n    return app\n"},
		{name: "F4 a wrapped line kept unchanged", text: "result = some_function(first_argument,\n    second_argument)\nnext_line()\n",
			edit: Edit{Fuzzy: true, Old: "result = some_function(first_argument, second_argumnt)\nnext_line()", New: "result = some_function(first_argument, second_argumnt)\nnext_line(1)"}, fail: "refused"},
		// F6
		{name: "F6 a blank line old_string lacks", text: "def a():\n    x = 0\n    return 1\n\ndef b():\n    return 2\n",
			edit: Edit{Fuzzy: true, Old: "    return 1\ndef b():", New: "    return 10\ndef b():"},
			want: "def a():\n    x = 0\n    return 10\n\ndef b():\n    return 2\n"},
		{name: "F6 in a class", text: "class K:\n    def a(self):\n        return 1\n\n    def b(self):\n        return 2\n",
			edit: Edit{Fuzzy: true, Old: "        return 1\n    def b(self):\n        return 2", New: "        return 10\n    def b(self):\n        return 20"},
			want: "class K:\n    def a(self):\n        return 10\n\n    def b(self):\n        return 20\n"},
		// F9
		{name: "F9 2-space nesting in a tab file", text: "func f() {\n\tif a {\n\t\tx()\n\t\ty()\n\t}\n}\n",
			edit: Edit{Old: "    x()\n    y()", New: "    x()\n    if b {\n      y()\n    }"},
			want: "func f() {\n\tif a {\n\t\tx()\n\t\tif b {\n\t\t\ty()\n\t\t}\n\t}\n}\n"},
		{name: "F9 python", text: "def f():\n\tif a:\n\t\tif b:\n\t\t\tgamma146 = call(98)\n\t\t\ttheta932 = call(8)\n",
			edit: Edit{Old: "      gamma146 = call(98)\n      theta932 = call(8)", New: "      gamma146 = call(98)\n      if guard:\n        theta932 = call(8)"},
			want: "def f():\n\tif a:\n\t\tif b:\n\t\t\tgamma146 = call(98)\n\t\t\tif guard:\n\t\t\t\ttheta932 = call(8)\n"},
		// F2
		{name: "F2 shell case", text: "case \"$1\" in\n  start)\n    run\n    ;;\nesac\n",
			edit: Edit{Old: "start)", New: "stop)\n  halt\n  ;;\nstart)"}, fail: "refused"},
		{name: "F2 lua", text: "local M = {}\nif x then\n  function M.f()\n    return 1\n  end\nend\n",
			edit: Edit{Old: "function M.f()", New: "function M.g()\n  return 2\nend\nfunction M.f()"}, fail: "refused"},
		{name: "F2 sql", text: "BEGIN\n  SELECT 1;\nEND;\n",
			edit: Edit{Old: "SELECT 1;", New: "SELECT 2\n  FROM t;\nSELECT 1;"}, fail: "refused"},
		{name: "F2 generic", text: "A\n  B\n    C\n", edit: Edit{Old: "B", New: "X\n  Y\nB"}, fail: "refused"},
		{name: "F2 js", text: "function f() {\n  g();\n}\n", edit: Edit{Old: "g();", New: "foo()\n  .bar();\ng();"}, fail: "refused"},
		{name: "F2 xml", text: "<root>\n  <a/>\n</root>\n", edit: Edit{Old: "<a/>", New: "<b\n  x=\"1\"/>\n<a/>"}, fail: "refused"},
		{name: "F2 python comment", text: "def f():\n    g()\n", edit: Edit{Old: "g()", New: "# helper\n    h()\ng()"}, fail: "refused"},
		// F3
		{name: "F3 yaml sub-item", text: "- a\n  - b\n- c\n", edit: Edit{Old: "- b", New: "- b\n  - b1"}, fail: "refused"},
		{name: "F3 yaml sub-item, 4 spaces", text: "- a\n    - b\n- c\n", edit: Edit{Old: "- b", New: "- b\n    - b1"}, fail: "refused"},
		{name: "F3 generic", text: "A\n  B\n    C\n", edit: Edit{Old: "B", New: "B\n  Y\n  Z"}, fail: "refused"},
		// F5
		{name: "F5 new text takes its own spacing", text: "print('a  b')\n", edit: Edit{Old: "print('a b')", New: "print('c d')"}, want: "print('c d')\n"},
		{name: "F5 swapped lines keep their own spacing", text: "a = 'x  y'\nb = 'p q'\n",
			edit: Edit{Old: "a = 'x y'\nb = 'p q'", New: "b = 'p q'\na = 'x y'"}, want: "b = 'p q'\na = 'x  y'\n"},
		{name: "F5 a changed line does not take another's spacing", text: "a = 'x  y'\nb = 'p q'\n",
			edit: Edit{Old: "a = 'x y'\nb = 'p q'", New: "c = 'p q'\nb = 'p q'"}, want: "c = 'p q'\nb = 'p q'\n"},
		{name: "F5 a comment added", text: "msg = \"hello  world\"\n", edit: Edit{Old: "msg = \"hello world\"", New: "msg = \"hello world\"  # greet"},
			want: "msg = \"hello  world\"  # greet\n"},
		{name: "F5 an argument added", text: "s = f('a  b')\n", edit: Edit{Old: "s = f('a b')", New: "s = f(x, 'a b')"}, want: "s = f(x, 'a  b')\n"},
		{name: "F5 a tab in a literal", text: "s = 'a\tb'\n", edit: Edit{Old: "s = 'a b'", New: "s = 'a b'  # x"}, want: "s = 'a\tb'  # x\n"},
		// F8
		{name: "F8 a line before", text: f8, edit: Edit{Old: "if x:\n        foo()", New: "y = 1\nif x:\n        foo()"}, fail: "refused"},
		{name: "F8 two spaces", text: "def f():\n  if x:\n    foo()\n", edit: Edit{Old: "if x:\n    foo()", New: "y = 1\nif x:\n    foo()"}, fail: "refused"},
		{name: "F8 go", text: "func f() {\n\tif x {\n\t\tfoo()\n\t}\n}\n", edit: Edit{Old: "if x {\n\t\tfoo()\n\t}", New: "y := 1\nif x {\n\t\tfoo()\n\t}"}, fail: "refused"},
		{name: "F8 yaml", text: "root:\n  web:\n    image: a\n", edit: Edit{Old: "web:\n    image: a", New: "web:\n    image: a\ndb:\n    image: b"}, fail: "refused"},
	})
}
