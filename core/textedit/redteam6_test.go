package textedit

import "testing"

// The sixth red team of edits, against the fifth round's fuzzy rules. D1: a changed
// line whose copy differed from the file only in blanks was written as new_string has
// it (blanks that mean something: [ "$MODE" = "prod" ] became an always-true test). D2,
// D6: the model's change merged onto a line that differs elsewhere made an expression
// nobody wrote ("if not options.verbose:"). D3, D5: a line deleted or changed for a
// line the file has otherwise (a neighbouring block, disable_feature for the model's
// enable_feature). D7: a misremembered line split, joined or copied carried its typo in.
func TestEditRedTeamRound6(t *testing.T) {
	const (
		sh   = "#!/bin/sh\nset -eu\nif [ \"$MODE\" = \"prod\" ]; then\n  deploy_to_production_cluster\nfi\n"
		proc = "def process_records(records, options):\n    normalized = normalize_all_records(records)\n    timeout = base_timeout * 30\n    return normalized\n"
		cls  = "def classify(v):\n    if v < 0:\n        return None\n    if v == 0:\n        return None\n    if v > 100:\n        return None\n    return v\n"
		js   = "async function a() {\n  if (x) {\n    step(1);\n  }\n  if (y) {\n    step(2);\n  }\n  return 0;\n}\n"
		feat = "def process_records(records, options):\n    normalized = normalize_all_records(records)\n    disable_feature(\"beta_checkout\")\n    return normalized\n"
		bld  = "def build(alpha, beta, gamma):\n    prepared = prepare_inputs(alpha)\n    result = compute_everything(alpha, beta, gamma)\n    return result\n"
	)
	runWrongEditCases(t, []wrongEditCase{
		{name: "D1 a shell test's blanks", text: sh,
			edit: Edit{Fuzzy: true, Old: "set -eu\nif [ \"$MODE\"=\"prod\" ]; then\n  deploy_to_productoin_cluster\nfi",
				New: "set -eu\nif [ \"$MODE\"=\"production\" ]; then\n  deploy_to_productoin_cluster\nfi"},
			want: "#!/bin/sh\nset -eu\nif [ \"$MODE\" = \"production\" ]; then\n  deploy_to_production_cluster\nfi\n"},
		{name: "D1 blanks in a string literal", text: "def handler(request):\n    payload = parse_request_body(request)\n    log.info(\"start  processing\")\n    return respond(payload)\n",
			edit: Edit{Fuzzy: true, Old: "def handler(request):\n    payload = parse_reqest_body(request)\n    log.info(\"start processing\")\n    return respond(payload)",
				New: "def handler(request):\n    payload = parse_reqest_body(request)\n    log.info(\"start processing\", extra=request.id)\n    return respond(payload)"},
			want: "def handler(request):\n    payload = parse_request_body(request)\n    log.info(\"start  processing\", extra=request.id)\n    return respond(payload)\n"},
		{name: "D2 a change next to what the file has otherwise", text: proc,
			edit: Edit{Fuzzy: true, Old: "def process_records(records, options):\n    normalized = normalize_all_recrods(records)\n    timeout = base_timeout * 3\n    return normalized",
				New: "def process_records(records, options):\n    normalized = normalize_all_recrods(records)\n    timeout = base_timeout / 3\n    return normalized"}, fail: "refused"},
		{name: "D2 a condition the file negates", text: "def f(options):\n    run_everything_now()\n    if not options.dry_run:\n        go()\n",
			edit: Edit{Fuzzy: true, Old: "def f(options):\n    run_everythign_now()\n    if options.dry_run:\n        go()",
				New: "def f(options):\n    run_everythign_now()\n    if options.verbose:\n        go()"}, fail: "refused"},
		{name: "D3 a forgotten branch among alike ones", text: cls,
			edit: Edit{Fuzzy: true, Old: "    if v < 0:\n        return None\n    if v > 100:\n        return None\n    return v",
				New: "    if v < 0:\n        return 0\n    if v > 100:\n        return None\n    return v"}, fail: "refused"},
		{name: "D3 a forgotten block, exact lines first", text: js,
			edit: Edit{Fuzzy: true, Old: "  if (x) {\n    step(1);\n  }\n  return 0;", New: "  if (x) {\n    await step(1);\n  }\n  return 0;"}, fail: "refused"},
		{name: "D5 the file's line says the opposite", text: feat,
			edit: Edit{Fuzzy: true, Old: "def process_records(records, options):\n    normalized = normalize_all_recrods(records)\n    enable_feature(\"beta_checkout\")\n    return normalized",
				New: "def process_records(records, options):\n    normalized = normalize_all_recrods(records)\n    return normalized"}, fail: "refused"},
		{name: "D6 a token the file has twice", text: "def f(self):\n    self.prepare_everything()\n    result = self.registry.combine_values(alpha, alpha, gamma, strict=True)\n",
			edit: Edit{Fuzzy: true, Old: "def f(self):\n    self.prepare_everythign()\n    result = self.registry.combine_values(alpha, gamma, strict=True)",
				New: "def f(self):\n    self.prepare_everythign()\n    result = self.registry.combine_values(zeta, gamma, strict=True)"}, fail: "refused"},
		{name: "D7 a misremembered line split", text: bld,
			edit: Edit{Fuzzy: true, Old: "    prepared = prepare_inputs(alpha)\n    result = compute_everything(alpha, beta, gama)\n    return result",
				New: "    prepared = prepare_inputs(alpha)\n    result = compute_everything(\n        alpha, beta, gama\n    )\n    return result"}, fail: "refused"},
		// Still made: a typo on a line new_string keeps, a whole line replaced.
		{name: "a kept line's typo", text: bld,
			edit: Edit{Fuzzy: true, Old: "    prepared = prepare_inputs(alpha)\n    result = compute_everything(alpha, beta, gama)\n    return result",
				New: "    prepared = prepare_inputs(alpha, strict=True)\n    result = compute_everything(alpha, beta, gama)\n    return result"},
			want: "def build(alpha, beta, gamma):\n    prepared = prepare_inputs(alpha, strict=True)\n    result = compute_everything(alpha, beta, gamma)\n    return result\n"},
	})
}
