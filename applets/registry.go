// Package applets holds one file per applet and the one explicit applet table, All.
// Dispatch, --list, install links, help, man pages, completions, prompt and mcp all
// read All; adding an applet is one file, one table line and one testdata/script file.
package applets

import "github.com/agentbox/agentbox/core"

// All is the applet table, in the order --list shows it.
var All = []core.Spec{
	{
		Name: "skill", Aliases: []string{"list_skills", "Skill"}, Kind: core.KindRead,
		Summary:     "List available skills, or load one skill's instructions",
		Description: "Lists the skills (folders with a SKILL.md) found in the project's .agentbox/skills, .claude/skills and .agents/skills and in the user's config, or loads one skill's body into context with action load.",
		Guidelines:  []string{"Load a skill with skill load NAME when its description matches the task, before starting the task."},
		New:         func() core.Command { return &Skill{Action: "list"} },
		ReadOnly:    true, Idempotent: true,
		Example: `{"action":"load","name":"release-notes"}`,
	},
}
